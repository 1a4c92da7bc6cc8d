"""DAPO: z-scored group advantages, token-level mean over all tokens in the batch.

The asymmetric clip (`grpo.clip_eps_high` > `clip_eps_low`, e.g. 0.28 vs 0.2)
is applied by the shared PPO term; token-level aggregation means long
completions weigh in proportion to their length rather than per sequence.
"""

from __future__ import annotations

import torch

from rlvr_core.grpo.algo.common import group_zscored

name = "dapo"


def advantages(rewards: torch.Tensor) -> torch.Tensor:
    """[P, G] -> [P, G]: (r - group mean) / (group std + eps)."""
    return group_zscored(rewards)


def token_weights(mask: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    """[B, T] -> [B, T]: 1 / (total completion tokens in the batch)."""
    return mask / mask.sum().clamp(min=1)
