"""The contract every generation backend keeps: sampling settings in, one `Generation` per sample out.

Log-probabilities: `Generation.logprobs[i]` is log π_θ(token_ids[i] | prefix)
under the *raw* model — log-softmax of the unmodified logits (temperature 1,
no top-p). It is not the log-probability under the temperature-scaled,
top-p-truncated distribution the token was drawn from. GRPO needs exactly
this quantity as the "old policy" term of its importance ratio (and it equals
the sampling distribution when temperature == 1 and top_p == 1); a trainer
that samples at another temperature must correct for it itself. Greedy
generations (temperature 0) carry raw-model log-probs too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase

FinishReason = Literal["stop", "length"]


@dataclass(frozen=True)
class SamplingParams:
    """How to sample; validated on construction so a bad value fails before any model work."""

    max_new_tokens: int
    temperature: float = 1.0  # 0.0 means greedy decoding
    top_p: float = 1.0
    n: int = 1  # samples per prompt
    seed: int | None = None  # None: the backend's own seeded stream (reproducible per run, different per call)
    stop: tuple[str, ...] = ()  # completion text is cut before the first occurrence of any of these
    # One seed per sample (len(prompts) * n, grouped by prompt like the output): each sample's randomness then
    # depends on its own seed only, not on the other prompts of the call. Empty: derived from `seed` per sample.
    seeds: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"SamplingParams.max_new_tokens={self.max_new_tokens} must be >= 1")
        if self.temperature < 0:
            raise ValueError(f"SamplingParams.temperature={self.temperature} must be >= 0 (0 means greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"SamplingParams.top_p={self.top_p} must be in (0, 1]")
        if self.n < 1:
            raise ValueError(f"SamplingParams.n={self.n} must be >= 1")
        if isinstance(self.stop, str) or any(not isinstance(s, str) or not s for s in self.stop):
            raise ValueError(f"SamplingParams.stop={self.stop!r} must be a tuple of non-empty strings, e.g. ('\\n\\n',)")
        if any(not isinstance(s, int) or not 0 <= s < 2**63 for s in self.seeds):
            raise ValueError(f"SamplingParams.seeds={self.seeds!r} must be ints in [0, 2**63); use derive_seed(...)")

    def sample_seeds(self, prompts: int, default: int) -> list[int]:
        """The seed of each of the `prompts * n` samples, grouped by prompt: `seeds` when given (their count must
        match), else `derive_seed(seed or default, prompt index, sample index)`."""
        if self.seeds:
            if len(self.seeds) != prompts * self.n:
                raise ValueError(f"SamplingParams.seeds has {len(self.seeds)} seeds for {prompts} prompts x n={self.n}"
                                 f"; pass one per sample ({prompts * self.n})")
            return list(self.seeds)
        base = self.seed if self.seed is not None else default
        return [derive_seed(base, p, s) for p in range(prompts) for s in range(self.n)]

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0


def derive_seed(*keys: int) -> int:
    """A seed in [0, 2**63) mixed from non-negative `keys` by numpy's `SeedSequence`.

    Neighbouring keys ((run, step, prompt, 0) and (run, step, prompt + 1, 0))
    give unrelated streams, which `base * K + i` arithmetic does not promise;
    63 bits fit every engine's seed (torch takes < 2**64, vLLM a Python int).
    """
    import numpy as np

    return int(np.random.SeedSequence(list(keys)).generate_state(1, dtype=np.uint64)[0] >> 1)


@dataclass(frozen=True)
class Generation:
    """One sampled completion of one prompt."""

    prompt_index: int
    sample_index: int
    prompt_token_ids: list[int]
    token_ids: list[int]  # completion ids, including eos if produced, up to the token that completed a stop string
    text: str  # decoded completion, special tokens skipped, cut before the first stop string
    logprobs: list[float]  # one per token_ids entry, raw-model log-probs (see module docstring)
    finish_reason: FinishReason  # "stop": eos or a stop string; "length": max_new_tokens reached
    weight_version: int  # the backend's weight_version when this sample was drawn


@runtime_checkable
class GenerationBackend(Protocol):
    """A model that samples completions and can take new weights without a restart."""

    name: str
    tokenizer: "PreTrainedTokenizerBase"
    weight_version: int

    def generate(self, prompts: Sequence[str], params: SamplingParams) -> list[Generation]:
        """Return len(prompts) * params.n generations, grouped by prompt, in prompt order."""
        ...

    def load_weights(self, state_dict: Mapping[str, "torch.Tensor"], version: int) -> None:
        """Replace the model weights in place and set `weight_version = version`."""
        ...

    def close(self) -> None:
        """Release the model (and its accelerator memory); the backend is unusable afterwards."""
        ...
