"""Running tasks one-per-GPU across nodes: a Ray cluster when configured, this process otherwise.

With `RLVR_RAY_ADDRESS` set (e.g. `ray://head:10001` or `auto` on a cluster
node), `run_placed` submits each call through `RayTaskRunner` under
`remote_options(num_gpus=..., num_cpus=...)`: Ray finds a free GPU on any
node, sets CUDA_VISIBLE_DEVICES for the task, and queues the rest until a GPU
frees up. `num_cpus` is explicit because Ray otherwise reserves a whole CPU
per task. Without it the calls run here, one after another, and the
evaluation task picks a free local GPU itself (`rlvr_core.placement`).

prefect_ray (and so ray) is imported only when a cluster is configured.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from prefect import Task

RAY_ADDRESS_ENV = "RLVR_RAY_ADDRESS"


def ray_address() -> str | None:
    return os.environ.get(RAY_ADDRESS_ENV) or None


def run_placed(task: Task[..., Any], calls: Sequence[dict[str, Any]], *, num_gpus: float = 1, num_cpus: float = 1,
               address: str | None = None, on_result: Callable[[int], None] | None = None) -> list[Any]:
    """Run `task` once per parameter dict, each with its own GPU slot; results in call order.

    `on_result(n_done)` is called as results come in (for progress artifacts).
    """
    address = address or ray_address()
    results: list[Any] = []
    if not address:
        for call in calls:
            results.append(task(**call))
            if on_result:
                on_result(len(results))
        return results
    from prefect_ray import RayTaskRunner
    from prefect_ray.context import remote_options

    with RayTaskRunner(address=address) as runner:
        with remote_options(num_gpus=num_gpus, num_cpus=num_cpus):
            futures = [runner.submit(task, dict(call)) for call in calls]
        for future in futures:
            results.append(future.result())
            if on_result:
                on_result(len(results))
    return results
