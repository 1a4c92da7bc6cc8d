"""`watch-checkpoints`: evaluate checkpoints that have a manifest but no results.

Catches checkpoints published while no server listened (a trainer run by
hand, a server restart), and the work of an evaluation run that crashed: the
`watch-checkpoints/catch-up` deployment is triggered by every Crashed
`eval-checkpoint` run with that run's checkpoint as `path`. `path` is a
checkpoint, one run folder or a folder of runs. With `follow`, keeps polling
until stopped or `max_minutes` pass.
"""

from __future__ import annotations

import time
from pathlib import Path

from prefect import flow, get_run_logger

from flows.eval_checkpoint import eval_checkpoint
from orchestration.bad_input import fails_cleanly
from rlvr_core.rundir.evals import pending_evaluations
from rlvr_core.rundir.layout import checkpoints_dir, config_path, is_checkpoint, run_dir_of


def _run_name() -> str:
    """`watch-<run>-<step-000050>` for one checkpoint (the catch-up of a crashed evaluation), else
    `watch-<folder>`."""
    from prefect.runtime import flow_run

    path = Path(str(flow_run.parameters.get("path", ".rlvr/runs")))
    if (run_dir := run_dir_of(path)) is not None:
        return f"watch-{run_dir.name}-{path.name}"
    return f"watch-{path.resolve().name}"


@flow(name="watch-checkpoints", flow_run_name=_run_name, log_prints=True)
@fails_cleanly
def watch_checkpoints(path: str = ".rlvr/runs", benchmarks: list[str] | None = None, follow: bool = False,
                      poll_seconds: float = 10.0, max_minutes: float = 60.0) -> list[str]:
    """Evaluate every pending (checkpoint, benchmark); returns the checkpoints evaluated."""
    deadline = time.monotonic() + 60 * max_minutes
    evaluated: list[str] = []
    while True:
        for checkpoint, todo in _pending(Path(path), benchmarks).items():
            eval_checkpoint(checkpoint, todo)
            evaluated.append(checkpoint)
        if not follow or time.monotonic() > deadline:
            return evaluated
        time.sleep(poll_seconds)


def _pending(path: Path, benchmarks: list[str] | None) -> dict[str, list[str]]:
    """{checkpoint: benchmarks without a result} over a checkpoint's run, one run folder or every run folder
    below `path` (nothing for anything else, e.g. a base model a crashed evaluation was given)."""
    from rlvr_core.config import load_config

    if is_checkpoint(path) and (run_dir := run_dir_of(path)) is not None:
        runs = [run_dir]
    elif checkpoints_dir(path).is_dir():
        runs = [path]
    else:
        runs = sorted(p for p in path.glob("*") if checkpoints_dir(p).is_dir())
    todo: dict[str, list[str]] = {}
    for run_dir in runs:
        wanted = benchmarks or load_config(config_path(run_dir)).evaluation.benchmarks
        for checkpoint, bench in pending_evaluations(run_dir, wanted):
            todo.setdefault(checkpoint, []).append(bench)
    if todo:
        get_run_logger().info("%d checkpoint(s) with missing results under %s", len(todo), path)
    return todo
