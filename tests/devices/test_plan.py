"""The device plan: refusals with the fix, the local topology read from NVML records, the plan file, the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rlvr_core.config import load_config
from rlvr_core.devices import Device, DevicePlanError, load_plan, plan_devices, render_plan, topology
from rlvr_core.devices.gpu_state import GpuInfo, GpuProcess

REPO = Path(__file__).resolve().parents[2]


def nvml_record(index: int, *, free: bool = True, zombie: bool = False, memory_mb: float = 81559) -> GpuInfo:
    """What `rlvr_core.devices.gpu_state.discover_gpus` returns for one GPU (the NVML layer below the plan)."""
    return GpuInfo(index=index, uuid=f"GPU-{index:04d}", name="H100", memory_total_mb=memory_mb,
                   memory_used_mb=0 if free else 30000, utilization_pct=0 if free or zombie else 90,
                   processes=() if free else (GpuProcess(4242, 30000),), free=free, likely_zombie=zombie,
                   reason="no memory held by other processes" if free else "30000 MiB held at 0%: likely zombie")


def test_two_gpus_needed_on_one_is_refused_naming_the_fix():
    with pytest.raises(DevicePlanError) as err:
        plan_devices(load_config("gsm8k"), topology.given([1]))
    assert str(err.value).startswith("this config needs 2 GPUs (a trainer and 1 vllm rollout worker(s), one GPU "
                                     "each); this node has 1: set training.colocate=true")


def test_a_zombie_gpu_is_left_out_and_named_in_the_refusal():
    local = topology.local([nvml_record(0), nvml_record(1, free=False, zombie=True)], environ={}, host="gpu-a")
    assert local.nodes[0].gpus == (0,)
    with pytest.raises(DevicePlanError, match=r"this node has 1 \(left out: GPU 1: likely zombie"):
        plan_devices(load_config("gsm8k"), local)


def test_a_cuda_config_on_a_node_without_gpus_is_refused():
    with pytest.raises(DevicePlanError, match=r"training.device is 'cuda', but this node has no usable GPU.*Fix:"):
        plan_devices(load_config("gsm8k"), topology.local([], environ={}))


def test_cuda_visible_devices_limits_the_local_topology_by_index_or_uuid():
    records = [nvml_record(i) for i in range(4)]
    assert topology.local(records, environ={"CUDA_VISIBLE_DEVICES": "2,3"}).nodes[0].gpus == (2, 3)
    assert topology.local(records, environ={"CUDA_VISIBLE_DEVICES": "GPU-0001"}).nodes[0].gpus == (1,)


def test_the_training_process_sees_only_its_gpus_in_nvml_order():
    local = topology.local([nvml_record(i) for i in range(4)], environ={"CUDA_VISIBLE_DEVICES": "1,2,3"})
    plan = plan_devices(load_config("gsm8k"), local)
    assert (plan.trainer, plan.generators, plan.evaluators) == (Device(0, 1), (Device(0, 2),), (Device(0, 3),))
    env: dict[str, str] = {}
    plan.apply_to_environment(env)
    assert env == {"CUDA_VISIBLE_DEVICES": "1,2", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


def test_a_ray_plan_leaves_cuda_visible_devices_to_ray():
    plan = plan_devices(load_config("gsm8k"), topology.given([2, 2]))
    env: dict[str, str] = {}
    plan.apply_to_environment(env)
    assert env == {} and plan.topology.ray


def test_split_training_stays_on_one_node_when_one_has_room():
    plan = plan_devices(load_config("gsm8k", ["training.rollout_workers=3"]), topology.given([2, 4]))
    assert {d.node for d in plan.training_devices} == {1}
    assert set(plan.evaluators) == {Device(0, 0), Device(0, 1)}


def test_split_training_spans_nodes_only_when_no_node_has_room():
    plan = plan_devices(load_config("gsm8k"), topology.given([1, 1]))
    assert {d.node for d in plan.training_devices} == {0, 1}
    assert any("spans nodes" in note for note in plan.notes)


def test_the_shared_gpu_engine_gets_what_the_trainers_fixed_state_leaves():
    config = load_config("gsm8k", ["training.colocate=true"])
    plan = plan_devices(config, topology.given([1], gpu_memory_gib=79))
    assert plan.layout == "shared-gpu" and plan.training_gpu_share == 0.5
    assert plan.trainer == plan.generators[0] == Device(0, 0)
    assert 0.5 < plan.engine_memory_utilization < 0.7  # 1.7B: ~26 GiB of fp32 weights, gradients and AdamW
    with_reference = plan_devices(load_config("gsm8k", ["training.colocate=true", "grpo.kl_beta=0.01"]),
                                  topology.given([1], gpu_memory_gib=79))
    assert with_reference.engine_memory_utilization < plan.engine_memory_utilization


def test_a_gpu_too_small_to_share_is_refused_with_the_fix():
    with pytest.raises(DevicePlanError, match=r"leaves .* GiB for the vLLM engine.*Fix: .*two GPUs"):
        plan_devices(load_config("gsm8k", ["training.colocate=true"]), topology.given([1], gpu_memory_gib=24))


def test_cpu_training_leaves_every_gpu_to_evaluations():
    plan = plan_devices(load_config("tiny-arith"), topology.given([4]))
    assert plan.layout == "cpu" and plan.training_devices == () and len(plan.evaluators) == 4
    assert plan.cuda_visible_devices() is None


def test_data_parallel_on_a_gpu_is_refused():
    config = load_config("tiny-arith", ["training.device=auto"])  # data_parallel 2, found a GPU
    with pytest.raises(DevicePlanError, match=r"training.data_parallel=2 runs on the CPU only.*Fix"):
        plan_devices(config, topology.given([2]))


def test_the_plan_file_reads_back_as_the_same_plan(tmp_path: Path):
    plan = plan_devices(load_config("gsm8k"), topology.local([nvml_record(i) for i in range(3)], environ={}))
    plan.save(tmp_path)
    assert load_plan(tmp_path) == plan
    assert load_plan(tmp_path / "elsewhere") is None


def test_the_rendered_plan_names_every_gpu_and_when_evaluations_run():
    text = render_plan(plan_devices(load_config("gsm8k"), topology.given([2])))
    assert "GPU 0  train, then evaluate once training ends" in text
    assert "GPU 1  generate (rollout worker 0)" in text
    assert "none: each waits for a device, and they start when training ends" in text
    assert "CUDA_VISIBLE_DEVICES=0,1" in text


def test_the_cli_prints_the_plan_and_exits_2_when_refused():
    ok = subprocess.run([sys.executable, "-m", "rlvr_core.devices", "plan", "gsm8k", "--gpus", "2,2"],
                        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("device plan: split (trainer and rollout GPUs) on 2 nodes x 2 GPUs")
    refused = subprocess.run([sys.executable, "-m", "rlvr_core.devices", "plan", "gsm8k", "--gpus", "1"],
                             capture_output=True, text=True, cwd=REPO, timeout=120)
    assert refused.returncode == 2 and "set training.colocate=true" in refused.stderr
