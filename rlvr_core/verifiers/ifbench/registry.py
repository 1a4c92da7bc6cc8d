"""IFBench constraint registry: id -> check(text, **kwargs) -> bool."""

from __future__ import annotations

from rlvr_core.verifiers.ifeval.registry import Check

CONSTRAINTS: dict[str, Check] = {}


def constraint(constraint_id: str):
    def register(fn: Check) -> Check:
        if constraint_id in CONSTRAINTS:
            raise ValueError(f"constraint {constraint_id!r} registered twice")
        CONSTRAINTS[constraint_id] = fn
        return fn

    return register
