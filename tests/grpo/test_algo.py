"""Loss properties: group advantages, the k3 KL direction, PPO clipping, exact gradient accumulation."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.algo.common import ClipSettings, k3_kl, per_token_loss

rewards_tables = st.integers(1, 6).flatmap(lambda p: st.integers(2, 8).flatmap(
    lambda g: st.lists(st.lists(st.floats(0, 1), min_size=g, max_size=g), min_size=p, max_size=p)))


@pytest.mark.parametrize("name", ["grpo", "drgrpo", "dapo"])
@settings(max_examples=50, deadline=None)
@given(table=rewards_tables)
def test_advantages_sum_to_zero_within_each_group(name, table):
    adv = get_algorithm(name).advantages(torch.tensor(table))            # [P, G]
    assert adv.shape == (len(table), len(table[0]))
    assert torch.allclose(adv.sum(dim=1), torch.zeros(len(table)), atol=1e-4)


def test_grpo_zscores_and_drgrpo_only_centres():
    rewards = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
    assert torch.allclose(get_algorithm("drgrpo").advantages(rewards), torch.tensor([[0.75, -0.25, -0.25, -0.25]]))
    z = get_algorithm("grpo").advantages(rewards)
    assert torch.allclose(z, (rewards - 0.25) / (rewards.std(unbiased=False) + 1e-4))


def test_constant_group_has_zero_advantage():
    for name in ("grpo", "drgrpo", "dapo"):
        assert torch.equal(get_algorithm(name).advantages(torch.ones(2, 4)), torch.zeros(2, 4))


def test_unknown_loss_is_named():
    with pytest.raises(ValueError, match="grpo.loss='ppo'"):
        get_algorithm("ppo")


def test_k3_is_nonnegative_and_zero_only_at_the_reference():
    pol = torch.linspace(-3, 0, 7)
    assert torch.all(k3_kl(pol, pol) == 0)
    assert torch.all(k3_kl(pol, pol - 0.5) > 0) and torch.all(k3_kl(pol, pol + 0.5) > 0)


@pytest.mark.parametrize("offset", [0.7, -0.7])
def test_kl_penalty_gradient_pulls_policy_toward_reference(offset):
    ref = torch.tensor([[-1.0, -2.0]])
    pol = (ref + offset).clone().requires_grad_(True)
    loss, _ = per_token_loss(pol, pol.detach(), torch.zeros(1), ref, ClipSettings(0.2, 0.2, kl_beta=1.0))
    loss.sum().backward()
    # A gradient-descent step moves pol by -grad: toward ref from either side.
    step = -pol.grad
    assert torch.all(torch.sign(step) == torch.sign(ref - pol.detach()))


def test_ppo_clip_stops_gradient_beyond_the_trust_region():
    old = torch.zeros(1, 4)
    logratio = torch.log(torch.tensor([[0.5, 0.9, 1.1, 1.5]]))
    clip = ClipSettings(eps_low=0.2, eps_high=0.28, kl_beta=0.0)
    for sign in (1.0, -1.0):
        pol = logratio.clone().requires_grad_(True)
        loss, stats = per_token_loss(pol, old, torch.tensor([sign]), None, clip)
        loss.sum().backward()
        grad = pol.grad[0]
        if sign > 0:   # positive advantage: ratio above 1 + eps_high earns nothing more
            assert grad[3] == 0 and grad[2] != 0 and grad[0] != 0
            assert stats["clipped"][0].tolist() == [0, 0, 0, 1]
        else:          # negative advantage: ratio below 1 - eps_low is not pushed further down
            assert grad[0] == 0 and grad[1] != 0 and grad[3] != 0
            assert stats["clipped"][0].tolist() == [1, 0, 0, 0]


@pytest.mark.parametrize("name", ["grpo", "drgrpo", "dapo"])
def test_token_weights_make_micro_batches_sum_to_the_batch_loss(name):
    torch.manual_seed(0)
    mask = (torch.rand(8, 6) > 0.3).float()
    mask[:, -1] = 1
    token_loss = torch.randn(8, 6)
    weights = get_algorithm(name).token_weights(mask, max_new_tokens=6)
    whole = (token_loss * weights).sum()
    parts = sum((token_loss[i:i + 3] * weights[i:i + 3]).sum() for i in range(0, 8, 3))
    assert torch.allclose(whole, parts)
    expected = {
        "grpo": ((token_loss * mask).sum(1) / mask.sum(1)).mean(),
        "drgrpo": (token_loss * mask).sum() / (6 * 8),
        "dapo": (token_loss * mask).sum() / mask.sum(),
    }[name]
    assert torch.allclose(whole, expected)
