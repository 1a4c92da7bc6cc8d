"""Which samples reach the trainer: the staleness bound, group filters, padding and masks."""

from __future__ import annotations

import numpy as np
import pytest

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch, filter_groups, split_by_staleness, split_unjudged


def _group(position: int, version: int, rewards=(1.0, 0.0), finish="stop", n_tokens=3) -> Group:
    problem = Problem(id=f"p{position}", source="arith", prompt="What is 1 + 1?", answer="2", verifier="math")
    return Group(position=position, problem=problem, rollouts=[
        Rollout(prompt_token_ids=[7, 8], token_ids=list(range(10, 10 + n_tokens)), logprobs=[-0.5] * n_tokens,
                text="#### 2", finish_reason=finish, weight_version=version, reward=r) for r in rewards])


@pytest.mark.parametrize("max_staleness", [0, 1, 2])
def test_samples_beyond_the_bound_are_never_kept(max_staleness):
    trainer_version = 5
    groups = [_group(i, version=v) for i, v in enumerate([5, 4, 3, 2, 0])]
    split = split_by_staleness(groups, trainer_version, max_staleness)
    assert [trainer_version - g.weight_version for g in split.fresh] == list(range(max_staleness + 1))
    assert all(trainer_version - g.weight_version > max_staleness for g in split.stale)
    assert {g.position for g in split.fresh} | {g.position for g in split.stale} == set(range(5))
    assert split.histogram == {s: 2 for s in range(max_staleness + 1)}


def test_a_sample_from_a_future_version_is_a_bookkeeping_error():
    with pytest.raises(RuntimeError, match="newer than the trainer"):
        split_by_staleness([_group(0, version=3)], trainer_version=2, max_staleness=0)


def test_a_group_with_a_sample_the_verifier_could_not_judge_is_not_trained_on():
    """An "error" score (the grader or its sandbox failed) is no verdict: its 0 must not become a negative advantage."""
    groups = [_group(i, 0) for i in range(3)]
    for group, statuses in zip(groups, [("correct", "wrong"), ("correct", "error"), ("timeout", "unparsed")]):
        for rollout, status in zip(group.rollouts, statuses):
            rollout.status = status
    judged, unjudged = split_unjudged(groups)
    assert [g.position for g in judged] == [0, 2] and [g.position for g in unjudged] == [1]


def test_zero_variance_filter_drops_only_constant_groups():
    groups = [_group(0, 0, (1.0, 1.0)), _group(1, 0, (1.0, 0.0)), _group(2, 0, (0.0, 0.0))]
    assert len(filter_groups(groups, filter_zero_variance=False).groups) == 3
    kept = filter_groups(groups, filter_zero_variance=True)
    assert [g.position for g in kept.groups] == [1] and kept.zero_variance_dropped == 2


def test_batch_masks_only_completion_tokens_and_left_pads():
    groups = [_group(0, 0, n_tokens=3), _group(1, 0, n_tokens=1)]
    b = build_train_batch(groups, get_algorithm("grpo"), max_new_tokens=4, pad_token_id=0, skip_overlong=False)
    assert b["input_ids"].shape == (4, 5)
    assert b["input_ids"][2].tolist() == [0, 0, 7, 8, 10]
    assert b["completion_mask"][0].tolist() == [0, 1, 1, 1] and b["completion_mask"][2].tolist() == [0, 0, 0, 1]
    assert b["position_ids"][2].tolist() == [0, 0, 0, 1, 2]
    assert np.allclose(b["old_logprobs"] * (1 - b["completion_mask"]), 0)
    assert np.allclose(b["advantages"].reshape(2, 2).sum(1), 0)


def test_skip_overlong_masks_truncated_completions_but_keeps_them_in_the_group():
    groups = [_group(0, 0, rewards=(1.0, 0.0), finish="length")]
    assert build_train_batch(groups, get_algorithm("grpo"), max_new_tokens=3, pad_token_id=0,
                             skip_overlong=True) is None
    b = build_train_batch(groups + [_group(1, 0)], get_algorithm("grpo"), max_new_tokens=3, pad_token_id=0,
                          skip_overlong=True)
    assert b["completion_mask"][:2].sum() == 0 and b["completion_mask"][2:].sum() == 6
