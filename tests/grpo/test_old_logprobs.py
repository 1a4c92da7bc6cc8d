"""Old log-probs from the trainer and truncated importance sampling (`grpo.recompute_old_logprobs`, `grpo.tis_cap`).

The rollout engine's log-probs differ from the trainer's (vLLM's bf16
kernels; here, batches whose rollout log-probs are random). Recomputed, the
PPO ratio is exactly 1 on the update, so nothing is clipped for numerics;
truncated IS weights min(pi_old / pi_rollout, cap) then carry the correction.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from rlvr_core.config import ConfigError, load_config
from rlvr_core.grpo.algo.common import ClipSettings, per_token_loss, truncated_is_weights
from rlvr_core.grpo.trainer_actor import token_logprobs
from tests.grpo.test_trainer_microbatch import random_batch, trainer

CLIP = ClipSettings(eps_low=0.2, eps_high=0.2, kl_beta=0.04)


def test_behaviour_weights_scale_the_policy_gradient_term_but_not_the_kl_penalty() -> None:
    g = torch.Generator().manual_seed(0)
    logprobs, old, ref = (-torch.rand(3, 5, generator=g) for _ in range(3))
    advantages = torch.tensor([1.0, -0.5, 2.0])
    weights = torch.rand(3, 5, generator=g)
    plain, _ = per_token_loss(logprobs, old, advantages, None, CLIP)
    weighted, _ = per_token_loss(logprobs, old, advantages, None, CLIP, weights)
    torch.testing.assert_close(weighted, plain * weights)
    with_kl, stats = per_token_loss(logprobs, old, advantages, ref, CLIP, weights)
    torch.testing.assert_close(with_kl - weighted, CLIP.kl_beta * stats["kl"])


def test_truncated_is_weights_are_the_probability_ratio_capped() -> None:
    old = torch.log(torch.tensor([[0.5, 0.4, 0.9]]))
    rollout = torch.log(torch.tensor([[0.5, 0.8, 0.1]]))
    torch.testing.assert_close(truncated_is_weights(old, rollout, cap=2.0), torch.tensor([[1.0, 0.5, 2.0]]))


def test_recomputed_old_logprobs_make_the_update_on_policy_whatever_the_engine_reported(tiny_model_dir: Path) -> None:
    batch = random_batch(4)  # rollout log-probs drawn at random: far from the model's
    engine = trainer(tiny_model_dir).accumulate_gradients(batch)
    recomputed = trainer(tiny_model_dir, recompute_old_logprobs=True).accumulate_gradients(batch)
    assert engine["clip_fraction"] > 0.1
    assert recomputed["clip_fraction"] == 0.0 and recomputed["rollout_logprob_gap"] > 0.5


def test_tis_weights_are_capped_and_equal_one_where_the_engine_agrees_with_the_trainer(tiny_model_dir: Path) -> None:
    batch = random_batch(4)
    capped = trainer(tiny_model_dir, recompute_old_logprobs=True, tis_cap=2.0).accumulate_gradients(batch)
    assert 0 < capped["tis_weight_mean"] <= 2.0

    # Rollout log-probs equal to the trainer's: every weight is 1, so the gradients are plain recomputation's.
    own = trainer(tiny_model_dir, recompute_old_logprobs=True)
    model = own.model.eval()
    t = {k: torch.from_numpy(batch[k]) for k in ("input_ids", "attention_mask", "position_ids")}
    with torch.no_grad():
        trainer_logprobs = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"]).numpy()
    agreeing = {**batch, "old_logprobs": np.where(batch["completion_mask"], trainer_logprobs,
                                                  batch["old_logprobs"]).astype(batch["old_logprobs"].dtype)}
    weighted = trainer(tiny_model_dir, recompute_old_logprobs=True, tis_cap=2.0)
    metrics = weighted.accumulate_gradients(agreeing)
    own.accumulate_gradients(agreeing)
    assert metrics["tis_weight_mean"] == pytest.approx(1.0, abs=1e-4)
    for (name, p), q in zip(own.model.named_parameters(), weighted.model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_a_tis_cap_without_recomputed_old_logprobs_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="grpo.tis_cap") as err:
        load_config("tiny-arith", ["grpo.tis_cap=2.0"])
    assert "recompute_old_logprobs: true" in str(err.value)
    assert load_config("gsm8k").grpo.tis_cap == 2.0  # the vLLM configs correct for the engine's numerics


def test_on_policy_the_sampling_pass_log_probs_are_the_recomputed_ones_so_the_update_is_the_same(tiny_model_dir):
    """Colocated in fp32, pi_old as recorded while sampling costs no pass and is pi_old recomputed, up to the
    float rounding of a different batch shape: the PPO ratio is 1, nothing clips, the gradients agree."""
    from tests.grpo.test_reference_ahead import colocated, sampled_batch

    batch = sampled_batch(colocated(tiny_model_dir), prompts=3)
    recorded, recomputing = colocated(tiny_model_dir), colocated(tiny_model_dir, recompute_old_logprobs=True)
    metrics = recorded.accumulate_gradients(batch)
    gap = recomputing.accumulate_gradients(batch)["rollout_logprob_gap"]
    assert gap < 1e-5 and metrics["clip_fraction"] == 0.0
    for (name, p), q in zip(recorded.model.named_parameters(), recomputing.model.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)
