"""Confidence intervals against published values and their defining properties."""

from __future__ import annotations

import pytest

from rlvr_core.stats import newcombe_difference, paired_bootstrap, unpaired_bootstrap, wilson


def test_wilson_matches_newcombe_1998_table_i():
    # Newcombe (1998), Statistics in Medicine 17:857, Table I: 81/263 -> 0.2553 to 0.3662.
    ci = wilson(81, 263)
    assert (round(ci.low, 4), round(ci.high, 4)) == (0.2553, 0.3662)


def test_wilson_stays_inside_0_1_at_the_edges():
    assert wilson(0, 10).low == 0.0 and wilson(10, 10).high == 1.0


def test_newcombe_difference_matches_the_published_example():
    # Newcombe (1998) Table II example (a): 56/70 vs 48/80, difference 0.2, method 10: 0.0524 to 0.3339.
    ci = newcombe_difference(48, 80, 56, 70)
    assert ci.estimate == pytest.approx(0.2)
    assert (round(ci.low, 4), round(ci.high, 4)) == (0.0524, 0.3339)
    assert ci.excludes_zero


def test_paired_bootstrap_is_seeded_and_tighter_than_unpaired_on_shared_items():
    base = [1.0, 0.0] * 50
    trained = [1.0, 1.0] * 5 + [1.0, 0.0] * 45  # 5 items fixed, nothing broken
    paired = paired_bootstrap(base, trained, seed=3)
    assert paired == paired_bootstrap(base, trained, seed=3)
    assert paired.estimate == pytest.approx(0.05)
    unpaired = unpaired_bootstrap(base, trained, seed=3)
    assert paired.high - paired.low < unpaired.high - unpaired.low


def test_identical_results_are_noise():
    rewards = [1.0, 0.0, 1.0, 1.0]
    ci = paired_bootstrap(rewards, rewards)
    assert (ci.estimate, ci.low, ci.high) == (0.0, 0.0, 0.0) and not ci.excludes_zero


def test_bad_counts_are_rejected_with_the_reason():
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson(5, 4)
    with pytest.raises(ValueError, match="equally long"):
        paired_bootstrap([1.0], [1.0, 0.0])
