"""The phases, most informative first, with their own time limits (seconds on one H200 with the full shape)."""

from __future__ import annotations

from . import generation, machine, tiny, training
from .runner import Phase

PHASES: tuple[Phase, ...] = (
    # The plan first: it reads the GPUs through NVML as a run does, before this process has touched them.
    Phase("plan", "the device plan sees the GPUs CUDA sees and plans the one-GPU layout", machine.plan, 45),
    Phase("facts", "the device runs bf16 kernels; torch and transformers are in the project's range",
          machine.facts, 60),
    Phase("model", "Qwen3-1.7B's shape builds from random weights with the estimate's parameter count",
          training.model, 120),
    Phase("trainer", "GRPO steps with the project's loss and micro-batches, within the memory estimate",
          training.trainer, 180, needs=("model",)),
    Phase("generation", "the hf backend samples on the device", generation.generation, 90, needs=("model",)),
    Phase("sync", "trainer weights land in the hf backend (bf16 probe)", generation.sync, 60,
          needs=("trainer", "generation")),
    Phase("recompute", "the trainer recomputes the engine's log-probs within bf16 tolerance", generation.recompute,
          60, needs=("sync",)),
    Phase("checkpoint", "a checkpoint writes, commits and has the sizes the docs give", training.checkpoint, 150,
          needs=("trainer",)),
    Phase("vllm", "a vLLM engine starts, sleeps, wakes and takes the trainer's weights in place", generation.vllm,
          240, needs=("trainer",), unavailable=machine.vllm_missing),
    Phase("tiny", "the tiny model builds, trains, checkpoints and evaluates on the device", tiny.tiny, 180),
)
BY_NAME = {phase.name: phase for phase in PHASES}


def select(names: list[str]) -> tuple[Phase, ...]:
    """The named phases and everything they need, in the canonical order; ValueError naming the known ones."""
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown phase(s) {unknown}; choose from {list(BY_NAME)}")
    chosen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in chosen:
            chosen.add(name)
            todo.extend(BY_NAME[name].needs)
    return tuple(phase for phase in PHASES if phase.name in chosen)
