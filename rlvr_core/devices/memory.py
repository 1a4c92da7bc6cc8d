"""How much GPU memory the trainer needs: an upper-bound estimate printed at start, failing early when it cannot fit.

Why: the first sign of a config that does not fit used to be an out-of-memory
error minutes into step 1, after the model, the data and the rollout
engine had loaded. The estimate needs only the model's architecture
(`config.json`: a local folder, the Hugging Face cache, or the table of
known models below, so it also works offline and in CI) and the config.

What it counts, per trainer GPU (the rollout engine has its own GPU):
- fp32 master weights, fp32 gradients and AdamW's two fp32 moments: 16 bytes
  per parameter; a frozen fp32 reference when `grpo.kl_beta > 0`: 4 more;
- logits of one micro-batch: bf16 logits, their fp32 copy, the log-softmax
  temporaries and the fp32 gradient, 14 bytes per (token, vocabulary entry),
  for every token of the micro-batch (completion-only logits make it less);
- activations: 34 bytes per token and hidden unit per layer (Korthikanti et
  al. 2022, with fused attention), or with gradient checkpointing each
  layer's bf16 input plus one layer recomputed;
- with `training.trainer_attention: eager`, each layer's attention weights:
  6 bytes (fp32 softmax and its bf16 copy) per token, head and key position
  of a row of `ASSUMED_PROMPT_TOKENS` + `sampling.max_new_tokens`;
- 10 % plus 1 GiB for the CUDA context and allocator fragmentation.
A micro-batch holds `training.micro_batch_tokens` tokens, or without a
budget the step's rows split `grad_accum_steps` ways at
`ASSUMED_PROMPT_TOKENS` prompt tokens plus `sampling.max_new_tokens` each.

The command also prints what the run's checkpoints take on disk
(`checkpoint_sizes`): the weights in `model.dtype` (what vLLM loads), the
training state (AdamW's two fp32 moments, plus fp32 master weights when the
folder's are not fp32) in the checkpoints `checkpointing.keep_optimizer`
keeps it in, and the total at `checkpointing.keep_last`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

GIB = 2**30
ASSUMED_PROMPT_TOKENS = 512
ADAM_FP32_BYTES_PER_PARAM = 16       # weights + grads + exp_avg + exp_avg_sq
LOGIT_BYTES = 14                      # bf16 logits + fp32 copy + log-softmax temporaries + fp32 grad
ACTIVATION_BYTES = 34                 # per token x hidden unit x layer, fused attention
EAGER_ATTENTION_BYTES = 6             # per token x head x key position x layer: fp32 softmax + bf16 copy
OVERHEAD_FRACTION, OVERHEAD_BYTES = 0.10, 1 * GIB

# config.json fields of models the shipped configs name, so the estimate needs no download.
KNOWN_ARCHITECTURES: dict[str, dict[str, Any]] = {
    "Qwen/Qwen3-1.7B-Base": {"hidden_size": 2048, "num_hidden_layers": 28, "intermediate_size": 6144,
                             "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                             "vocab_size": 151936, "tie_word_embeddings": True},
}


class MemoryEstimateError(RuntimeError):
    """The trainer would not fit on its GPU; the message gives the estimate and the fix."""


@dataclass(frozen=True)
class Architecture:
    """The `config.json` fields a decoder-only transformer's size follows from (Llama/Qwen layout)."""

    hidden_size: int
    num_hidden_layers: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    tie_word_embeddings: bool

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Architecture":
        values = {f.name: config.get(f.name) for f in fields(cls)}
        if values["head_dim"] is None and config.get("num_attention_heads"):
            values["head_dim"] = config["hidden_size"] // config["num_attention_heads"]
        values["num_key_value_heads"] = values["num_key_value_heads"] or values["num_attention_heads"]
        values["tie_word_embeddings"] = bool(values["tie_word_embeddings"])
        missing = [k for k, v in values.items() if v is None]
        if missing:
            raise ValueError(f"config.json lacks {', '.join(missing)}: not a decoder-only transformer this "
                             f"estimate knows")
        return cls(**values)

    def parameters(self) -> int:
        """Every parameter, tied embeddings once: embeddings, per layer attention + gated MLP + norms, final norm."""
        h, heads, kv, d = self.hidden_size, self.num_attention_heads, self.num_key_value_heads, self.head_dim
        attention = h * heads * d * 2 + h * kv * d * 2 + 2 * d      # q, o; k, v; q/k norms (Qwen3)
        mlp = 3 * h * self.intermediate_size
        per_layer = attention + mlp + 2 * h                         # two RMSNorms
        embeddings = self.vocab_size * h * (1 if self.tie_word_embeddings else 2)
        return embeddings + self.num_hidden_layers * per_layer + h


def architecture_of(name_or_path: str) -> Architecture:
    """The architecture of a local folder, a hub id in the local Hugging Face cache, or a known model."""
    folder = Path(name_or_path)
    if (folder / "config.json").is_file():
        return Architecture.from_config(json.loads((folder / "config.json").read_text()))
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(name_or_path, "config.json")
    except Exception:  # not a valid repo id: fall through to the table
        cached = None
    if isinstance(cached, str):
        return Architecture.from_config(json.loads(Path(cached).read_text()))
    if name_or_path in KNOWN_ARCHITECTURES:
        return Architecture.from_config(KNOWN_ARCHITECTURES[name_or_path])
    raise ValueError(f"no config.json for {name_or_path!r} (not a folder, not in the Hugging Face cache, not in "
                     f"rlvr_core/devices/memory.py's KNOWN_ARCHITECTURES). Fix: download the model first, or add its "
                     f"config.json fields to KNOWN_ARCHITECTURES")


@dataclass(frozen=True)
class MemoryEstimate:
    parameters: int
    micro_batch_tokens: int
    parts: dict[str, int]      # name -> bytes

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def table(self, capacity: int | None = None) -> str:
        rows = [f"| {name} | {size / GIB:.1f} |" for name, size in self.parts.items()]
        lines = [f"trainer memory estimate: {self.parameters / 1e9:.2f} B parameters, "
                 f"{self.micro_batch_tokens:,} tokens per micro-batch",
                 "| part | GiB |", "|---|---:|", *rows, f"| **total** | **{self.total / GIB:.1f}** |"]
        if capacity is not None:
            lines.append(f"GPU memory: {capacity / GIB:.1f} GiB ({'fits' if self.fits(capacity) else 'DOES NOT FIT'})")
        return "\n".join(lines)

    def fits(self, capacity: int) -> bool:
        return self.total <= capacity


def micro_batch_tokens(config: "ExperimentConfig") -> int:
    t, s = config.training, config.sampling
    if t.micro_batch_tokens is not None:
        return t.micro_batch_tokens
    rows = -(-s.prompts_per_step * s.group_size // t.grad_accum_steps)
    return rows * (ASSUMED_PROMPT_TOKENS + s.max_new_tokens)


def estimate_training_memory(config: "ExperimentConfig", arch: Architecture) -> MemoryEstimate:
    """Upper-bound bytes on the trainer's GPU for `config` (see the module docstring for each part)."""
    params, tokens, h = arch.parameters(), micro_batch_tokens(config), arch.hidden_size
    parts = {"weights, gradients, AdamW moments (fp32)": ADAM_FP32_BYTES_PER_PARAM * params}
    if config.grpo.kl_beta > 0:
        parts["frozen reference (fp32)"] = 4 * params
    parts["logits of one micro-batch"] = LOGIT_BYTES * tokens * arch.vocab_size
    per_layer = ACTIVATION_BYTES * tokens * h
    if config.training.gradient_checkpointing:
        parts["activations (checkpointed)"] = arch.num_hidden_layers * 2 * tokens * h + per_layer
    else:
        parts["activations"] = arch.num_hidden_layers * per_layer
    if config.training.trainer_attention == "eager":
        stored_layers = 1 if config.training.gradient_checkpointing else arch.num_hidden_layers
        row_length = ASSUMED_PROMPT_TOKENS + config.sampling.max_new_tokens
        parts["attention weights (eager)"] = (stored_layers * EAGER_ATTENTION_BYTES * tokens
                                              * arch.num_attention_heads * row_length)
    parts["CUDA context, fragmentation"] = int(OVERHEAD_FRACTION * sum(parts.values())) + OVERHEAD_BYTES
    return MemoryEstimate(parameters=params, micro_batch_tokens=tokens, parts=parts)


def check_fits(estimate: MemoryEstimate, capacity: int, where: str) -> None:
    """Raise `MemoryEstimateError` with the fix when `estimate` exceeds `capacity` bytes."""
    if estimate.fits(capacity):
        return
    half = max(1024, estimate.micro_batch_tokens // 2)
    raise MemoryEstimateError(
        f"the trainer needs about {estimate.total / GIB:.1f} GiB but {where} has {capacity / GIB:.1f} GiB.\n"
        f"{estimate.table()}\nFix: lower training.micro_batch_tokens (e.g. {half}), set "
        f"training.gradient_checkpointing: true, set grpo.kl_beta: 0 (no reference copy), or use a smaller model")


def check_at_start(config: "ExperimentConfig", model_path: str, gpu_capacity: int | None) -> str | None:
    """The estimate table for the run's log, when the trainer runs on a GPU of `gpu_capacity` bytes (None: on
    CPU, nothing to check); raises `MemoryEstimateError` when it cannot fit. An unknown architecture is
    reported and training goes on."""
    if gpu_capacity is None:
        return None
    try:
        estimate = estimate_training_memory(config, architecture_of(model_path))
    except ValueError as err:
        return f"trainer memory estimate skipped: {err}"
    check_fits(estimate, gpu_capacity, "the trainer's GPU")
    return estimate.table(gpu_capacity)


ADAM_STATE_BYTES_PER_PARAM = 8     # exp_avg + exp_avg_sq in fp32
WEIGHT_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "auto": 4}  # "auto" on CPU is fp32


def checkpoint_sizes(config: "ExperimentConfig", arch: Architecture) -> dict[str, int]:
    """Bytes on disk: one checkpoint's weights, one training state, and all of a run's checkpoints at
    `keep_last` (None: per checkpoint kept, the total grows with every one)."""
    params = arch.parameters()
    weight_bytes = WEIGHT_BYTES[config.model.dtype]
    weights = weight_bytes * params
    state = ADAM_STATE_BYTES_PER_PARAM * params + (4 * params if weight_bytes != 4 else 0)
    kept = config.checkpointing.keep_last or 1
    with_state = 1 if config.checkpointing.keep_optimizer == "latest" else kept
    return {"weights": weights, "training_state": state, "kept": kept, "total": kept * weights + with_state * state}


def checkpoint_table(config: "ExperimentConfig", arch: Architecture) -> str:
    sizes = checkpoint_sizes(config, arch)
    c = config.checkpointing
    where = "the newest checkpoint only" if c.keep_optimizer == "latest" else "every checkpoint"
    kept = f"keep_last {c.keep_last}" if c.keep_last else "per checkpoint (keep_last unset: every one is kept)"
    return "\n".join([
        f"checkpoint sizes on disk (every {c.every_steps} steps):", "| part | GiB |", "|---|---:|",
        f"| weights ({config.model.dtype}, the HF folder vLLM loads) | {sizes['weights'] / GIB:.1f} |",
        f"| training state (AdamW moments{' + fp32 master weights' if WEIGHT_BYTES[config.model.dtype] != 4 else ''})"
        f", in {where} | {sizes['training_state'] / GIB:.1f} |",
        f"| **all checkpoints, {kept}, keep_optimizer {c.keep_optimizer}** | **{sizes['total'] / GIB:.1f}** |"])


def main(argv: list[str] | None = None) -> int:
    import argparse

    from rlvr_core.config import load_config

    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.devices.memory",
        description="Estimate the trainer's GPU memory for a config and check it fits (exit 1 when not); then "
                    "what the run's checkpoints take on disk.")
    parser.add_argument("config", help="a config path or a name in configs/, e.g. gsm8k")
    parser.add_argument("overrides", nargs="*", help="dotted section.field=value overrides")
    parser.add_argument("--gpu-gib", type=float, default=None,
                        help="GPU memory to check against (default: training.gpu_memory_gib)")
    args = parser.parse_args(argv)
    config = load_config(args.config, args.overrides)
    capacity = int((args.gpu_gib or config.training.gpu_memory_gib) * GIB)
    arch = architecture_of(config.model.name_or_path)
    estimate = estimate_training_memory(config, arch)
    print(estimate.table(capacity))
    print()
    print(checkpoint_table(config, arch))
    return 0 if estimate.fits(capacity) else 1


if __name__ == "__main__":
    raise SystemExit(main())
