"""Instruction registry: id -> check(text, **kwargs) -> bool. Group modules register on import.

Two modes. `INSTRUCTIONS` hold the reference checks (what google-research's
IFEval, or allenai's IFBench for `ifbench`, would say), used to evaluate, so
benchmark numbers stay comparable. Strict training mode (`for_mode(...,
strict_mode=True)`) builds every check as `strict_check(reference, extra)`:
the reference verdict on the response as written AND the reference verdict
on what a reader sees (`visible.visible_text`) AND, where
`STRICT_MODE_INSTRUCTIONS` has one, the strict variant on what a reader sees
(it closes a loophole the reference accepts: numbers as words, `[5]` as
JSON, empty bullets...). So strict mode never pays what the reference
refuses, and no disguise of the text (invisible characters, markup,
compatibility forms) passes a check the visible text fails.

A check raises `BadKwargs` (a ValueError) when its kwargs are unusable: that is
a fault of the ground truth, reported as an error. Anything else a check
raises counts against this response: that constraint is not followed, the
others are scored as usual (see checks.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from rlvr_core.verifiers.ifeval.visible import View, markup_text, visible_text

Check = Callable[..., bool]
INSTRUCTIONS: dict[str, Check] = {}
STRICT_MODE_INSTRUCTIONS: dict[str, Check] = {}
RELATIONS = ("less than", "at least", "at most", "around", "exactly")


class BadKwargs(ValueError):
    """A constraint's kwargs cannot be used (unknown relation, a count that is not a number)."""


# Strict variants whose instruction is about markup itself: they see `markup_text` (tags kept), not `visible_text`.
_VIEWS: dict[Check, View] = {}


def instruction(instruction_id: str, strict_mode: bool = False, keeps_markup: bool = False) -> Callable[[Check], Check]:
    """Register `fn` under `instruction_id` (e.g. "keywords:existence"), as the reference or the strict-mode check.

    A strict-mode check receives what a reader sees (`visible_text`), or with `keeps_markup` the same with tags kept.
    """
    return registrar(STRICT_MODE_INSTRUCTIONS if strict_mode else INSTRUCTIONS, instruction_id, keeps_markup)


def registrar(registry: dict[str, Check], check_id: str, keeps_markup: bool = False) -> Callable[[Check], Check]:
    """A decorator that adds a check to `registry` under `check_id`, once."""

    def register(fn: Check) -> Check:
        if check_id in registry:
            raise ValueError(f"check {check_id!r} registered twice")
        registry[check_id] = fn
        if keeps_markup:
            _VIEWS[fn] = markup_text
        return fn

    return register


def strict_check(reference: Check, extra: Check | None = None) -> Check:
    """The strict-mode check, the one place strict mode is built: the reference verdict on the text as written,
    AND the reference verdict on what a reader sees, AND `extra` (the strict variant, if any) on what a reader sees.

    What a reader sees is `visible_text` (`markup_text` where `extra` was registered with `keeps_markup`),
    computed once per response (cached). So strict mode passes nothing the reference fails, and nothing
    whose verdict a disguise changed. The returned check has the reference's signature (`__wrapped__`), so
    kwargs are bound against it.
    """
    view = _VIEWS.get(extra, visible_text) if extra is not None else visible_text

    @functools.wraps(reference)
    def check(text: str, **kwargs: Any) -> bool:
        if not reference(text, **kwargs):
            return False
        seen = view(text)
        if seen != text and not reference(seen, **kwargs):
            return False
        return extra is None or bool(extra(seen, **kwargs))

    return check


def for_mode(reference: Mapping[str, Check], strict_variants: Mapping[str, Check], strict_mode: bool) -> Mapping[str, Check]:
    """The checks of one mode: the reference's, or in strict mode `strict_check` of each (its variant, else itself)."""
    if not strict_mode:
        return reference
    unknown = set(strict_variants) - set(reference)
    if unknown:
        raise ValueError(f"strict-mode checks {sorted(unknown)} have no reference check")
    return {cid: strict_check(check, strict_variants.get(cid)) for cid, check in reference.items()}


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


def compare_bounded(stingy: int, generous: int, relation: str, n: int) -> bool:
    """`compare` of a count read two ways: a lower bound on the `stingy` count, an upper bound on the `generous` one.

    Strict mode's rule for every count: what a response must have at least is counted on the reading that
    gives it least (only real words, whole words); what it may have at most, on the reading that gives it
    most (every visible token, substrings, confusable letters). "exactly" and "around" need both.
    """
    validate_relation(relation)
    if relation == "at least":
        return compare(stingy, relation, n)
    if relation in ("less than", "at most"):
        return compare(generous, relation, n)
    return compare(stingy, relation, n) and compare(generous, relation, n)


def count_limit(n: int) -> int:
    """A count past which `compare(count, relation, n)` no longer changes, for every relation.

    Counting can stop there: "around" tolerates at most max(n/10, 1) <= n + 1.
    """
    return 2 * max(n, 0) + 2
