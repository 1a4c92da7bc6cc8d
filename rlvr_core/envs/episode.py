"""Episodes: the record of one multi-turn rollout, and the batched loop that runs many at once.

An `Episode` is what a trainer and an evaluation both need:
- `messages`: the conversation as chat messages (tool results are user
  messages of `<tool_response>` blocks, see `chat.py`);
- `segments`: the same conversation as consecutive text pieces, each marked
  "prompt", "model" or "env", with token ids (and the model's log-probs) when
  the policy has a tokenizer. Concatenated they are the exact text of the
  last prompt plus the last reply; `token_spans()` gives each piece's range
  in the concatenated token ids, and `model_mask()` the loss mask (1 on model
  tokens only). Backends take text today, so turn k>1 is re-tokenized from
  text by the backend; a trainer should feed the concatenated ids instead;
- `turns`: per model turn its text, finish reason, tool calls and tool output;
- `completion`: what the verifier scores into the per-episode reward, as the
  environment writes it (`Environment.completion`: the turns joined by a
  separator, or a document that also records what the environment executed).

`run_episodes` advances every unfinished episode by one model turn per round
(one batched `policy.act` call), lets each environment answer, and stops an
episode when the environment says so, at `max_turns`, or when the policy has
no room left in the context window. The environments of one round answer
concurrently (threads, at most `step_workers`), so slow tool calls of
different episodes overlap; an environment that raises ends its own episode
("env_error"), never the run. `to_record` output is always UTF-8 encodable.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rlvr_core.envs.chat import Message
from rlvr_core.envs.jsonsafe import scrub

log = logging.getLogger(__name__)
STEP_WORKERS = 32

SegmentKind = Literal["prompt", "model", "env"]


@dataclass
class Segment:
    kind: SegmentKind
    text: str
    token_ids: list[int] | None = None
    logprobs: list[float] | None = None  # model segments: raw-model log-probs, one per token id


@dataclass(frozen=True)
class ModelTurn:
    """What the policy generated for one episode in one round."""

    text: str
    finish_reason: str
    token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    transcript_text: str | None = None  # the text as it belongs in the transcript (special tokens kept); else `text`


@dataclass(frozen=True)
class StepResult:
    """The environment's answer to one model turn: finished (with why), or the tool message to send back."""

    done: bool
    reply: Message | None = None
    end_reason: str = ""
    record: dict[str, Any] = field(default_factory=dict)  # what the turn did (calls, outputs), kept in the episode


class Environment(Protocol):
    """One episode's world. `step` never raises on model output."""

    id: str
    stop_strings: tuple[str, ...]

    def initial_messages(self) -> list[Message]: ...

    def completion(self, turns: list[dict[str, Any]]) -> str:
        """The string the verifier scores, from the episode's turns (and what the environment recorded)."""
        ...

    def canonical(self, text: str, finish_reason: str) -> str:
        """The model's turn as the environment reads it (e.g. a stop-cut closing tag put back)."""
        ...

    def step(self, text: str, finish_reason: str, *, last_turn: bool) -> StepResult: ...


@dataclass
class Episode:
    env: Environment
    messages: list[Message]
    segments: list[Segment] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    end_reason: str = ""

    @property
    def completion(self) -> str:
        return self.env.completion(self.turns)

    @property
    def model_tokens(self) -> int:
        return sum(len(s.token_ids or ()) for s in self.segments if s.kind == "model")

    def finish(self, reason: str) -> None:
        self.done, self.end_reason = True, reason

    def token_spans(self) -> list[tuple[int, int, SegmentKind]]:
        """(start, end, kind) of each segment in the concatenated token ids; [] when a segment has no ids."""
        if any(s.token_ids is None for s in self.segments):
            return []
        spans, start = [], 0
        for s in self.segments:
            spans.append((start, start + len(s.token_ids or ()), s.kind))
            start += len(s.token_ids or ())
        return spans

    def token_ids(self) -> list[int]:
        return [t for s in self.segments for t in (s.token_ids or ())]

    def model_mask(self) -> list[int]:
        """1 for every model-generated token, 0 for prompt and tool tokens (the policy-gradient loss mask)."""
        return [int(kind == "model") for start, end, kind in self.token_spans() for _ in range(end - start)]

    def to_record(self) -> dict[str, Any]:
        """JSON-ready: the turns, the transcript segments (a model segment's text only where it differs from its
        turn's text; token ids left out, their counts kept), how it ended."""
        segments, turn = [], 0
        for s in self.segments:
            record: dict[str, Any] = {"kind": s.kind, "tokens": None if s.token_ids is None else len(s.token_ids)}
            if s.kind != "model":
                record["text"] = s.text
            else:
                if turn < len(self.turns) and s.text != self.turns[turn]["text"]:
                    record["text"] = s.text
                turn += 1
            segments.append(record)
        return scrub({"id": self.env.id, "end_reason": self.end_reason, "turns": self.turns, "segments": segments})


class Policy(Protocol):
    """Generates model turns for episodes; owns how their text is rendered and tokenized."""

    def start(self, episode: Episode) -> None:
        """Add the prompt segment for `episode.messages`."""
        ...

    def act(self, episodes: Sequence[Episode], max_new_tokens: int, temperature: float, seed: int | None,
            stop: tuple[str, ...]) -> list[ModelTurn | None]:
        """One turn per episode; None for an episode with no room left in the context window."""
        ...

    def extend(self, episode: Episode, reply: Message) -> None:
        """Add the environment segment that carries `reply` and opens the next model turn."""
        ...


def _step(env: Environment, text: str, finish_reason: str, last_turn: bool) -> StepResult:
    try:
        return env.step(text, finish_reason, last_turn=last_turn)
    except Exception as exc:  # noqa: BLE001 - one broken environment ends its episode, not the run
        log.exception("environment %s raised on a model turn", getattr(env, "id", "?"))
        return StepResult(True, None, "env_error", {"calls": [], "error": f"{type(exc).__name__}: {exc}"[:300]})


def run_episodes(policy: Policy, envs: Sequence[Environment], *, max_turns: int, max_new_tokens: int,
                 temperature: float = 0.0, seed: int | None = None, stop: tuple[str, ...] = (),
                 step_workers: int = STEP_WORKERS) -> list[Episode]:
    """Run every environment to its end (batched per round); returns the episodes in order."""
    if max_turns < 1:
        raise ValueError(f"max_turns={max_turns} must be >= 1")
    episodes = [Episode(env, env.initial_messages()) for env in envs]
    for episode in episodes:
        policy.start(episode)
    with ThreadPoolExecutor(max_workers=max(1, step_workers), thread_name_prefix="env-step") as pool:
        for turn in range(max_turns):
            active = [e for e in episodes if not e.done]
            if not active:
                break
            stops = tuple(dict.fromkeys((*stop, *active[0].env.stop_strings)))
            replies = policy.act(active, max_new_tokens, temperature, None if seed is None else seed + turn, stops)
            stepping = []
            for episode, reply in zip(active, replies):
                if reply is None:
                    episode.finish("context_full")
                    continue
                text = episode.env.canonical(reply.text, reply.finish_reason)
                episode.segments.append(Segment("model", reply.transcript_text or text, reply.token_ids, reply.logprobs))
                episode.messages.append({"role": "assistant", "content": text})
                future = pool.submit(_step, episode.env, text, reply.finish_reason, turn == max_turns - 1)
                stepping.append((episode, reply, text, future))
            for episode, reply, text, future in stepping:
                result = future.result()
                episode.turns.append({"text": text, "finish_reason": reply.finish_reason,
                                      "tokens": None if reply.token_ids is None else len(reply.token_ids),
                                      **result.record})
                if result.done or result.reply is None:
                    episode.finish(result.end_reason or "no_reply")
                    continue
                episode.messages.append(result.reply)
                policy.extend(episode, result.reply)
    for episode in episodes:
        if not episode.done:
            episode.finish("max_turns")
    return episodes
