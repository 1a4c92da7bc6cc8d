"""Run constraints strictly or loosely; prompt- and instruction-level accuracy.

Loose = IFEval's: a constraint passes if it holds for any of the response, the
response without its first line, without its last line, without both, and
each of those with every '*' removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlvr_core.verifiers.ifeval.parsing import Constraint


def loose_variants(text: str) -> list[str]:
    lines = text.split("\n")
    base = [text, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    return base + [b.replace("*", "") for b in base]


class UnknownInstruction(KeyError):
    """A constraint id no check is registered for (never silently skipped)."""


def check_all(
    text: str, constraints: Sequence[Constraint], registry: Mapping[str, Any], loose: bool = False
) -> list[bool]:
    """One bool per constraint. Raises UnknownInstruction / TypeError / ValueError on bad ground truth."""
    variants = loose_variants(text) if loose else [text]
    results = []
    for instruction_id, kwargs in constraints:
        check = registry.get(instruction_id)
        if check is None:
            raise UnknownInstruction(instruction_id)
        results.append(any(v.strip() and check(v, **kwargs) for v in variants))
    return results


def prompt_level_accuracy(results: Sequence[Sequence[bool]]) -> float:
    """Fraction of prompts whose every constraint holds."""
    return sum(all(r) for r in results) / len(results) if results else 0.0


def instruction_level_accuracy(results: Sequence[Sequence[bool]]) -> float:
    """Fraction of all constraints, over all prompts, that hold."""
    flat = [x for r in results for x in r]
    return sum(flat) / len(flat) if flat else 0.0
