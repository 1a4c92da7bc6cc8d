"""Config section for checkpoint evaluation."""

from __future__ import annotations

from pydantic import Field

from rlvr_core.config.sections import Section


class EvaluationConfig(Section):
    """Which benchmarks every checkpoint is evaluated on."""

    benchmarks: list[str] = Field(default_factory=lambda: ["arith"], description="Benchmark registry names.")
    limit: int | None = Field(None, ge=1, description="Evaluate only the first N items of each benchmark (None: all).")
    batch_size: int = Field(64, ge=1, description="Prompts per generation batch.")
    baseline_models: list[str] = Field(default_factory=list, description="Models the nightly baseline flow evaluates.")
