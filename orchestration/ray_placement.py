"""Running tasks one-per-GPU across nodes: a Ray cluster when configured, this process otherwise.

With `RLVR_RAY_ADDRESS` set (e.g. `ray://head:10001` or `auto` on a cluster
node), `run_placed` submits each call through `RayTaskRunner` under
`remote_options(num_gpus=..., num_cpus=...)`: Ray finds a free GPU on any
node, sets CUDA_VISIBLE_DEVICES for the task, and queues the rest until a GPU
frees up. `num_cpus` is explicit because Ray otherwise reserves a whole CPU
per task. The SPREAD strategy turns through the nodes: Ray's default packs
tasks onto the submitting node while it has room, so evaluations submitted
one after another would all run on the head node. Without it the calls run here, one after another, and the
evaluation task picks a free local GPU itself (`rlvr_core.devices.gpu_locks`).

`run_on_device` runs calls one after another on one device of a run's device plan (`rlvr_core.devices`):
without Ray as `device="cuda:N"` (the evaluation takes that GPU's lock and a process that sees only it), with
Ray pinned to the device's node, asking for one GPU. `flow_ray_connection` holds one Ray connection for a
whole flow run, so concurrent evaluations share it (a `RayTaskRunner` entered inside it neither starts nor
shuts down Ray).

prefect_ray (and so ray) is imported only when a cluster is configured.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from prefect import Task

RAY_ADDRESS_ENV = "RLVR_RAY_ADDRESS"
FLOWS_DIR = Path(__file__).resolve().parents[1] / "flows"


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

    with RayTaskRunner(address=address, init_kwargs={"runtime_env": {"env_vars": _prefect_client_env()}}) as runner:
        _check_cluster(address, num_gpus)
        _ship_calling_flow_by_value()
        with remote_options(num_gpus=num_gpus, num_cpus=num_cpus, scheduling_strategy="SPREAD"):
            futures = [runner.submit(task, dict(call)) for call in calls]
        for future in futures:
            results.append(future.result())
            if on_result:
                on_result(len(results))
    return results


def run_on_device(task: Task[..., Any], calls: Sequence[dict[str, Any]], *, gpu: int | None,
                  node_id: str | None, num_cpus: float = 1,
                  on_result: Callable[[int], None] | None = None) -> list[Any]:
    """Run `task` once per parameter dict, one after another, on one device of the run's plan: GPU `gpu` of this
    node (None: the CPU) without Ray, or one GPU of node `node_id` through the Ray cluster; results in order."""
    address = ray_address()
    results: list[Any] = []
    if not address:
        device = {"device": f"cuda:{gpu}"} if gpu is not None else {}
        for call in calls:
            results.append(task(**{**call, **device}))
            if on_result:
                on_result(len(results))
        return results
    from prefect_ray import RayTaskRunner
    from prefect_ray.context import remote_options
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    placement: dict[str, Any] = {"num_gpus": 1 if gpu is not None else 0, "num_cpus": num_cpus}
    if node_id is not None:
        placement["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
    with RayTaskRunner(address=address, init_kwargs={"runtime_env": {"env_vars": _prefect_client_env()}}) as runner:
        _check_cluster(address, placement["num_gpus"])
        _ship_calling_flow_by_value()
        for call in calls:
            with remote_options(**placement):
                future = runner.submit(task, dict(call))
            results.append(future.result())
            if on_result:
                on_result(len(results))
    return results


@contextlib.contextmanager
def flow_ray_connection() -> Iterator[None]:
    """With RLVR_RAY_ADDRESS set: this process's one Ray connection for the block (its Ray tasks report to this
    flow run's Prefect API), shut down after it; otherwise nothing."""
    address = ray_address()
    if not address:
        yield
        return
    import ray

    if ray.is_initialized():  # a caller's own connection: used as is, left open
        yield
        return
    from rlvr_core.grpo.cluster import join_cluster

    join_cluster(address, runtime_env={"env_vars": _prefect_client_env()})
    try:
        yield
    finally:
        ray.shutdown()


def _check_cluster(address: str, num_gpus: float) -> None:
    """Fail now, with the fix, where Ray would otherwise queue the tasks forever.

    RayTaskRunner silently reuses a Ray connection this process already holds,
    whatever `address` says; and a task asking for a GPU on a cluster without
    one never starts.
    """
    import ray

    connected = ray.get_runtime_context().gcs_address
    # `auto` and Ray Client (`ray://`) addresses do not name the GCS, so only host:port is compared.
    if address != "auto" and not address.startswith("ray://") and not same_endpoint(connected, address):
        raise RuntimeError(f"this process is already connected to the Ray cluster at {connected}, not {address}; "
                           f"tasks would run there. Fix: ray.shutdown() first, or set {RAY_ADDRESS_ENV}={connected}")
    gpus = ray.cluster_resources().get("GPU", 0)
    if num_gpus > gpus:
        raise RuntimeError(f"the Ray cluster at {connected} has {gpus:g} GPU(s) in all, so tasks asking for "
                           f"{num_gpus:g} would wait forever. Fix: join GPU nodes (`ray start --address=... "
                           f"--num-gpus=N`), or run without {RAY_ADDRESS_ENV} to evaluate on this node")


def same_endpoint(a: str, b: str) -> bool:
    """Whether two host:port strings name the same server: same port, and hosts that resolve to the same
    address, or a loopback address and an address of this machine (Ray reports its GCS by the node's IP
    even when it was given as 127.0.0.1)."""
    import socket

    (host_a, _, port_a), (host_b, _, port_b) = a.rpartition(":"), b.rpartition(":")
    if port_a != port_b:
        return False
    try:
        ip_a, ip_b = socket.gethostbyname(host_a), socket.gethostbyname(host_b)
    except OSError:
        return host_a == host_b
    return ip_a == ip_b or (_is_loopback(ip_a) and _is_local(ip_b)) or (_is_loopback(ip_b) and _is_local(ip_a))


def _is_loopback(ip: str) -> bool:
    return ip.startswith("127.")


def _is_local(ip: str) -> bool:
    """An address of this machine: one a socket can bind to."""
    import socket

    try:
        with socket.socket() as probe:
            probe.bind((ip, 0))
        return True
    except OSError:
        return False


def _ship_calling_flow_by_value() -> None:
    """Pickle the calling flow's module by value, not by name, when it is not importable as a package module.

    Ray ships each task with its flow run's context, flow included. A
    deployment loads its flow from a file path (`flows/train_and_eval.py`),
    as a top-level module (`train_and_eval`) that a Ray worker cannot import
    by that name, so unpickling failed with ModuleNotFoundError. By value,
    the flow's own functions travel with it; what they import is imported
    on the worker as usual.
    """
    from prefect.context import FlowRunContext
    from ray import cloudpickle

    context = FlowRunContext.get()
    module = sys.modules.get(context.flow.fn.__module__) if context and context.flow else None
    if module is not None and "." not in module.__name__ and Path(module.__file__ or "").resolve().parent == FLOWS_DIR:
        cloudpickle.register_pickle_by_value(module)


def _prefect_client_env() -> dict[str, str]:
    """What a Ray worker needs to report its task runs to this flow run's Prefect API.

    Ray workers inherit the environment of `ray start` on their node, which
    need not point at the same Prefect server (or any: a worker without it
    would start a private ephemeral server per task).
    """
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    env = {"PREFECT_API_URL": str(settings.api.url or "")}
    if settings.api.auth_string is not None:
        env["PREFECT_API_AUTH_STRING"] = settings.api.auth_string.get_secret_value()
    return {name: value for name, value in env.items() if value}
