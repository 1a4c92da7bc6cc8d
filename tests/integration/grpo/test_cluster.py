"""Which Ray cluster the trainer uses, and who else can reach it.

A private cluster unless told to join, a named one when told. A real head node is started with `ray start`
in its own temp folder and its token (as docs/GPU.md's multi-node recipe does), and the trainer's
`connect_ray` runs in a fresh interpreter, as it does in the training subprocess. The private cluster is
closed: every socket any of its processes listens on is on the loopback address (listed with psutil over
the driver's whole process tree, an actor's worker included), and the cluster answers only its own token.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.ray_nodes import free_port, short_dir, start_node, stop, wait_for_port

pytestmark = pytest.mark.slow

PROBE = """
import json, os, sys
from pathlib import Path
import psutil, ray
from rlvr_core.grpo.cluster import connect_ray
owns = connect_ray(num_cpus=1, temp_dir=Path(sys.argv[1]))

@ray.remote(num_cpus=0)
class Actor:  # a worker process of the cluster, as each trainer and rollout actor has
    def pid(self):
        return os.getpid()

actor = Actor.remote()
ray.get(actor.pid.remote())
listeners = []
for process in [psutil.Process(), *psutil.Process().children(recursive=True)]:
    try:
        listeners += [[c.laddr.ip, c.laddr.port, process.name()] for c in process.net_connections("inet")
                      if c.status == psutil.CONN_LISTEN]
    except psutil.NoSuchProcess:
        pass
print(json.dumps({"owns": owns, "gcs": ray.get_runtime_context().gcs_address, "cpus": ray.cluster_resources().get("CPU"),
                  "listeners": listeners, "token": os.environ.get("RAY_AUTH_TOKEN")}))
sys.stdout.flush()
sys.stdin.read()  # the test asks the cluster for its data while it runs
ray.shutdown()
"""

# One GCS request, as any client makes first: the key names of the cluster's store, or the refusal.
ASK_GCS = """
import sys
from ray._raylet import GcsClient
try:
    print("answered", len(GcsClient(address=sys.argv[1]).internal_kv_keys(b"", None, timeout=30)))
except Exception as exc:
    print("refused", str(exc)[:300])
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


def without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}


def probe(*, env: dict[str, str], also: Callable[[dict], None] = lambda result: None) -> dict:
    """Run the trainer's `connect_ray` in a fresh interpreter with `env`; call `also` while its cluster is up."""
    temp_dir = short_dir()
    with subprocess.Popen([sys.executable, "-c", PROBE, str(temp_dir)], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=Path(__file__).resolve().parents[3]) as driver:
        try:
            line = driver.stdout.readline()
            assert line, driver.stderr.read()[-3000:]
            result = json.loads(line)
            also(result)
        finally:
            driver.communicate("", timeout=300)
    shutil.rmtree(temp_dir, ignore_errors=True)
    assert driver.returncode == 0, driver.stderr
    return result


def ask_gcs(address: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", ASK_GCS, address], capture_output=True, text=True, timeout=120,
                         env={**without("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"), **env})
    return out.stdout.strip()


ADDRESSES = ("RAY_ADDRESS", "RLVR_RAY_ADDRESS")
# The production default: a user's environment with no Ray settings at all.
NO_RAY_SETTINGS = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", *ADDRESSES)


def test_a_private_cluster_listens_on_loopback_only_and_answers_only_its_own_token() -> None:
    answers: dict[str, str] = {}

    def ask(result: dict) -> None:
        answers["no token"] = ask_gcs(result["gcs"])
        answers["another token"] = ask_gcs(result["gcs"], RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="0" * 64)
        answers["its token"] = ask_gcs(result["gcs"], RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=result["token"])

    result = probe(env=without(*NO_RAY_SETTINGS), also=ask)
    assert result["owns"] is True
    names = {name for _, _, name in result["listeners"]}
    assert {"gcs_server", "raylet"} <= names and any(name.startswith("ray::Actor") for name in names), names
    exposed = [listener for listener in result["listeners"] if not ipaddress.ip_address(
        listener[0].removeprefix("::ffff:")).is_loopback]
    assert exposed == []
    assert result["gcs"].startswith("127.0.0.1:")
    assert answers["no token"].startswith("refused") and "Authentication token" in answers["no token"]
    assert answers["another token"].startswith("refused")
    assert answers["its token"].startswith("answered")


def test_joining_a_cluster_without_its_token_fails_at_once_with_the_fix(head_node: str) -> None:
    env = {**without("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"), "RLVR_RAY_ADDRESS": head_node}
    out = subprocess.run([sys.executable, "-c", "from rlvr_core.grpo.cluster import connect_ray; connect_ray()"],
                         env=env, capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[3])
    assert out.returncode != 0
    assert "refused this process's token" in out.stderr and "RAY_AUTH_TOKEN_PATH=" in out.stderr


def test_with_a_cluster_running_but_no_address_the_trainer_starts_its_own(head_node: str) -> None:
    result = probe(env=without(*ADDRESSES))
    assert result["owns"] is True
    assert result["gcs"].rsplit(":", 1)[1] != head_node.rsplit(":", 1)[1]
    assert result["cpus"] == 1


@pytest.mark.parametrize("variable", ADDRESSES)
def test_an_address_in_the_environment_joins_that_cluster_with_its_token(head_node: str, variable: str) -> None:
    result = probe(env={**without(*ADDRESSES), variable: head_node})
    assert result["owns"] is False
    assert result["gcs"].rsplit(":", 1)[1] == head_node.rsplit(":", 1)[1]  # Ray reports the node's own IP
    assert result["cpus"] == 3
