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


def test_rows_that_drew_the_same_tokens_share_one_forward_pass(tiny_model_dir):
    """Greedy rows of one prompt never diverge: after the prompt's one prefill, each step runs one line, not six;
    a row that is alone on its line (another prompt) gets its own."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.generation.decode import decode

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, padding_side="left")
    batch = tokenizer(["What is 1 + 2?\n", "What is 30 + 4?\n"], return_tensors="pt", padding=True,
                      add_special_tokens=False)
    rows_per_pass = []
    model.register_forward_pre_hook(lambda _, args, kwargs: rows_per_pass.append(len(kwargs["input_ids"])),
                                    with_kwargs=True)
    with torch.inference_mode():
        out = decode(model, batch["input_ids"], batch["attention_mask"], torch.tensor([0] * 6 + [1]),
                     max_new_tokens=5, choose=lambda logits: logits.argmax(dim=-1), eos_ids=set(), pad_id=0)
    assert rows_per_pass == [2, 2, 2, 2, 2]  # the prefill of 2 prompts, then 2 lines per token for 7 rows
    assert (out.tokens[:6] == out.tokens[0]).all()
