"""The hf backend's token loop (generation/decode.py): its reserved KV cache holds what concatenation holds.

That sampling through it gives the raw model's log-probs is tested end to end in test_hf.py
(`test_logprobs_are_the_raw_models_and_match_a_forward_pass`).
"""

from __future__ import annotations

import pytest
import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from rlvr_core.generation.decode import ReservedLayer, reserve


def _states(rows: int, positions: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(rows, 2, positions, 4, generator=generator),
            torch.randn(rows, 2, positions, 4, generator=generator))


def test_a_reserved_layer_returns_the_keys_and_values_concatenation_returns():
    plain = DynamicLayer()
    plain.update(*_states(3, 5, seed=0))
    reserved = ReservedLayer(plain, tokens=4)
    for step in range(4):
        new = _states(3, 1, seed=step + 1)
        expected = plain.update(*new)
        got = reserved.update(*new)
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e, rtol=0, atol=0)
        assert reserved.get_seq_length() == plain.get_seq_length() == 6 + step


def test_a_reserved_layer_refuses_more_positions_than_it_has_room_for():
    plain = DynamicLayer()
    plain.update(*_states(1, 2, seed=0))
    reserved = ReservedLayer(plain, tokens=1)
    reserved.update(*_states(1, 1, seed=1))
    with pytest.raises(RuntimeError, match="reserved"):
        reserved.update(*_states(1, 1, seed=2))


def test_reserve_replaces_only_filled_plain_dynamic_layers():
    cache = DynamicCache()
    cache.update(*_states(2, 3, seed=0), layer_idx=0)
    cache.layers.append(DynamicLayer())  # a layer nothing was written to yet
    reserve(cache, tokens=2)
    assert isinstance(cache.layers[0], ReservedLayer)
    assert type(cache.layers[1]) is DynamicLayer
