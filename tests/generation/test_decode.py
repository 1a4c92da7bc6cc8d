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


def test_regroup_copies_only_the_rows_whose_content_changes():
    plain = DynamicLayer()
    plain.update(*_states(3, 4, seed=0))
    reserved = ReservedLayer(plain, tokens=2, slots=5)
    before = reserved.keys.clone()
    buffer = reserved._key_buffer
    reserved.regroup(torch.tensor([0, 1, 2, 1, 1]))      # row 1 splits into three lines
    assert reserved._key_buffer is buffer                  # written in place, no new buffer
    torch.testing.assert_close(reserved.keys, before[[0, 1, 2, 1, 1]], rtol=0, atol=0)
    reserved.regroup(torch.tensor([0, 4, 2]))             # line 1 ended: the last line fills its slot
    torch.testing.assert_close(reserved.keys, before[[0, 1, 2]], rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="slots"):
        reserved.regroup(torch.arange(6) % 3)


def test_next_lines_keep_a_line_in_its_slot_and_move_only_split_and_refilled_ones():
    from rlvr_core.generation.decode import next_lines

    line = torch.tensor([0, 0, 1, 1, 2])        # 5 rows on 3 lines
    chosen = torch.tensor([7, 8, 5, 5, 9])      # line 0 splits, line 1 stays together, line 2's row finishes
    live = torch.tensor([True, True, True, True, False])
    inputs, new_line, source = next_lines(line, chosen, live, lines=3, vocab=10)
    assert source.tolist() == [0, 1, 0]         # line 2's slot goes to line 0's second child
    assert inputs.tolist() == [7, 5, 8]
    assert new_line[:4].tolist() == [0, 2, 1, 1]
    same = next_lines(torch.tensor([0, 1]), torch.tensor([3, 4]), torch.tensor([True, True]), lines=2, vocab=10)
    assert same[2] is None and same[0].tolist() == [3, 4]


def test_rows_that_split_and_finish_at_different_steps_decode_as_each_row_alone(tiny_model_dir):
    """Lines split (sampled rows), die (eos drawn often: a third of the vocabulary ends a row) and are refilled;
    every row still gets the tokens and log-probs of decoding it by itself."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.generation.decode import decode
    from rlvr_core.generation.hf import RowSampler

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, padding_side="left")
    prompts = ["What is 1 + 2?\n", "Hi\n"]
    batch = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    group, seeds = torch.tensor([0] * 6 + [1] * 6), list(range(12))
    eos = set(range(3, 40))
    with torch.inference_mode():
        together = decode(model, batch["input_ids"], batch["attention_mask"], group, max_new_tokens=12,
                          choose=RowSampler(seeds, "cpu", 1.0, 1.0, 12), eos_ids=eos, pad_id=0)
        finished = (torch.isin(together.tokens, torch.tensor(sorted(eos)))).int().argmax(dim=1)
        assert len(set(finished.tolist())) > 2  # rows end at different steps
        for row in range(12):
            alone = tokenizer([prompts[group[row]]], return_tensors="pt", add_special_tokens=False)
            single = decode(model, alone["input_ids"], alone["attention_mask"], torch.tensor([0]), max_new_tokens=12,
                            choose=RowSampler([seeds[row]], "cpu", 1.0, 1.0, 12), eos_ids=eos, pad_id=0)
            n = single.tokens.shape[1]
            assert together.tokens[row, :n].tolist() == single.tokens[0].tolist()
            torch.testing.assert_close(together.logprobs[row, :n], single.logprobs[0], rtol=1e-5, atol=1e-5)
