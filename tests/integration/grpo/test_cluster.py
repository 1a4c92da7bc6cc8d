"""Which Ray cluster the trainer uses: a private one unless told to join, and a named one when told.

A real head node is started with `ray start` in its own temp folder (as the README's multi-node recipe
does), and the trainer's `connect_ray` runs in a fresh interpreter, as it does in the training subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ray_nodes import free_port, short_dir, start_node, stop, wait_for_port

pytestmark = pytest.mark.slow

PROBE = """
import json, sys
from pathlib import Path
import ray
from rlvr_core.grpo.cluster import connect_ray
owns = connect_ray(num_cpus=1, temp_dir=Path(sys.argv[1]))
print(json.dumps({"owns": owns, "gcs": ray.get_runtime_context().gcs_address, "cpus": ray.cluster_resources().get("CPU")}))
ray.shutdown()
"""


@pytest.fixture(scope="module")
def head_node() -> Iterator[str]:
    """A Ray head started with `ray start --head` (3 CPUs, so it is told apart from a private cluster); its address."""
    temp, port = short_dir(), free_port()
    head = start_node("--head", f"--port={port}", "--num-cpus=3", f"--temp-dir={temp}")
    try:
        wait_for_port(head, port)
        yield f"127.0.0.1:{port}"
    finally:
        stop(head)
        shutil.rmtree(temp, ignore_errors=True)


def probe(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in {"RAY_ADDRESS", "RLVR_RAY_ADDRESS"}}
    temp_dir = short_dir()
    out = subprocess.run([sys.executable, "-c", PROBE, str(temp_dir)], env={**clean, "RAY_AUTH_MODE": "disabled", **env},
                         capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[3])
    shutil.rmtree(temp_dir, ignore_errors=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_with_a_cluster_running_but_no_address_the_trainer_starts_its_own(head_node: str) -> None:
    result = probe()
    assert result["owns"] is True
    assert result["gcs"].rsplit(":", 1)[1] != head_node.rsplit(":", 1)[1]
    assert result["cpus"] == 1


@pytest.mark.parametrize("variable", ["RAY_ADDRESS", "RLVR_RAY_ADDRESS"])
def test_an_address_in_the_environment_joins_that_cluster(head_node: str, variable: str) -> None:
    result = probe(**{variable: head_node})
    assert result["owns"] is False
    assert result["gcs"].rsplit(":", 1)[1] == head_node.rsplit(":", 1)[1]  # Ray reports the node's own IP
    assert result["cpus"] == 3
