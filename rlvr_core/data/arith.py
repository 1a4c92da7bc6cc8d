"""`arith`: an offline, seeded arithmetic dataset in GSM8K answer format.

Problems read "What is 47 + 38?" with the gold answer "85"; a model is expected
to answer in GSM8K style (`#### 85`). The pair space (a, b in 10..99) is split
by a fixed hash, so train and test never share a problem whatever the seeds.
It exists so the whole pipeline (tiny model warm-up, GRPO, evaluation) runs
without a network.
"""

from __future__ import annotations

import hashlib
import random

from rlvr_core.problem import Problem

SPLITS = ("train", "test")
LOW, HIGH = 10, 99
TEST_FRACTION_MOD = 10  # one pair in ten belongs to test


def _split_of(a: int, b: int) -> str:
    digest = hashlib.sha256(f"{a}+{b}".encode()).digest()
    return "test" if digest[0] % TEST_FRACTION_MOD == 0 else "train"


def _pairs(split: str) -> list[tuple[int, int]]:
    return [(a, b) for a in range(LOW, HIGH + 1) for b in range(LOW, HIGH + 1) if _split_of(a, b) == split]


def generate_arith(split: str, n: int, seed: int = 0) -> list[Problem]:
    """`n` distinct problems from `split`, in a seeded order.

    Raises ValueError for an unknown split or an `n` larger than the split
    (about 7,300 train and 800 test pairs exist).
    """
    if split not in SPLITS:
        raise ValueError(f"arith: unknown split {split!r}; choose one of {SPLITS}")
    pairs = _pairs(split)
    if not 0 < n <= len(pairs):
        raise ValueError(f"arith: n={n} must be between 1 and {len(pairs)} for split {split!r}")
    chosen = random.Random(f"arith-{split}-{seed}").sample(pairs, n)
    return [
        Problem(
            id=f"arith-{split}-{a}+{b}",
            source="arith",
            prompt=f"What is {a} + {b}?",
            answer=str(a + b),
            verifier="math",
            category="addition",
            difficulty="carry" if (a % 10) + (b % 10) >= 10 else "no-carry",
        )
        for a, b in chosen
    ]


def split_size(split: str) -> int:
    """How many distinct problems `split` holds."""
    return len(_pairs(split))
