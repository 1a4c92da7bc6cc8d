"""Combine several datasets into one training stream: by weight or in sequence.

By weight, each part's count is its exact share of `n` (largest-remainder
rounding, so 3:1 of 400 is 300 and 100), each part's problems are taken in a
seeded shuffled order (reshuffled for each further pass when a part is
smaller than its share, so repeats are whole epochs), and the parts are
interleaved in a seeded order. Same inputs and seed -> same list.

In sequence, parts follow one another unchanged (a staged curriculum).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from rlvr_core.problem import Problem


def mix_by_weight(
    parts: Mapping[str, Sequence[Problem]],
    weights: Mapping[str, float],
    *,
    n: int,
    seed: int,
) -> list[Problem]:
    """`n` problems drawn from `parts` in proportion to `weights` (see module docstring)."""
    if set(parts) != set(weights):
        raise ValueError(
            f"mix weights name {sorted(weights)} but parts are {sorted(parts)}. Fix: give one weight per part."
        )
    bad = {k: w for k, w in weights.items() if not w >= 0}
    if bad or sum(weights.values()) <= 0:
        raise ValueError(f"mix weights must be >= 0 with a positive sum; got {dict(weights)}")
    if n < 1:
        raise ValueError(f"mix size n={n} must be at least 1")
    empty = [k for k, w in weights.items() if w > 0 and not parts[k]]
    if empty:
        raise ValueError(f"mix parts {empty} have a positive weight but no problems")
    names = sorted(parts)  # fixed order so dict insertion order cannot change the result
    counts = _shares([weights[k] for k in names], n)
    rng = random.Random(seed)
    picked = {k: _take(parts[k], c, rng) for k, c in zip(names, counts, strict=True)}
    labels = [k for k, c in zip(names, counts, strict=True) for _ in range(c)]
    rng.shuffle(labels)
    cursors = dict.fromkeys(names, 0)
    out = []
    for k in labels:
        out.append(picked[k][cursors[k]])
        cursors[k] += 1
    return out


def mix_in_sequence(parts: Sequence[Sequence[Problem]]) -> list[Problem]:
    """All problems of each part, parts in the given order."""
    return [p for part in parts for p in part]


def _shares(weights: list[float], n: int) -> list[int]:
    """Integer counts summing to `n`, proportional to `weights` (largest remainder, ties by order)."""
    total = sum(weights)
    exact = [w * n / total for w in weights]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in by_remainder[: n - sum(counts)]:
        counts[i] += 1
    return counts


def _take(items: Sequence[Problem], count: int, rng: random.Random) -> list[Problem]:
    """`count` items: whole shuffled passes over `items`, then part of one more."""
    out: list[Problem] = []
    while len(out) < count:
        epoch = list(items)
        rng.shuffle(epoch)
        out.extend(epoch[: count - len(out)])
    return out
