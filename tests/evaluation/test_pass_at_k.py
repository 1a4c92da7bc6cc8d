"""The pass@k estimator against brute-force enumeration, and maj@k voting."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlvr_core.evaluation.pass_at_k import majority_correct, pass_at_k


def brute_force(n: int, c: int, k: int) -> float:
    """Share of all k-subsets of n samples (c of them correct) that contain a correct sample."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@given(st.integers(1, 10).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_estimator_equals_enumeration_of_all_k_subsets(nck):
    n, c, k = nck
    assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k), abs=1e-12)


@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_estimator_matches_exact_binomials_where_they_overflow_floats(nck):
    n, c, k = nck
    exact = 1 - math.comb(n - c, k) / math.comb(n, k)  # Python ints: exact, then one division
    assert pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-9)
    assert 0.0 <= pass_at_k(n, c, k) <= 1.0


def test_pass_at_1_is_the_fraction_correct():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)


@pytest.mark.parametrize("n,c,k", [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_impossible_counts_are_rejected(n, c, k):
    with pytest.raises(ValueError, match="0 <= c <= n and 1 <= k <= n"):
        pass_at_k(n, c, k)


def test_majority_vote_uses_only_the_first_k_and_ignores_unparsed():
    answers = ["7", None, "5", "5", "7", "7"]
    correct = [True, False, False, False, True, True]
    assert majority_correct(answers, correct, k=4) is False  # "5" x2 beats "7" x1
    assert majority_correct(answers, correct, k=6) is True  # "7" x3 beats "5" x2


def test_majority_tie_goes_to_the_answer_seen_first():
    assert majority_correct(["3", "4"], [False, True], k=2) is False
    assert majority_correct([None, None], [False, False], k=2) is False
