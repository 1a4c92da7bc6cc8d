"""GPUs as Prefect tasks: which GPUs evaluations may use (and which are excluded and why), and a run's device plan."""

from __future__ import annotations

import socket
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.logging import get_run_logger

from orchestration.artifacts import artifact_key


@task(name="discover-gpus", retries=0)
def discover_gpus() -> dict[str, Any]:
    """{"host", "usable": [index], "excluded": [{index, reason}]} for this node; a table artifact lists them."""
    from rlvr_core.devices.gpu_locks import split_usable
    from rlvr_core.devices.gpu_state import discover_gpus as read_gpus

    gpus = read_gpus()
    usable, excluded = split_usable(gpus)
    host = socket.gethostname()
    logger = get_run_logger()
    for item in excluded:
        logger.warning("%s GPU %d excluded: %s", host, item.index, item.reason)
    rows = [{"host": host, "index": g.index, "name": g.name, "used_mb": round(g.memory_used_mb),
             "utilization_pct": round(g.utilization_pct), "usable": g.free, "reason": g.reason} for g in gpus]
    if rows:
        create_table_artifact(rows, key=artifact_key("gpus", host), description=f"GPUs on {host}")
    else:
        logger.info("%s: no GPUs visible (no NVIDIA driver); evaluations run on CPU", host)
    return {"host": host, "usable": usable, "excluded": [{"index": e.index, "reason": e.reason} for e in excluded]}


@task(name="plan-devices", retries=0, cache_policy=NO_CACHE)
def plan_devices(config: Any) -> dict[str, Any]:
    """The run's device plan (`rlvr_core.devices`) from this node's GPUs, or the Ray cluster's when
    RLVR_RAY_ADDRESS is set (the flow holds the connection, `orchestration.ray_placement.flow_ray_connection`);
    logged and published as an artifact. A config the devices cannot run fails here, before any model loads."""
    from orchestration.ray_placement import ray_address
    from rlvr_core.devices import plan_devices as make_plan
    from rlvr_core.devices import render_plan, topology

    found = topology.discover(ray_address())
    plan = make_plan(config, found)  # DevicePlanError: the flow run fails with the message and its fix
    text = render_plan(plan)
    get_run_logger().info("%s", text)
    from prefect.runtime import flow_run

    create_markdown_artifact(f"```\n{text}\n```", key=artifact_key(flow_run.name or "run", "device-plan"),
                             description="Which GPUs train, generate and evaluate in this run")
    return plan.to_dict()
