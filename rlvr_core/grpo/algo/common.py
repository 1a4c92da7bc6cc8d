"""The per-token terms all losses share: PPO-clipped policy gradient and the k3 KL penalty."""

from __future__ import annotations

from dataclasses import dataclass

import torch

EPS = 1e-4  # added to the group std so a near-constant group does not explode


@dataclass(frozen=True)
class ClipSettings:
    eps_low: float
    eps_high: float
    kl_beta: float


def k3_kl(logprobs: torch.Tensor, ref_logprobs: torch.Tensor) -> torch.Tensor:
    """k3 estimate of KL(pi_theta || pi_ref) per token, >= 0: exp(r) - r - 1 with r = log pi_ref - log pi_theta.

    Its gradient w.r.t. log pi_theta is 1 - exp(r): positive where pi_theta puts
    more mass than pi_ref on the sampled token, so descending it pulls pi_theta
    back toward pi_ref. Shapes: [B, T] -> [B, T].
    """
    delta = ref_logprobs - logprobs
    return torch.exp(delta) - delta - 1.0


def per_token_loss(
    logprobs: torch.Tensor,            # [B, T] log pi_theta of each completion token (requires grad)
    old_logprobs: torch.Tensor,        # [B, T] log-probs under the policy that sampled the token
    advantages: torch.Tensor,          # [B] one advantage per completion
    ref_logprobs: torch.Tensor | None, # [B, T] frozen reference, or None without KL
    clip: ClipSettings,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """PPO clipped surrogate (negated, to minimise) plus beta * k3 KL; returns [B, T] and per-token stats.

    The ratio uses the sampling policy's log-probs, so stale samples (generated
    by older weights) are importance-corrected and clipped.
    """
    ratio = torch.exp(logprobs - old_logprobs)                                   # [B, T]
    adv = advantages.unsqueeze(1)                                                 # [B, 1]
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - clip.eps_low, 1.0 + clip.eps_high) * adv
    loss = -torch.minimum(unclipped, clipped)                                     # [B, T]
    stats = {"clipped": (clipped < unclipped).float().detach()}
    if ref_logprobs is not None and clip.kl_beta > 0:
        kl = k3_kl(logprobs, ref_logprobs)                                        # [B, T]
        loss = loss + clip.kl_beta * kl
        stats["kl"] = kl.detach()
    return loss, stats


def group_centred(rewards: torch.Tensor) -> torch.Tensor:
    """rewards [P, G] minus each group's mean; each row sums to zero."""
    return rewards - rewards.mean(dim=1, keepdim=True)


def group_zscored(rewards: torch.Tensor) -> torch.Tensor:
    """(r - mean) / (std + EPS) per group [P, G]; a constant group gives zeros.

    Computed in float64: when a group's rewards nearly tie, dividing by their
    tiny std would magnify float32 rounding of the mean into advantages whose
    group sum is visibly non-zero (a bias toward one side of the update).
    """
    r = rewards.double()
    return (group_centred(r) / (r.std(dim=1, keepdim=True, unbiased=False) + EPS)).to(rewards.dtype)
