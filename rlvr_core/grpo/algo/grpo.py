"""GRPO (DeepSeekMath): z-scored group advantages, mean over each sequence, then over sequences."""

from __future__ import annotations

import torch

from rlvr_core.grpo.algo.common import group_zscored

name = "grpo"


def advantages(rewards: torch.Tensor) -> torch.Tensor:
    """[P, G] -> [P, G]: (r - group mean) / (group std + eps)."""
    return group_zscored(rewards)


def token_weights(mask: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    """[B, T] -> [B, T]: 1 / (len_i * B'), so the loss is the mean over the B' trained sequences
    (rows with any unmasked token) of per-sequence token means."""
    lengths = mask.sum(dim=1, keepdim=True)                                       # [B, 1]
    trained = (lengths > 0).sum().clamp(min=1)
    return mask / (lengths.clamp(min=1) * trained)
