"""Instruction registry: id -> check(text, **kwargs) -> bool. Group modules register on import."""

from __future__ import annotations

from collections.abc import Callable

Check = Callable[..., bool]
INSTRUCTIONS: dict[str, Check] = {}


def instruction(instruction_id: str) -> Callable[[Check], Check]:
    """Register `fn` under `instruction_id` (e.g. "keywords:existence")."""

    def register(fn: Check) -> Check:
        if instruction_id in INSTRUCTIONS:
            raise ValueError(f"instruction {instruction_id!r} registered twice")
        INSTRUCTIONS[instruction_id] = fn
        return fn

    return register


def compare(count: int, relation: str, n: int) -> bool:
    """IFEval relations ("less than", "at least") plus RLVR's ("at most", "around", "exactly")."""
    if relation == "less than":
        return count < n
    if relation == "at least":
        return count >= n
    if relation == "at most":
        return count <= n
    if relation == "around":
        return abs(count - n) <= max(round(n * 0.1), 1)
    if relation == "exactly":
        return count == n
    raise ValueError(f"unknown relation {relation!r}; use 'less than', 'at least', 'at most', 'around' or 'exactly'")
