"""Instruction registry: id -> check(text, **kwargs) -> bool. Group modules register on import.

Two modes. `INSTRUCTIONS` hold the reference checks (what google-research's
IFEval, or allenai's IFBench for `ifbench`, would say), used to evaluate, so
benchmark numbers stay comparable. `STRICT_MODE_INSTRUCTIONS` hold the
training-mode variants of the few checks whose reference accepts a loophole a
policy under RL will find (a keyword inside another word, numbers counted as
words, `5` as JSON, empty bullets, every option at once, a fullwidth comma,
a separator with nothing after it); `for_mode` lays them over the reference.

A check raises `BadKwargs` (a ValueError) when its kwargs are unusable: that is
a fault of the ground truth, reported as an error. Anything else a check
raises counts against this response: that constraint is not followed, the
others are scored as usual (see checks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[..., bool]
INSTRUCTIONS: dict[str, Check] = {}
STRICT_MODE_INSTRUCTIONS: dict[str, Check] = {}
RELATIONS = ("less than", "at least", "at most", "around", "exactly")


class BadKwargs(ValueError):
    """A constraint's kwargs cannot be used (unknown relation, a count that is not a number)."""


def instruction(instruction_id: str, strict_mode: bool = False) -> Callable[[Check], Check]:
    """Register `fn` under `instruction_id` (e.g. "keywords:existence"), as the reference or the strict-mode check."""
    return registrar(STRICT_MODE_INSTRUCTIONS if strict_mode else INSTRUCTIONS, instruction_id)


def registrar(registry: dict[str, Check], check_id: str) -> Callable[[Check], Check]:
    """A decorator that adds a check to `registry` under `check_id`, once."""

    def register(fn: Check) -> Check:
        if check_id in registry:
            raise ValueError(f"check {check_id!r} registered twice")
        registry[check_id] = fn
        return fn

    return register


def for_mode(reference: Mapping[str, Check], strict_variants: Mapping[str, Check], strict_mode: bool) -> Mapping[str, Check]:
    """The checks of one mode: the reference's, with the strict variants laid over them in strict mode."""
    if not strict_mode:
        return reference
    unknown = set(strict_variants) - set(reference)
    if unknown:
        raise ValueError(f"strict-mode checks {sorted(unknown)} have no reference check")
    return {**reference, **strict_variants}


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
