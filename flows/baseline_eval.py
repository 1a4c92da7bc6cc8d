"""`baseline-eval`: evaluate the configured base models on the standard benchmarks and publish the table.

Results go to `<evals_root>/<model-slug>/base/<benchmark>/`; a rerun for an
unchanged model reuses them (the evaluation is idempotent), so the nightly
schedule only spends GPU time when a model or a benchmark changed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from prefect import flow

from flows.eval_checkpoint import eval_checkpoint
from tasks.artifacts import artifact_key, publish_results_table
from tasks.gpus import discover_gpus

STANDARD_BENCHMARKS = ["gsm8k", "math", "ifeval", "mbpp"]


@flow(name="baseline-eval", log_prints=True)
def baseline_eval(config: str = "gsm8k", models: list[str] | None = None, benchmarks: list[str] | None = None,
                  limit: int | None = None, evals_root: str = ".rlvr/baselines",
                  backend: str | None = None) -> dict[str, dict[str, Any]]:
    """Summaries per model and benchmark; models and backend default to the config's `evaluation` section."""
    from rlvr_core.config import load_config

    cfg = load_config(config)
    models = models or cfg.evaluation.baseline_models
    if not models:
        raise ValueError(f"config {config!r} lists no evaluation.baseline_models. Fix: pass models=[...] "
                         f"or add them to the config")
    benchmarks = benchmarks or STANDARD_BENCHMARKS
    discover_gpus()
    backend = backend or cfg.evaluation.backend  # vLLM on GPU configs, hf for the CPU demo
    results = {model: eval_checkpoint(model, benchmarks, limit=limit, backend=backend, store_root=cfg.storage.root,
                                      evals_root=str(Path(evals_root) / _slug(model)))
               for model in models}
    publish_results_table(artifact_key("baseline", "results"), results, f"Baselines on {', '.join(benchmarks)}")
    return results


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")
