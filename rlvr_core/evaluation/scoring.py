"""Turn completions into per-item result records, through the verifiers.

Every verdict comes from a `VerifierPool` (process pool with hard timeouts),
so a hanging program or a pathological regex in model output costs one
item, never the run. Two modes:

- filters: each named filter of the benchmark is a view of the completion,
  verified separately (`scores[name]`); the first is the item's `reward`.
- instructions (IFEval, IFBench): each instruction of a prompt is verified on
  its own, strictly (the response as-is) and loosely (the reference
  implementation's 8 variants: with/without the first line, the last line,
  both, and with `*` removed; an instruction passes loosely if any variant
  passes). A prompt passes when all its instructions pass.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from rlvr_core.problem import Problem
from rlvr_core.evaluation.benchmarks import Benchmark


class Pool(Protocol):
    def verify_batch(self, pairs: Sequence[tuple[str, Problem]]) -> list[Any]: ...


def breakdown_keys(problem: Problem) -> dict[str, str | None]:
    """The keys reports group by: MATH subject / category, difficulty level, archetype when present."""
    archetype = problem.extra.get("archetype") if isinstance(problem.extra, dict) else None
    return {"category": problem.category, "difficulty": problem.difficulty, "archetype": archetype}


def loose_variants(response: str) -> list[str]:
    """IFEval's loose-evaluation variants of a response (the strict one first), as in its reference code."""
    lines = response.split("\n")
    remove_first = "\n".join(lines[1:]).strip()
    remove_last = "\n".join(lines[:-1]).strip()
    remove_both = "\n".join(lines[1:-1]).strip()
    variants = [response, remove_first, remove_last, remove_both]
    return variants + [v.replace("*", "") for v in variants]


def instruction_problems(problem: Problem) -> list[tuple[str, Problem]]:
    """One single-instruction `Problem` per instruction of an IFEval-style problem, with its id.

    An answer that is not a JSON list (e.g. RLVR-IFeval's single `func_name`
    form) is one instruction: the problem itself.
    """
    try:
        checks = json.loads(problem.answer)
    except json.JSONDecodeError:
        checks = None
    if not isinstance(checks, list) or not checks:
        return [(problem.id, problem)]
    return [
        (str(check.get("instruction_id", i)) if isinstance(check, dict) else str(i),
         replace(problem, answer=json.dumps([check], sort_keys=True)))
        for i, check in enumerate(checks)
    ]


def _base_record(problem: Problem) -> dict[str, Any]:
    return {"id": problem.id, **breakdown_keys(problem)}


def score_filters(benchmark: Benchmark, problems: Sequence[Problem], completions: Sequence[str], pool: Pool) -> list[dict[str, Any]]:
    """Records with `scores` per filter; `reward`, `status`, `detail` from the primary filter."""
    pairs = [(flt(text), problem) for problem, text in zip(problems, completions) for _, flt in benchmark.filters]
    verdicts = pool.verify_batch(pairs)
    width = len(benchmark.filters)
    records = []
    for i, problem in enumerate(problems):
        mine = verdicts[i * width : (i + 1) * width]
        primary = mine[0]
        records.append({
            **_base_record(problem),
            "reward": float(primary.reward),
            "status": primary.status,
            "detail": primary.detail,
            "scores": {name: float(v.reward) for (name, _), v in zip(benchmark.filters, mine)},
        })
    return records


def score_instructions(problems: Sequence[Problem], completions: Sequence[str], pool: Pool) -> list[dict[str, Any]]:
    """Records with per-instruction strict/loose verdicts and prompt-level scores."""
    pairs: list[tuple[str, Problem]] = []
    layout: list[list[tuple[int, int]]] = []  # per item, per instruction: (start, count) into pairs
    for problem, text in zip(problems, completions):
        spans = []
        variants = [text] + [v for v in dict.fromkeys(loose_variants(text)[1:]) if v.strip() and v != text]
        for _, sub in instruction_problems(problem):
            spans.append((len(pairs), len(variants)))
            pairs.extend((v, sub) for v in variants)
        layout.append(spans)
    verdicts = pool.verify_batch(pairs)
    records = []
    for problem, spans in zip(problems, layout):
        ids = [iid for iid, _ in instruction_problems(problem)]
        strict = [verdicts[start].reward >= 1.0 for start, _ in spans]
        loose = [any(v.reward >= 1.0 for v in verdicts[start : start + count]) for start, count in spans]
        failed = [iid for iid, ok in zip(ids, strict) if not ok]
        statuses = {verdicts[start].status for start, _ in spans}
        status = "correct" if all(strict) else ("error" if statuses <= {"error", "timeout"} else "wrong")
        records.append({
            **_base_record(problem),
            "reward": float(all(strict)),
            "status": status,
            "detail": ("failed: " + ", ".join(failed)) if failed else "",
            "scores": {"prompt_level_strict_acc": float(all(strict)), "prompt_level_loose_acc": float(all(loose))},
            "instructions": {"ids": ids, "strict": strict, "loose": loose},
        })
    return records


def score_completions(benchmark: Benchmark, problems: Sequence[Problem], completions: Sequence[str], pool: Pool) -> list[dict[str, Any]]:
    """One result record per (problem, completion), in order."""
    if benchmark.scoring == "instructions":
        return score_instructions(problems, completions, pool)
    return score_filters(benchmark, problems, completions, pool)
