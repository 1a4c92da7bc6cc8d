"""Each prompt once: the shared-prompt forward gives the full rows' log-probs, loss and gradients.

Real parts: the tiny Qwen3 model and batches from `build_train_batch` with varied prompt and completion lengths
(so left padding, prompt padding and completion padding all differ row to row).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
from rlvr_core.grpo.shared_prompt import shared_prompt_logprobs
from rlvr_core.grpo.trainer_actor import plan_micro_batches, token_logprobs
from tests.grpo.test_trainer_microbatch import random_batch, trainer


def logprobs_both_ways(model: torch.nn.Module, batch: dict, tail: int) -> tuple[torch.Tensor, torch.Tensor]:
    t = {k: torch.from_numpy(batch[k]) for k in ("input_ids", "attention_mask", "position_ids")}
    with torch.no_grad():
        full = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"], last=tail)
        shared = shared_prompt_logprobs(model, t["input_ids"], t["attention_mask"], batch["prompt_lengths"], tail)
    return full, shared


def test_completion_logprobs_equal_the_full_rows(tiny_model_dir: Path) -> None:
    batch = random_batch(5, group_size=4, seed=3)
    model = trainer(tiny_model_dir).model.eval()
    (_, _, tail), = plan_micro_batches(batch, 1, None)
    full, shared = logprobs_both_ways(model, batch, tail)
    trained = torch.from_numpy(batch["completion_mask"][:, -tail:]) > 0
    assert trained.sum() > 100
    torch.testing.assert_close(shared[trained], full[trained], rtol=1e-5, atol=1e-5)
    assert not shared[~trained].any()  # prompt columns of the tail are not computed


def test_a_tail_shorter_than_a_completion_returns_only_its_columns(tiny_model_dir: Path) -> None:
    batch = random_batch(2, group_size=3, seed=5, max_new=20)
    model = trainer(tiny_model_dir).model.eval()
    full, shared = logprobs_both_ways(model, batch, 3)
    torch.testing.assert_close(shared, full, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("budget", [None, 150])
def test_loss_and_gradients_equal_the_full_rows(tiny_model_dir: Path, budget: int | None) -> None:
    batch = random_batch(4, seed=11)
    shared = trainer(tiny_model_dir, micro_batch_tokens=budget)
    full = trainer(tiny_model_dir, micro_batch_tokens=budget, share_prompts=False)
    a, b = shared.accumulate_gradients(batch), full.accumulate_gradients(batch)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)
    assert a["kl"] == pytest.approx(b["kl"], rel=1e-3, abs=1e-7)
    for (name, p), q in zip(shared.model.named_parameters(), full.model.parameters()):
        assert p.grad is not None and p.grad.abs().sum() > 0, name
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_gradient_checkpointing_runs_full_rows(tiny_model_dir: Path) -> None:
    """Checkpointed layers recompute without a KV cache, so the trainer falls back to full rows (same gradients)."""
    assert not trainer(tiny_model_dir, gradient_checkpointing=True).share_prompts
    assert trainer(tiny_model_dir).share_prompts
    assert np.all(random_batch(1)["prompt_lengths"] > 0)


def same_start_batch() -> dict:
    """Groups whose completions share their first tokens: a format prefix then different answers, completions
    that are all alike, one that is only the common start, and one group with nothing in common."""
    completions = {
        (5, 6, 7): [[8, 8, 8, 5, 20, 21, 1], [8, 8, 8, 5, 22, 1], [8, 8, 8, 5, 20, 23, 24, 1], [8, 8, 8, 5]],
        (9, 10): [[11, 12, 1]] * 3 + [[11, 12, 1, 13]],
        (14, 15, 16, 17): [[3, 4], [18, 4], [3], [19, 20, 21]],
    }
    groups = [Group(position=g, problem=Problem(str(g), "t", "", "", "math"), rollouts=[
        Rollout(prompt_token_ids=list(prompt), token_ids=c, logprobs=[-1.0] * len(c), text="", finish_reason="stop",
                weight_version=0, reward=float(i % 2)) for i, c in enumerate(group)])
              for g, (prompt, group) in enumerate(completions.items())]
    return build_train_batch(groups, get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=False)


def test_completions_starting_alike_share_that_start_and_still_equal_the_full_rows(tiny_model_dir: Path) -> None:
    batch = same_start_batch()
    model = trainer(tiny_model_dir).model.eval()
    (_, _, tail), = plan_micro_batches(batch, 1, None)
    full, shared = logprobs_both_ways(model, batch, tail)
    trained = torch.from_numpy(batch["completion_mask"][:, -tail:]) > 0
    torch.testing.assert_close(shared[trained], full[trained], rtol=1e-5, atol=1e-5)
    assert not shared[~trained].any()


def test_gradients_through_a_shared_completion_start_equal_the_full_rows(tiny_model_dir: Path) -> None:
    batch = same_start_batch()
    shared, full = trainer(tiny_model_dir), trainer(tiny_model_dir, share_prompts=False)
    a, b = shared.accumulate_gradients(batch), full.accumulate_gradients(batch)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)
    for (name, p), q in zip(shared.model.named_parameters(), full.model.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_the_shared_start_is_the_longest_common_prefix_up_to_the_shortest_completion() -> None:
    from rlvr_core.grpo.shared_prompt import _common_starts

    completions = [[8, 8, 5, 1], [8, 8, 6], [8, 8], [3, 4], [3, 5], [7], [7, 1]]
    lengths = np.array([len(c) for c in completions])
    padded = np.array([c + [0] * (4 - len(c)) for c in completions])
    assert _common_starts(padded, lengths, [0, 0, 0, 1, 1, 2, 2], np.array([0, 3, 5])).tolist() == [2, 1, 1]
