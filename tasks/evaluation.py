"""Evaluation as a Prefect task: one (model, benchmark) evaluation, idempotent and duplicate-safe.

Three layers keep a checkpoint from being evaluated twice:
- the Prefect cache key is the model's *content hash* + benchmark + settings +
  output folder, with persisted results, so a repeat (a duplicate or late
  event, a retried flow run) returns the stored summary without running;
- a claim marker per output folder (`rlvr_core.rundir.claims.claim`) stops
  concurrent duplicates: the loser waits for the winner's summary;
- `rlvr_core.evaluation.evaluate` itself returns a finished summary for the
  same key and resumes an interrupted one.

Retries: one, for transient failures (a lost Ray worker, CUDA OOM from a
neighbour, a store hiccup); a bad benchmark name fails at once.

`evaluate_model` runs one model on a list of benchmarks as task runs of the
calling flow run: the `eval-checkpoint` flow wraps it for triggered and
watched checkpoints, and `train-and-eval` calls it directly, so its
evaluations beside training cost no flow run each.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from prefect import task
from prefect.context import TaskRunContext
from prefect.logging import get_run_logger
from prefect.utilities.hashing import hash_objects

from orchestration.artifacts import artifact_key, publish_results_table
from orchestration.ray_placement import ray_address, run_on_device, run_placed
from orchestration.retry import retry_transient
from rlvr_core.rundir.claims import claim, wait_for_result
from rlvr_core.rundir.evals import results_dir

CLAIM_WAIT_S = 6 * 3600


class DuplicateEvaluationLost(RuntimeError):
    """Another process held the claim but finished without a summary (it failed); retry to take over."""


class NoFreeGpuError(RuntimeError):
    """This node has GPUs but none is free; evaluating on the CPU or on a busy GPU would be wrong or fail."""


def eval_cache_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """Content hash of the model (not its path) + what changes the result + where it is written."""
    from rlvr_core.evaluation.identity import model_identity

    identity = model_identity(parameters["model"])
    fields = {name: parameters.get(name) for name in ("benchmark", "limit", "backend", "settings_override",
                                                         "pass_threshold", "output_dir")}
    return "eval-" + (hash_objects(identity["content_hash"], json.dumps(fields, sort_keys=True)) or "")


@task(name="evaluate", task_run_name="eval-{label}-{benchmark}", retries=1, retry_delay_seconds=20,
      retry_condition_fn=retry_transient, persist_result=True, cache_key_fn=eval_cache_key)
def evaluate_benchmark(model: str, benchmark: str, output_dir: str, label: str, limit: int | None = None,
                       backend: str = "hf", device: str = "auto", batch_size: int = 64,
                       settings_override: dict[str, Any] | None = None, store_root: str | None = None,
                       pass_threshold: float = 0.5, cpu_threads: int | None = None,
                       store_endpoint_url: str | None = None) -> dict[str, Any]:
    """Evaluate `model` on `benchmark` into `output_dir`; returns the summary (metrics, n, settings).

    `store_root` and `store_endpoint_url` are the config's `storage.root` and `storage.endpoint_url`: the
    benchmark data and a store model are read from there (never from AWS's default endpoint when the config
    names another).

    `cpu_threads`: torch threads for the evaluation (None: as they are); it changes speed, not results,
    so it is not part of the cache key."""
    from rlvr_core.evaluation import evaluate, evaluate_on_gpu

    logger = get_run_logger()
    with claim(output_dir) as owned:
        if not owned:
            logger.info("%s/%s is being evaluated by another run; waiting for its summary", label, benchmark)
            summary = wait_for_result(output_dir, CLAIM_WAIT_S)
            if summary is None:
                raise DuplicateEvaluationLost(f"the run holding {output_dir} ended without a summary")
            return summary
        with _device(device) as chosen:
            logger.info("evaluating %s on %s (device %s, limit %s) -> %s", label, benchmark, chosen, limit, output_dir)
            run = dict(model=model, benchmark=benchmark, output_dir=output_dir, backend=backend, limit=limit,
                       batch_size=batch_size, settings_override=settings_override, store=store_root,
                       store_endpoint_url=store_endpoint_url,
                       pass_threshold=pass_threshold, progress=False, cpu_threads=cpu_threads)
            # A GPU picked here (no Ray): the evaluation gets a process that sees only that GPU.
            summary = (evaluate_on_gpu(int(chosen.removeprefix("cuda:")), **run) if chosen.startswith("cuda:")
                       else evaluate(device=chosen, **run))
    metric = summary.get("primary_metric")
    logger.info("%s/%s: %s = %s (n=%s)", label, benchmark, metric, summary.get("metrics", {}).get(metric),
                summary.get("n"))
    return summary


def evaluate_model(model: str, benchmarks: list[str], *, label: str, run_name: str, evals_root: str | None = None,
                   gpus_per_eval: float = 1, on_result: Callable[[int], None] | None = None,
                   device: dict[str, Any] | None = None, **settings: Any) -> dict[str, dict[str, Any]]:
    """{benchmark: summary} of `model`, one `evaluate` task run per benchmark, each placed on its own GPU
    (`run_placed`), or with `device` ({"gpu", "node_id"}: one device of a run's device plan) one after
    another on that device (`run_on_device`); publishes the `<run>-<label>-results` table.

    `settings` are `evaluate_benchmark`'s own (limit, backend, batch_size, pass_threshold, store_root,
    store_endpoint_url, cpu_threads). `on_result(n_done)` follows the benchmarks as they finish.
    """
    calls = [dict(model=model, benchmark=bench, output_dir=str(results_dir(model, bench, evals_root)), label=label,
                  **settings) for bench in benchmarks]
    if device is not None:
        summaries = run_on_device(evaluate_benchmark, calls, gpu=device.get("gpu"), node_id=device.get("node_id"),
                                  on_result=on_result)
    else:
        summaries = run_placed(evaluate_benchmark, calls, num_gpus=gpus_per_eval, num_cpus=1, on_result=on_result)
    results = dict(zip(benchmarks, summaries))
    publish_results_table(artifact_key(run_name, label, "results"), {label: results}, f"Results of {label} ({model})")
    return results


@contextlib.contextmanager
def _device(requested: str) -> Iterator[str]:
    """A GPU named by the run's device plan (`cuda:N`, no Ray) is held for the evaluation, waiting while another
    process holds it; under Ray the task already owns its GPU (Ray set CUDA_VISIBLE_DEVICES); otherwise hold
    a free local one, and refuse (NoFreeGpuError) when the node has GPUs but none is free."""
    from rlvr_core.devices.gpu_locks import hold_gpu, local_gpu_slot, split_usable

    if requested.startswith("cuda:") and not ray_address():
        os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # the plan's indices are NVML's (PCI bus order)
        with hold_gpu(int(requested.removeprefix("cuda:")), on_wait=get_run_logger().info):
            yield requested
        return
    if requested != "auto" or ray_address() or "CUDA_VISIBLE_DEVICES" in os.environ:
        yield requested
        return
    from rlvr_core.devices.gpu_state import discover_gpus

    gpus = discover_gpus()
    usable, excluded = split_usable(gpus)
    for item in excluded:
        get_run_logger().warning("GPU %d excluded from placement: %s", item.index, item.reason)
    if gpus and not usable:
        reasons = "; ".join(e.reason for e in excluded)
        raise NoFreeGpuError(f"this node has {len(gpus)} GPU(s) and none is free ({reasons}); an evaluation here "
                             f"would share a training GPU. Fix: run it when training ends, on another node, or "
                             f"through a Ray cluster (RLVR_RAY_ADDRESS)")
    with local_gpu_slot(usable) as index:
        if index is not None:
            os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
        yield requested if index is None else f"cuda:{index}"
