"""The model the smoke test trains: Qwen3-1.7B's exact shape from random weights, built in code (no download).

`QWEN3_1_7B` takes its size from the architecture `rlvr_core.devices.memory` knows for Qwen/Qwen3-1.7B-Base
(the one the memory estimate and the device plan use), plus the fields that do not change its size (rope base,
norm epsilon, context). `REDUCED` keeps its layout (grouped-query attention with two query heads per key/value
head, q/k norms, tied embeddings) at a size the CPU steps through in a fraction of a second, for the suite; its
head size is 32 because vLLM's CPU attention has no kernel for smaller heads.

Each shape also sets the work the phases do with it: the synthetic training rows (a prompt of
`prompt_tokens`, completions of up to `completion_tokens`, as `sampling.max_new_tokens`), and the generation
calls (`generation_prompts` x `group_size` sequences of `generation_tokens`).

The tokenizer reads printable ASCII one character per token and names every other id `<|id|>`, so any id the
random model samples decodes (vLLM's detokenizer must find every sampled id) and prompts are plain text.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_core.devices.memory import ASSUMED_PROMPT_TOKENS, KNOWN_ARCHITECTURES

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast, Qwen3Config

    from rlvr_core.grpo.batch import Group

SPECIAL_TOKENS = {"pad": "<pad>", "eos": "<eos>", "unk": "<unk>"}


@dataclass(frozen=True)
class Shape:
    name: str
    architecture: dict[str, Any]    # the config.json fields `rlvr_core.devices.memory.Architecture` reads
    max_positions: int
    prompt_tokens: int              # synthetic training rows: this many prompt tokens,
    completion_tokens: int          # then up to this many completion tokens (sampling.max_new_tokens)
    prompts: int                    # prompts per training step, `group_size` completions each
    group_size: int
    micro_batch_tokens: int | None  # training.micro_batch_tokens; None keeps the config's own
    generation_prompts: int         # prompts per generate call in the generation phases,
    generation_tokens: int          # sampled to this many new tokens


QWEN3_1_7B = Shape(
    name="qwen3-1.7b", architecture=dict(KNOWN_ARCHITECTURES["Qwen/Qwen3-1.7B-Base"]), max_positions=32768,
    prompt_tokens=ASSUMED_PROMPT_TOKENS, completion_tokens=1024, prompts=4, group_size=8, micro_batch_tokens=None,
    generation_prompts=8, generation_tokens=256)
REDUCED = Shape(
    name="reduced", architecture={"hidden_size": 128, "num_hidden_layers": 2, "intermediate_size": 256,
                                  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32,
                                  "vocab_size": 512, "tie_word_embeddings": True},
    max_positions=2048, prompt_tokens=24, completion_tokens=24, prompts=2, group_size=4, micro_batch_tokens=128,
    generation_prompts=2, generation_tokens=12)
SHAPES = {shape.name: shape for shape in (QWEN3_1_7B, REDUCED)}


def build_tokenizer(vocab_size: int) -> "PreTrainedTokenizerFast":
    """Character-level over printable ASCII, `<|id|>` for the other ids up to `vocab_size`; left padding."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS.values())}
    for char in sorted(set(string.printable) - set("\r\x0b\x0c")):
        vocab[char] = len(vocab)
    vocab.update({f"<|{i}|>": i for i in range(len(vocab), vocab_size)})
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL_TOKENS["unk"]))
    core.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token=SPECIAL_TOKENS["pad"],
                                   eos_token=SPECIAL_TOKENS["eos"], unk_token=SPECIAL_TOKENS["unk"],
                                   padding_side="left")


def model_config(shape: Shape) -> "Qwen3Config":
    """The transformers config of `shape` (Qwen3-1.7B-Base's rope base and norm epsilon), with the tokenizer's
    special ids."""
    from transformers import Qwen3Config

    ids = {name: i for i, name in enumerate(SPECIAL_TOKENS)}
    return Qwen3Config(**shape.architecture, max_position_embeddings=shape.max_positions, rope_theta=1_000_000,
                       rms_norm_eps=1e-6, eos_token_id=ids["eos"], pad_token_id=ids["pad"], bos_token_id=None)


def write_random_model(folder: Path, shape: Shape, device: str, seed: int) -> int:
    """Save a Qwen3 model of `shape` with random weights (initialised on `device`: seconds on a GPU, where the
    CPU takes minutes at full size) and its tokenizer into `folder`, weights in bf16 (what the GPU configs'
    checkpoints hold and vLLM loads); return its parameter count."""
    import torch
    from transformers import Qwen3ForCausalLM

    tokenizer = build_tokenizer(shape.architecture["vocab_size"])
    torch.manual_seed(seed)
    with torch.device(device):
        model = Qwen3ForCausalLM(model_config(shape))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    parameters = sum(p.numel() for p in model.parameters())
    model.to(torch.bfloat16).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return parameters


def synthetic_groups(shape: Shape, seed: int) -> list["Group"]:
    """`shape.prompts` groups of `shape.group_size` rollouts of random tokens, completions of half to all of
    `completion_tokens`, rewards alternating 0/1 in each group (so every advantage is non-zero) and rollout
    log-probs of a uniform policy (-log V: what a random-weight model assigns, near enough)."""
    import numpy as np

    from rlvr_core.grpo.batch import Group, Rollout

    rng = np.random.default_rng(seed)
    vocab = shape.architecture["vocab_size"]
    first = len(SPECIAL_TOKENS)
    groups = []
    for position in range(shape.prompts):
        prompt = rng.integers(first, vocab, shape.prompt_tokens).tolist()
        rollouts = []
        for i in range(shape.group_size):
            length = int(rng.integers(max(1, shape.completion_tokens // 2), shape.completion_tokens + 1))
            rollouts.append(Rollout(prompt_token_ids=prompt, token_ids=rng.integers(first, vocab, length).tolist(),
                                    logprobs=[-math.log(vocab)] * length, text="", finish_reason="length",
                                    weight_version=0, reward=float(i % 2)))
        groups.append(Group(position=position, problem=None, rollouts=rollouts))
    return groups


def probe_prompts(count: int) -> list[str]:
    """Fixed plain-text prompts (one token per character here)."""
    return [f"Question: Natalia sold {7 + i} clips in April and half as many in May. How many clips did she sell "
            f"altogether?\nAnswer:" for i in range(count)]
