"""`arith`: the offline synthetic addition set (generator in `rlvr_core/data/arith.py`)."""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Source, code_digest

SEED = 0


def generate(split: str) -> list[Problem]:
    """The whole split in its seed-0 order; callers cut it with `limit`."""
    from rlvr_core.data.arith import generate_arith, split_size

    if split not in ("train", "test"):  # checked here so the error names this source's splits
        raise ValueError(f"arith: unknown split {split!r}; choose 'train' or 'test'")
    return generate_arith(split, split_size(split), SEED)


ARITH = Source(name="arith", verifier="math", generate=generate,
               version=lambda: code_digest("rlvr_core.data.arith"))
