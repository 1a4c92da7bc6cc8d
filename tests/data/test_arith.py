"""The offline `arith` dataset: deterministic, well-formed, and train/test never overlap."""

import pytest

from rlvr_core.data.arith import generate_arith, split_size


def test_train_and_test_never_share_a_problem() -> None:
    train = {p.prompt for p in generate_arith("train", split_size("train"))}
    test = {p.prompt for p in generate_arith("test", split_size("test"))}
    assert train and test and not train & test
    assert len(train) + len(test) == 90 * 90


def test_same_seed_same_problems_and_answers_are_sums() -> None:
    first = generate_arith("test", 50, seed=3)
    assert first == generate_arith("test", 50, seed=3)
    assert first != generate_arith("test", 50, seed=4)
    for problem in first:
        a, b = (int(x) for x in problem.prompt.removeprefix("What is ").removesuffix("?").split(" + "))
        assert problem.answer == str(a + b) and problem.verifier == "math"


def test_bad_split_or_size_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        generate_arith("dev", 5)
    with pytest.raises(ValueError, match="must be between 1 and"):
        generate_arith("test", 10**6)
