"""Raw-model log-probs by one forward pass, and the spot check that proves a weight sync landed.

After the trainer pushes weights into a backend it calls `logprob_spot_check`:
if the backend's log-probs of fixed tokens differ from the trainer model's,
the sync failed (wrong keys, dtype drift, a stale engine) and rollouts would
silently come from another policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rlvr_core.generation.base import GenerationBackend, SamplingParams

if TYPE_CHECKING:
    from transformers import PreTrainedModel


def sequence_logprobs(model: "PreTrainedModel", prompts: Sequence[Sequence[int]],
                      completions: Sequence[Sequence[int]], pad_token_id: int) -> list[list[float]]:
    """log π(completion token | prefix) for each completion token, one left-padded forward pass.

    Position ids are counted from each row's first real token, as `generate` does with left padding.
    """
    import torch

    rows = [list(p) + list(c) for p, c in zip(prompts, completions, strict=True)]
    width = max(len(r) for r in rows)
    device = next(model.parameters()).device
    ids = torch.tensor([[pad_token_id] * (width - len(r)) + r for r in rows], device=device)                # [B, T]
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)               # [B, T]
    positions = (mask.cumsum(-1) - 1).clamp(min=0)                                                           # [B, T]
    with torch.inference_mode():
        logits = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits.float()           # [B, T, V]
    # The token at position t is predicted by the logits at t - 1.
    logprobs = logits[:, :-1].log_softmax(-1).gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)           # [B, T-1]
    return [logprobs[i, width - 1 - len(c):].tolist() if c else [] for i, c in enumerate(completions)]


def logprob_spot_check(backend: GenerationBackend, model: "PreTrainedModel",
                       prompts: Sequence[str] | Sequence[Sequence[int]], max_new_tokens: int = 8) -> float:
    """Greedy-generate from `backend`, rescore with `model`; return the largest |Δ log-prob| over all tokens.

    `prompts` are fixed texts or token id lists (decoded for the backend); both
    sides score the backend's own prompt tokenisation, so the comparison is
    exact. A correct sync gives ~1e-6 in fp32 (~1e-2 in bf16); pick the
    threshold for the dtype in use.
    """
    texts = [p if isinstance(p, str) else backend.tokenizer.decode(list(p)) for p in prompts]
    gens = backend.generate(texts, SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0))
    pad = backend.tokenizer.pad_token_id
    expected = sequence_logprobs(model, [g.prompt_token_ids for g in gens], [g.token_ids for g in gens], pad)
    return max((abs(a - b) for g, e in zip(gens, expected) for a, b in zip(g.logprobs, e)), default=0.0)
