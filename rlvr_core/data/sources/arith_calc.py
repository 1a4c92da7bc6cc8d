"""`arith-calc`: three-digit additions played with a calculator tool (generator and environment in
`rlvr_core/envs/calc.py`); splits `train` (20,000) and `test` (2,000), disjoint by a fixed hash of the pair."""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Source, code_digest


def generate(split: str) -> list[Problem]:
    from rlvr_core.envs.calc import generate as generate_calc

    return generate_calc(split)


ARITH_CALC = Source(name="arith-calc", verifier="math", generate=generate,
                    version=lambda: code_digest("rlvr_core.envs.calc"))
