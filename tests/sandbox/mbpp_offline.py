"""The MBPP rows this repository ships (no network at test time), as the loader would cache them.

All are transcribed from MBPP (CC-BY-4.0; google-research/google-research,
`mbpp/mbpp.jsonl`): dataset rows, not software.

- `rows()`: the three few-shot exemplars (`rlvr_core/evaluation/fewshot/mbpp_3shot.json`:
  MBPP prompt-split tasks 2, 3 and 4) and task 126, because its entry is named
  like a builtin (`sum`): a correct solution could not pass it while `sum`
  resolved to the builtin. The sandbox attack tests run each in every mode.
- `shipped_rows()`: `tests/data/mbpp_rows.jsonl`, 45 problems for the hidden
  tests: those issue 41 names (2, 3, 11, 126, 533, 602, 605, 644, 648, 650,
  666) and a spread of arguments and answers (lists, strings, numbers,
  tuples, records, dicts, Counters, floats, builtin type names, challenge tests).
"""

from __future__ import annotations

import ast
import json
from functools import cache
from pathlib import Path
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.data.source import RowContext
from rlvr_core.data.sources.mbpp import MBPP
from rlvr_core.evaluation.prompts import fewshot

TASK_126 = {
    "task_id": 126,
    "text": "Write a python function to find the sum of common divisors of two given numbers.",
    "code": "def sum(a,b): \r\n    sum = 0\r\n    for i in range (1,min(a,b)): \r\n        if (a % i == 0 and b % i == 0): \r\n"
            "            sum += i \r\n    return sum",
    "test_list": ["assert sum(10,15) == 6", "assert sum(100,150) == 93", "assert sum(4,6) == 3"],
    "test_setup_code": "",
    "challenge_test_list": [],
}


def rows() -> list[dict]:
    exemplars = [{"task_id": 2 + i, "text": ex["text"], "code": ex["code"], "test_list": ex["tests"], "test_setup_code": "",
                  "challenge_test_list": []} for i, ex in enumerate(fewshot("mbpp_3shot"))]
    return [*exemplars, TASK_126]


def problems() -> list[Problem]:
    """The rows normalised as the loader does (official tests, entries and prelude from the reference)."""
    assert MBPP.normalise is not None
    return [MBPP.normalise(row, RowContext(MBPP.name, "full", "prompt", i)) for i, row in enumerate(rows())]


@cache
def problems_with_hidden_tests() -> tuple[Problem, ...]:
    """`problems()` with their hidden tests, generated as the dataset cache step does (in this host's sandbox)."""
    assert MBPP.derive is not None
    derived, _ = MBPP.derive.apply(problems())
    return tuple(derived)


SHIPPED = Path(__file__).resolve().parents[1] / "data" / "mbpp_rows.jsonl"


def shipped_rows() -> list[dict]:
    """The rows of `tests/data/mbpp_rows.jsonl`, as MBPP's "full" config has them."""
    return [json.loads(line) for line in SHIPPED.read_text().splitlines() if line.strip()]


def shipped_problems() -> list[Problem]:
    assert MBPP.normalise is not None
    return [MBPP.normalise(row, RowContext(MBPP.name, "full", "train", i)) for i, row in enumerate(shipped_rows())]


@cache
def shipped_with_hidden_tests() -> tuple[tuple[Problem, ...], dict[str, Any]]:
    """`shipped_problems()` with their hidden tests, and the derivation's summary, generated as the dataset cache
    step does (in this host's sandbox, with the known-correct programs): once per test process."""
    assert MBPP.derive is not None
    derived, summary = MBPP.derive.apply(shipped_problems())
    return tuple(derived), summary


def answer(problem: Problem) -> dict:
    return json.loads(problem.answer)


def lookup_table(problem: Problem) -> str:
    """A wrong program that knows only the shown asserts: each shown call's expected value, looked up."""
    shown = answer(problem)
    table = {}
    for source in shown["tests"]:
        test = ast.parse(source.strip()).body[0].test
        call, expected = (test.left, test.comparators[0]) if isinstance(test, ast.Compare) else (test, ast.Constant(True))
        table[repr(tuple(ast.literal_eval(a) for a in call.args))] = ast.literal_eval(expected)
    name = shown["entry"][0]
    return f"TABLE = {table!r}\ndef {name}(*args):\n    return TABLE.get(repr(args))\n"
