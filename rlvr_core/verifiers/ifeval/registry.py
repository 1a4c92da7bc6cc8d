"""Instruction registry: id -> check(text, **kwargs) -> bool. Group modules register on import.

A check raises `BadKwargs` (a ValueError) when its kwargs are unusable: that is
a fault of the ground truth, reported as an error. Anything else a check
raises counts against this response: that constraint is not followed, the
others are scored as usual (see checks.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[..., bool]
INSTRUCTIONS: dict[str, Check] = {}
RELATIONS = ("less than", "at least", "at most", "around", "exactly")


class BadKwargs(ValueError):
    """A constraint's kwargs cannot be used (unknown relation, a count that is not a number)."""


def instruction(instruction_id: str) -> Callable[[Check], Check]:
    """Register `fn` under `instruction_id` (e.g. "keywords:existence")."""

    def register(fn: Check) -> Check:
        if instruction_id in INSTRUCTIONS:
            raise ValueError(f"instruction {instruction_id!r} registered twice")
        INSTRUCTIONS[instruction_id] = fn
        return fn

    return register


def as_int(value: Any, name: str) -> int:
    """`value` as an int (ground truth stores counts as numbers or numeric strings)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadKwargs(f"{name}={value!r} is not a whole number") from None


def validate_relation(relation: str) -> str:
    if relation not in RELATIONS:
        raise BadKwargs(f"unknown relation {relation!r}; use one of {', '.join(repr(r) for r in RELATIONS)}")
    return relation


def compare(count: int, relation: str, n: int) -> bool:
    """IFEval relations ("less than", "at least") plus RLVR's ("at most", "around", "exactly")."""
    validate_relation(relation)
    if relation == "less than":
        return count < n
    if relation == "at least":
        return count >= n
    if relation == "at most":
        return count <= n
    if relation == "around":
        return abs(count - n) <= max(round(n * 0.1), 1)
    return count == n


def count_limit(n: int) -> int:
    """A count past which `compare(count, relation, n)` no longer changes, for every relation.

    Counting can stop there: "around" tolerates at most max(n/10, 1) <= n + 1.
    """
    return 2 * max(n, 0) + 2
