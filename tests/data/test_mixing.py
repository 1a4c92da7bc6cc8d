"""Mixing datasets by weight (exact shares, seeded, deterministic) and in sequence."""

from __future__ import annotations

from collections import Counter

import pytest

from rlvr_core.data.mixing import mix_by_weight, mix_in_sequence
from rlvr_core.problem import Problem


def problems(source: str, n: int) -> list[Problem]:
    return [Problem(id=str(i), source=source, prompt=f"{source} {i}", answer="1", verifier="math") for i in range(n)]


PARTS = {"gsm8k": problems("gsm8k", 500), "math": problems("math", 300), "arith": problems("arith", 50)}


def test_counts_follow_the_weights_exactly() -> None:
    mixed = mix_by_weight(PARTS, {"gsm8k": 3, "math": 1, "arith": 0}, n=400, seed=0)
    assert Counter(p.source for p in mixed) == {"gsm8k": 300, "math": 100}


def test_rounding_gives_exactly_n() -> None:
    mixed = mix_by_weight(PARTS, {"gsm8k": 1, "math": 1, "arith": 1}, n=100, seed=0)
    assert len(mixed) == 100 and sorted(Counter(p.source for p in mixed).values()) == [33, 33, 34]


def test_same_seed_same_list_other_seed_other_order() -> None:
    weights = {"gsm8k": 2, "math": 1, "arith": 1}
    a = mix_by_weight(PARTS, weights, n=200, seed=7)
    assert mix_by_weight(dict(reversed(PARTS.items())), weights, n=200, seed=7) == a
    b = mix_by_weight(PARTS, weights, n=200, seed=8)
    assert a != b and Counter(p.source for p in a) == Counter(p.source for p in b)


def test_sources_are_interleaved_not_blocked() -> None:
    mixed = mix_by_weight(PARTS, {"gsm8k": 1, "math": 1, "arith": 0}, n=200, seed=0)
    first_half = Counter(p.source for p in mixed[:100])
    assert 30 < first_half["gsm8k"] < 70


def test_a_small_part_repeats_in_whole_passes() -> None:
    mixed = mix_by_weight(PARTS, {"gsm8k": 0, "math": 0, "arith": 1}, n=120, seed=0)
    copies = Counter(p.id for p in mixed)
    assert set(copies.values()) <= {2, 3} and len(copies) == 50
    assert sorted(p.id for p in mixed[:50]) == sorted(p.id for p in PARTS["arith"])  # first pass is a permutation


def test_bad_weights_are_rejected_with_the_fix() -> None:
    with pytest.raises(ValueError, match="one weight per part"):
        mix_by_weight(PARTS, {"gsm8k": 1}, n=10, seed=0)
    with pytest.raises(ValueError, match="positive sum"):
        mix_by_weight(PARTS, {"gsm8k": 0, "math": 0, "arith": 0}, n=10, seed=0)
    with pytest.raises(ValueError, match="no problems"):
        mix_by_weight({"a": [], "b": problems("b", 3)}, {"a": 1, "b": 1}, n=4, seed=0)


def test_sequence_keeps_parts_in_order() -> None:
    a, b = problems("a", 3), problems("b", 2)
    assert mix_in_sequence([a, b]) == a + b
