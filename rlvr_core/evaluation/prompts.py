"""Prompt templates of the standard benchmarks (few-shot where the literature does it).

The few-shot exemplars live in `fewshot/*.json` next to this file; each file's
"origin" field cites where the standard prompt comes from. Templates are plain
functions `Problem -> str` so a benchmark's prompt is exactly reproducible and
its hash goes into the evaluation's idempotency key.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.data.sources import mbpp

FEWSHOT_DIR = Path(__file__).parent / "fewshot"


@cache
def fewshot(name: str) -> tuple[dict[str, Any], ...]:
    """The exemplars of `fewshot/<name>.json` (read once)."""
    data = json.loads((FEWSHOT_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return tuple(data["examples"])


def arith_prompt(problem: Problem) -> str:
    """The tiny model's training format: the question, then a newline."""
    return f"{problem.prompt}\n"


def gsm8k_cot_prompt(problem: Problem) -> str:
    """lm-eval `gsm8k_cot`: 8 `Q: ... A: ... The answer is N.` exemplars, then the question."""
    shots = "".join(f"Q: {ex['question']}\nA: {ex['answer']}\n\n" for ex in fewshot("gsm8k_8shot_cot"))
    return f"{shots}Q: {problem.prompt}\nA:"


def math_minerva_prompt(problem: Problem) -> str:
    """Minerva 4-shot: `Problem:` / `Solution:` blocks with `\\boxed{}` answers."""
    shots = "".join(f"Problem:\n{ex['problem']}\n\nSolution: {ex['solution']}\n\n" for ex in fewshot("math_4shot_minerva"))
    return f"{shots}Problem:\n{problem.prompt}\n\nSolution:"


def _mbpp_task(task: str) -> str:
    return f"You are an expert Python programmer, and here is your task: {task}\n[BEGIN]\n"


def mbpp_prompt(problem: Problem) -> str:
    """lm-eval `mbpp`: 3 exemplars, each `task + tests + [BEGIN] code [DONE]`; the model writes code then `[DONE]`.

    The task with its asserts is `mbpp.benchmark_prompt_text` (a training prompt shows the first assert only).
    """
    shots = "".join(_mbpp_task(mbpp.task_with_tests(ex["text"], ex["tests"])) + ex["code"] + f"\n{mbpp.DONE}\n"
                    for ex in fewshot("mbpp_3shot"))
    return shots + _mbpp_task(mbpp.benchmark_prompt_text(problem))


def raw_prompt(problem: Problem) -> str:
    """Zero-shot instruction following (IFEval, IFBench): the user prompt as-is."""
    return problem.prompt
