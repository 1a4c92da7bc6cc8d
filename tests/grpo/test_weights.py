"""A weight sync ships each tensor once, in the rollout engine's dtype, and the engine ends up with the
trainer's weights exactly as its own cast would give them."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from rlvr_core.generation import create_backend
from rlvr_core.generation.consistency import logprob_spot_check
from rlvr_core.grpo.weights import pack_weights

PROMPTS = ["What is 12 + 30?\n", "What is 7 + 8?\n"]


@pytest.fixture
def trainer_model(tiny_model_dir: Path):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))  # weights the engines do not have yet
    return model


def test_tied_weights_are_shipped_once_and_bf16_takes_half_the_bytes(trainer_model) -> None:
    assert trainer_model.config.tie_word_embeddings
    unique = sum(p.numel() for p in trainer_model.parameters())  # a tied parameter counts once
    fp32, bf16 = pack_weights(trainer_model), pack_weights(trainer_model, torch.bfloat16)
    assert "lm_head.weight" not in fp32.arrays and "model.embed_tokens.weight" in fp32.arrays
    assert fp32.nbytes == 4 * unique and bf16.nbytes == 2 * unique


def test_bf16_travels_as_bit_patterns_and_arrives_exactly_as_the_cast(trainer_model) -> None:
    tensors = pack_weights(trainer_model, torch.bfloat16).tensors()
    for name, tensor in tensors.items():
        expected = trainer_model.state_dict()[name].to(torch.bfloat16)
        assert tensor.dtype == torch.bfloat16 and torch.equal(tensor, expected), name


def test_an_engine_loaded_without_the_tied_duplicate_runs_the_trainers_weights(tiny_model_dir, trainer_model) -> None:
    engine = create_backend("hf", str(tiny_model_dir), device="cpu", dtype="float32")
    assert logprob_spot_check(engine, trainer_model, PROMPTS) > 1e-3
    engine.load_weights(pack_weights(trainer_model).tensors(), version=1)
    assert torch.equal(engine.model.lm_head.weight, trainer_model.lm_head.weight)  # through the tie
    token_prompts = [engine.tokenizer(p)["input_ids"] for p in PROMPTS]
    assert logprob_spot_check(engine, trainer_model, token_prompts) < 1e-5


def test_a_bf16_engine_holds_exactly_what_it_would_hold_after_casting_the_trainers_weights(tiny_model_dir,
                                                                                           trainer_model) -> None:
    engine = create_backend("hf", str(tiny_model_dir), device="cpu", dtype="bfloat16")
    engine.load_weights(pack_weights(trainer_model, torch.bfloat16).tensors(), version=2)
    for name, tensor in engine.model.state_dict().items():
        assert torch.equal(tensor, trainer_model.state_dict()[name].to(torch.bfloat16)), name
