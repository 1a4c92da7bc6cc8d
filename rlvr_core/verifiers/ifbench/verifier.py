"""IFBench verifier: 1.0 only when every constraint holds; an unimplemented id is an error."""

from __future__ import annotations

from rlvr_core.data.schema import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.ifbench.registry import CONSTRAINTS
from rlvr_core.verifiers.ifeval.verifier import score_constraints


class IFBenchVerifier:
    name = "ifbench"

    def verify(self, completion: str, problem: Problem) -> Score:
        return score_constraints(completion, problem, CONSTRAINTS, all_or_nothing=True)
