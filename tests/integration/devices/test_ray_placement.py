"""The device plan obeyed on a real Ray cluster whose GPUs are declared (Ray's fake GPU resources, no CUDA).

Two nodes from `ray.cluster_utils.Cluster`: one with 1 GPU, one with 2. The topology is read from Ray; the
training actors start with `actor_options` (the trainer process's own placement) and the evaluations run as
Ray tasks pinned to the plan's evaluation nodes, all at once. Each reports its node and the GPU ids Ray gave
it; no GPU may hold two of them unless the plan colocates them by design.
"""

from __future__ import annotations


import pytest

from rlvr_core.config import load_config
from rlvr_core.devices import plan_devices, topology

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 4, "num_gpus": 1})
    nodes.add_node(num_cpus=4, num_gpus=2)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, log_to_driver=False)
    try:
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()


class Holder:
    """Stands where a trainer, a rollout worker or an evaluation would: reports what Ray gave it."""

    def where(self) -> tuple[str, tuple[str, ...]]:
        import ray

        return ray.get_runtime_context().get_node_id(), tuple(sorted(map(str, ray.get_gpu_ids())))


def _evaluation_slot() -> tuple[str, tuple[str, ...]]:
    import time

    import ray

    time.sleep(2)  # held while the others start, as a real evaluation holds its GPU
    return ray.get_runtime_context().get_node_id(), tuple(sorted(map(str, ray.get_gpu_ids())))


def test_the_topology_is_read_from_the_clusters_gpu_resources(cluster):
    import ray

    found = topology.from_ray()
    assert found.ray and found.source == "ray"
    assert sorted(len(n.gpus) for n in found.nodes) == [1, 2]
    assert found.nodes[0].node_id == ray.get_runtime_context().get_node_id()  # the driver's node first


@pytest.mark.parametrize("overrides,shared", [([], False), (["training.colocate=true"], True)])
def test_training_actors_and_evaluations_never_share_a_gpu_unless_colocated(cluster, overrides, shared):
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from rlvr_core.grpo.actors import actor_options

    config = load_config("gsm8k", overrides)
    plan = plan_devices(config, topology.from_ray())
    two_gpu_node = next(n.node_id for n in plan.topology.nodes if len(n.gpus) == 2)
    assert {plan.node_id(d) for d in plan.training_devices} == {two_gpu_node}  # training kept on one node
    actors = [ray.remote(Holder).options(**actor_options(config, plan, device)).remote()
              for device in (plan.trainer, *plan.generators)]
    training = ray.get([a.where.remote() for a in actors], timeout=120)
    evaluate = ray.remote(num_cpus=0.1, num_gpus=1)(_evaluation_slot)
    evaluations = ray.get([evaluate.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
        plan.node_id(d), soft=False)).remote() for d in plan.evaluators], timeout=120)
    assert len(evaluations) == (2 if shared else 1)
    assert all(node == two_gpu_node for node, _ in training)
    trainer, generator = training
    if shared:
        assert trainer == generator, "the trainer and its sleeping engine share their GPU by design"
    else:
        assert trainer != generator
    holders = [*dict.fromkeys(training), *evaluations]  # colocated holders counted once
    slots = [(node, gpu) for node, gpus in holders for gpu in gpus]
    assert len(slots) == len(set(slots)), f"a GPU was given twice: {holders}"
    for actor in actors:
        ray.kill(actor)
