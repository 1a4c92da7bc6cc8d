"""IFBench constraint registry: id -> check(text, **kwargs) -> bool, reference and strict mode (see ifeval.registry)."""

from __future__ import annotations

from collections.abc import Callable

from rlvr_core.verifiers.ifeval.registry import Check, registrar

CONSTRAINTS: dict[str, Check] = {}
STRICT_MODE_CONSTRAINTS: dict[str, Check] = {}


def constraint(constraint_id: str, strict_mode: bool = False, keeps_markup: bool = False) -> Callable[[Check], Check]:
    """Register `fn` under `constraint_id` (e.g. "count:numbers"), as the reference or the strict-mode check.

    A strict-mode check receives what a reader sees (`visible_text`), or with `keeps_markup` the same with tags kept.
    """
    return registrar(STRICT_MODE_CONSTRAINTS if strict_mode else CONSTRAINTS, constraint_id, keeps_markup)
