"""`google-research-datasets/mbpp`: short Python tasks checked by assert lines.

Config "full" (default) has `text`, `test_list`, `challenge_test_list`,
`test_setup_code`; "sanitized" has `prompt`, `test_list`, `test_imports` —
both normalise to the code answer JSON (`verifiers/code/verifier.py`):
"tests" the official asserts, "challenge" MBPP's challenge asserts, "entry"
and "prelude" what the reference solution says about trusted names
(`verifiers/code/reference.py`), and, once cached, "hidden" asserts
generated from the reference solution (`verifiers/code/hidden.py`; stored
with the dataset in the store, its manifest recording the generator version,
the count and the problems whose reference fails its own tests).

A task is shown with its first three asserts (lm-eval's `mbpp` wording, used
by the benchmark prompt and by training prompts alike): the task text alone
does not say what the function is called, and the asserts call it by name.
Those asserts are all of a row's official tests, which is why training
grades on the challenge and hidden ones too. Completions end at `[DONE]`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.data.source import Derivation, Row, RowContext, SkipRow, Source, list_field, text_field
from rlvr_core.verifiers.code.reference import trusted_parts

DONE = "[DONE]"
SHOWN_TESTS = 3


def task_with_tests(text: str, tests: list[str]) -> str:
    """The task text followed by its first asserts (lm-eval `mbpp` wording)."""
    return f"{text} Your code should pass these tests:\n\n" + "\n".join(tests[:SHOWN_TESTS])


def prompt_text(problem: Problem) -> str:
    """What fills a training template's `{prompt}`: the task and its official asserts (never the others)."""
    return task_with_tests(problem.prompt, json.loads(problem.answer)["tests"])


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
    from rlvr_core.verifiers.code.hidden import derivation_version

    return derivation_version()


def _add_hidden(problems: list[Problem]) -> tuple[list[Problem], dict[str, Any]]:
    from rlvr_core.verifiers.code.hidden import add_hidden_tests

    return add_hidden_tests(problems)


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
