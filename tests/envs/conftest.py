"""Shared pieces for the environment tests: generated problems and a policy that replays fixed turns."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rlvr_core.data.schema import Problem
from rlvr_core.envs.chat import Message, PlainTranscript
from rlvr_core.envs.episode import Episode, ModelTurn, Segment
from rlvr_core.envs.web.dataset import generate_split, to_problem
from rlvr_core.envs.web.task import build_task


@pytest.fixture(scope="session")
def one_of_each() -> list[Problem]:
    """One bench problem per archetype and difficulty (72)."""
    return generate_split("bench", per_cell=1)


def problem(archetype: str, difficulty: str = "medium", seed: int = 1) -> Problem:
    return to_problem(build_task(archetype, difficulty, seed))


class Replay:
    """A policy that says the given turns in order (the model's side of a conversation, fixed in advance).

    It stands in for a model so the tests can send exactly the hostile or broken output they are about;
    everything after it (parser, tools, sandbox, limits, verifier) is the real code.
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
