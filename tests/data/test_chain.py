"""`arith-chain`: fixed, disjoint splits of 7-9-term sums, and worked answers the math verifier accepts."""

from __future__ import annotations

import random

import pytest

from rlvr_core.data.chain import SPLIT_SIZES, TERMS, generate_chain, numbers_of, worked_answer
from rlvr_core.data.registry import resolve
from rlvr_core.verifiers import verify


def test_splits_have_their_sizes_share_no_problem_and_come_out_the_same_every_time() -> None:
    train, test = generate_chain("train"), generate_chain("test")
    assert (len(train), len(test)) == (SPLIT_SIZES["train"], SPLIT_SIZES["test"])
    assert not {p.id for p in train} & {p.id for p in test}
    assert len({p.id for p in train}) == len(train)
    assert generate_chain("test", 50) == test[:50]


def test_every_problem_adds_seven_to_nine_digits_and_its_answer_is_their_sum() -> None:
    for problem in generate_chain("test"):
        numbers = numbers_of(problem)
        assert TERMS[0] <= len(numbers) <= TERMS[1] and all(1 <= n <= 9 for n in numbers)
        assert problem.answer == str(sum(numbers))


def test_a_worked_answer_is_one_line_per_addition_then_the_total_and_verifies_correct() -> None:
    problem = generate_chain("train", 1)[0]
    numbers = numbers_of(problem)
    text = worked_answer(numbers, random.Random(0))
    lines = text.split("\n")
    assert len(lines) == len(numbers) and lines[-1] == f"#### {sum(numbers)}"
    assert verify(text, problem).reward == 1.0


def test_worked_answers_of_one_problem_differ_in_term_order_but_not_in_their_sums() -> None:
    """The coin flip per line is what makes sampled completions diverse from their first token on."""
    numbers = numbers_of(generate_chain("train", 1)[0])
    answers = {worked_answer(numbers, random.Random(seed)) for seed in range(20)}
    assert len(answers) > 5
    totals = {tuple(line.rsplit(" = ", 1)[-1] for line in a.split("\n")[:-1]) for a in answers}
    assert len(totals) == 1


def test_the_source_is_registered_offline_and_refuses_unknown_splits() -> None:
    source = resolve("arith-chain").source
    assert source.offline and source.verifier == "math"
    with pytest.raises(ValueError, match="unknown split 'validation'"):
        source.generate("validation")
