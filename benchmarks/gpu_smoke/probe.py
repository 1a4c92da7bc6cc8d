"""Does a generation engine compute with the trainer's weights? Log-prob gaps on a fixed probe, and a bf16 tolerance.

The probe: the engine generates greedily from fixed prompts and reports its raw log-probs (base.py); the
trainer's fp32 model rescores the same tokens in one forward pass (`sequence_logprobs`, what the trainer's
`score` runs for the driver's spot check). The gap is |engine - trainer| per token.

The tolerance, for an engine in bf16 (what the GPU configs ship and run):
- A bf16 number has 8 significant bits: rounding one moves it by at most 2^-9 of its magnitude.
- log p_t = z_t - logsumexp(z) moves by at most 2 max_j |dz_j| when the logits move by dz, whatever p_t, so
  low-probability tokens are no worse than likely ones.
- Through 28 layers the roundings of weights and activations add up to a logit error with no useful closed
  form, but it can be measured on the probe itself: `cast` is the gap between the trainer's fp32 weights and
  the same weights rounded to bf16, scored by the same forward pass (`cast_gap`).
- A correct engine differs from that bf16 copy only in *where* it rounds (its kernels: decoding with a KV
  cache, fused projections, another attention kernel), not in how finely, so its gap to the trainer is
  another draw of the same size. The tolerance allows `NOISE_FACTOR` (3) times the cast gap: the largest of
  a few hundred draws from one distribution rarely reaches twice the largest of another sample of it, and
  the third covers kernels that round at more places (vLLM's). `FLOOR` (2^-8, one bf16 step of a logit
  near 1) keeps a probe whose cast gap happens to be tiny from asking for more than bf16 resolves.
- A tolerance is only worth something if a stale engine breaks it: the gap *before* the reload must exceed
  it (`discrimination` = stale / tolerance > 1), or the check is inconclusive and fails as such. This is why
  the smoke's trainer steps with a learning rate that moves bf16 weights: at 1e-6 an AdamW step moves a
  weight near 0.02 by about 1e-6, under one percent of a bf16 step there (2^-13), so the bf16 weights barely
  change and a skipped reload hides in the rounding noise.
The same rule bounds the mean gap (the quantity `rollout_logprob_gap` traces) with the mean cast gap.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from rlvr_core.generation.base import Generation

NOISE_FACTOR = 3.0
FLOOR = 2.0 ** -8
SCORE_ROWS = 8  # rows per scoring pass: [rows, length, vocab] fp32 logits stay a few GiB at 151,936 entries


@dataclass(frozen=True)
class Gap:
    """|a - b| over the tokens of a probe."""

    max: float
    mean: float
    tokens: int

    @classmethod
    def between(cls, a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> "Gap":
        diffs = [abs(x - y) for row_a, row_b in zip(a, b, strict=True) for x, y in zip(row_a, row_b, strict=True)]
        if not diffs:
            raise ValueError("the probe produced no tokens to compare; every generation was empty")
        return cls(max=max(diffs), mean=sum(diffs) / len(diffs), tokens=len(diffs))

    def tolerance(self) -> "Gap":
        """The allowance for an engine whose gap to fp32 is a draw like this cast gap (module docstring)."""
        return Gap(max=NOISE_FACTOR * self.max + FLOOR, mean=NOISE_FACTOR * self.mean + FLOOR, tokens=self.tokens)

    def as_dict(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def score(model: "torch.nn.Module", gens: Sequence["Generation"], pad_token_id: int) -> list[list[float]]:
    """`model`'s log-probs of each generation's tokens after its prompt, `SCORE_ROWS` rows per pass."""
    from rlvr_core.generation.consistency import sequence_logprobs

    rows: list[list[float]] = []
    for start in range(0, len(gens), SCORE_ROWS):
        chunk = gens[start:start + SCORE_ROWS]
        rows += sequence_logprobs(model, [g.prompt_token_ids for g in chunk], [g.token_ids for g in chunk],
                                  pad_token_id)
    return rows


@contextlib.contextmanager
def bf16_copy(model: "torch.nn.Module") -> Iterator["torch.nn.Module"]:
    """A bf16 copy of `model` on its device, freed on exit."""
    import torch

    copied = copy.deepcopy(model).to(torch.bfloat16).eval()
    try:
        yield copied
    finally:
        device = next(copied.parameters()).device
        del copied
        if device.type == "cuda":
            torch.cuda.empty_cache()


def engine_gap(gens: Sequence["Generation"], model: "torch.nn.Module", pad_token_id: int) -> Gap:
    """The gap between the engine's log-probs of its own tokens and `model`'s."""
    return Gap.between([g.logprobs for g in gens], score(model, gens, pad_token_id))


def cast_gap(gens: Sequence["Generation"], model: "torch.nn.Module", pad_token_id: int) -> Gap:
    """The gap bf16 rounding alone makes on these tokens: `model` against its own bf16 copy."""
    exact = score(model, gens, pad_token_id)
    with bf16_copy(model) as rounded:
        return Gap.between(exact, score(rounded, gens, pad_token_id))


def all_finite(gens: Sequence["Generation"]) -> bool:
    """Every log-prob a number and at most 0 (a probability), up to float rounding."""
    return all(math.isfinite(lp) and lp <= 1e-3 for g in gens for lp in g.logprobs)
