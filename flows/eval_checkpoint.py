"""`eval-checkpoint`: evaluate one checkpoint (or base model) on a list of benchmarks.

Triggered by `rlvr.checkpoint.saved` events (deployment `eval-checkpoint/on-arrival`
passes `{{ event.payload.path }}`) and called as a subflow by
`watch-checkpoints` and `baseline-eval`; `train-and-eval` runs the same evaluation
(`tasks.evaluation.evaluate_model`) as its own task runs. Idempotent: a repeat for the same checkpoint content,
benchmark and settings returns the stored summaries (see tasks/evaluation.py).
Benchmarks, limit and store default to the run's own `config.yaml`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import flow

from orchestration.artifacts import Progress, artifact_key
from orchestration.bad_input import BadParameter, fails_cleanly
from orchestration.checkpoint_evals import background_thread
from orchestration.labels import tag_current_flow_run
from orchestration.run_process import in_own_process
from rlvr_core.rundir.layout import BASE_LABEL, config_path, is_checkpoint, run_dir_of
from tasks.evaluation import evaluate_model


def _run_name() -> str:
    """`eval-<run>-<step-000050>-<benchmarks>` or `eval-<run>-base-<benchmarks>` instead of a random name or the
    full path, so the UI's run list says what each (triggered) evaluation evaluates."""
    from prefect.runtime import flow_run

    params = flow_run.parameters
    path = Path(str(params.get("checkpoint", "model")))
    if (run_dir := run_dir_of(path)) is not None:
        subject = f"{run_dir.name}-{path.name}"
    else:
        subject = f"{params['run']}-base" if params.get("run") else path.name
    benchmarks = params.get("benchmarks") or _configured_benchmarks(path)
    return f"eval-{subject}" + (f"-{'+'.join(benchmarks)}" if benchmarks else "")


def _configured_benchmarks(checkpoint: Path) -> list[str]:
    """The run config's `evaluation.benchmarks` for a checkpoint of a run (a plain read: naming must not fail)."""
    import yaml

    run_dir = run_dir_of(checkpoint)
    try:
        config = yaml.safe_load(config_path(run_dir).read_text())
        return [str(b) for b in config["evaluation"]["benchmarks"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return []


@flow(name="eval-checkpoint", flow_run_name=_run_name, log_prints=True)
@fails_cleanly
def eval_checkpoint(checkpoint: str, benchmarks: list[str] | None = None, limit: int | None = None,
                    evals_root: str | None = None, backend: str | None = None, batch_size: int | None = None,
                    gpus_per_eval: float = 1, store_root: str | None = None, store_endpoint_url: str | None = None,
                    run: str | None = None, cpu_threads: int | None = None) -> dict[str, dict[str, Any]]:
    """Summaries per benchmark for `checkpoint` (a published checkpoint folder, a model folder or hub id).

    `run` names the training run a base-model evaluation belongs to, so its run name, tags and artifact
    keys are that run's (`<run>-base-*`), not the model folder's, which every run from that model shares.
    `cpu_threads` caps torch's threads on CPU. `store_root` and `store_endpoint_url` (an S3-compatible
    endpoint) default to the run config's `storage` section, so a triggered evaluation reads the store the
    training wrote to.
    """
    if in_own_process():  # as evaluations beside training do: compute yields the CPU to training and orchestration
        background_thread()
    if run_dir_of(checkpoint) is not None and not is_checkpoint(checkpoint):
        raise BadParameter(f"{checkpoint}: not a published checkpoint (no checkpoint.json). It may still be being "
                         f"written, or was pruned; `watch-checkpoints` evaluates it once it is published.")
    run_dir = run_dir_of(checkpoint) if is_checkpoint(checkpoint) else None
    defaults = _run_defaults(run_dir)
    benchmarks = benchmarks or defaults.get("benchmarks")
    if not benchmarks:
        raise BadParameter(f"{checkpoint}: no benchmarks given and no run config.yaml to take them from. "
                         f"Fix: pass benchmarks, e.g. ['gsm8k']")
    label = Path(checkpoint).name if is_checkpoint(checkpoint) else BASE_LABEL
    run_name = run_dir.name if run_dir else run or Path(checkpoint).name
    tag_current_flow_run([*([f"run:{run_name}"] if run_dir or run else []), f"checkpoint:{label}"])
    return evaluate_model(checkpoint, benchmarks, label=label, run_name=run_name, evals_root=evals_root,
                          gpus_per_eval=gpus_per_eval, on_result=_benchmark_progress(run_name, label, len(benchmarks)),
                          limit=limit if limit is not None else defaults.get("limit"),
                          backend=backend or defaults.get("backend", "hf"),
                          batch_size=batch_size or defaults.get("batch_size", 64),
                          pass_threshold=defaults.get("pass_threshold", 0.5),
                          store_root=store_root or defaults.get("store_root"),
                          store_endpoint_url=store_endpoint_url or defaults.get("store_endpoint_url"),
                          cpu_threads=cpu_threads)


def _benchmark_progress(run_name: str, label: str, benchmarks: int) -> Callable[[int], None] | None:
    """A progress artifact over benchmarks done, for two or more: with one it would only go from 0 % to 100 %,
    which the run's state already shows, at the cost of three API calls per evaluation."""
    if benchmarks < 2:
        return None
    progress = Progress(artifact_key(run_name, label, "eval-progress"), f"Evaluation of {label} ({run_name})")
    return lambda done: progress.update(done, benchmarks)


def _run_defaults(run_dir: Path | None) -> dict[str, Any]:
    """Evaluation settings from the run's resolved config, when the checkpoint belongs to a run."""
    if run_dir is None or not config_path(run_dir).is_file():
        return {}
    from rlvr_core.config import load_config

    cfg = load_config(config_path(run_dir))
    ev = cfg.evaluation
    return {"benchmarks": ev.benchmarks, "limit": ev.limit, "batch_size": ev.batch_size, "backend": ev.backend,
            "pass_threshold": ev.pass_threshold, "store_root": cfg.storage.root,
            "store_endpoint_url": cfg.storage.endpoint_url}
