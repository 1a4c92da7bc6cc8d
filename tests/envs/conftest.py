"""Shared pieces for the environment tests: generated problems, episode documents, a policy that replays fixed turns."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from rlvr_core.problem import Problem
from rlvr_core.envs.chat import Message, PlainTranscript
from rlvr_core.envs.episode import Episode, ModelTurn, Segment
from rlvr_core.envs.web.dataset import generate_split, to_problem
from rlvr_core.envs.web.env import WebExtractEnv
from rlvr_core.envs.web.task import build_task
from rlvr_core.envs.web.verifier import WebExtractVerifier
from rlvr_core.verifiers.base import Score


@pytest.fixture(scope="session")
def one_of_each() -> list[Problem]:
    """One bench problem per archetype and difficulty."""
    return generate_split("bench", per_cell=1)


def problem(archetype: str, difficulty: str = "medium", seed: int = 1) -> Problem:
    return to_problem(build_task(archetype, difficulty, seed))


def gold(p: Problem) -> dict[str, Any]:
    return json.loads(p.answer)


def reads(p: Problem) -> list[dict[str, Any]]:
    """Ledger entries of a run_python call on every page the solver read (what an honest episode executes)."""
    return [{"turn": 1, "tool": "run_python", "page": path, "code": "print(len(HTML))", "status": "ok"}
            for path in gold(p)["reads"]]


def document(p: Problem, *turns: str, calls: list[dict[str, Any]] | None = None, **limits: Any) -> str:
    """The episode document the environment writes for these model turns and this ledger (default: every page read)."""
    from rlvr_core.envs.web.env import EpisodeLimits

    env = WebExtractEnv(p, EpisodeLimits(**limits))
    env.ledger = reads(p) if calls is None else calls
    return env.completion([{"text": t} for t in turns])


def score(p: Problem, *turns: str, calls: list[dict[str, Any]] | None = None, **limits: Any) -> Score:
    return WebExtractVerifier().verify(document(p, *turns, calls=calls, **limits), p)


class Replay:
    """A policy that says the given turns in order (the model's side of a conversation, fixed in advance).

    It stands in for a model so the tests can send exactly the hostile or broken output they are about;
    everything after it (parser, tools, sandbox, limits, ledger, verifier) is the real code.
    """

    def __init__(self, turns: Sequence[str], finish_reason: str = "stop") -> None:
        self.turns = list(turns)
        self.finish_reason = finish_reason
        self.plain = PlainTranscript()

    def start(self, episode: Episode) -> None:
        episode.segments.append(Segment("prompt", self.plain.prompt(episode.messages)))

    def extend(self, episode: Episode, reply: Message) -> None:
        episode.segments.append(Segment("env", self.plain.tail(reply)))

    def act(self, episodes, max_new_tokens, temperature, seed, stop) -> list[ModelTurn | None]:
        out = []
        for e in episodes:
            k = len(e.turns)
            out.append(ModelTurn(self.turns[k], self.finish_reason) if k < len(self.turns) else ModelTurn("", "stop"))
        return out
