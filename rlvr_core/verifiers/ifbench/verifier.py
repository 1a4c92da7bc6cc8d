"""IFBench verifier: 1.0 only when every constraint holds; an unimplemented id is an error.

`strict=True` is the training mode: the strict-mode checks replace the
reference ones where the reference accepts a loophole (see `ifbench.strict`).
"""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.ifbench.registry import CONSTRAINTS, STRICT_MODE_CONSTRAINTS
from rlvr_core.verifiers.ifeval.registry import for_mode
from rlvr_core.verifiers.ifeval.verifier import score_constraints


class IFBenchVerifier:
    name = "ifbench"

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.checks = for_mode(CONSTRAINTS, STRICT_MODE_CONSTRAINTS, strict)

    def verify(self, completion: str, problem: Problem) -> Score:
        return score_constraints(completion, problem, self.checks, all_or_nothing=True)
