"""The trainer's memory estimate: the architecture arithmetic is exact, the shipped GPU configs fit one 80 GB
GPU, and a config that cannot fit fails before anything loads, naming the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlvr_core.config import load_config
from rlvr_core.devices.memory import (GIB, Architecture, MemoryEstimateError, architecture_of, check_at_start,
                                   estimate_training_memory, main)


def test_the_parameter_count_follows_from_config_json_exactly(tiny_model_dir: Path) -> None:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    assert architecture_of(str(tiny_model_dir)).parameters() == sum(p.numel() for p in model.parameters())


def test_qwen3_1_7b_is_known_offline_with_its_published_size() -> None:
    assert architecture_of("Qwen/Qwen3-1.7B-Base").parameters() / 1e9 == pytest.approx(1.72, abs=0.01)


@pytest.mark.parametrize("config", ["gsm8k", "math", "mbpp", "ifeval", "mixed"])
def test_every_shipped_gpu_config_fits_one_80_gb_gpu(config: str, capsys) -> None:
    assert main([config]) == 0
    assert "(fits)" in capsys.readouterr().out


def test_a_config_that_cannot_fit_fails_at_start_with_the_fix() -> None:
    config = load_config("gsm8k", ["training.micro_batch_tokens=131072", "training.gradient_checkpointing=false"])
    with pytest.raises(MemoryEstimateError) as err:
        check_at_start(config, "Qwen/Qwen3-1.7B-Base", gpu_capacity=80 * 10**9)
    message = str(err.value)
    assert "lower training.micro_batch_tokens (e.g. 65536)" in message and "gradient_checkpointing" in message
    assert main(["gsm8k", "training.micro_batch_tokens=131072"]) == 1


def test_the_budget_and_checkpointing_bound_what_grows_with_the_batch() -> None:
    arch = architecture_of("Qwen/Qwen3-1.7B-Base")

    def total(*overrides: str) -> float:
        return estimate_training_memory(load_config("gsm8k", list(overrides)), arch).total / GIB

    assert total("training.micro_batch_tokens=8192") < total("training.micro_batch_tokens=16384")
    assert total("training.gradient_checkpointing=true") < total("training.gradient_checkpointing=false")
    assert total("grpo.kl_beta=0.0") < total("grpo.kl_beta=0.04")


def test_eager_attention_counts_its_stored_attention_weights() -> None:
    """Eager attention keeps [rows, heads, L, L] softmax weights per layer: gsm8k (16,384 tokens a micro-batch,
    rows of 512 + 1,024 tokens, 16 heads, 28 layers checkpointed to one) grows by 6 bytes x 16,384 x 16 x 1,536."""
    arch = architecture_of("Qwen/Qwen3-1.7B-Base")
    sdpa = estimate_training_memory(load_config("gsm8k"), arch)
    eager = estimate_training_memory(load_config("gsm8k", ["training.trainer_attention=eager"]), arch)
    row = 512 + load_config("gsm8k").sampling.max_new_tokens
    assert eager.parts["attention weights (eager)"] == 6 * 16_384 * arch.num_attention_heads * row
    assert "attention weights (eager)" not in sdpa.parts and eager.total > sdpa.total


def test_an_unknown_model_is_reported_and_training_goes_on() -> None:
    config = load_config("gsm8k")
    with pytest.raises(ValueError, match="KNOWN_ARCHITECTURES"):
        architecture_of("nobody/no-such-model")
    note = check_at_start(config, "nobody/no-such-model", gpu_capacity=80 * GIB)
    assert note is not None and note.startswith("trainer memory estimate skipped")
    assert check_at_start(config, "Qwen/Qwen3-1.7B-Base", gpu_capacity=None) is None  # CPU: nothing to check


def test_head_dim_defaults_to_hidden_over_heads() -> None:
    arch = Architecture.from_config({"hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 128,
                                     "num_attention_heads": 4, "vocab_size": 100})
    assert arch.head_dim == 16 and arch.num_key_value_heads == 4 and not arch.tie_word_embeddings


def test_bf16_checkpoints_with_the_newest_state_only_take_a_third_of_the_disk_fp32_full_ones_did() -> None:
    from rlvr_core.devices.memory import checkpoint_sizes

    arch = architecture_of("Qwen/Qwen3-1.7B-Base")
    params = arch.parameters()
    lean = checkpoint_sizes(load_config("gsm8k"), arch)  # bf16 weights, keep_last 5, keep_optimizer latest
    assert lean["weights"] == 2 * params and lean["training_state"] == 12 * params  # AdamW + fp32 master weights
    assert lean["total"] == 5 * 2 * params + 12 * params
    full_fp32 = 5 * (4 + 8) * params  # what every checkpoint used to hold: fp32 weights and AdamW
    assert lean["total"] < full_fp32 / 2.5
    every = checkpoint_sizes(load_config("gsm8k", ["checkpointing.keep_optimizer=all"]), arch)
    assert every["total"] == 5 * (2 + 12) * params


def test_the_cli_prints_the_checkpoint_sizes(capsys) -> None:
    from rlvr_core.devices.memory import main

    main(["gsm8k"])
    out = capsys.readouterr().out
    assert "| weights (bfloat16, the HF folder vLLM loads) | 3.2 |" in out
    assert "all checkpoints, keep_last 5, keep_optimizer latest" in out
