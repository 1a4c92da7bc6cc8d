"""Dr. GRPO ("GRPO done right"): mean-centred advantages and a constant normaliser.

Dividing by the group std and by each sequence's length both bias the
gradient (toward easy/hard groups and toward long wrong answers); Dr. GRPO
drops both: token losses are summed and divided by a constant,
max_new_tokens * number of completions in the batch.
"""

from __future__ import annotations

import torch

from rlvr_core.grpo.algo.common import group_centred

name = "drgrpo"


def advantages(rewards: torch.Tensor) -> torch.Tensor:
    """[P, G] -> [P, G]: r - group mean (no std division)."""
    return group_centred(rewards)


def token_weights(mask: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    """[B, T] -> [B, T]: the constant 1 / (max_new_tokens * B) on every completion token."""
    return mask / (max_new_tokens * mask.shape[0])
