"""A `GenerationBackend` over an OpenAI-compatible HTTP endpoint (a `vllm serve` instance, a hosted API).

Used for baselines: the same benchmarks and verifiers, a model we do not host.
One request per prompt (n samples each), sent by a thread pool of
`concurrency` workers, paced by a client-side rate limit, each retried with
exponential backoff and jitter on connection errors, timeouts, 429 and 5xx
(other 4xx mean a wrong request and fail at once). Requests go through the
official `openai` client with its own retries off, so the policy here is
the only one.

What it does not give: token ids and log-probs (the lists are empty; the
endpoint's tokenizer may not be ours) and in-place weight updates
(`load_weights` raises). Stop strings are sent to the server and also
applied to the returned text, since servers differ in how they honour them.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from rlvr_core.generation.base import Generation, SamplingParams

log = logging.getLogger(__name__)


class EndpointError(RuntimeError):
    """A request failed for good (retries exhausted, or a non-retryable error); the message says which."""


class RateLimiter:
    """At most `per_s` request starts per second across threads (evenly spaced); None disables it."""

    def __init__(self, per_s: float | None) -> None:
        if per_s is not None and per_s <= 0:
            raise ValueError(f"requests_per_s={per_s} must be > 0 (or None for no limit)")
        self.interval = 1.0 / per_s if per_s else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        time.sleep(max(0.0, start - now))


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """`text` up to the first stop string, and whether one was found."""
    cuts = [text.find(s) for s in stop if s and s in text]
    return (text[: min(cuts)], True) if cuts else (text, False)


class OpenAIBackend:
    """Sample from `model` (the name the endpoint serves) at `base_url` (e.g. http://host:8000/v1).

    `mode="completions"` sends raw prompts (base models, few-shot prompts);
    `mode="chat"` sends each prompt as one user message (chat models, hosted APIs).
    The API key comes from `api_key` or $OPENAI_API_KEY ("EMPTY" for local servers).
    """

    name = "openai"

    def __init__(self, model_path: str, *, device: str = "auto", dtype: str = "auto", seed: int = 42,
                 base_url: str | None = None, api_key: str | None = None,
                 mode: Literal["completions", "chat"] = "completions", concurrency: int = 8, max_retries: int = 5,
                 backoff_s: float = 0.5, max_backoff_s: float = 20.0, requests_per_s: float | None = None,
                 timeout_s: float = 300.0, batch_size: int | None = None) -> None:
        from openai import OpenAI

        del device, dtype, batch_size  # the server decides; accepted so callers can pass the usual options
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise ValueError("openai backend: base_url is not set. Fix: pass base_url='http://host:8000/v1' "
                             "(CLI: --base-url) or set OPENAI_BASE_URL")
        if mode not in ("completions", "chat"):
            raise ValueError(f"openai backend: mode={mode!r} must be 'completions' or 'chat'")
        if concurrency < 1 or max_retries < 0:
            raise ValueError(f"openai backend: concurrency={concurrency} must be >= 1 and max_retries={max_retries} >= 0")
        self.model = model_path
        self.base_url = base_url
        self.mode = mode
        self.seed = seed
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.tokenizer = None  # the endpoint tokenizes; see the module docstring
        self.weight_version = 0
        self._limiter = RateLimiter(requests_per_s)
        self._client = OpenAI(base_url=base_url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY",
                              max_retries=0, timeout=timeout_s)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="openai-backend")

    def generate(self, prompts: Sequence[str], params: SamplingParams) -> list[Generation]:
        """len(prompts) * n generations grouped by prompt; raises EndpointError if a request finally fails."""
        futures = [self._pool.submit(self._one_prompt, i, prompt, params) for i, prompt in enumerate(prompts)]
        return [g for future in futures for g in future.result()]

    def _request(self, prompt: str, params: SamplingParams) -> list[tuple[str, str | None]]:
        common: dict[str, Any] = {"model": self.model, "max_tokens": params.max_new_tokens, "n": params.n,
                                  "temperature": params.temperature, "top_p": params.top_p,
                                  "seed": params.seed if params.seed is not None else self.seed}
        if params.stop:
            common["stop"] = list(params.stop)
        if self.mode == "chat":
            reply = self._client.chat.completions.create(messages=[{"role": "user", "content": prompt}], **common)
            return [(c.message.content or "", c.finish_reason) for c in sorted(reply.choices, key=lambda c: c.index)]
        reply = self._client.completions.create(prompt=prompt, **common)
        return [(c.text or "", c.finish_reason) for c in sorted(reply.choices, key=lambda c: c.index)]

    def _one_prompt(self, index: int, prompt: str, params: SamplingParams) -> list[Generation]:
        import openai

        retryable = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
                     openai.InternalServerError)
        for attempt in range(self.max_retries + 1):
            self._limiter.wait()
            try:
                choices = self._request(prompt, params)
                break
            except retryable as err:
                if attempt == self.max_retries:
                    raise EndpointError(f"{self.base_url}: request failed after {attempt + 1} attempts: {err}. "
                                        "Fix: check the server, or raise max_retries / lower requests_per_s") from err
                delay = min(self.max_backoff_s, self.backoff_s * 2**attempt) * (0.5 + random.random() / 2)
                log.warning("%s: %s; retry %d/%d in %.2fs", self.base_url, type(err).__name__, attempt + 1,
                            self.max_retries, delay)
                time.sleep(delay)
            except openai.APIStatusError as err:
                raise EndpointError(f"{self.base_url} rejected the request ({err.status_code}): {err.message}") from err
        if len(choices) != params.n:
            raise EndpointError(f"{self.base_url} returned {len(choices)} choices for n={params.n}")
        generations = []
        for sample, (text, reason) in enumerate(choices):
            text, stopped = cut_at_stop(text, params.stop)
            generations.append(Generation(prompt_index=index, sample_index=sample, prompt_token_ids=[], token_ids=[],
                                          text=text, logprobs=[],
                                          finish_reason="length" if reason == "length" and not stopped else "stop",
                                          weight_version=self.weight_version))
        return generations

    def load_weights(self, state_dict: Mapping[str, Any], version: int) -> None:
        raise NotImplementedError(
            "the openai backend cannot load weights: the endpoint serves the model it was started with. "
            "Restart the server on the new checkpoint (python -m rlvr_core.serve CHECKPOINT), or use backend "
            "'hf' or 'vllm' for in-place weight updates.")

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._client.close()
