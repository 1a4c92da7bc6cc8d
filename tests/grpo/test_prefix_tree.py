"""Each prefix once: the prefix-tree pass gives the full rows' log-probs, loss and gradients.

The tree pass replaces a group's rows by one sequence (prompt, then one node per distinct completion prefix)
whose attention mask lets a node see only the prompt and its own ancestors. That is the full rows' computation
up to float rounding: each node attends to exactly the keys its row would (same positions), so the softmax is
over the same set, summed in another order. fp32 rounding of a sum over ~40 terms of magnitude ~1 stays below
1e-5, hence the tolerances, the same as the shared-prompt tests'.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from rlvr_core.grpo.prefix_tree import PrefixForest, prefer_prefix_tree, prefix_tree_logprobs
from rlvr_core.grpo.trainer_actor import plan_micro_batches, token_logprobs
from tests.grpo.test_shared_prompt import same_start_batch
from tests.grpo.test_trainer_microbatch import random_batch, trainer


def forest_of(batch: dict) -> PrefixForest:
    return PrefixForest(batch["input_ids"], batch["attention_mask"], batch["prompt_lengths"])


def logprobs_both_ways(model: torch.nn.Module, batch: dict, tail: int) -> tuple[torch.Tensor, torch.Tensor]:
    t = {k: torch.from_numpy(batch[k]) for k in ("input_ids", "attention_mask", "position_ids")}
    with torch.no_grad():
        full = token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"], last=tail)
        tree = prefix_tree_logprobs(model, forest_of(batch), tail, torch.device("cpu"))
    return full, tree


@pytest.mark.parametrize("kernel", ["eager", "sdpa"])
@pytest.mark.parametrize("make_batch", [lambda: random_batch(5, group_size=4, seed=3), same_start_batch],
                         ids=["random", "same-start"])
def test_completion_logprobs_equal_the_full_rows(tiny_model_dir: Path, kernel: str, make_batch) -> None:
    batch = make_batch()
    model = trainer(tiny_model_dir).model.eval()
    model.set_attn_implementation(kernel)
    (_, _, tail), = plan_micro_batches(batch, 1, None)
    full, tree = logprobs_both_ways(model, batch, tail)
    trained = torch.from_numpy(batch["completion_mask"][:, -tail:]) > 0
    torch.testing.assert_close(tree[trained], full[trained], rtol=1e-5, atol=1e-5)
    assert not tree[~trained].any()  # prompt columns of the tail are not computed


def test_a_tail_shorter_than_a_completion_returns_only_its_columns(tiny_model_dir: Path) -> None:
    batch = random_batch(2, group_size=3, seed=5, max_new=20)
    model = trainer(tiny_model_dir).model.eval()
    full, tree = logprobs_both_ways(model, batch, 3)
    torch.testing.assert_close(tree, full, rtol=1e-5, atol=1e-5)


def test_loss_and_gradients_equal_the_full_rows(tiny_model_dir: Path) -> None:
    """Through the trainer: same_start_batch's trees are shorter than its shared-prompt passes, so it takes them."""
    batch = same_start_batch()
    tree, full = trainer(tiny_model_dir, attention="eager"), trainer(tiny_model_dir, share_prompts=False)
    with tree._training_attention():
        assert prefer_prefix_tree(tree.model, forest_of(batch))
    a, b = tree.accumulate_gradients(batch), full.accumulate_gradients(batch)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-6)
    assert a["kl"] == pytest.approx(b["kl"], rel=1e-3, abs=1e-7)
    for (name, p), q in zip(tree.model.named_parameters(), full.model.parameters()):
        assert p.grad is not None and p.grad.abs().sum() > 0, name
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_every_distinct_prefix_is_one_node_and_the_last_token_of_a_completion_is_none() -> None:
    batch = same_start_batch()
    forest = forest_of(batch)
    # (5,6,7): [8,8,8,5,20,21,1], [8,8,8,5,22,1], [8,8,8,5,20,23,24,1], [8,8,8,5] -> inputs 8 8 8 5 20 21 / 22 / 23 24
    assert len(forest.nodes[0]) == 9
    assert len(forest.nodes[1]) == 3  # [11,12,1] x3 and [11,12,1,13]: 11, 12, 1
    assert len(forest.nodes[2]) == 4  # [3,4], [18,4], [3], [19,20,21]: 3, 18, 19, 20
    depths = [depth for _, _, depth in forest.nodes[0]]
    assert depths == [0, 1, 2, 3, 4, 5, 4, 5, 6]


def test_the_tree_is_only_preferred_when_it_is_short_and_cheaper(tiny_model_dir: Path) -> None:
    model = trainer(tiny_model_dir, attention="eager").model
    model.set_attn_implementation("eager")
    alike = forest_of(same_start_batch())
    assert alike.tokens < alike.shared_pass_tokens() and prefer_prefix_tree(model, alike)
    long_rows = forest_of(random_batch(2, group_size=16, seed=1, max_prompt=60, max_new=40))
    assert long_rows.width > 256 and not prefer_prefix_tree(model, long_rows)


def test_padding_rows_attend_to_themselves_so_no_softmax_row_is_empty() -> None:
    packed = forest_of(same_start_batch()).inputs(torch.device("cpu"), torch.float32)
    visible = packed["attention_mask"][:, 0] == 0                                   # [P, L, L]
    assert visible.any(dim=-1).all()
