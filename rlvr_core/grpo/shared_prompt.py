"""Log-probs of G completions per prompt with each prompt run through the model once.

A GRPO batch holds G completions of every prompt. Run as full rows, the
model computes every prompt's hidden states G times, although all G copies
are identical: on tiny-arith (17 prompt tokens, 8 completion tokens, G=8)
that is 68% of the tokens of a step. Here each distinct prompt of a
micro-batch goes through the model once (with gradients), its keys/values
are gathered once per completion, and the completions run on top of them.
Autograd sums the G completions' gradients through the gathered cache into
the one prompt pass, so the loss and its gradients are those of the full
rows up to float rounding (`tests/grpo/test_shared_prompt.py`). The same
idea as "Prefix Grouper" (Liu et al. 2025), on the model's own KV cache
instead of a custom attention kernel, so it works for any Hugging Face
causal LM with a `DynamicCache`.

Input and output keep the trainer's layout (`trainer.token_logprobs` with
`last=K`): rows left-padded to one right edge, and [B, K] log-probs of the
last K target columns. A completion token that lies outside those K
columns is not returned (the caller trains none there); a column holding
a prompt token gets 0 (its completion mask is 0).
"""

from __future__ import annotations

import numpy as np
import torch


def shared_prompt_logprobs(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                           prompt_lengths: np.ndarray, last: int) -> torch.Tensor:
    """[B, last] raw-model log-probs of the completion tokens, each distinct prompt computed once.

    `prompt_lengths[i]`: how many of row i's real tokens are its prompt; the rest, up to the right edge,
    are its completion. Rows whose prompts are the same tokens share one prompt pass.
    """
    ids = input_ids.cpu().numpy()
    rows, width = ids.shape
    starts = width - attention_mask.sum(dim=1).cpu().numpy()
    prompt_of, prompts = _distinct_prompts(ids, starts, prompt_lengths)
    completion_lengths = width - starts - prompt_lengths
    device = input_ids.device
    group = torch.as_tensor(prompt_of, device=device)

    prompt_ids, prompt_mask = _left_padded(prompts, device)
    out = model(input_ids=prompt_ids, attention_mask=prompt_mask,
                position_ids=(prompt_mask.cumsum(dim=1) - 1).clamp(min=0), use_cache=True, logits_to_keep=1)
    completion_ids = _right_aligned_to_left(ids, completion_lengths, device)                  # [B, Lc]
    first = out.logits[:, -1].float().log_softmax(dim=-1)[group]                             # [B, V]
    logprobs = [first.gather(1, completion_ids[:, :1])]                                      # [B, 1]
    span = completion_ids.shape[1]
    if span > 1:
        cache = out.past_key_values
        cache.batch_select_indices(group)
        steps = torch.arange(span - 1, device=device)
        completion_mask = (steps < torch.as_tensor(completion_lengths, device=device)[:, None]).to(prompt_mask.dtype)
        logits = model(input_ids=completion_ids[:, :-1], attention_mask=torch.cat([prompt_mask[group], completion_mask], dim=1),
                       position_ids=prompt_mask.sum(dim=1)[group][:, None] + steps, past_key_values=cache,
                       use_cache=True).logits.float()                                        # [B, Lc-1, V]
        logprobs.append(logits.gather(-1, completion_ids[:, 1:, None]).squeeze(-1) - logits.logsumexp(dim=-1))
    return _into_tail(torch.cat(logprobs, dim=1), completion_lengths, last)


def _distinct_prompts(ids: np.ndarray, starts: np.ndarray,
                      prompt_lengths: np.ndarray) -> tuple[list[int], list[tuple[int, ...]]]:
    """Each row's prompt index, and the distinct prompts in order of first appearance."""
    index: dict[tuple[int, ...], int] = {}
    prompt_of = [index.setdefault(tuple(ids[i, s:s + n].tolist()), len(index))
                 for i, (s, n) in enumerate(zip(starts.tolist(), prompt_lengths.tolist()))]
    return prompt_of, list(index)


def _left_padded(prompts: list[tuple[int, ...]], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """[P, Lp] ids and attention mask of the prompts, left-padded as `generate` pads them (with id 0: a
    padded position is masked, so any id in the vocabulary does)."""
    width = max(len(p) for p in prompts)
    ids = np.zeros((len(prompts), width), dtype=np.int64)
    mask = np.zeros((len(prompts), width), dtype=np.int64)
    for i, prompt in enumerate(prompts):
        ids[i, width - len(prompt):] = prompt
        mask[i, width - len(prompt):] = 1
    return torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)


def _right_aligned_to_left(ids: np.ndarray, lengths: np.ndarray, device: torch.device) -> torch.Tensor:
    """[B, Lc] completion ids starting at column 0 (they end at the right edge of `ids`), right-padded with 0."""
    rows, width = ids.shape
    span = max(int(lengths.max()), 1)
    out = np.zeros((rows, span), dtype=np.int64)
    for i, n in enumerate(lengths.tolist()):
        out[i, :n] = ids[i, width - n:]
    return torch.from_numpy(out).to(device)


def _into_tail(logprobs: torch.Tensor, lengths: np.ndarray, last: int) -> torch.Tensor:
    """Move completion token k of row i (column k of `logprobs`) to tail column last - n_i + k; the rest is 0."""
    rows, span = logprobs.shape
    k = np.arange(span)[None, :]
    column = last - lengths[:, None] + k
    keep = (k < lengths[:, None]) & (column >= 0)
    row_index, k_index = np.nonzero(keep)
    device = logprobs.device
    tail = logprobs.new_zeros((rows, last))
    return tail.index_put((torch.as_tensor(row_index, device=device), torch.as_tensor(column[keep], device=device)),
                          logprobs[torch.as_tensor(row_index, device=device), torch.as_tensor(k_index, device=device)])
