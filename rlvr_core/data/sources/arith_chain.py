"""`arith-chain`: sums of 7-9 one-digit numbers worked as running sums (generator in `rlvr_core/data/chain.py`);
splits `train` (20,000) and `test` (1,000), disjoint by a fixed hash of the numbers."""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Source, code_digest


def generate(split: str) -> list[Problem]:
    from rlvr_core.data.chain import generate_chain

    return generate_chain(split)


ARITH_CHAIN = Source(name="arith-chain", verifier="math", generate=generate,
                     version=lambda: code_digest("rlvr_core.data.chain"))
