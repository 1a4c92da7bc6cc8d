"""IFEval verifier: reward = fraction of constraints met (IFEval's strict scoring); "correct" iff all are.

`strict=True` is the training mode: the strict-mode checks replace the
reference ones where the reference accepts a loophole (see `ifeval.strict`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.ifeval.checks import check_each
from rlvr_core.verifiers.ifeval.parsing import parse_ground_truth
from rlvr_core.verifiers.ifeval.registry import INSTRUCTIONS, STRICT_MODE_INSTRUCTIONS, for_mode
from rlvr_core.verifiers.reasoning import strip_think


def score_constraints(
    completion: str, problem: Problem, registry: Mapping[str, Any], all_or_nothing: bool, loose: bool = False
) -> Score:
    """Shared by IFEval (partial credit) and IFBench (all or nothing).

    Constraints are checked one at a time: a check that crashes on this
    response fails its own constraint only (named in the detail). A fault in
    the ground truth (unparsable, unknown id, bad kwargs) is an error for the
    whole item, since the row, not the model, needs fixing.
    """
    try:
        constraints = parse_ground_truth(problem.answer)
    except (ValueError, TypeError) as exc:
        return Score.error(f"problem {problem.id}: bad ground truth: {exc}")
    text = strip_think(completion)
    if text is None:
        return Score(0.0, "unparsed", "unterminated <think> block")
    unknown = [instruction_id for instruction_id, _ in constraints if instruction_id not in registry]
    if unknown:
        return Score.error(f"unknown instruction id {unknown[0]!r}")
    outcomes = check_each(text, constraints, registry, loose=loose)
    for (instruction_id, _), outcome in zip(constraints, outcomes):
        if outcome.fault:
            return Score.error(f"bad kwargs for problem {problem.id}: {instruction_id}: {outcome.fault}")
    met = [outcome.met for outcome in outcomes]
    failed = [
        instruction_id + (f" ({outcome.crash})" if outcome.crash else "")
        for (instruction_id, _), outcome in zip(constraints, outcomes)
        if not outcome.met
    ]
    fraction = sum(met) / len(met)
    reward = float(not failed) if all_or_nothing else fraction
    detail = f"{sum(met)}/{len(met)} met" + (f"; failed: {', '.join(failed)}" if failed else "")
    return Score(reward, "wrong" if failed else "correct", detail[:300])


class IFEvalVerifier:
    name = "ifeval"

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.checks = for_mode(INSTRUCTIONS, STRICT_MODE_INSTRUCTIONS, strict)

    def verify(self, completion: str, problem: Problem) -> Score:
        return score_constraints(completion, problem, self.checks, all_or_nothing=False)
