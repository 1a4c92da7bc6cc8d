"""Run constraints strictly or loosely, one at a time; prompt- and instruction-level accuracy.

Loose = IFEval's: a constraint passes if it holds for any of the response, the
response without its first line, without its last line, without both, and
each of those with every '*' removed (blank variants never pass).

Each constraint is isolated. A check that raises on this response (a
RecursionError from very deep JSON, an NLTK regex timeout, a text too long to
split) scores that constraint as not followed and names the exception; the
other constraints of the prompt are scored as usual. Nothing here raises on
model output. Faults of the ground truth (an unknown instruction id, kwargs
the check does not take or cannot use) are kept apart in `Outcome.fault`, so
the verifier can report them as errors rather than as the model's failure;
an ImportError (a missing dependency) propagates for the same reason.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rlvr_core.verifiers.ifeval.parsing import Constraint
from rlvr_core.verifiers.ifeval.registry import BadKwargs


def loose_variants(text: str) -> list[str]:
    lines = text.split("\n")
    base = [text, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    return base + [b.replace("*", "") for b in base]


class UnknownInstruction(KeyError):
    """A constraint id no check is registered for (never silently skipped)."""


@dataclass(frozen=True)
class Outcome:
    """One constraint's verdict on one response.

    `met` is False whenever `fault` or `crash` is set. `fault` says why the
    ground truth could not be checked (unknown id, bad kwargs); `crash` names
    the exception a check raised on this response.
    """

    met: bool
    fault: str = ""
    crash: str = ""


@lru_cache(maxsize=None)
def _parameters(check: Any) -> tuple[frozenset[str], frozenset[str], bool]:
    """(required kwarg names, accepted kwarg names, takes **kwargs) of `check(text, **kwargs)`."""
    params = list(inspect.signature(check).parameters.values())[1:]
    named = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = frozenset(p.name for p in named if p.default is p.empty)
    return required, frozenset(p.name for p in named), any(p.kind is p.VAR_KEYWORD for p in params)


def _bind_fault(check: Any, kwargs: Mapping[str, Any]) -> str:
    """Why `check(text, **kwargs)` cannot be called, or "" (what Signature.bind checks, cached per check)."""
    required, accepted, open_ended = _parameters(check)
    problems = [f"missing {name}" for name in sorted(required - kwargs.keys())]
    if not open_ended:
        problems += [f"unexpected {name}" for name in sorted(kwargs.keys() - accepted)]
    return f"bad kwargs {dict(kwargs)!r}: {'; '.join(problems)}" if problems else ""


def _run(check: Any, text: str, kwargs: Mapping[str, Any]) -> Outcome:
    """One variant: blank text never passes; BadKwargs is a fault; any other exception a crash."""
    if not text.strip():
        return Outcome(False)
    try:
        return Outcome(bool(check(text, **kwargs)))
    except BadKwargs as exc:
        return Outcome(False, fault=f"bad kwargs: {exc}")
    except ImportError:
        raise  # a missing dependency is the environment's fault: let the verifier report an error
    except Exception as exc:  # noqa: BLE001 - one check's crash must not decide the others
        return Outcome(False, crash=f"{type(exc).__name__}: {str(exc)[:80]}")


def check_each(
    text: str, constraints: Sequence[Constraint], registry: Mapping[str, Any], loose: bool = False
) -> list[Outcome]:
    """One Outcome per constraint, in order. Never raises on model output."""
    variants = loose_variants(text) if loose else [text]
    outcomes = []
    for instruction_id, kwargs in constraints:
        check = registry.get(instruction_id)
        if check is None:
            outcomes.append(Outcome(False, fault=f"unknown instruction id {instruction_id!r}"))
            continue
        fault = _bind_fault(check, kwargs)
        if fault:
            outcomes.append(Outcome(False, fault=fault))
            continue
        outcome = Outcome(False)
        for variant in variants:
            result = _run(check, variant, kwargs)
            if result.met or result.fault:
                outcome = result
                break
            outcome = outcome if outcome.crash else result
        outcomes.append(outcome)
    return outcomes


def check_all(
    text: str, constraints: Sequence[Constraint], registry: Mapping[str, Any], loose: bool = False
) -> list[bool]:
    """One bool per constraint. Raises UnknownInstruction / ValueError on bad ground truth, never on model output."""
    for instruction_id, _ in constraints:
        if instruction_id not in registry:
            raise UnknownInstruction(instruction_id)
    outcomes = check_each(text, constraints, registry, loose=loose)
    for (instruction_id, _), outcome in zip(constraints, outcomes):
        if outcome.fault:
            raise ValueError(f"{instruction_id}: {outcome.fault}")
    return [outcome.met for outcome in outcomes]


def prompt_level_accuracy(results: Sequence[Sequence[bool]]) -> float:
    """Fraction of prompts whose every constraint holds."""
    return sum(all(r) for r in results) / len(results) if results else 0.0


def instruction_level_accuracy(results: Sequence[Sequence[bool]]) -> float:
    """Fraction of all constraints, over all prompts, that hold."""
    flat = [x for r in results for x in r]
    return sum(flat) / len(flat) if flat else 0.0
