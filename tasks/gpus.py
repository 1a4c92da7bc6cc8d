"""GPU discovery as a Prefect task: which GPUs evaluations may use, and which are excluded and why."""

from __future__ import annotations

import socket
from typing import Any

from prefect import task
from prefect.artifacts import create_table_artifact
from prefect.logging import get_run_logger

from tasks.artifacts import artifact_key


@task(name="discover-gpus", retries=0)
def discover_gpus() -> dict[str, Any]:
    """{"host", "usable": [index], "excluded": [{index, reason}]} for this node; a table artifact lists them."""
    from rlvr_core.gpus import discover_gpus as read_gpus
    from rlvr_core.placement import split_usable

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
