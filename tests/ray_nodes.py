"""Real Ray nodes for tests, each a `ray start --block` process, as the README's multi-node recipe starts them.

`--block` keeps a node in a process group of its own, which `stop` kills (never `ray stop`, which would stop
every Ray cluster on the machine).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deployments.local_prefect import stop_group


def short_dir() -> Path:
    """A folder under /tmp with a short name: Ray's unix socket paths must stay under 107 bytes."""
    return Path(tempfile.mkdtemp(prefix="rlvr-ray-", dir="/tmp"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_node(*options: str, log: Path | None = None) -> subprocess.Popen:
    """`ray start --block OPTIONS` from this environment, with its token (tests/conftest.py), on 127.0.0.1."""
    ray = str(Path(sys.executable).with_name("ray"))
    output = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps the handle
    head_only = ["--include-dashboard=false"] if "--head" in options else []
    return subprocess.Popen([ray, "start", "--block", *head_only, "--disable-usage-stats",
                             "--node-ip-address=127.0.0.1", *options],
                            env=dict(os.environ), start_new_session=True,
                            stdout=output, stderr=subprocess.STDOUT)


def wait_for_port(node: subprocess.Popen, port: int, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert node.poll() is None and time.monotonic() < deadline, "ray start --head did not come up"
        time.sleep(0.5)


def stop(*nodes: subprocess.Popen) -> None:
    """`stop_group` on every node at once, then SIGKILL what a node left in its group (Ray processes that
    outlive `ray start --block`)."""
    stop_group(*nodes, grace_s=10)
    for node in nodes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, signal.SIGKILL)
