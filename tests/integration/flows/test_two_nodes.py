"""`train-and-eval` on two real Ray nodes, a Prefect worker per node: the README's multi-node recipe on one machine.

A head and a second node are separate `ray start` processes with their own resources (2 CPUs and one
GPU each: Ray's GPU resource is declared, there is no CUDA here, so an evaluation runs on the CPU in the
slot Ray gave it). Two Prefect process workers serve the pool, each with `RLVR_RAY_ADDRESS` naming the
head. The deployment run must: train on the existing cluster (not start a private one), and place its
evaluations through Ray on the cluster's nodes, each summary saying where it ran.

Which node a lone evaluation lands on is Ray's SPREAD choice: the flow runs one evaluation at a time under
Ray, and with both nodes on one IP a driver may attach to either raylet, each turning through the nodes from
its own index; two fresh clones of this test put the base and the step-2 evaluation on two nodes once and on
one node once. That evaluations running at the same time take distinct GPUs across both nodes is
`tests/integration/orchestration/test_ray_placement.py`'s check (four at once on a two-node cluster).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deployments.local_prefect import LocalServer, start_worker, stop_group
from tests.integration.flows.test_deployments_e2e import TEST_STORE, prefect_cli, run_deployment, wait_final
from tests.prefect_fixtures import TEARDOWN_GRACE_S
from tests.ray_nodes import free_port, short_dir, start_node, stop, wait_for_port

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]

NODES = """
import json, sys, ray
ray.init(address=sys.argv[1], log_to_driver=False)
print(json.dumps(sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))))
"""


def alive_nodes(address: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", NODES, address], capture_output=True, text=True, timeout=120,
                         env=_clean_env())
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in {"RAY_ADDRESS", "RLVR_RAY_ADDRESS"}}


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory: pytest.TempPathFactory):
    """The head's address and the two node ids, once both nodes are alive."""
    temp, port = short_dir(), free_port()
    logs = tmp_path_factory.mktemp("ray-nodes")
    nodes = [start_node("--head", f"--port={port}", "--num-cpus=2", "--num-gpus=1", f"--temp-dir={temp}",
                        log=logs / "head.log")]
    address = f"127.0.0.1:{port}"
    try:
        wait_for_port(nodes[0], port)
        nodes.append(start_node(f"--address={address}", "--num-cpus=2", "--num-gpus=1", log=logs / "node2.log"))
        deadline = time.monotonic() + 180
        while len(ids := alive_nodes(address)) < 2:
            assert nodes[1].poll() is None and time.monotonic() < deadline, (logs / "node2.log").read_text()[-3000:]
            time.sleep(1)
        yield address, ids
    finally:
        stop(*nodes)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def workers_on_both_nodes(prefect_server: LocalServer, two_nodes, tmp_path_factory: pytest.TempPathFactory,
                          trained_tiny_model_dir: Path):
    address, _ = two_nodes
    env = {"RLVR_EVAL_POOL": "rlvr-cpu", "RLVR_RAY_ADDRESS": address}
    prefect_cli(prefect_server, "work-pool", "create", "rlvr-cpu", "--type", "process", "--overwrite")
    prefect_cli(prefect_server, "deploy", "--name", "train-and-eval/arith", env=env)
    logs = tmp_path_factory.mktemp("workers")
    workers = [start_worker(prefect_server, "rlvr-cpu", logs / f"worker-{i}.log", REPO, env) for i in (1, 2)]
    try:
        yield prefect_server, logs
    finally:
        stop_group(*workers, grace_s=TEARDOWN_GRACE_S)


def test_train_and_eval_trains_on_the_existing_cluster_and_evaluates_on_both_nodes(
        two_nodes, workers_on_both_nodes, tmp_path: Path) -> None:
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    address, node_ids = two_nodes
    server, logs = workers_on_both_nodes
    runs_dir = tmp_path / "runs"
    params = {"max_steps": 2, "overrides": [f"run.runs_dir={runs_dir}", "checkpointing.every_steps=2",
                                            "evaluation.limit=16", f"storage.root={TEST_STORE}"]}
    flow_run_id = run_deployment(server, "train-and-eval/arith", params)
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        run = wait_final(client, flow_run_id, timeout_s=600)
    worker_logs = "\n".join(p.read_text()[-3000:] for p in sorted(logs.iterdir()))
    assert run.state.is_completed(), f"{run.state}\n{worker_logs}"

    [run_dir] = list(runs_dir.iterdir())
    cluster = json.loads((run_dir / "traces" / "ray_cluster.json").read_text())
    assert cluster["joined_existing"] is True and cluster["nodes"] == node_ids
    assert cluster["gcs_address"].rsplit(":", 1)[1] == address.rsplit(":", 1)[1]

    summaries = [json.loads((run_dir / "evals" / label / "arith" / "summary.json").read_text())
                 for label in ("base", "step-000002")]
    placed_on = [s["where"]["ray_node_id"] for s in summaries]
    assert set(placed_on) <= set(node_ids), placed_on  # placed by Ray, on a node of this cluster
    assert all(s["where"]["cuda_visible_devices"] == "0" for s in summaries)  # each node's one (declared) GPU
