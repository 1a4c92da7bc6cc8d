"""What the phases share: this run's settings, and what earlier phases leave for later ones."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .shape import Shape

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig
    from rlvr_core.generation.hf import HFBackend
    from rlvr_core.grpo.trainer_actor import PolicyTrainer

GIB = 2**30


@dataclass
class Smoke:
    device: str                    # "cuda" or "cpu": where the trainer and the engines run
    shape: Shape
    out: Path                      # results.json and small outputs (the evaluation's files)
    work: Path                     # large scratch files (the model folder, checkpoints), removed at the end
    steps: int                     # GRPO steps of the trainer phase (and of the tiny model's)
    learning_rate: float
    seed: int = 0
    tiny_model: Path | None = None  # a built tiny model to reuse; None: build (or find) it in the store
    # Left by the phases:
    config: "ExperimentConfig | None" = None   # gsm8k, resolved for this machine and shape (trainer phase)
    folder: Path | None = None                 # the random-weight model (model phase)
    trainer: "PolicyTrainer | None" = None
    backend: "HFBackend | None" = None
    engine_share: float | None = None          # the device plan's vLLM memory share on one GPU (plan phase)

    @property
    def cuda(self) -> bool:
        return self.device.startswith("cuda")

    def synchronize(self) -> None:
        """Wait for queued CUDA work, so a timer read next measures it (nothing to wait for on the CPU)."""
        if self.cuda:
            import torch

            torch.cuda.synchronize()

    def reset_peak(self) -> None:
        if self.cuda:
            import torch

            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()

    def peak_gib(self) -> float | None:
        """Peak CUDA memory allocated since `reset_peak`; None on the CPU (no allocator to ask)."""
        if not self.cuda:
            return None
        import torch

        return round(torch.cuda.max_memory_allocated() / GIB, 2)

    def free_gpu(self) -> None:
        """Hand cached CUDA blocks back, as the shared-GPU trainer does before an engine wakes."""
        if self.cuda:
            import gc

            import torch

            gc.collect()
            torch.cuda.empty_cache()

    def close_backend(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None
            self.free_gpu()


class Stopwatch:
    """Seconds since start (after waiting for queued device work), in the order they were taken."""

    def __init__(self, ctx: Smoke) -> None:
        self.ctx, self.start, self.laps = ctx, time.perf_counter(), {}

    def lap(self, name: str) -> float:
        self.ctx.synchronize()
        now = time.perf_counter()
        self.laps[name] = round(now - self.start, 3)
        self.start = now
        return self.laps[name]


def rounded(values: dict[str, Any], digits: int = 4) -> dict[str, Any]:
    """Floats rounded for the results file and the table."""
    return {k: round(v, digits) if isinstance(v, float) else v for k, v in values.items()}
