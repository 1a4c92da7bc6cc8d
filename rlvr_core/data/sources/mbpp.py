"""`google-research-datasets/mbpp`: short Python tasks checked by assert lines.

Config "full" (default) has `text`, `test_list`, `challenge_test_list`,
`test_setup_code`; "sanitized" has `prompt`, `test_list`, `test_imports` —
both normalise to the code answer JSON (`verifiers/code/verifier.py`):
"tests" the official asserts, "challenge" MBPP's challenge asserts, "entry"
and "prelude" what the reference solution says about trusted names
(`verifiers/code/reference.py`), and, once cached, "hidden" asserts
generated from the reference solution (`verifiers/code/hidden.py`, with the
known-correct programs of `mbpp_known_correct.py`; stored with the dataset
in the store, its manifest recording the generator version, the count, the
problems with fewer hidden tests than asked and those whose reference fails
its own tests, which are graded on their official tests only).

The benchmark prompt shows a task with its first three asserts (lm-eval's
`mbpp` wording: `benchmark_prompt_text`), which are all of a row's official
tests. A training prompt shows the task with its first assert only
(`prompt_text`): the function's name and call shape, one answer. Training
grades the official tests, the challenge tests and the hidden ones, so no
answer the prompt shows is worth anything on its own. Completions end at
`[DONE]`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.data.source import Derivation, Row, RowContext, SkipRow, Source, list_field, text_field
from rlvr_core.verifiers.code.reference import trusted_parts

DONE = "[DONE]"
BENCHMARK_SHOWN_TESTS = 3  # lm-eval's mbpp prompt
TRAINING_SHOWN_TESTS = 1  # the name and call shape; the other official tests are graded, never shown


def task_with_tests(text: str, tests: list[str], shown: int = BENCHMARK_SHOWN_TESTS) -> str:
    """The task text followed by its first `shown` asserts (lm-eval `mbpp` wording)."""
    return f"{text} Your code should pass these tests:\n\n" + "\n".join(tests[:shown])


def benchmark_prompt_text(problem: Problem) -> str:
    """The task with its first three official asserts, as the `mbpp` benchmark prompt shows it."""
    return task_with_tests(problem.prompt, json.loads(problem.answer)["tests"])


def prompt_text(problem: Problem) -> str:
    """What fills a training template's `{prompt}`: the task and its first official assert (never the
    others, the challenge or the hidden tests)."""
    return task_with_tests(problem.prompt, json.loads(problem.answer)["tests"], TRAINING_SHOWN_TESTS)


def official_tests_only(problem: Problem) -> Problem:
    """The problem graded on the benchmark's official asserts alone (the number comparable with others)."""
    return replace(problem, answer=json.dumps({**json.loads(problem.answer), "grade_on": "official"}))


def normalise(row: Row, ctx: RowContext) -> Problem:
    task_id = row.get("task_id")
    if task_id is None:
        raise SkipRow("missing 'task_id'")
    prompt = text_field(row, "prompt" if ctx.config == "sanitized" else "text")
    tests = [t for t in list_field(row, "test_list") if isinstance(t, str) and t.strip()]
    if not tests:
        raise SkipRow("no non-empty assert in 'test_list'")
    setup = row.get("test_setup_code") or "\n".join(row.get("test_imports") or [])
    answer: dict[str, Any] = {"tests": tests, "setup": setup, "entry": None}
    entries, prelude = trusted_parts(row["code"]) if row.get("code") else ((), "")
    if entries:
        answer["entry"] = list(entries)
    if prelude:
        answer["prelude"] = prelude
    challenge = [t for t in row.get("challenge_test_list") or [] if isinstance(t, str) and t.strip()]
    if challenge:
        answer["challenge"] = challenge
    return Problem(
        id=str(task_id),
        source=ctx.source,
        prompt=prompt,
        answer=json.dumps(answer),
        verifier="code",
        extra={"reference_code": row["code"]} if row.get("code") else {},
    )


def _hidden_version() -> dict[str, Any]:
    from rlvr_core.data.sources.mbpp_known_correct import known_correct_digest
    from rlvr_core.verifiers.code.hidden import derivation_version

    return {**derivation_version(), "known_correct": known_correct_digest()}


def _add_hidden(problems: list[Problem]) -> tuple[list[Problem], dict[str, Any]]:
    from rlvr_core.data.sources.mbpp_known_correct import KNOWN_CORRECT
    from rlvr_core.verifiers.code.hidden import add_hidden_tests

    return add_hidden_tests(problems, KNOWN_CORRECT)


MBPP = Source(
    name="google-research-datasets/mbpp",
    verifier="code",
    normalise=normalise,
    configs=("full",),
    splits=("train", "test", "validation", "prompt"),
    prompt_text=prompt_text,
    stop=(DONE,),
    derive=Derivation("hidden_tests", _hidden_version, _add_hidden),
)
