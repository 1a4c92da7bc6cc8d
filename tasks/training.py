"""Training as a Prefect task: a subprocess whose lines stream into the Prefect log (step lines thinned).

Why a subprocess: training owns its devices, threads and (on GPU) a Ray
driver; isolating it in its own process group means a cancelled or crashed
flow run can kill all of it (`rlvr_core.procgroup`), and the flow process
stays light enough to keep evaluating checkpoints meanwhile.

Never blindly retried: a failed launch is *resumed*. The run folder is
created by its own cached task, so a retried flow run gets the same folder
back, and `train` passes `--resume` when that folder already holds a
published checkpoint. A finished training is cached per flow run (a flow-run
retry skips it).

Trainer marker lines become Prefect events (`rlvr.checkpoint.saved`, which the
`eval-checkpoint/on-arrival` deployment trigger listens for), a progress
artifact and a live training table (`orchestration.training_table`).

Training never waits on the API: the loop that drains the trainer's stdout
makes no network call. Log lines go to Prefect's background log worker,
checkpoint events to an `EventSender` (its own queue, thread and events
websocket, opened before the trainer starts: `orchestration.event_sender`), and
artifact updates to the outbox (`orchestration.outbox`: one background thread, one
waiting update per artifact). When the API stalls, what the UI shows lags;
the trainer's pipe keeps draining, its steps keep their pace, and a
checkpoint's event leaves as soon as its marker line is read.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prefect import task
from prefect.futures import PrefectFuture
from prefect.cache_policies import DEFAULT
from prefect.logging import get_run_logger

from orchestration.artifacts import Progress, artifact_key
from orchestration.event_sender import EventSender
from orchestration.log_lines import StepLines, clean_line
from orchestration.training_table import LiveTrainingTable
from rlvr_core.procgroup import ProcessGroup
from rlvr_core.rundir import layout
from rlvr_core.rundir.markers import CHECKPOINT_SAVED, parse_marker, run_resource_id

TRAIN_MODULE = "rlvr_core.grpo.train"
_ACTIVE: dict[str, ProcessGroup] = {}


class TrainingFailed(RuntimeError):
    """The training process exited non-zero; the message carries its last output lines."""


@task(name="create-run", persist_result=True, cache_policy=DEFAULT)
def create_run(config: str, overrides: list[str]) -> str:
    """Validate the config and create the run folder (once per flow run: a retried flow run reuses it)."""
    from rlvr_core.config import load_config
    from rlvr_core.rundir.create import create_run_dir

    run_dir = create_run_dir(load_config(config, overrides))
    get_run_logger().info("run folder: %s", run_dir)
    return str(run_dir)


def training_command(config: str, overrides: list[str], run_dir: str, resume: bool) -> list[str]:
    """The trainer CLI call; `--resume` continues from the run folder's newest checkpoint (and its config.yaml)."""
    if resume:
        return [sys.executable, "-m", TRAIN_MODULE, *overrides, "--resume", run_dir, "--no-progress"]
    return [sys.executable, "-m", TRAIN_MODULE, config, *overrides, "--run-dir", run_dir, "--no-progress"]


def has_checkpoint(run_dir: str) -> bool:
    folder = layout.checkpoints_dir(run_dir)
    return folder.is_dir() and any(layout.is_checkpoint(p) for p in folder.iterdir())


@contextlib.contextmanager
def training_in_background(config: str, overrides: list[str], run_dir: str, run_name: str,
                           command: list[str] | None = None) -> Iterator[PrefectFuture[dict[str, Any]]]:
    """Submit `train` (it runs in a worker thread) and yield its future; if the block fails, kill training.

    The flow keeps working (evaluating checkpoints) inside the block; any
    exception there, including a cancellation signal, kills the training
    process group before it propagates, so no trainer outlives its flow run.
    """
    future = train.submit(config, overrides, run_dir, run_name, command=command)
    try:
        yield future
    except BaseException:
        stop_training(run_dir)
        raise


def stop_training(run_dir: str) -> bool:
    """Kill the training process group of `run_dir` if this process runs one (the flow calls this on failure)."""
    group = _ACTIVE.get(run_dir)
    if group is None:
        return False
    group.kill()
    return True


@task(name="train", task_run_name="train-{run_name}", retries=0, persist_result=True, cache_policy=DEFAULT)
def train(config: str, overrides: list[str], run_dir: str, run_name: str, emit_events: bool = True,
          command: list[str] | None = None) -> dict[str, Any]:
    """Run training to completion, streaming its output; returns the run folder and exit status.

    `command` replaces the trainer CLI (tests use a small stand-in process);
    everything else — process group, streaming, events — is the same.
    """
    logger = get_run_logger()
    resume = has_checkpoint(run_dir)
    if command is None and importlib.util.find_spec(TRAIN_MODULE) is None:
        raise TrainingFailed(f"the trainer entry point `python -m {TRAIN_MODULE}` is not installed in this "
                             f"environment ({sys.executable}); install the project (`make install`) on this worker")
    argv = command or training_command(config, overrides, run_dir, resume)
    logger.info("%s: %s", "resuming" if resume else "starting", " ".join(argv))
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}  # bars are for terminals
    progress = Progress(artifact_key(run_name, "training-progress"), f"Training progress of {run_name}")
    table: LiveTrainingTable | None = None
    tail: collections.deque[str] = collections.deque(maxlen=30)  # every line, for a failure's message
    step_lines = StepLines()
    events = 0
    sender = EventSender() if emit_events else None
    if sender is not None and not sender.start():
        logger.warning("the events websocket did not open within %g s; checkpoint events wait for it "
                       "(training starts anyway)", sender.connect_wait_s)
    with contextlib.ExitStack() as cleanup:
        if sender is not None:
            cleanup.callback(sender.close)  # after the loop: send what is queued (bounded wait), then disconnect
        group = cleanup.enter_context(ProcessGroup(argv, env=env))
        _ACTIVE[run_dir] = group
        try:
            for line in group.lines():
                marker = parse_marker(line)
                if marker is None:
                    if (readable := clean_line(line)) is not None:
                        tail.append(readable)
                        if step_lines.keep(readable):
                            logger.info(readable)
                elif marker.kind == "progress":
                    step, total = marker.data.get("step", 0), marker.data.get("max_steps", 0)
                    progress.update(float(step), float(total),
                                    f"step {step}/{total}, reward mean {marker.data.get('reward_mean')}")
                    table = table or LiveTrainingTable(artifact_key(run_name, "training-table"),
                                                       f"Training of {run_name}: reward, held-out accuracy, "
                                                       f"step time and ETA", max_steps=int(total))
                    table.add(marker.data)
                elif marker.data.get("event") == CHECKPOINT_SAVED:
                    events += 1
                    if sender is not None:
                        publish_checkpoint_event(sender, marker.data, run_name)
                    logger.info("checkpoint published: step %s at %s", marker.data.get("step"), marker.data.get("path"))
            status = group.wait()
        finally:
            _ACTIVE.pop(run_dir, None)
            if table is not None:
                table.flush()
    if status != 0:
        raise TrainingFailed(f"training exited with status {status}. Last output:\n" + "\n".join(tail))
    return {"run_dir": run_dir, "status": status, "checkpoint_events": events, "resumed": resume}


def publish_checkpoint_event(sender: EventSender, data: dict[str, Any], run_name: str) -> None:
    """Queue `rlvr.checkpoint.saved` for the trainer's marker; the deployment trigger reads `payload.path`.

    The path is made absolute (the trainer runs in this process's working directory), so a listener in
    another directory finds the checkpoint and every event for one checkpoint carries the same path.
    """
    run = str(data.get("run") or run_name)
    sender.emit(
        event=CHECKPOINT_SAVED,
        resource={"prefect.resource.id": run_resource_id(run), "prefect.resource.name": run},
        payload={"path": str(Path(data["path"]).resolve()), "step": data.get("step"), "run": run,
                 "content_hash": data.get("content_hash")},
    )
