"""Rows whose loss terms are all exactly 0 are not computed: the same gradient for less work (`rows_with_gradient`).

Real parts: the tiny Qwen3 model and batches from `build_train_batch`; the plain computation is the loss of
every full row (`token_logprobs` without prompt sharing, merging or skipping), back-propagated once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.algo.common import ClipSettings, per_token_loss
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch, rows_with_gradient
from rlvr_core.grpo.trainer_actor import PolicyTrainer, token_logprobs
from tests.grpo.test_trainer_microbatch import trainer_options

NO_KL = ClipSettings(eps_low=0.2, eps_high=0.2, kl_beta=0.0)


def group(prompt: list[int], rewards: list[float], finish: str = "stop") -> list[Rollout]:
    """Completions of different lengths and tokens, rewarded `rewards`, with rollout log-probs away from the
    model's (so the PPO ratio is not 1 and clipping happens)."""
    return [Rollout(prompt_token_ids=prompt, token_ids=[10 + i + k for k in range(2 + i)],
                    logprobs=[-0.5 - 0.3 * k for k in range(2 + i)], text="", finish_reason=finish,
                    weight_version=0, reward=reward) for i, reward in enumerate(rewards)]


def batch_of(*groups: list[Rollout], skip_overlong: bool = False) -> dict[str, np.ndarray]:
    return build_train_batch([Group(position=g, problem=Problem(str(g), "t", "", "", "math"), rollouts=rollouts)
                              for g, rollouts in enumerate(groups)],
                             get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=skip_overlong)


def plain_gradients(model_dir: Path, batch: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Every row in full, one backward of the whole batch's loss (no KL term)."""
    model = PolicyTrainer(str(model_dir), **trainer_options(model_dir, clip=NO_KL)).model.train()
    t = {k: torch.from_numpy(v) for k, v in batch.items()}
    logprobs = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"])
    loss, _ = per_token_loss(logprobs, t["old_logprobs"], t["advantages"], None, NO_KL)
    (loss * t["token_weights"]).sum().backward()
    return {name: p.grad for name, p in model.named_parameters()}


def test_without_a_kl_term_zero_advantage_groups_are_skipped_and_the_gradient_is_the_whole_batchs(tiny_model_dir):
    batch = batch_of(group([5, 6, 7], [1.0, 0.0, 1.0, 0.0]), group([8, 9], [0.0] * 4), group([7, 5], [1.0] * 4))
    trainer = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir, clip=NO_KL))
    metrics = trainer.accumulate_gradients(batch)
    assert trainer.reference is None and metrics["rows_skipped"] == 8
    assert metrics["trained_tokens"] == int(batch["completion_mask"].sum())  # still the whole batch's tokens
    expected = plain_gradients(tiny_model_dir, batch)
    for name, p in trainer.model.named_parameters():
        torch.testing.assert_close(p.grad, expected[name], rtol=1e-4, atol=1e-6, msg=name)


def test_with_a_kl_term_every_row_is_computed(tiny_model_dir):
    batch = batch_of(group([5, 6, 7], [1.0, 0.0, 1.0, 0.0]), group([8, 9], [0.0] * 4))
    metrics = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir)).accumulate_gradients(batch)
    assert metrics["rows_skipped"] == 0 and metrics["kl"] >= 0


def test_an_update_of_only_zero_advantage_rows_leaves_zero_gradients_for_adamw_to_step_on(tiny_model_dir):
    trainer = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir, clip=NO_KL))
    metrics = trainer.accumulate_gradients(batch_of(group([8, 9], [0.0] * 4)))
    assert metrics["rows_skipped"] == 4 and metrics["micro_batches"] == 0
    assert all(p.grad is not None and not p.grad.any() for p in trainer.model.parameters())


def test_rows_whose_tokens_are_all_masked_are_dropped_whatever_the_loss():
    batch = batch_of(group([5, 6], [1.0, 0.0]), group([8, 9], [1.0, 0.0], finish="length"), skip_overlong=True)
    for zero_advantage_counts in (True, False):
        kept, copies = rows_with_gradient(batch, np.ones(4, dtype=np.int64),
                                          zero_advantage_counts=zero_advantage_counts)
        assert kept["input_ids"].tolist() == batch["input_ids"][:2].tolist() and copies.tolist() == [1, 1]
