"""Which datasets are played as multi-turn episodes, and by which environment.

A trainer or runner looks a problem up by its dataset (`Problem.source`):
a dataset listed here is rolled out through its environment (model turns
interleaved with tool outputs), any other is one completion per prompt, as
before. An entry names its environment lazily ("module:factory") so this
file imports nothing heavy, and carries the episode bounds a trainer uses.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from rlvr_core.problem import Problem


@dataclass(frozen=True)
class EnvSpec:
    """How to build one episode's environment for a problem of a dataset."""

    factory: str  # "module:callable" taking a Problem and returning an `Environment`
    max_turns: int  # model messages per episode
    max_context_tokens: int  # prompt + generation per model turn

    def make(self, problem: Problem) -> Any:
        module, _, name = self.factory.partition(":")
        return getattr(importlib.import_module(module), name)(problem)


ENVIRONMENTS: dict[str, EnvSpec] = {
    "webextract": EnvSpec("rlvr_core.envs.web.env:WebExtractEnv", max_turns=8, max_context_tokens=4096),
    "arith-calc": EnvSpec("rlvr_core.envs.calc:CalcEnv", max_turns=3, max_context_tokens=512),
}


def environment_for(problem: Problem) -> EnvSpec | None:
    """The environment spec of `problem`'s dataset, or None for a single-turn dataset."""
    return ENVIRONMENTS.get(problem.source)
