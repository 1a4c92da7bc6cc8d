"""Evaluations beside training: submitted as checkpoints arrive, at most one per free device at a time.

Why: called in the flow's poll loop, one checkpoint's evaluation blocked the
loop (the next checkpoint, the run sync and the end of training all waited
for it), and the base model was evaluated only after training. Here each
evaluation runs in a thread of this flow run (the Prefect context is
copied, so its `evaluate` task runs are the flow run's own in the UI), and
the loop goes on. A failed evaluation is recorded, never raised: it must
not stop training.

Task runs, not an `eval-checkpoint` subflow each: a flow run costs a dozen
API calls, a heartbeat thread that its end waits up to a second for, and
database writes on a server sharing training's cores. In the 300-step demo
the seven evaluations took 10.7-11.7 s in all as tasks against 17.6-20.3 s
as subflows. A rerun (`prefect flow-run retry`) gets finished evaluations back
from the task cache (`tasks/evaluation.py`).

Priority: evaluation threads run at nice 10 (`background_thread`), so on a
CPU node they take the cycles training leaves and do not slow it down; the
CPU they need beside a GPU run is there either way.

Slots: one per GPU this node can spare for evaluations (the usable GPUs
less the training run's own), one without GPUs. With a Ray cluster
(`RLVR_RAY_ADDRESS`) one: each evaluation already spreads its benchmarks
over the cluster's GPUs, and concurrent `RayTaskRunner`s in one process
would share one Ray connection that the first to finish shuts down.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from prefect.logging import get_run_logger

from tasks.placement import ray_address


BACKGROUND_NICE = 10


def background_thread() -> None:
    """Lower the calling thread's CPU priority to nice 10 (Linux sets it per thread; elsewhere, and where the
    thread is already lower, nothing changes). Threads and processes it starts inherit the priority."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, tid, max(BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, tid)))


def eval_slots(usable_gpus: int, training_gpus: int) -> int:
    """How many evaluations may run at once on this node (see the module docstring)."""
    if ray_address() or usable_gpus == 0:
        return 1
    return max(1, usable_gpus - training_gpus)


def eval_cpu_threads(cfg: Any, usable_gpus: int) -> int | None:
    """torch threads for an evaluation beside a training run of `cfg` on this node: the cores its actors
    leave, at least 1, when training runs on CPU; None (torch's default) when it runs on a GPU.

    Why: on 2 cores an evaluation on 2 threads beside 2 single-threaded replicas made the demo 10-17 %
    slower than on 1 thread, and spent 3x the CPU: threads that outnumber cores spin while they wait.
    """
    t = cfg.training
    if t.device == "cuda" or (t.device == "auto" and usable_gpus):
        return None
    actors = t.data_parallel if t.colocated else 1 + t.rollout_workers
    return max(1, (os.cpu_count() or 1) - actors * (t.torch_threads or 1))


def training_gpus(cfg: Any) -> int:
    """GPUs a training run of `cfg` holds on this node: the trainer, plus each rollout worker unless colocated."""
    t = cfg.training
    if t.device == "cpu":
        return 0
    return 1 if t.colocated else 1 + t.rollout_workers


class ConcurrentEvals:
    """`submit(label, ...)` calls `evaluate(label, ...)` in a thread; `wait()` gives the results and failed labels."""

    def __init__(self, evaluate: Callable[..., Any], slots: int) -> None:
        self.evaluate = evaluate
        self.pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="eval", initializer=background_thread)
        self.futures: dict[str, Future[Any]] = {}
        self.seconds: dict[str, float] = {}     # label -> wall time of that evaluation

    def submit(self, label: str, *args: Any, **kwargs: Any) -> None:
        context = contextvars.copy_context()  # the flow run's context: its task runs are this run's
        self.futures[label] = self.pool.submit(context.run, self._timed, label, *args, **kwargs)

    def _timed(self, label: str, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.evaluate(label, *args, **kwargs)
        finally:
            self.seconds[label] = time.perf_counter() - started

    def wait(self) -> tuple[dict[str, Any], list[str]]:
        """Block until every submitted evaluation ends: ({label: result} of the completed, [failed labels])."""
        results, failed = {}, []
        for label, future in self.futures.items():
            if (error := future.exception()) is None:
                results[label] = future.result()
            else:
                failed.append(label)
                get_run_logger().warning("evaluating %s failed: %r", label, error)
        return results, failed

    def __enter__(self) -> "ConcurrentEvals":
        return self

    def __exit__(self, *exc: object) -> None:
        # On an error the queued evaluations are dropped; the running ones finish (a thread cannot be killed).
        self.pool.shutdown(wait=True, cancel_futures=exc[0] is not None)
