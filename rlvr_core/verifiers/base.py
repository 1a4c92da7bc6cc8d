"""The one result type and the registry every verifier plugs into.

A verifier turns (completion, problem) into exactly one `Score`. Model output
never raises: anything a verifier cannot make sense of scores 0 with a status
that says why ("unparsed", "timeout", "error"), so reward curves and eval
tables can count "could not parse" apart from "wrong".

Two modes. The reference mode (`strict=False`, evaluation's) scores as the
benchmarks' reference implementations do, so numbers stay comparable. The
strict training mode (`strict=True`, config `verifiers.strict`) closes the
loopholes a reference accepts and a policy under RL would learn (a keyword
inside another word, numbers as words, `5` as JSON, ...); only the
instruction verifiers (`STRICT_MODE_VERIFIERS`) differ between the modes.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from rlvr_core.problem import Problem

Status = Literal["correct", "wrong", "unparsed", "timeout", "error"]
STATUSES: tuple[str, ...] = get_args(Status)

# Verifier name -> "module:Class"; imported lazily so `import rlvr_core.verifiers`
# stays cheap and a worker only loads what it scores (sympy is slow to import).
_REGISTRY: dict[str, str] = {
    "math": "rlvr_core.verifiers.math.verifier:MathVerifier",
    "code": "rlvr_core.verifiers.code.verifier:CodeVerifier",
    "ifeval": "rlvr_core.verifiers.ifeval.verifier:IFEvalVerifier",
    "ifbench": "rlvr_core.verifiers.ifbench.verifier:IFBenchVerifier",
    "webextract": "rlvr_core.envs.web.verifier:WebExtractVerifier",
}
# Verifiers whose class takes `strict`: their checks differ between the modes. The others score alike in both.
STRICT_MODE_VERIFIERS = frozenset({"ifeval", "ifbench"})
_INSTANCES: dict[tuple[str, bool], "Verifier"] = {}


@dataclass(frozen=True)
class Score:
    """The verdict on one completion.

    `reward` is in [-1, 1]: 1 is the best answer, 0 a wrong or unparsed one,
    and a negative reward is a penalty for harm beyond being wrong (the
    webextract verifier gives one for following an instruction injected into
    a page). Group advantages, means, pass rates (reward >= threshold) and
    perfect rates (reward == 1) all take a negative reward as it is. `detail`
    is short and human-readable (the extracted answer, the failed constraint,
    the timeout) so a results table explains itself.
    """

    reward: float
    status: Status
    detail: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Score.status={self.status!r} is not one of {STATUSES}")
        if not -1.0 <= self.reward <= 1.0:
            raise ValueError(f"Score.reward={self.reward!r} must lie in [-1, 1]")

    @classmethod
    def error(cls, detail: str) -> "Score":
        return cls(0.0, "error", detail[:300])


class Verifier(Protocol):
    """What every verifier provides; `name` matches `Problem.verifier`."""

    name: str

    def verify(self, completion: str, problem: Problem) -> Score: ...


def get_verifier(name: str, strict: bool = False) -> Verifier:
    """The (cached) verifier instance registered under `name`, in the strict training mode or the reference mode."""
    strict = strict and name in STRICT_MODE_VERIFIERS
    if (name, strict) not in _INSTANCES:
        if name not in _REGISTRY:
            raise KeyError(f"unknown verifier {name!r}; Problem.verifier must be one of {sorted(_REGISTRY)}")
        module_name, cls_name = _REGISTRY[name].split(":")
        cls = getattr(importlib.import_module(module_name), cls_name)
        _INSTANCES[(name, strict)] = cls(strict=True) if strict else cls()
    return _INSTANCES[(name, strict)]


def verify(completion: str, problem: Problem, strict: bool = False) -> Score:
    """Score one completion in this process (no hard timeout; use `VerifierPool` for that).

    `strict`: the strict training mode (rewards); the default is the reference mode (evaluation).

    Never raises on model output: an unexpected exception inside a verifier
    becomes status "error" with the exception named, so one bad row cannot
    stop a training step.
    """
    try:
        verifier = get_verifier(problem.verifier, strict)
    except KeyError as exc:
        return Score.error(str(exc))
    if not isinstance(completion, str):
        return Score.error(f"completion must be str, got {type(completion).__name__}")
    try:
        return verifier.verify(completion, problem)
    except Exception as exc:  # noqa: BLE001 - fail closed on any verifier bug
        return Score.error(f"{problem.verifier} verifier raised {type(exc).__name__}: {exc}")
