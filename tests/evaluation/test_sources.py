"""The evaluation-only dataset sources normalise their hub rows into `Problem`s."""

from __future__ import annotations

import json

import pytest

from rlvr_core.data.registry import resolve
from rlvr_core.data.source import RowContext, SkipRow
from rlvr_core.evaluation.sources import normalise_ifeval, normalise_math500


def test_ifeval_rows_become_ifeval_problems_with_instruction_lists():
    row = {"key": 1000, "prompt": "Write a 300+ word summary without commas.",
           "instruction_id_list": ["punctuation:no_comma", "length_constraints:number_words"],
           "kwargs": [{"num_words": None, "relation": None}, {"num_words": 300, "relation": "at least"}]}
    problem = normalise_ifeval(row, RowContext("google/IFEval", None, "train", 0))
    assert problem.verifier == "ifeval" and problem.id == "1000"
    assert json.loads(problem.answer) == [
        {"instruction_id": "punctuation:no_comma", "kwargs": {}},
        {"instruction_id": "length_constraints:number_words", "kwargs": {"num_words": 300, "relation": "at least"}}]


def test_math500_rows_keep_subject_and_level_for_breakdowns():
    row = {"problem": "Compute $1+1$.", "solution": "$\\boxed{2}$", "answer": "2", "subject": "Counting & Probability",
           "level": 2, "unique_id": "test/counting_and_probability/1.json"}
    problem = normalise_math500(row, RowContext("HuggingFaceH4/MATH-500", None, "test", 0))
    assert (problem.answer, problem.category, problem.difficulty) == ("2", "counting_and_probability", "Level 2")
    with pytest.raises(SkipRow, match="level"):
        normalise_math500({**row, "level": None}, RowContext("HuggingFaceH4/MATH-500", None, "test", 1))


def test_sources_are_registered_with_the_data_registry():
    import rlvr_core.evaluation.sources  # noqa: F401

    assert resolve("google/IFEval").source.verifier == "ifeval"
    assert resolve("HuggingFaceH4/MATH-500").source.splits == ("test",)
