"""Run webextract episodes for the evaluation runner (`Benchmark.rollout`), one batch of problems at a time.

Any generation backend works: hf and vLLM through the tokenizer's chat
template (or the plain transcript when it has none), an OpenAI-compatible
endpoint through chat messages (mode "chat") or the plain transcript (mode
"completions"), and a scripted policy such as the oracle as it is. Each
record keeps the whole episode (turns, tool calls, tool outputs, transcript
segments) next to the completion the verifier scores, and the item's
content hash and generator version (what reports compare items by).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.envs.episode import Episode, run_episodes
from rlvr_core.envs.policy import policy_for
from rlvr_core.envs.web.env import EpisodeLimits, WebExtractEnv
from rlvr_core.generation.base import SamplingParams


def run(policy_or_backend: Any, problems: Sequence[Problem], params: SamplingParams,
        limits: EpisodeLimits | None = None) -> list[Episode]:
    """The finished episodes of `problems`, in order (also for trainers: each has token spans and a completion)."""
    limits = limits or EpisodeLimits()
    policy = policy_for(policy_or_backend, max_context_tokens=limits.max_context_tokens)
    envs = [WebExtractEnv(p, limits) for p in problems]
    return run_episodes(policy, envs, max_turns=limits.max_turns, max_new_tokens=params.max_new_tokens,
                        temperature=params.temperature, seed=params.seed, stop=params.stop)


def rollout(backend: Any, problems: Sequence[Problem], params: SamplingParams) -> list[dict[str, Any]]:
    """One completion record per problem (the runner adds index, id and prompt)."""
    return [{"completion": e.completion, "finish_reason": e.end_reason, "completion_tokens": e.model_tokens,
             "episode": e.to_record(), "content_hash": p.extra.get("content_hash"),
             "generator_version": p.extra.get("generator_version")}
            for e, p in zip(run(backend, problems, params), problems)]
