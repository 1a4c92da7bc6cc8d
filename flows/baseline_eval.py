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
from orchestration.artifacts import artifact_key, publish_results_table
from orchestration.bad_input import BadParameter, fails_cleanly
from tasks.device_planning import discover_gpus

CONFIG_WITH_GPUS = "gsm8k"  # Qwen3-1.7B-Base on the standard four benchmarks, evaluated with vLLM
CONFIG_WITHOUT_GPUS = "tiny-arith"  # what a CPU-only node can run offline: the tiny model on arith


@flow(name="baseline-eval", log_prints=True)
@fails_cleanly
def baseline_eval(config: str | None = None, models: list[str] | None = None, benchmarks: list[str] | None = None,
                  limit: int | None = None, evals_root: str = ".rlvr/baselines", backend: str | None = None,
                  overrides: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Summaries per model and benchmark.

    `config` None picks the config that fits the node the run landed on (the nightly deployment passes
    none), so a schedule on a CPU-only pool evaluates the tiny model instead of failing every night on a
    GPU model. Models, benchmarks and backend default to the config's `evaluation` section.
    """
    from rlvr_core.config import load_config

    gpus = discover_gpus()
    if config is None:
        has_gpus = bool(gpus["usable"] or gpus["excluded"])  # busy GPUs at night still make it a GPU node
        config = CONFIG_WITH_GPUS if has_gpus else CONFIG_WITHOUT_GPUS
        print(f"{gpus['host']}: {'GPUs' if has_gpus else 'no GPUs'}, so config {config!r}")
    cfg = load_config(config, overrides or [])
    models = models or cfg.evaluation.baseline_models
    if not models:
        raise BadParameter(f"config {config!r} lists no evaluation.baseline_models. Fix: pass models=[...] "
                         f"or add them to the config")
    benchmarks = benchmarks or cfg.evaluation.baseline_benchmarks or cfg.evaluation.benchmarks
    backend = backend or cfg.evaluation.backend  # vLLM on GPU configs, hf for the CPU demo
    results = {model: eval_checkpoint(model, benchmarks, limit=limit, backend=backend, store_root=cfg.storage.root,
                                      store_endpoint_url=cfg.storage.endpoint_url,
                                      evals_root=str(Path(evals_root) / _slug(model)))
               for model in models}
    publish_results_table(artifact_key("baseline", "results"), results, f"Baselines on {', '.join(benchmarks)}")
    return results


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")
