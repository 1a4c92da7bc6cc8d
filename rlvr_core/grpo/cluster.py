"""Connecting to Ray: an existing cluster when one is named, else a private local one."""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR = Path(".rlvr")


def connect_ray(address: str | None = None, *, num_cpus: int | None = None, state_dir: Path = STATE_DIR) -> bool:
    """Make sure this process is a Ray driver; return True when it started the cluster (and should shut it down).

    Order: an already-initialised Ray (a test fixture, a notebook) is used as is;
    `address`, else env RAY_ADDRESS, else env RLVR_RAY_ADDRESS (what the
    Prefect workers of a multi-node setup set) joins that cluster unchanged
    (`ray.init(address=...)`); otherwise a private local cluster starts with
    `num_cpus` (default: all cores), no dashboard and its files under
    `<state_dir>/ray`. "Private" is explicit (`address="local"`): a cluster
    someone started on this machine with `ray start` is never joined by
    accident, since joining it with `num_cpus` set is an error in Ray.
    """
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    address = address or os.environ.get("RAY_ADDRESS") or os.environ.get("RLVR_RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=True)
        return False
    temp_dir = (state_dir / "ray").resolve()
    temp_dir.mkdir(parents=True, exist_ok=True)
    ray.init(address="local", num_cpus=num_cpus or os.cpu_count(), include_dashboard=False,
             _temp_dir=str(temp_dir), log_to_driver=True)
    return True
