"""Which device an evaluation task takes without Ray: the one the run's device plan names (held, waited for), or
a free one; never a busy GPU, and never the CPU on a node whose GPUs are all busy.

NVML is replaced by recorded GPU states (`rlvr_core.devices.gpu_state.discover_gpus`, the layer below placement): this
machine has no GPU. The locks are the real `flock`s, in a folder of the test's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect import flow

from rlvr_core.devices.gpu_locks import local_gpu_slot
from rlvr_core.devices.gpu_state import GpuInfo, GpuProcess
from tasks.evaluation import NoFreeGpuError, _device


def gpu(index: int, *, free: bool) -> GpuInfo:
    return GpuInfo(index=index, uuid=f"GPU-{index}", name="H100", memory_total_mb=81559,
                   memory_used_mb=0 if free else 60000, utilization_pct=0 if free else 97,
                   processes=() if free else (GpuProcess(4242, 60000),), free=free, likely_zombie=False,
                   reason="no memory held by other processes" if free else "in use (97% utilisation, 60000 MiB)")


@pytest.fixture(autouse=True)
def own_lock_dir(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr("rlvr_core.devices.gpu_locks.DEFAULT_LOCK_DIR", tmp_path / "locks")
    monkeypatch.delenv("RLVR_RAY_ADDRESS", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return tmp_path / "locks"


def test_a_node_whose_gpus_are_all_busy_refuses_instead_of_evaluating_beside_training(prefect_harness, monkeypatch):
    monkeypatch.setattr("rlvr_core.devices.gpu_state.discover_gpus", lambda: [gpu(0, free=False), gpu(1, free=False)])

    @flow(name="eval-device-busy")
    def pick() -> str:
        with _device("auto") as chosen:
            return chosen

    with pytest.raises(NoFreeGpuError, match=r"this node has 2 GPU\(s\) and none is free.*Fix"):
        pick()


def test_a_free_gpu_is_taken_when_others_are_busy(prefect_harness, monkeypatch):
    monkeypatch.setattr("rlvr_core.devices.gpu_state.discover_gpus", lambda: [gpu(0, free=False), gpu(1, free=True)])

    @flow(name="eval-device-free")
    def pick() -> str:
        with _device("auto") as chosen:
            return chosen

    assert pick() == "cuda:1"


def test_the_gpu_the_plan_names_is_held_while_the_evaluation_runs(prefect_harness, own_lock_dir):
    @flow(name="eval-device-planned")
    def evaluate_on_planned() -> tuple[str, bool]:
        with _device("cuda:2") as chosen:
            with pytest.raises(RuntimeError, match="held by other evaluations"):
                with local_gpu_slot([2], own_lock_dir):
                    pass
            return chosen, True

    assert evaluate_on_planned() == ("cuda:2", True)
    with local_gpu_slot([2], own_lock_dir) as after:
        assert after == 2, "released when the evaluation ends"
