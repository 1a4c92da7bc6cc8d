"""`google-research-datasets/mbpp`: short Python tasks checked by assert lines.

Config "full" (default) has `text`, `test_list`, `test_setup_code`;
"sanitized" has `prompt`, `test_list`, `test_imports` — both normalise to the
code answer JSON {"tests": [...], "setup": "...", "entry": null}.

A task is shown with its first three asserts (lm-eval's `mbpp` wording, used
by the benchmark prompt and by training prompts alike): the task text alone
does not say what the function is called, and the asserts call it by name.
Completions end at `[DONE]`.
"""

from __future__ import annotations

import json

from rlvr_core.data.schema import Problem
from rlvr_core.data.source import Row, RowContext, SkipRow, Source, list_field, text_field


DONE = "[DONE]"
SHOWN_TESTS = 3


def task_with_tests(text: str, tests: list[str]) -> str:
    """The task text followed by its first asserts (lm-eval `mbpp` wording)."""
    return f"{text} Your code should pass these tests:\n\n" + "\n".join(tests[:SHOWN_TESTS])


def prompt_text(problem: Problem) -> str:
    """What fills a training template's `{prompt}`: the task and its asserts."""
    return task_with_tests(problem.prompt, json.loads(problem.answer)["tests"])


def normalise(row: Row, ctx: RowContext) -> Problem:
    task_id = row.get("task_id")
    if task_id is None:
        raise SkipRow("missing 'task_id'")
    prompt = text_field(row, "prompt" if ctx.config == "sanitized" else "text")
    tests = [t for t in list_field(row, "test_list") if isinstance(t, str) and t.strip()]
    if not tests:
        raise SkipRow("no non-empty assert in 'test_list'")
    setup = row.get("test_setup_code") or "\n".join(row.get("test_imports") or [])
    answer = json.dumps({"tests": tests, "setup": setup, "entry": None})
    return Problem(
        id=str(task_id),
        source=ctx.source,
        prompt=prompt,
        answer=answer,
        verifier="code",
        extra={"reference_code": row["code"]} if row.get("code") else {},
    )


MBPP = Source(
    name="google-research-datasets/mbpp",
    verifier="code",
    normalise=normalise,
    configs=("full",),
    splits=("train", "test", "validation", "prompt"),
    prompt_text=prompt_text,
    stop=(DONE,),
)
