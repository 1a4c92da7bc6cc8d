"""One device plan per run: which GPUs train, which generate, which evaluate, and what waits.

Computed once, before any model loads, from the run's config and the
topology (`topology.py`), written to the run folder (`device_plan.json`) and
obeyed by every process: the trainer subprocess sees only its devices
(CUDA_VISIBLE_DEVICES without Ray, node affinity with Ray), and evaluations
run only on the devices the plan gives them (`queue.py`), waiting for one
rather than sharing a training GPU. A config the devices cannot run is
refused here, with the fix.

Layouts (training.device cuda, or auto with GPUs present):
- `colocated` (hf backend, `colocate` unset or true): one actor trains and
  generates on one GPU.
- `shared-gpu` (vllm backend, `colocate: true`): the trainer and one vLLM
  engine on one GPU; the engine sleeps (vLLM sleep mode, level 1) while the
  trainer steps, and its memory share is what the trainer's fixed state
  leaves (`engine_memory_utilization`). The layout for one GPU per node.
- `split`: a trainer GPU plus one GPU per rollout worker, on one node when
  one has room (weights sync through that node's object store), else spread.
- `cpu`: training on the CPU; every GPU is free for evaluations.
Evaluations get the GPUs training leaves while it runs, and every GPU once it
ends. Two processes share a GPU only in the colocated layouts, by design.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rlvr_core.devices.topology import Topology

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

PLAN_FILE = "device_plan.json"
Layout = Literal["cpu", "colocated", "shared-gpu", "split"]
GIB = 2**30
ENGINE_MAX_UTILIZATION = 0.9          # vLLM's default share of a GPU it has to itself
ENGINE_UNKNOWN_MODEL_UTILIZATION = 0.4  # shared GPU, model size unknown: what a 1-2B trainer leaves on 80 GB
SHARED_GPU_HEADROOM_GIB = 2.0           # CUDA contexts of two processes and allocator slack


class DevicePlanError(ValueError):
    """The config cannot run on these devices; the message says what it needs, what there is, and the fix."""


@dataclass(frozen=True, order=True)
class Device:
    """GPU `gpu` of node `node` (an index into the topology's nodes). Without Ray `gpu` is the NVML index;
    with Ray it is a slot of the node's `GPU` resource (Ray picks the physical GPU)."""

    node: int
    gpu: int


@dataclass(frozen=True)
class DevicePlan:
    layout: Layout
    topology: Topology
    trainer: Device | None
    generators: tuple[Device, ...]        # one per rollout worker; colocated: the trainer's device
    evaluators: tuple[Device, ...]        # free for evaluations while training runs
    training_gpu_share: float             # Ray `num_gpus` of each training actor (0.5 on a shared GPU)
    engine_memory_utilization: float | None  # the rollout engine's `gpu_memory_utilization`
    notes: tuple[str, ...] = ()

    @property
    def training_devices(self) -> tuple[Device, ...]:
        """The devices training holds, each once, in plan order."""
        seen: dict[Device, None] = {}
        for device in (self.trainer, *self.generators):
            if device is not None:
                seen.setdefault(device, None)
        return tuple(seen)

    @property
    def all_devices(self) -> tuple[Device, ...]:
        return tuple(Device(n, g) for n, node in enumerate(self.topology.nodes) for g in node.gpus)

    @property
    def shares_gpu(self) -> bool:
        return self.layout == "shared-gpu"

    @property
    def evaluates_on_cpu(self) -> bool:
        """No GPU anywhere: evaluations run on the CPU, one at a time."""
        return not self.all_devices

    def node_id(self, device: Device) -> str | None:
        return self.topology.nodes[device.node].node_id

    def cuda_visible_devices(self) -> str | None:
        """CUDA_VISIBLE_DEVICES for the training process without Ray (its private Ray cluster then holds
        exactly these GPUs); None when training uses no GPU or Ray places it."""
        if self.topology.ray or not self.training_devices:
            return None
        return ",".join(str(d.gpu) for d in self.training_devices)

    def apply_to_environment(self, environ: dict[str, str]) -> None:
        """Limit this process (and the private Ray cluster it starts) to the training devices."""
        visible = self.cuda_visible_devices()
        if visible is not None:
            environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # NVML's order, which the plan's indices are in
            environ["CUDA_VISIBLE_DEVICES"] = visible

    # -- files ------------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["topology"] = self.topology.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DevicePlan":
        def device(d: Mapping[str, int] | None) -> Device | None:
            return None if d is None else Device(int(d["node"]), int(d["gpu"]))

        return cls(layout=data["layout"], topology=Topology.from_dict(data["topology"]),
                   trainer=device(data["trainer"]), generators=tuple(device(d) for d in data["generators"]),
                   evaluators=tuple(device(d) for d in data["evaluators"]),
                   training_gpu_share=float(data["training_gpu_share"]),
                   engine_memory_utilization=data.get("engine_memory_utilization"),
                   notes=tuple(data.get("notes", ())))

    def save(self, run_dir: Path | str) -> Path:
        path = Path(run_dir) / PLAN_FILE
        tmp = path.with_name(f".{PLAN_FILE}.tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True))
        tmp.replace(path)
        return path


def load_plan(run_dir: Path | str | None) -> DevicePlan | None:
    """The plan written into `run_dir`, or None when there is none yet."""
    if run_dir is None or not (Path(run_dir) / PLAN_FILE).is_file():
        return None
    return DevicePlan.from_dict(json.loads((Path(run_dir) / PLAN_FILE).read_text()))


def plan_devices(config: "ExperimentConfig", topology: Topology) -> DevicePlan:
    """The plan for a run of `config` on `topology`; DevicePlanError (with the fix) when it cannot run there."""
    t = config.training
    devices = tuple((n, g) for n, node in enumerate(topology.nodes) for g in node.gpus)
    on_gpu = t.device == "cuda" or (t.device == "auto" and bool(devices))
    if not on_gpu:
        return DevicePlan("cpu", topology, None, (), tuple(Device(n, g) for n, g in devices), 0.0, None,
                          ("training runs on the CPU; every GPU is free for evaluations",) if devices else ())
    if not devices:
        raise DevicePlanError(f"training.device is {t.device!r}, but {topology.where()} has no usable GPU"
                              f"{_exclusions(topology)}. Fix: run on a GPU node (or join a cluster with one: "
                              f"RLVR_RAY_ADDRESS), free the GPUs listed, or set training.device: cpu")
    if t.data_parallel > 1:
        raise DevicePlanError(f"training.data_parallel={t.data_parallel} runs on the CPU only (gloo), but this run "
                              f"trains on a GPU. Fix: set training.data_parallel: 1, or training.device: cpu")
    if t.colocated or t.shares_gpu:
        return _colocated_plan(config, topology)
    return _split_plan(config, topology)


def _colocated_plan(config: "ExperimentConfig", topology: Topology) -> DevicePlan:
    """The trainer and its one generator on the first GPU of the node with the most GPUs (this node first)."""
    t = config.training
    node = max(range(len(topology.nodes)), key=lambda n: (len(topology.nodes[n].gpus), -n))
    device = Device(node, topology.nodes[node].gpus[0])
    rest = tuple(d for d in _devices(topology) if d != device)
    if t.colocated:
        return DevicePlan("colocated", topology, device, (device,), rest, 1.0, None,
                          ("one actor trains and generates (hf) on one GPU",))
    utilization, note = _shared_engine_share(config, topology.nodes[node].gpu_memory_gib)
    return DevicePlan("shared-gpu", topology, device, (device,), rest, 0.5, utilization,
                      ("the trainer and the vLLM engine share one GPU; the engine sleeps while the trainer steps",
                       note))


def _split_plan(config: "ExperimentConfig", topology: Topology) -> DevicePlan:
    """A trainer GPU and one GPU per rollout worker: all on one node when one has room (the node with the most
    GPUs, this node first on ties), else the trainer's node first and the other nodes in order."""
    t = config.training
    need = 1 + t.rollout_workers
    if topology.gpu_count < need:
        raise DevicePlanError(_too_few(config, topology, need))
    order = sorted(range(len(topology.nodes)), key=lambda n: (-len(topology.nodes[n].gpus), n))
    home = next((n for n in order if len(topology.nodes[n].gpus) >= need), order[0])
    pool = [Device(home, g) for g in topology.nodes[home].gpus]
    pool += [Device(n, g) for n in range(len(topology.nodes)) if n != home for g in topology.nodes[n].gpus]
    trainer, generators = pool[0], tuple(pool[1:need])
    taken = {trainer, *generators}
    notes = [f"a trainer GPU and {t.rollout_workers} {t.generation_backend} rollout GPU(s)"]
    if len({d.node for d in taken}) > 1:
        notes.append("training spans nodes: weights reach the rollout workers over the network after every sync")
    return DevicePlan("split", topology, trainer, generators, tuple(d for d in _devices(topology) if d not in taken),
                      1.0, None, tuple(notes))  # each engine has its GPU: vLLM's own memory default


def _devices(topology: Topology) -> list[Device]:
    return [Device(n, g) for n, node in enumerate(topology.nodes) for g in node.gpus]


def _too_few(config: "ExperimentConfig", topology: Topology, need: int) -> str:
    t = config.training
    have = topology.gpu_count
    what = (f"a trainer and {t.rollout_workers} {t.generation_backend} rollout worker(s), one GPU each")
    if t.generation_backend == "vllm":
        fixes = ["set training.colocate=true (the trainer and one vLLM engine share a GPU; the engine sleeps "
                 "while the trainer steps)" + (" with training.rollout_workers=1" if t.rollout_workers > 1 else "")]
    else:
        fixes = ["set training.colocate=true (one actor trains and generates on one GPU)"
                 + (" with training.rollout_workers=1" if t.rollout_workers > 1 else "")]
    if have >= 2:
        fixes.append(f"set training.rollout_workers={have - 1}")
    fixes.append("run where there are more GPUs (another node, or a Ray cluster over several: RLVR_RAY_ADDRESS)")
    return (f"this config needs {need} GPUs ({what}); {topology.where()} has {have}{_exclusions(topology)}: "
            + ", or ".join(fixes))


def _exclusions(topology: Topology) -> str:
    excluded = [line for node in topology.nodes for line in node.excluded]
    return f" (left out: {'; '.join(excluded)})" if excluded else ""


def _shared_engine_share(config: "ExperimentConfig", gpu_memory_gib: float | None) -> tuple[float, str]:
    """vLLM's `gpu_memory_utilization` beside the trainer: the GPU less the trainer's fixed state (fp32 weights,
    gradients, AdamW moments, a reference copy), at most vLLM's default. The trainer's activations fit while
    the engine sleeps. Refused when the engine's share cannot hold its own bf16 weights and some KV cache."""
    from rlvr_core.devices.memory import ADAM_FP32_BYTES_PER_PARAM, architecture_of

    capacity_gib = gpu_memory_gib or config.training.gpu_memory_gib
    try:
        params = architecture_of(config.model.name_or_path).parameters()
    except ValueError:
        return ENGINE_UNKNOWN_MODEL_UTILIZATION, (f"model size unknown offline: the engine gets "
                                                  f"{ENGINE_UNKNOWN_MODEL_UTILIZATION:.0%} of the GPU")
    fixed_gib = params * (ADAM_FP32_BYTES_PER_PARAM + (4 if config.grpo.kl_beta > 0 else 0)) / GIB
    engine_gib = capacity_gib - fixed_gib - SHARED_GPU_HEADROOM_GIB
    needed_gib = params * 2 / GIB + 1.0  # bf16 weights and at least 1 GiB of KV cache
    if engine_gib < needed_gib:
        raise DevicePlanError(
            f"on one {capacity_gib:.0f} GiB GPU the trainer's fixed state (fp32 weights, gradients, AdamW: "
            f"{fixed_gib:.1f} GiB) leaves {max(engine_gib, 0):.1f} GiB for the vLLM engine, which needs "
            f"{needed_gib:.1f} GiB. Fix: use a GPU with more memory, two GPUs (training.colocate=false), a "
            f"smaller model, or grpo.kl_beta: 0 (no reference copy)")
    share = round(min(ENGINE_MAX_UTILIZATION, engine_gib / capacity_gib), 2)
    return share, (f"engine share {share:.2f} of {capacity_gib:.0f} GiB: what the trainer's {fixed_gib:.1f} GiB of "
                   f"fixed state leaves")
