"""A trainer that fits: micro-batches by a token budget give the same gradients and keep a step's memory flat.

Real parts: the tiny Qwen3 model and real batches from `build_train_batch`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.algo.common import ClipSettings
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
from rlvr_core.grpo.trainer_actor import PolicyTrainer, plan_micro_batches, token_logprobs



def random_batch(groups: int, group_size: int = 4, seed: int = 0, max_prompt: int = 40, max_new: int = 24) -> dict:
    """Groups of varied prompt and completion lengths (so padding differs row to row), varied rewards."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(groups):
        prompt = list(rng.integers(3, 30, size=int(rng.integers(5, max_prompt))))
        rollouts = []
        for _ in range(group_size):
            n = int(rng.integers(1, max_new))
            rollouts.append(Rollout(prompt_token_ids=prompt, token_ids=list(rng.integers(3, 30, size=n)),
                                    logprobs=list(rng.uniform(-4, -0.1, size=n)), text="", finish_reason="stop",
                                    weight_version=0, reward=float(rng.integers(0, 2))))
        rollouts[0].reward, rollouts[1].reward = 0.0, 1.0  # never a zero-variance group
        out.append(Group(position=g, problem=Problem(str(g), "t", "", "", "math"), rollouts=rollouts))
    return build_train_batch(out, get_algorithm("grpo"), max_new_tokens=max_new, pad_token_id=0, skip_overlong=False)


def trainer_options(model_dir: Path, **overrides) -> dict:
    """`PolicyTrainer` keyword arguments of the tests' trainer (KL to the starting weights, constant lr)."""
    return {"reference_path": str(model_dir), "learning_rate": 1e-4, "weight_decay": 0.0, "warmup_steps": 0,
            "max_steps": 10, "lr_schedule": "constant", "max_grad_norm": 1.0, "grad_accum_steps": 1,
            "clip": ClipSettings(eps_low=0.2, eps_high=0.2, kl_beta=0.04), "seed": 0, **overrides}


def trainer(model_dir: Path, **kwargs) -> PolicyTrainer:
    return PolicyTrainer(str(model_dir), **trainer_options(model_dir, **kwargs))


def test_the_plan_covers_every_row_once_within_the_budget() -> None:
    batch = random_batch(8)
    budget = 200
    plan = plan_micro_batches(batch, 1, budget)
    rows = np.concatenate([r for r, _, _ in plan])
    assert sorted(rows.tolist()) == list(range(len(batch["advantages"])))
    width = batch["input_ids"].shape[1]
    for r, first, tail in plan:
        assert len(r) == 1 or len(r) * (width - first) <= budget
        assert batch["attention_mask"][r, :first].sum() == 0          # only shared padding is dropped
        assert batch["completion_mask"][r, : width - 1 - tail].sum() == 0  # no trained token outside the tail
    assert len(plan) > 1


def test_completion_only_logits_equal_the_full_computation(tiny_model_dir: Path) -> None:
    batch = random_batch(2)
    model = trainer(tiny_model_dir).model.eval()
    t = {k: torch.from_numpy(batch[k]) for k in ("input_ids", "attention_mask", "position_ids")}
    with torch.no_grad():
        full = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"])
        tail = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"], last=7)
    torch.testing.assert_close(tail, full[:, -7:], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("budget", [150, 10_000])
def test_gradients_do_not_depend_on_the_micro_batching(tiny_model_dir: Path, budget: int) -> None:
    batch = random_batch(4)
    whole, packed = trainer(tiny_model_dir), trainer(tiny_model_dir, micro_batch_tokens=budget)
    a, b = whole.accumulate_gradients(batch), packed.accumulate_gradients(batch)
    assert a["micro_batches"] == 1 and (budget > 1000 or b["micro_batches"] > 1)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)
    for (name, p), q in zip(whole.model.named_parameters(), packed.model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_gradient_checkpointing_gives_the_same_gradients(tiny_model_dir: Path) -> None:
    batch = random_batch(3)
    plain, checkpointed = trainer(tiny_model_dir), trainer(tiny_model_dir, gradient_checkpointing=True)
    plain.accumulate_gradients(batch)
    checkpointed.accumulate_gradients(batch)
    for p, q in zip(plain.model.parameters(), checkpointed.model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-6)


def largest_forward_tokens(model_dir: Path, groups: int, budget: int | None) -> int:
    """The most tokens (rows x columns) any forward pass of the policy or the reference saw in one step.

    A step's activation memory is proportional to this, so it stands in for peak memory without depending on
    the host's allocator (`benchmarks/step_memory.py` measures the resident memory itself).
    """
    t = trainer(model_dir, micro_batch_tokens=budget, share_prompts=False)
    largest = 0

    def count(_module, _args, kwargs) -> None:
        nonlocal largest
        largest = max(largest, kwargs["input_ids"].numel())

    hooks = [m.register_forward_pre_hook(count, with_kwargs=True) for m in (t.model, t.reference)]
    t.train_step(random_batch(groups, max_prompt=200, max_new=200))
    for hook in hooks:
        hook.remove()
    return largest


@pytest.mark.slow
def test_a_token_budget_keeps_the_largest_forward_pass_flat_as_the_batch_grows(tiny_model_dir: Path) -> None:
    unbudgeted = [largest_forward_tokens(tiny_model_dir, groups, None) for groups in (4, 16)]
    budgeted = [largest_forward_tokens(tiny_model_dir, groups, 4000) for groups in (4, 16)]
    assert unbudgeted[1] > 3 * unbudgeted[0]      # without a budget, 4x the rows is ~4x the forward pass
    assert max(budgeted) <= 4000 < unbudgeted[1]
