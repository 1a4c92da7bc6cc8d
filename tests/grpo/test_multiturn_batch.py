"""Multi-turn rollouts in the training batch: tool-output tokens carry no loss, single-turn rows are unchanged."""

from __future__ import annotations

import numpy as np

from rlvr_core.problem import Problem
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch

PROBLEM = Problem(id="p", source="arith-calc", prompt="What is 1 + 2?", answer="3", verifier="math")


def rollout(tokens: list[int], mask: list[int] | None, reward: float, finish: str = "stop") -> Rollout:
    return Rollout(prompt_token_ids=[7, 7, 7], token_ids=tokens, logprobs=[-0.5] * len(tokens), text="",
                   finish_reason=finish, weight_version=0, reward=reward, loss_mask=mask)


def test_tool_output_tokens_are_masked_out_of_the_loss_and_the_old_logprobs_line_up():
    #            model  model | tool tool tool | model
    tokens, mask = [1, 2, 3, 4, 5, 6], [1, 1, 0, 0, 0, 1]
    group = Group(0, PROBLEM, [rollout(tokens, mask, 1.0), rollout([1, 2], [1, 1], 0.0)])
    batch = build_train_batch([group], get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=False)
    width = 3 + len(tokens)
    # target position t predicts token t+1: the completion's targets are the last len(tokens) positions
    assert batch["completion_mask"][0].tolist() == [0, 0] + mask
    assert batch["input_ids"][0].tolist() == [7, 7, 7, *tokens] and batch["input_ids"].shape == (2, width)
    assert batch["completion_mask"][1].tolist() == [0] * (width - 3) + [1, 1]
    # GRPO's per-sequence mean counts model tokens only: 3 trained tokens, 2 sequences
    np.testing.assert_allclose(batch["token_weights"][0][batch["completion_mask"][0] > 0], 1 / (3 * 2))
    assert not batch["token_weights"][0][batch["completion_mask"][0] == 0].any()


def test_a_single_turn_rollout_without_a_mask_trains_every_completion_token_as_before():
    plain = [rollout([1, 2, 3], None, 1.0), rollout([4, 5], None, 0.0)]
    ones = [rollout([1, 2, 3], [1, 1, 1], 1.0), rollout([4, 5], [1, 1], 0.0)]
    a, b = (build_train_batch([Group(0, PROBLEM, rs)], get_algorithm("dapo"), max_new_tokens=8, pad_token_id=0,
                              skip_overlong=False) for rs in (plain, ones))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_an_overlong_episode_is_skipped_whole_when_asked():
    group = Group(0, PROBLEM, [rollout([1, 2, 3], [1, 0, 1], 1.0, finish="length"), rollout([1], [1], 0.0)])
    batch = build_train_batch([group], get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=True)
    assert not batch["completion_mask"][0].any() and batch["completion_mask"][1].any()
