"""Evaluations beside training: submitted as checkpoints arrive, one per device the run's device plan gives them.

Why: called in the flow's poll loop, one checkpoint's evaluation blocked the
loop (the next checkpoint, the run sync and the end of training all waited
for it), and the base model was evaluated only after training. Here each
evaluation runs in a thread of this flow run (the Prefect context is
copied, so its `evaluate` task runs are the flow run's own in the UI), and
the loop goes on. A failed evaluation is recorded, never raised: it must
not stop training.

Task runs, not an `eval-checkpoint` subflow each: a flow run costs a dozen
API calls, a heartbeat thread that its end waits up to a second for, and
database writes on a server sharing training's cores, so subflows made the
demo's evaluations markedly slower than task runs do. A rerun (`prefect flow-run retry`) gets finished evaluations back
from the task cache (`tasks/evaluation.py`).

Priority: evaluation threads run at nice 10 (`background_thread`), so on a
CPU node they take the cycles training leaves and do not slow it down; the
CPU they need beside a GPU run is there either way.

Devices: each evaluation (all its benchmarks, one after another) takes one
device from the run's `DeviceQueue` (`rlvr_core.devices`): while training
runs only the GPUs the plan leaves to evaluations, then every GPU; on a
machine without GPUs one CPU slot. An evaluation that has to wait says so in
the flow log ("waiting for a device") and starts when one frees, so none
ever shares a training GPU and every checkpoint is evaluated eventually.
With a Ray cluster the flow holds one Ray connection for the whole run
(`orchestration.ray_placement.flow_ray_connection`), so concurrent evaluations share it.
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

from rlvr_core.devices import DeviceQueue


BACKGROUND_NICE = 10


def background_thread() -> None:
    """Lower the calling thread's CPU priority to nice 10 (Linux sets it per thread; elsewhere, and where the
    thread is already lower, nothing changes). Threads and processes it starts inherit the priority."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, tid, max(BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, tid)))


def eval_cpu_threads(cfg: Any, usable_gpus: int) -> int | None:
    """torch threads for an evaluation beside a training run of `cfg` on this node: the cores its actors
    leave, at least 1, when training runs on CPU; None (torch's default) when it runs on a GPU.

    Why: threads that outnumber cores spin while they wait, so an evaluation on every core beside
    single-threaded training replicas slows the run and burns CPU for nothing.
    """
    t = cfg.training
    if t.device == "cuda" or (t.device == "auto" and usable_gpus):
        return None
    return max(1, (os.cpu_count() or 1) - t.actors * (t.torch_threads or 1))


class ConcurrentEvals:
    """`submit(label, ...)` calls `evaluate(label, ..., device=...)` in a thread once `devices` gives it a device
    (a dict {"gpu", "node_id"}: the GPU's number, the Ray node's id; gpu None on the CPU); `training_ended()`
    hands training's devices over; `wait()` gives the results and failed labels."""

    def __init__(self, evaluate: Callable[..., Any], devices: DeviceQueue) -> None:
        self.evaluate = evaluate
        self.devices = devices
        self.pool = ThreadPoolExecutor(max_workers=max(1, devices.capacity), thread_name_prefix="eval",
                                       initializer=background_thread)
        self.futures: dict[str, Future[Any]] = {}
        self.seconds: dict[str, float] = {}     # label -> wall time of that evaluation, waiting excluded

    def submit(self, label: str, *args: Any, **kwargs: Any) -> None:
        context = contextvars.copy_context()  # the flow run's context: its task runs are this run's
        self.futures[label] = self.pool.submit(context.run, self._on_device, label, *args, **kwargs)

    def training_ended(self) -> None:
        self.devices.training_ended()

    def _on_device(self, label: str, *args: Any, **kwargs: Any) -> Any:
        def waiting(reason: str) -> None:
            get_run_logger().info("%s is waiting for a device: %s (queued: %s)", label, reason,
                                  ", ".join(self.devices.waiting()))

        with self.devices.device(label, on_wait=waiting) as device:
            started = time.perf_counter()
            where = None if device is None else {"gpu": device.gpu, "node_id": self.devices.plan.node_id(device)}
            try:
                return self.evaluate(label, *args, device=where, **kwargs)
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
        # On an error the queued evaluations are dropped (those waiting for a device too); the running ones
        # finish (a thread cannot be killed).
        if exc[0] is not None:
            self.devices.close()
        self.pool.shutdown(wait=True, cancel_futures=exc[0] is not None)
