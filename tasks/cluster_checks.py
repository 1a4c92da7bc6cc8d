"""Tasks about the Ray cluster as a whole: do its nodes share the run's folders, and where does a placed task land.

Placement itself (`run_placed`, `run_on_device`, the flow's Ray connection) is plumbing, in
`orchestration.ray_placement`.
"""

from __future__ import annotations

import os
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from orchestration.ray_placement import ray_address


@task(name="check-shared-folders", retries=0, cache_policy=NO_CACHE)
def check_shared_folders(config: Any) -> None:
    """With a Ray cluster of several nodes (RLVR_RAY_ADDRESS): every node sees `run.runs_dir` and a local
    `storage.root` as this node does, or this fails with the fix (`rlvr_core.paths.check_nodes_share`)."""
    if not ray_address():
        return
    from rlvr_core.config.fields import scheme_of
    from rlvr_core.paths import check_nodes_share

    check_nodes_share(config.run.runs_dir, "run.runs_dir")
    if scheme_of(config.storage.root) is None:
        check_nodes_share(config.storage.root, "storage.root")


@task(name="placement-probe", cache_policy=NO_CACHE)
def placement_probe(hold_s: float = 5.0) -> dict[str, Any]:
    """Where a placed task landed (node, GPUs) and when it ran; for checking a cluster's placement."""
    import socket
    import time

    import ray

    start = time.time()
    time.sleep(hold_s)
    return {"host": socket.gethostname(), "node_id": ray.get_runtime_context().get_node_id(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "start": start, "end": time.time()}
