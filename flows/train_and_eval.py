"""`train-and-eval`: cache datasets -> train, evaluating the base model and each checkpoint beside it -> report.

While training runs (a subprocess, in a worker thread of this flow run), the
flow watches the run's `checkpoints/` folder and evaluates each new
checkpoint (`evaluate` task runs of this flow run, `eval-<step>-<benchmark>`),
so results arrive during training without needing the event trigger (which
`make up` adds for other listeners). The
base model's evaluation starts with training. Evaluations run in threads,
one per device the run's device plan gives them (`orchestration/checkpoint_evals.py`),
waiting for one rather than sharing a training GPU, and never block the
poll loop. If anything here fails or the run is cancelled, the training
process group is killed before the error propagates.

Devices and paths, before any model loads: the device plan
(`rlvr_core.devices`: which GPUs train, generate and evaluate) refuses a
config the GPUs cannot run; run folders and a local store become absolute
paths (overrides the training process gets too); on a Ray cluster of several
nodes every node must see the same run folder (`rlvr_core.paths`). The plan
is written to the run folder (`device_plan.json`), where the training
process reads it.

Tags (`config:`, `model:`, `dataset:`, `run:`) go on this flow run, not on
its task runs: every task run with tags asks the server for tag concurrency
slots (a write, each time the client's 5-s memo of "no such limits" has
expired), and on the default SQLite server such a write, meeting the event
writer's, fails with "database is locked" and the client retries seconds
later, a delay each such failure added to the report or the last evaluation.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from prefect import flow

from flows.cache_datasets import cache_config_datasets
from orchestration.bad_input import fails_cleanly
from orchestration.checkpoint_evals import ConcurrentEvals, eval_cpu_threads
from orchestration.labels import config_run_name, experiment_tags, tag_current_flow_run
from orchestration.ray_placement import flow_ray_connection
from rlvr_core.timing import timed
from rlvr_core.rundir.evals import CheckpointWatcher
from rlvr_core.rundir.layout import BASE_LABEL
from tasks.evaluation import evaluate_model
from tasks.cluster_checks import check_shared_folders
from tasks.device_planning import plan_devices
from tasks.models import prepare_model
from tasks.reports import publish_report
from tasks.run_sync import RunSync
from tasks.training import create_run, training_in_background


def _run_name() -> str:
    """`<config>-<YYYYmmdd-HHMMSS>`, so the runs list reads as a list of experiments; a retry keeps its name."""
    from prefect.runtime import flow_run

    return config_run_name(str(flow_run.parameters.get("config", "tiny-arith")), current=flow_run.name)


@flow(name="train-and-eval", flow_run_name=_run_name, log_prints=True)
@fails_cleanly
def train_and_eval(config: str = "tiny-arith", overrides: list[str] | None = None, max_steps: int | None = None,
                   benchmarks: list[str] | None = None, evaluate_base: bool = True,
                   poll_seconds: float = 2.0) -> dict[str, Any]:
    """Train `config` (a path or a name in configs/) and evaluate it; returns the run folder and summaries.

    `overrides` are dotted `section.field=value` strings; `max_steps` is a
    shortcut for `training.max_steps=N`; `benchmarks` replaces
    `evaluation.benchmarks`.
    """
    from rlvr_core.config import load_config

    overrides = [*(overrides or []), *([f"training.max_steps={max_steps}"] if max_steps is not None else [])]
    if benchmarks:
        overrides.append(f"evaluation.benchmarks={list(benchmarks)}")
    from rlvr_core.paths import absolute_path_overrides

    cfg = load_config(config, overrides)  # a bad config stops here with the field named, before any work
    if pinned := absolute_path_overrides(cfg):  # every process and node gets the same absolute paths
        overrides = [*overrides, *pinned]
        cfg = load_config(config, overrides)
    tag_current_flow_run(experiment_tags(config, cfg))  # the run only: see the module docstring
    with flow_ray_connection():
        return _train_and_eval(config, overrides, cfg, evaluate_base, poll_seconds)


def _train_and_eval(config: str, overrides: list[str], cfg: Any, evaluate_base: bool,
                    poll_seconds: float) -> dict[str, Any]:
    from rlvr_core.devices import DevicePlan, DeviceQueue

    seconds: dict[str, float] = {}
    with timed(seconds, "setup"):
        plan = DevicePlan.from_dict(plan_devices(cfg))  # refuses what the GPUs cannot run; logged, an artifact
        check_shared_folders(cfg)  # several Ray nodes: each must see the run folder and a local store
        cache_config_datasets(cfg)
    with timed(seconds, "model"):
        base_model = prepare_model(cfg.model.name_or_path, cfg.storage.root, cfg.storage.endpoint_url)
    run_dir = create_run(config, overrides)
    plan.save(run_dir)  # the training process obeys it
    run_name = Path(run_dir).name
    tag_current_flow_run([f"run:{run_name}"])

    watcher = CheckpointWatcher(run_dir)
    sync = RunSync(run_dir, cfg.storage) if cfg.storage.sync_runs else None
    threads = eval_cpu_threads(cfg, len(plan.all_devices))  # on CPU: the cores training leaves
    ev = cfg.evaluation

    def evaluate(label: str, model: str, device: dict[str, Any] | None) -> dict[str, Any]:
        return evaluate_model(model, ev.benchmarks, label=label, run_name=run_name, evals_root=f"{run_dir}/evals",
                              limit=ev.limit, backend=ev.backend, batch_size=ev.batch_size, device=device,
                              pass_threshold=ev.pass_threshold, store_root=cfg.storage.root,
                              store_endpoint_url=cfg.storage.endpoint_url, cpu_threads=threads)

    with ConcurrentEvals(evaluate, DeviceQueue(plan)) as evals:
        if evaluate_base:  # beside training, not after it
            evals.submit(BASE_LABEL, base_model)
        with timed(seconds, "training"), training_in_background(config, overrides, run_dir, run_name) as training:
            finished = threading.Event()  # set by the future itself: no API call per poll
            training.add_done_callback(lambda _: finished.set())
            while not finished.wait(timeout=poll_seconds):
                for checkpoint in watcher.new_checkpoints():
                    evals.submit(Path(checkpoint).name, checkpoint)
                    if sync:
                        sync.start()
            evals.training_ended()  # its devices go to the evaluations still waiting
            training.result()
        with timed(seconds, "evals after training"):
            for checkpoint in watcher.new_checkpoints():  # the final checkpoint, published as training ended
                evals.submit(Path(checkpoint).name, checkpoint)
            summaries, failed = evals.wait()
    seconds["evaluations (beside training)"] = sum(evals.seconds.values())
    with timed(seconds, "report"):
        report = publish_report(run_dir, run_name, summaries)
    if sync:
        with timed(seconds, "sync"):
            sync.finish()
    if failed:
        raise RuntimeError(f"training finished, but evaluating {', '.join(failed)} failed (see those eval-* task "
                           f"runs); rerun them with the eval-checkpoint or watch-checkpoints flow")
    return {"run_dir": run_dir, "summaries": summaries, "report": report, "seconds": seconds}

