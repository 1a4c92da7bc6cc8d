"""MBPP-style code verifier: extract the program, run it sandboxed, grade its asserts outside.

`Problem.answer` is JSON:
  {"tests": [the benchmark's official asserts, the ones a prompt shows],
   "setup": "test setup code", "entry": "name" | ["names"] | null,
   "prelude": "trusted code for the tests (the reference's imports, classes)",
   "challenge": [more official asserts, never shown], "hidden": [asserts
   generated from the reference solution, never shown (`hidden.py`)],
   "grade_on": "extended" | "official"}
Only "tests" is required. With "extended" (the default) the reward covers
the official, challenge and hidden tests together; "official" grades the
shown ones only (the benchmark's own number). Reward 1.0 only if every test
holds when evaluated by `grader.py` in this process on plain values the
sandboxed program returns, or, with `reward="fraction"`, the share that holds.
"""

from __future__ import annotations

import ast
import json
import os
import re
from typing import Any, Literal

from rlvr_core.problem import Problem
from rlvr_core.sandbox.runner import default_sandbox
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.code.grader import grade, plan_tests
from rlvr_core.verifiers.reasoning import strip_think

RewardMode = Literal["all", "fraction"]
REWARD_ENV = "RLVR_CODE_REWARD"  # "all" (default) or "fraction", for processes whose verifier is built by name
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_BEGIN_DONE = re.compile(r"\[BEGIN\](.*?)(?:\[DONE\]|\Z)", re.DOTALL)
_MARKER = re.compile(r"^\[(?:BEGIN|DONE)\][ \t]*|[ \t]*\[(?:BEGIN|DONE)\][ \t]*$", re.MULTILINE)
_LONE_FENCE = re.compile(r"^[ \t]*```[ \t]*\n?", re.MULTILINE)
_CODE_START = re.compile(r"^(?:\"{3}|'{3}|async[ \t]+def|def|class|import|from|@|[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*"
                         r"[ \t]*(?::[^=\n]*)?=[^=])", re.MULTILINE)
_PROSE_LINES = 40  # trailing lines dropped at most while looking for a program that parses


def extract_code(completion: str) -> str | None:
    """The program in a completion, or None when there is none.

    Order: `[BEGIN]...[DONE]` (MBPP's few-shot format), then every fenced block
    tagged python (or untagged) joined in order, so a later block may use or
    redefine an earlier one's functions (a later `def` wins, as when run), else
    the raw text. What is stripped, and nothing else: markdown fences,
    `[BEGIN]`/`[DONE]` markers at the start or end of a line, and prose around
    the program (text before its first statement, lines after its last one,
    when the whole does not parse). Quotes and docstrings are the program's own:
    a program that opens with a docstring or ends with a string is kept intact.
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
    elif re.search(r"^[ \t]*```[ \t]*\S", text, re.MULTILINE):
        return None  # fenced, but in another language
    else:
        code = _LONE_FENCE.sub("", text)  # an unmatched fence line
    code = _without_prose(_MARKER.sub("", code).strip("\n"))
    return code if re.search(r"^\s*(def|class|import|from|[A-Za-z_]\w*\s*=)", code, re.MULTILINE) else None


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _without_prose(code: str) -> str:
    """`code` itself when it parses; else from its first line that starts a statement (a docstring opening the
    program counts) to the last line that leaves it parsing; else unchanged (it fails as it would run)."""
    if _parses(code):
        return code
    start = _CODE_START.search(code)
    if start is None:
        return code
    lines = code[start.start():].splitlines()
    for end in range(len(lines), max(len(lines) - _PROSE_LINES, 0), -1):
        candidate = "\n".join(lines[:end])
        if _parses(candidate):
            return candidate
    return code


def _strings(data: dict, key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ValueError(f"code Problem.answer[{key!r}] must be a list of assert strings")
    return value


def parse_answer(answer: str) -> dict[str, Any]:
    """Validate the code ground truth; raises ValueError naming the field. "tests" is what gets graded: the
    official tests, plus the challenge and hidden ones unless "grade_on" is "official"."""
    data = json.loads(answer)
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or not data["tests"]:
        raise ValueError('code Problem.answer must be JSON {"tests": [non-empty list of asserts], "setup": str}')
    official = _strings(data, "tests")
    for key in ("setup", "prelude"):
        if not isinstance(data.get(key) or "", str):
            raise ValueError(f"code Problem.answer[{key!r}] must be a string")
    entry = data.get("entry")
    if not (entry is None or isinstance(entry, str) or isinstance(entry, list) and entry
            and all(isinstance(e, str) for e in entry)):
        raise ValueError("code Problem.answer['entry'] must be a function name, a non-empty list of names, or null")
    grade_on = data.get("grade_on") or "extended"
    if grade_on not in ("extended", "official"):
        raise ValueError(f"code Problem.answer['grade_on']={grade_on!r} must be 'extended' or 'official'")
    extra = _strings(data, "challenge") + _strings(data, "hidden") if grade_on == "extended" else []
    return {"tests": official + extra, "setup": data.get("setup") or "", "prelude": data.get("prelude") or "",
            "entry": tuple(entry) if isinstance(entry, list) else entry}


def _reward_mode(reward: str | None) -> RewardMode:
    mode = reward or os.environ.get(REWARD_ENV) or "all"
    if mode not in ("all", "fraction"):
        raise ValueError(f"code verifier reward={mode!r} (argument or {REWARD_ENV}) must be 'all' or 'fraction'")
    return mode  # type: ignore[return-value]


class CodeVerifier:
    """Passes when the extracted program satisfies every test within the time limit (or, with
    `reward="fraction"`, earns the share of tests that hold)."""

    name = "code"

    def __init__(self, timeout_s: float = 5.0, memory_mb: int = 1024, reward: RewardMode | None = None) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.reward = _reward_mode(reward)

    def verify(self, completion: str, problem: Problem) -> Score:
        try:
            truth = parse_answer(problem.answer)
            plan = plan_tests(tuple(truth["tests"]), truth["setup"], truth["entry"], truth["prelude"])
        except (ValueError, json.JSONDecodeError) as exc:
            return Score.error(f"problem {problem.id}: {exc}")
        code = extract_code(completion)
        if code is None:
            return Score(0.0, "unparsed", "no Python code found in the completion")
        names = plan.entries if truth["entry"] else ()
        if names and not any(re.search(rf"\b{re.escape(name)}\b", code) for name in names):
            return Score(0.0, "wrong", f"function {sorted(names)[0]!r} is not defined")
        timeout_s = float(problem.extra.get("timeout_s", self.timeout_s))  # a dataset may set its own limit
        verdict = grade(default_sandbox(), code, plan, timeout_s, self.memory_mb)
        if verdict.status == "error":
            return Score.error(verdict.detail)
        reward = 1.0 if verdict.status == "passed" else 0.0
        if self.reward == "fraction" and verdict.total:
            reward = verdict.passed / verdict.total
        status = {"passed": "correct", "timeout": "timeout"}.get(verdict.status, "wrong")
        return Score(reward, status, verdict.detail[:200])  # type: ignore[arg-type]
