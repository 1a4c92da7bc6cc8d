"""Log-probs of G completions per prompt with each prompt run through the model once.

A GRPO batch holds G completions of every prompt. Run as full rows, the
model computes every prompt's hidden states G times, although all G copies
are identical: on tiny-arith (17 prompt tokens, 8 completion tokens, G=8)
that is 68% of the tokens of a step. Here each distinct prompt of a
micro-batch goes through the model once (with gradients), its keys/values
are gathered once per completion, and the completions run on top of them.
The shared pass also covers the tokens every completion of the prompt
starts with (a fixed answer format such as "#### " is 5 of tiny-arith's 8
completion tokens once the model has learnt it): their log-probs come from
it once, and each completion runs only from where it differs. Autograd sums
the G completions' gradients through the gathered cache and log-probs into
the one shared pass, so the loss and its gradients are those of the full
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

from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from transformers.cache_utils import Cache

PASS_OVERHEAD_TOKENS = 64  # a pass's fixed cost in padded tokens (the tiny model's per-call overhead on CPU)


def shared_prompt_logprobs(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                           prompt_lengths: np.ndarray, last: int) -> torch.Tensor:
    """[B, last] raw-model log-probs of the completion tokens, each distinct prompt computed once.

    `prompt_lengths[i]`: how many of row i's real tokens are its prompt; the rest, up to the right edge,
    are its completion. Rows whose prompts are the same tokens share one pass over the prompt and over the
    tokens all their completions start with (see the module docstring).
    """
    ids = input_ids.cpu().numpy()
    width = ids.shape[1]
    starts = width - attention_mask.sum(dim=1).cpu().numpy()
    prompt_of, prompts = _distinct_prompts(ids, starts, prompt_lengths)
    completion_lengths = width - starts - prompt_lengths
    completions = _left_aligned(ids, completion_lengths)                                     # [B, span]
    first_row = np.unique(prompt_of, return_index=True)[1]  # [P] each prompt's first row (prompts are numbered so)
    common = _common_starts(completions, completion_lengths, prompt_of, first_row)            # [P]
    row_common = common[prompt_of]                                                          # [B]
    device = input_ids.device

    # The shared pass: prompt + common start, whose last common + 1 positions predict completion tokens 0..common.
    prefix_ids, prefix_mask = _left_padded([(*prompts[g], *completions[first_row[g], :common[g]].tolist())
                                            for g in range(len(prompts))], device)
    keep = int(common.max()) + 1
    out = model(input_ids=prefix_ids, attention_mask=prefix_mask,
                position_ids=(prefix_mask.cumsum(dim=1) - 1).clamp(min=0), use_cache=True, logits_to_keep=keep)
    shared = out.logits.float().log_softmax(dim=-1)                                            # [P, keep, V]
    row, k = _tokens(np.minimum(row_common + 1, completion_lengths))
    logprobs = shared.new_zeros(completions.shape).index_put(
        (_long(row, device), _long(k, device)),
        shared[_long(np.asarray(prompt_of)[row], device), _long(keep - 1 - row_common[row] + k, device),
               _long(completions[row, k], device)])
    # Each row's own pass, on the shared pass's cache: its tokens after the common start predict the rest.
    # Rows of similar length run together (`length_buckets`), so a short row is not padded to the longest.
    own = np.maximum(completion_lengths - 1 - row_common, 0)                                # [B]
    buckets = length_buckets(own)
    for b, rows in enumerate(buckets):
        selected = _long(np.asarray(prompt_of)[rows], device)                                 # [b] their prompts
        cache = out.past_key_values if b == len(buckets) - 1 else _copy_cache(out.past_key_values, model)
        cache.batch_select_indices(selected)
        bucket_own = own[rows]
        steps = np.arange(bucket_own.max())
        columns = np.minimum(row_common[rows, None] + steps, completions.shape[1] - 1)
        own_ids = np.where(steps < bucket_own[:, None], np.take_along_axis(completions[rows], columns, axis=1), 0)
        own_mask = torch.as_tensor(steps < bucket_own[:, None], device=device).to(prefix_mask.dtype)  # 0: masked
        logits = model(input_ids=_long(own_ids, device),
                       attention_mask=torch.cat([prefix_mask[selected], own_mask], dim=1),
                       position_ids=prefix_mask.sum(dim=1)[selected][:, None] + _long(steps, device),
                       past_key_values=cache, use_cache=True).logits.float()                # [b, M, V]
        local, j = _tokens(bucket_own)
        row = rows[local]
        k = row_common[row] + 1 + j
        picked = logits[_long(local, device), _long(j, device)]                               # [N, V]
        logprobs = logprobs.index_put((_long(row, device), _long(k, device)),
                                      picked.gather(1, _long(completions[row, k], device)[:, None]).squeeze(1)
                                      - picked.logsumexp(dim=-1))
    return _into_tail(logprobs, completion_lengths, last)


def length_buckets(lengths: np.ndarray, overhead: int = PASS_OVERHEAD_TOKENS) -> list[np.ndarray]:
    """Rows with a positive length split into at most three groups of similar length, each run as one pass
    padded to its longest row: the split that minimises padded tokens plus `overhead` per extra pass (none when
    splitting saves less). Completions of a few tokens stay one pass; 75-105-token ones (the long workload)
    pad about a fifth less in two or three."""
    rows = np.flatnonzero(lengths > 0)
    if not len(rows):
        return []
    order = rows[np.argsort(lengths[rows], kind="stable")]
    n, sorted_lengths = len(order), lengths[order]
    ends = np.arange(1, n + 1)                      # a bucket ends after row k - 1 of `order`
    one = n * sorted_lengths[-1]
    two = ends[:-1] * sorted_lengths[:-1] + (n - ends[:-1]) * sorted_lengths[-1] + overhead   # [n-1]
    i, j = np.triu_indices(n - 1, k=1)              # first bucket ends at i, second at j
    three = ends[i] * sorted_lengths[i] + (j - i) * sorted_lengths[j] + (n - 1 - j) * sorted_lengths[-1] + 2 * overhead
    best = min([(one, ())] + ([(two.min(), (int(two.argmin()) + 1,))] if len(two) else [])
               + ([(three.min(), (int(i[three.argmin()]) + 1, int(j[three.argmin()]) + 1))] if len(three) else []),
               key=lambda option: option[0])
    return [bucket for bucket in np.split(order, list(best[1]))]


def _copy_cache(cache: "Cache", model: torch.nn.Module) -> "Cache":
    """A new cache holding the same key/value tensors (still in the autograd graph), so selecting rows from it
    leaves `cache` whole for the next bucket."""
    from transformers import DynamicCache

    copy = DynamicCache(config=model.config)
    for index, layer in enumerate(cache.layers):
        copy.update(layer.keys, layer.values, layer_idx=index)
    return copy


def _left_aligned(ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """[B, span] completion ids from column 0 (they end at the right edge of `ids`), right-padded with 0."""
    width = ids.shape[1]
    columns = np.arange(max(int(lengths.max()), 1))
    taken = np.take_along_axis(ids, np.minimum(width - lengths[:, None] + columns, width - 1), axis=1)
    return np.where(columns < lengths[:, None], taken, 0)


def _common_starts(completions: np.ndarray, lengths: np.ndarray, prompt_of: list[int],
                   first_row: np.ndarray) -> np.ndarray:
    """[P] how many leading tokens every completion of each prompt has in common (at most the shortest one's
    length: a completion that is only the common start is still predicted). `completions`: `_left_aligned`;
    `first_row[g]`: the first row of prompt g, which the others are compared with."""
    agree = np.cumprod(completions == completions[first_row[prompt_of]], axis=1).sum(axis=1)  # with its first row
    common = np.full(len(first_row), completions.shape[1], dtype=np.int64)
    np.minimum.at(common, prompt_of, np.minimum(agree, lengths))
    return common


def _tokens(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, index) of the first `counts[i]` tokens of every row i, as flat arrays."""
    k = np.arange(max(int(counts.max()), 1))[None, :]
    row, index = np.nonzero(k < counts[:, None])
    return row, index


def _long(values: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.as_tensor(np.asarray(values, dtype=np.int64), device=device)


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
