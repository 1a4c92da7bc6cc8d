"""Episodes as training samples: what a rollout worker returns for a multi-turn dataset.

A sample is one episode flattened into the shape a single-turn generation
has, plus a loss mask: `prompt_token_ids` (the first prompt), `token_ids`
(everything after it: model turns and tool outputs, in order), `loss_mask`
(1 on the model's tokens, 0 on the environment's), `logprobs` (the sampling
log-probs of model tokens, 0.0 on environment tokens, never trained on),
`text` (the environment's completion of the episode: what the verifier
scores) and `episode` (the whole conversation, for rollouts.jsonl).

Each model turn's ids are the ids the backend sampled; the ids of the prompt
and of tool outputs are the policy's own encoding of their text. A backend
that re-tokenizes the joined transcript could split a border differently;
with the tiny model's character tokenizer it cannot, and with BPE tokenizers
the border tokens are environment tokens, which carry no loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.envs.episode import run_episodes
from rlvr_core.envs.policy import TextPolicy
from rlvr_core.envs.registry import environment_for
from rlvr_core.generation.base import SamplingParams


def episode_samples(backend: Any, problems: Sequence[Problem], params: SamplingParams) -> list[dict[str, Any]]:
    """`params.n` episodes per problem (problem-major, like `generate`), each as one sample dict (see above)."""
    specs = {environment_for(p) for p in problems}
    if None in specs or len(specs) != 1:
        raise ValueError(f"episode_samples needs problems of one multi-turn dataset, got "
                         f"{sorted({p.source for p in problems})}")
    spec = specs.pop()
    policy = TextPolicy(backend, max_context_tokens=spec.max_context_tokens)
    envs = [spec.make(p) for p in problems for _ in range(params.n)]
    episodes = run_episodes(policy, envs, max_turns=spec.max_turns, max_new_tokens=params.max_new_tokens,
                            temperature=params.temperature, seed=params.seed, stop=params.stop)
    samples = []
    for episode in episodes:
        prompt, *rest = episode.segments
        token_ids, mask, logprobs = [], [], []
        for segment in rest:
            ids = segment.token_ids or []
            model = segment.kind == "model"
            token_ids += ids
            mask += [int(model)] * len(ids)
            logprobs += (segment.logprobs or [0.0] * len(ids)) if model else [0.0] * len(ids)
        last = episode.turns[-1]["finish_reason"] if episode.turns else "length"
        samples.append({"prompt_token_ids": prompt.token_ids or [], "token_ids": token_ids, "loss_mask": mask,
                        "logprobs": logprobs, "text": episode.completion, "finish_reason": last,
                        "weight_version": backend.weight_version, "episode": episode.to_record()})
    return samples
