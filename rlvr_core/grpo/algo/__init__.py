"""Loss variants, one small file each, picked by name from a registry.

Every algorithm answers two questions, and the shared PPO/KL per-token term
(`common.py`) does the rest:

- `advantages(rewards)`: rewards of shape [P, G] (P prompts, G completions
  each) -> advantages [P, G];
- `token_weights(mask, max_new_tokens)`: how each completion token's loss is
  weighted in the batch loss. The weights are computed once over the *whole*
  optimizer batch, so summing weighted token losses over micro-batches gives
  exactly the full-batch loss (gradient accumulation changes nothing).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import torch

_REGISTRY = {
    "grpo": "rlvr_core.grpo.algo.grpo",
    "drgrpo": "rlvr_core.grpo.algo.drgrpo",
    "dapo": "rlvr_core.grpo.algo.dapo",
}


class Algorithm(Protocol):
    name: str

    def advantages(self, rewards: "torch.Tensor") -> "torch.Tensor": ...

    def token_weights(self, mask: "torch.Tensor", max_new_tokens: int) -> "torch.Tensor": ...


def get_algorithm(name: str) -> Algorithm:
    """The loss module registered under `name` (grpo, drgrpo, dapo)."""
    if name not in _REGISTRY:
        raise ValueError(f"grpo.loss={name!r} is not a known loss; choose one of {sorted(_REGISTRY)}")
    return importlib.import_module(_REGISTRY[name])  # type: ignore[return-value]


__all__ = ["Algorithm", "get_algorithm"]
