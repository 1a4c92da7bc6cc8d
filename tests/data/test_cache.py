"""The cache's parquet encoding matches `Problem.to_row` and round-trips every field."""

from __future__ import annotations

import io

import pyarrow.parquet as pq

from rlvr_core.data.cache import parquet_to_problems, problems_to_parquet
from rlvr_core.problem import Problem

PROBLEMS = [
    Problem(
        id="1",
        source="s",
        prompt="p ünïcode",
        answer="\\frac{1}{2}",
        verifier="math",
        category="algebra",
        difficulty="Level 2",
        extra={"z": [1, {"b": None}], "a": "x"},
    ),
    Problem(id="2", source="s", prompt="q", answer='{"tests": []}', verifier="code"),
]


def test_parquet_rows_equal_problem_to_row() -> None:
    rows = pq.read_table(io.BytesIO(problems_to_parquet(PROBLEMS))).to_pylist()
    assert rows == [p.to_row() for p in PROBLEMS]


def test_round_trip_keeps_every_field_including_none_and_empty() -> None:
    assert parquet_to_problems(problems_to_parquet(PROBLEMS)) == PROBLEMS
    assert parquet_to_problems(problems_to_parquet([])) == []
