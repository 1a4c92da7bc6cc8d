"""Policies over the project's generation backends: how an episode's next turn is generated.

- `TextPolicy`: backends that take prompt text (hf, vLLM, and an OpenAI-compatible
  endpoint in completions mode). The transcript is rendered with the
  tokenizer's chat template, or the plain transcript when there is none (or no
  tokenizer at all, as for an endpoint). With a tokenizer, every segment
  carries token ids and model segments the raw-model log-probs.
- `ChatEndpointPolicy`: an OpenAI-compatible endpoint in chat mode; the whole
  conversation goes as messages and the server applies its own template.

`policy_for(backend)` picks one; an object that already is a policy (the
webextract oracle) is used as it is. Every policy keeps each episode inside
`max_context_tokens` (prompt + new tokens): an episode without room for at
least `MIN_NEW_TOKENS` more tokens gets None, i.e. ends "context_full".
Without a tokenizer, length is estimated at 3 characters per token.
"""

from __future__ import annotations

import logging
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from rlvr_core.envs.chat import ChatTemplate, Message, PlainTranscript, renderer_for
from rlvr_core.envs.episode import Episode, ModelTurn, Segment
from rlvr_core.generation.base import SamplingParams

log = logging.getLogger(__name__)

MIN_NEW_TOKENS = 16
CHARS_PER_TOKEN = 3
_MARGIN = 8  # re-tokenizing the joined text may merge a few tokens across segment borders


class TextPolicy:
    """A text-in, text-out backend driven through a growing transcript."""

    def __init__(self, backend: Any, *, max_context_tokens: int, renderer: Any = None) -> None:
        self.backend = backend
        self.tokenizer = getattr(backend, "tokenizer", None)
        self.renderer = renderer or renderer_for(self.tokenizer)
        self.max_context_tokens = max_context_tokens

    def _encode(self, text: str) -> list[int] | None:
        if self.tokenizer is None:
            return None
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _length(self, episode: Episode) -> int:
        if self.tokenizer is None:
            return sum(len(s.text) for s in episode.segments) // CHARS_PER_TOKEN + 1
        return sum(len(s.token_ids or ()) for s in episode.segments) + _MARGIN

    def start(self, episode: Episode) -> None:
        text = self.renderer.prompt(episode.messages)
        episode.segments.append(Segment("prompt", text, self._encode(text)))

    def act(self, episodes: Sequence[Episode], max_new_tokens: int, temperature: float, seed: int | None,
            stop: tuple[str, ...]) -> list[ModelTurn | None]:
        out: list[ModelTurn | None] = [None] * len(episodes)
        groups: dict[int, list[int]] = defaultdict(list)
        for i, episode in enumerate(episodes):
            room = min(max_new_tokens, self.max_context_tokens - self._length(episode))
            if room >= MIN_NEW_TOKENS:
                groups[room].append(i)
        stops = tuple(dict.fromkeys((*stop, *self.renderer.stops)))
        for room, indices in sorted(groups.items()):
            params = SamplingParams(max_new_tokens=room, temperature=temperature, seed=seed, stop=stops)
            prompts = ["".join(s.text for s in episodes[i].segments) for i in indices]
            for i, gen in zip(indices, self.backend.generate(prompts, params)):
                out[i] = ModelTurn(gen.text, gen.finish_reason, list(gen.token_ids) or None, list(gen.logprobs) or None,
                                   self._transcript_text(gen))
        return out

    def _transcript_text(self, gen: Any) -> str | None:
        """Under a chat template the model's special tokens (its end-of-turn) stay in the transcript."""
        if isinstance(self.renderer, ChatTemplate) and gen.token_ids:
            return self.tokenizer.decode(gen.token_ids, skip_special_tokens=False)
        return None

    def extend(self, episode: Episode, reply: Message) -> None:
        tail = self.renderer.tail(reply)
        last = episode.segments[-1]
        if isinstance(self.renderer, ChatTemplate) and last.token_ids:
            end = self.tokenizer.decode(last.token_ids[-1:], skip_special_tokens=False)
            if end and not self.tokenizer.decode(last.token_ids[-1:], skip_special_tokens=True) and tail.startswith(end):
                tail = tail[len(end):]  # the model already wrote its end-of-turn token
        episode.segments.append(Segment("env", tail, self._encode(tail)))


def endpoint_chat(backend: Any, conversations: Sequence[list[Message]], params: SamplingParams
                  ) -> list[tuple[str, str] | None]:
    """(text, finish reason) per conversation from an OpenAI-compatible /chat/completions endpoint.

    The one function that relies on `OpenAIBackend` internals (its client, thread pool, rate limiter and
    retry settings), because its `generate` sends a single user message in chat mode. A request the server
    rejects for its length gives None (the episode ends "context_full"); other failures raise `EndpointError`.
    """
    import openai

    from rlvr_core.generation.openai_api import EndpointError, cut_at_stop

    retryable = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError)

    def one(messages: list[Message]) -> tuple[str, str] | None:
        for attempt in range(backend.max_retries + 1):
            backend._limiter.wait()
            try:
                reply = backend._client.chat.completions.create(
                    model=backend.model, messages=messages, max_tokens=params.max_new_tokens, n=1,
                    temperature=params.temperature, top_p=params.top_p,
                    seed=params.seed if params.seed is not None else backend.seed,
                    **({"stop": list(params.stop)[:4]} if params.stop else {}))
                choice = reply.choices[0]
                text, stopped = cut_at_stop(choice.message.content or "", params.stop)
                return text, "length" if choice.finish_reason == "length" and not stopped else "stop"
            except openai.BadRequestError as err:
                if any(w in str(err).lower() for w in ("context", "maximum", "too long", "length")):
                    return None
                raise EndpointError(f"{backend.base_url} rejected the request: {err}") from err
            except retryable as err:
                if attempt == backend.max_retries:
                    raise EndpointError(f"{backend.base_url}: request failed after {attempt + 1} attempts: {err}") from err
                time.sleep(min(backend.max_backoff_s, backend.backoff_s * 2**attempt) * (0.5 + random.random() / 2))
            except openai.APIStatusError as err:
                raise EndpointError(f"{backend.base_url} rejected the request ({err.status_code}): {err.message}") from err
        return None

    futures = [backend._pool.submit(one, list(m)) for m in conversations]
    return [f.result() for f in futures]


class ChatEndpointPolicy:
    """An OpenAI-compatible chat endpoint: messages out, the server's template in between; text-only segments."""

    def __init__(self, backend: Any, *, max_context_tokens: int) -> None:
        self.backend = backend
        self.max_context_tokens = max_context_tokens
        self._plain = PlainTranscript()  # segments are kept readable in the records

    def start(self, episode: Episode) -> None:
        episode.segments.append(Segment("prompt", self._plain.prompt(episode.messages)))

    def act(self, episodes: Sequence[Episode], max_new_tokens: int, temperature: float, seed: int | None,
            stop: tuple[str, ...]) -> list[ModelTurn | None]:
        out: list[ModelTurn | None] = [None] * len(episodes)
        groups: dict[int, list[int]] = defaultdict(list)
        for i, episode in enumerate(episodes):
            used = sum(len(m["content"]) for m in episode.messages) // CHARS_PER_TOKEN + 8 * len(episode.messages)
            room = min(max_new_tokens, self.max_context_tokens - used)
            if room >= MIN_NEW_TOKENS:
                groups[room].append(i)
        for room, indices in sorted(groups.items()):
            params = SamplingParams(max_new_tokens=room, temperature=temperature, seed=seed, stop=stop)
            for i, reply in zip(indices, endpoint_chat(self.backend, [episodes[i].messages for i in indices], params)):
                out[i] = None if reply is None else ModelTurn(reply[0], reply[1])
        return out

    def extend(self, episode: Episode, reply: Message) -> None:
        episode.segments.append(Segment("env", self._plain.tail(reply)))


def policy_for(backend: Any, *, max_context_tokens: int) -> Any:
    """The policy that drives `backend`: itself if it is one, chat messages for a chat endpoint, else text."""
    if all(hasattr(backend, name) for name in ("start", "act", "extend")):
        return backend
    if getattr(backend, "name", "") == "openai" and getattr(backend, "mode", "") == "chat":
        return ChatEndpointPolicy(backend, max_context_tokens=max_context_tokens)
    return TextPolicy(backend, max_context_tokens=max_context_tokens)
