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
        return derive_seeds([(base, p, s) for p in range(prompts) for s in range(self.n)])

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


# numpy's SeedSequence constants (numpy/random/bit_generator.pyx), for `derive_seeds`.
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R, _POOL, _MASK = 0xCA01F9DD, 0x4973F715, 4, 0xFFFFFFFF


def derive_seeds(rows: "Sequence[Sequence[int]]") -> list[int]:
    """`[derive_seed(*keys) for keys in rows]`, computed for all rows at once (an order of magnitude faster than
    one call per row): numpy's SeedSequence hashing on uint32 arrays, one row per seed. Rows of different
    lengths or with a key >= 2**32 (more than one entropy word) take `derive_seed` itself."""
    import numpy as np

    if not rows:
        return []
    if len({len(r) for r in rows}) != 1 or not rows[0] or any(k < 0 or k > _MASK for r in rows for k in r):
        return [derive_seed(*r) for r in rows]
    entropy = np.array(rows, dtype=np.uint32).reshape(len(rows), -1)                 # [N, K]
    hash_const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal hash_const
        value = value ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_A) & _MASK
        value = value * np.uint32(hash_const)
        return value ^ (value >> np.uint32(16))

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        return result ^ (result >> np.uint32(16))

    zeros = np.zeros(len(rows), dtype=np.uint32)
    pool = [hashmix(entropy[:, i] if i < entropy.shape[1] else zeros) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, entropy.shape[1]):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[:, src]))
    words, hash_const = [], _INIT_B
    for i in range(2):  # generate_state(1, uint64): two uint32 words, low word first
        value = pool[i] ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_B) & _MASK
        value = value * np.uint32(hash_const)
        words.append((value ^ (value >> np.uint32(16))).astype(np.uint64))
    return ((words[0] | (words[1] << np.uint64(32))) >> np.uint64(1)).tolist()


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
