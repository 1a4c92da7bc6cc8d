"""Confidence intervals that let a reader tell a gain from noise.

- `wilson`: the Wilson score interval of one rate (good near 0% and 100%, unlike
  the normal approximation).
- `newcombe_difference`: Newcombe's (1998) method 10 — the difference of two
  independent rates from their two Wilson intervals. Used when two evaluations
  scored different items (or different numbers of them).
- `paired_bootstrap`: when both evaluations scored the same items, resample
  items (seeded) and take the percentile interval of the mean per-item
  difference; pairing removes the item-difficulty variance both share, so it
  is much tighter than an unpaired interval on the same data.
- `unpaired_bootstrap`: the fallback for non-binary rewards on different items.
- `bootstrap_mean`: the interval of one mean reward (resampling items).

A delta is "distinguishable from noise" when its 95% interval excludes 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    method: str

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def wilson(successes: float, n: int, z: float = Z95) -> Interval:
    """Wilson score interval of successes/n; ValueError for n < 1 or successes outside [0, n]."""
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"wilson needs n >= 1 and 0 <= successes <= n; got successes={successes}, n={n}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0/n and n/n the bounds are exactly 0 and 1; pin them so float rounding does not show 99.99...%.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, low, high, "wilson")


def newcombe_difference(s1: float, n1: int, s2: float, n2: int, z: float = Z95) -> Interval:
    """Interval of p2 - p1 (second minus first) by Newcombe's hybrid score method."""
    a, b = wilson(s1, n1, z), wilson(s2, n2, z)
    p1, p2 = a.estimate, b.estimate
    diff = p2 - p1
    low = diff - math.sqrt((p2 - b.low) ** 2 + (a.high - p1) ** 2)
    high = diff + math.sqrt((b.high - p2) ** 2 + (p1 - a.low) ** 2)
    return Interval(diff, low, high, "newcombe")


def _percentile_interval(estimates: Sequence[float], point: float, method: str) -> Interval:
    import numpy as np

    low, high = np.percentile(np.asarray(estimates), [2.5, 97.5])
    return Interval(point, float(low), float(high), method)


def paired_bootstrap(first: Sequence[float], second: Sequence[float], *, resamples: int = 4000,
                     seed: int = 0) -> Interval:
    """Interval of mean(second - first) over items scored by both (same order), by resampling items."""
    import numpy as np

    if len(first) != len(second) or not first:
        raise ValueError(f"paired_bootstrap needs two equally long, non-empty lists; got {len(first)} and {len(second)}")
    diffs = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    rng = np.random.default_rng(seed)
    means = []
    for start in range(0, resamples, 500):  # chunks bound memory at 500 x n indices
        idx = rng.integers(0, len(diffs), size=(min(500, resamples - start), len(diffs)))
        means.extend(diffs[idx].mean(axis=1).tolist())
    return _percentile_interval(means, float(diffs.mean()), "paired bootstrap")


def unpaired_bootstrap(first: Sequence[float], second: Sequence[float], *, resamples: int = 4000,
                       seed: int = 0) -> Interval:
    """Interval of mean(second) - mean(first) for independent samples, resampling each side."""
    import numpy as np

    if not first or not second:
        raise ValueError("unpaired_bootstrap needs two non-empty lists")
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    rng = np.random.default_rng(seed)
    diffs = []
    for start in range(0, resamples, 500):
        size = min(500, resamples - start)
        diffs.extend((b[rng.integers(0, len(b), (size, len(b)))].mean(1)
                      - a[rng.integers(0, len(a), (size, len(a)))].mean(1)).tolist())
    return _percentile_interval(diffs, float(b.mean() - a.mean()), "unpaired bootstrap")


def bootstrap_mean(values: Sequence[float], *, resamples: int = 4000, seed: int = 0) -> Interval:
    """Percentile bootstrap interval of the mean (resampling items)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("bootstrap_mean needs at least one value")
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(float(data.mean()), float(low), float(high), "bootstrap")
