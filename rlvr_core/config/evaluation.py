"""Config section for checkpoint evaluation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from rlvr_core.config.errors import show
from rlvr_core.config.fields import ModelRef
from rlvr_core.config.sections import Section


class EvaluationConfig(Section):
    """Which benchmarks every checkpoint is evaluated on, and how.

    The engine settings (TP 1, seed 42, greedy, max_model_len 4096, bf16) are
    not configurable here on purpose: `rlvr_core.evaluation.settings` enforces
    them, and overriding them is an explicit, recorded act of the evaluation CLI.
    """

    benchmarks: list[str] = Field(default_factory=lambda: ["arith"],
                                  description="Benchmark registry names, each at most once (e.g. arith, gsm8k, math).")
    limit: int | None = Field(None, ge=1, description="Evaluate only the first N items of each benchmark (None: all).")
    batch_size: int = Field(64, ge=1, le=8192, description="Prompts per generation batch.")
    backend: Literal["hf", "vllm"] = Field("hf", description="Generation backend for checkpoint evaluations.")
    pass_threshold: float = Field(0.5, ge=0.0, le=1.0,
                                  description="Reward at or above which an item counts as passed (pass_rate).")
    baseline_models: list[ModelRef] = Field(
        default_factory=list, description="Models the nightly baseline flow evaluates (hub ids, folders or store URIs).")
    baseline_benchmarks: list[str] = Field(
        default_factory=list,
        description="Benchmarks the nightly baseline flow evaluates them on (empty: the same as `benchmarks`).")

    @field_validator("benchmarks", "baseline_benchmarks")
    @classmethod
    def validate_benchmarks(cls, names: list[str]) -> list[str]:
        """Every name must be a registered benchmark (a typo fails at load, not after training)."""
        from rlvr_core.evaluation.benchmarks import benchmark_names

        unknown = [n for n in names if n not in benchmark_names()]
        if unknown:
            raise ValueError(f"unknown benchmark(s) {show(unknown)}. Fix: use names from {benchmark_names()}")
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"lists {show(repeated)} more than once. Fix: name each benchmark once")
        return names
