"""Repeated completions are trained once, weighted by their count: the same update for less work.

Real parts: the tiny Qwen3 model and batches from `build_train_batch`; the unmerged gradient is computed by
the same trainer one row at a time (a one-row share cannot repeat a row).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch, merge_identical_rows
from rlvr_core.grpo.trainer_actor import PolicyTrainer
from tests.grpo.test_trainer_microbatch import trainer_options


def rollout(completion: list[int], reward: float, logprob: float = -1.0) -> Rollout:
    return Rollout(prompt_token_ids=[5, 6, 7], token_ids=completion, logprobs=[logprob] * len(completion), text="",
                   finish_reason="stop", weight_version=0, reward=reward)


def batch_of(*groups: list[Rollout]) -> dict[str, np.ndarray]:
    return build_train_batch([Group(position=g, problem=Problem(str(g), "t", "", "", "math"), rollouts=rollouts)
                              for g, rollouts in enumerate(groups)],
                             get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=False)


def test_repeated_rows_become_one_row_carrying_their_count():
    batch = batch_of([rollout([9, 10], 1.0), rollout([11], 0.0), rollout([9, 10], 1.0), rollout([9, 10], 1.0)])
    merged, copies = merge_identical_rows(batch)
    assert copies.tolist() == [3, 1]
    assert merged["input_ids"].tolist() == batch["input_ids"][[0, 1]].tolist()  # first-seen order kept
    np.testing.assert_array_equal(merged["token_weights"][0], 3 * batch["token_weights"][0])
    assert merged["completion_mask"].sum() == batch["completion_mask"].sum()  # still the batch's token count


def test_rows_that_differ_in_anything_the_loss_reads_stay_apart():
    same_tokens_other_reward = [rollout([9, 10], 1.0), rollout([9, 10], 0.0)]
    same_tokens_other_logprob = [rollout([9, 10], 1.0), rollout([9, 10], 1.0, logprob=-2.0), rollout([3], 0.0)]
    for group in (same_tokens_other_reward, same_tokens_other_logprob):
        batch = batch_of(group)
        merged, copies = merge_identical_rows(batch)
        assert merged is batch and copies.tolist() == [1] * len(group)


def test_a_batch_whose_arrays_disagree_on_the_row_count_is_refused():
    batch = batch_of([rollout([9], 1.0), rollout([10], 0.0)])
    batch["advantages"] = batch["advantages"][:1]
    with pytest.raises(ValueError, match="one row per completion"):
        merge_identical_rows(batch)


def test_training_on_merged_rows_gives_the_gradient_of_every_row(tiny_model_dir):
    repeated = [rollout([21, 22, 23], 1.0), rollout([24, 25], 0.0)] * 3 + [rollout([26], 0.0)]
    batch = batch_of(repeated, [rollout([27, 28], 1.0), rollout([29], 0.0)] * 3 + [rollout([30], 1.0)])
    merging = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir))
    row_by_row = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir))

    metrics = merging.accumulate_gradients(batch)
    tokens = float(batch["completion_mask"].sum())
    for i in range(len(batch["input_ids"])):
        row_by_row.accumulate_gradients({k: v[i:i + 1] for k, v in batch.items()}, batch_tokens=tokens)

    assert metrics["rows_merged"] == 8 and metrics["trained_tokens"] == tokens
    for p, q in zip(merging.model.parameters(), row_by_row.model.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6)
