"""MBPP-style code verifier: extract the program, run it sandboxed, grade its asserts outside.

`Problem.answer` is JSON {"tests": [assert lines], "setup": "test_setup_code",
"entry": "function name or null"}. Reward 1.0 only if every assert holds when
evaluated by `verifiers/code/grader.py` in this process, on plain values the sandboxed
program returns (see `sandbox.py` for the containment, `verifiers/code/grader.py` for
why the asserts never run next to the program).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlvr_core.data.schema import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.code.grader import grade, plan_tests
from rlvr_core.verifiers.reasoning import strip_think
from rlvr_core.sandbox.runner import default_sandbox

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_BEGIN_DONE = re.compile(r"\[BEGIN\](.*?)(?:\[DONE\]|\Z)", re.DOTALL)


def extract_code(completion: str) -> str | None:
    """The program in a completion, or None when there is none.

    Order: `[BEGIN]...[DONE]` (MBPP's few-shot format), then every fenced block
    tagged python (or untagged) joined in order, so a later block may use or
    redefine an earlier one's functions (a later `def` wins, as when run), else
    the raw text if it looks like Python. Inside
    any of them a stray `[DONE]` and surrounding quotes or fences are stripped.
    """
    text = strip_think(completion)
    if text is None:
        return None
    match = _BEGIN_DONE.search(text)
    if match:
        text = match.group(1)
    blocks = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("", "python", "py", "python3")]
    if blocks:
        code = "\n\n".join(blocks)
    elif "```" in text:
        return None  # fenced, but in another language
    else:
        code = text
    code = code.replace("[DONE]", "").strip().strip("'\"").strip()
    if code.startswith("```"):
        code = code.split("\n", 1)[1] if "\n" in code else ""
    return code if re.search(r"^\s*(def|class|import|from|[A-Za-z_]\w*\s*=)", code, re.MULTILINE) else None


def parse_answer(answer: str) -> dict[str, Any]:
    """Validate the code ground truth; raises ValueError naming the field."""
    data = json.loads(answer)
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or not data["tests"]:
        raise ValueError('code Problem.answer must be JSON {"tests": [non-empty list of asserts], "setup": str}')
    if not all(isinstance(t, str) for t in data["tests"]):
        raise ValueError("code Problem.answer['tests'] must be a list of strings")
    setup = data.get("setup") or ""
    if not isinstance(setup, str):
        raise ValueError("code Problem.answer['setup'] must be a string")
    return {"tests": data["tests"], "setup": setup, "entry": data.get("entry")}


class CodeVerifier:
    """Passes when the extracted program satisfies every assert within the time limit."""

    name = "code"

    def __init__(self, timeout_s: float = 5.0, memory_mb: int = 1024) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb

    def verify(self, completion: str, problem: Problem) -> Score:
        try:
            truth = parse_answer(problem.answer)
            plan = plan_tests(tuple(truth["tests"]), truth["setup"], truth["entry"])
        except (ValueError, json.JSONDecodeError) as exc:
            return Score.error(f"problem {problem.id}: {exc}")
        code = extract_code(completion)
        if code is None:
            return Score(0.0, "unparsed", "no Python code found in the completion")
        if truth["entry"] and not re.search(rf"\b{re.escape(truth['entry'])}\b", code):
            return Score(0.0, "wrong", f"function {truth['entry']!r} is not defined")
        timeout_s = float(problem.extra.get("timeout_s", self.timeout_s))  # a dataset may set its own limit
        verdict = grade(default_sandbox(), code, plan, timeout_s, self.memory_mb)
        if verdict.status == "passed":
            return Score(1.0, "correct", verdict.detail)
        if verdict.status == "timeout":
            return Score(0.0, "timeout", verdict.detail)
        if verdict.status == "error":
            return Score.error(verdict.detail)
        return Score(0.0, "wrong", verdict.detail[:200])
