"""GPU placement across nodes: a Ray cluster of two nodes with two (fake) GPUs each.

Four evaluations get four distinct (node, GPU) slots; a fifth waits until one
of them finishes. The slot is read from inside each task (Ray's node id and
the CUDA_VISIBLE_DEVICES Ray set), through the same `run_placed` path the
evaluation flows use. GPU exclusion and the no-Ray local slots:
tests/devices/test_gpu_locks.py.
"""

from __future__ import annotations

import itertools

import pytest


@pytest.fixture(scope="module")
def two_node_cluster():
    from ray.cluster_utils import Cluster

    import ray

    ray.shutdown()  # a connection left by other tests (the GRPO session cluster) would take our tasks
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "num_gpus": 2})
    cluster.add_node(num_cpus=1, num_gpus=2)
    cluster.wait_for_nodes()
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.mark.slow
def test_four_evals_get_four_distinct_gpus_and_a_fifth_waits(prefect_harness: str, two_node_cluster) -> None:
    from prefect import flow

    from orchestration.ray_placement import run_placed
    from tasks.cluster_checks import placement_probe

    @flow  # defined here, and given the address (not the cluster object) so Ray can pickle the flow context
    def place_five(address: str) -> list[dict]:
        return run_placed(placement_probe, [{"hold_s": 6.0}] * 5, num_gpus=1, num_cpus=0.25, address=address)

    runs = sorted(place_five(two_node_cluster.address), key=lambda r: r["start"])
    slots = [(r["node_id"], r["cuda_visible_devices"]) for r in runs]
    assert len({node for node, _ in slots}) == 2
    assert all(devices is not None and len(devices.split(",")) == 1 for _, devices in slots)
    assert len(set(slots[:4])) == 4, f"the first four evaluations shared a GPU: {slots[:4]}"
    assert runs[4]["start"] >= min(r["end"] for r in runs[:4]) - 0.05, "the fifth started while all four GPUs were busy"
    for a, b in itertools.combinations(runs, 2):
        overlap = a["start"] < b["end"] and b["start"] < a["end"]
        assert not (overlap and (a["node_id"], a["cuda_visible_devices"]) == (b["node_id"], b["cuda_visible_devices"]))


@pytest.mark.slow
def test_a_cluster_without_gpus_is_refused_instead_of_waiting_forever(prefect_harness: str) -> None:
    import ray
    from prefect import flow

    from orchestration.ray_placement import run_placed
    from tasks.cluster_checks import placement_probe

    ray.shutdown()
    ray.init(address="local", num_cpus=1, num_gpus=0, include_dashboard=False)
    try:
        @flow
        def place_one() -> list[dict]:
            return run_placed(placement_probe, [{"hold_s": 0.0}], num_gpus=1, num_cpus=0.25, address="auto")

        with pytest.raises(RuntimeError, match=r"has 0 GPU\(s\) in all, so tasks asking for 1 would wait forever"):
            place_one()
    finally:
        ray.shutdown()


def test_a_cluster_address_matches_however_this_machine_is_named() -> None:
    """Ray reports its GCS by the node's IP; RLVR_RAY_ADDRESS may say 127.0.0.1 or the host name."""
    import socket

    from orchestration.ray_placement import same_endpoint

    own_ip = socket.gethostbyname(socket.gethostname())
    assert same_endpoint(f"{own_ip}:6379", "127.0.0.1:6379")
    assert same_endpoint(f"{socket.gethostname()}:6379", f"{own_ip}:6379")
    assert not same_endpoint(f"{own_ip}:6379", "127.0.0.1:6380")
    assert not same_endpoint("192.0.2.123:6379", "127.0.0.1:6379")  # TEST-NET: never this machine
