"""Which GPUs a run may use, node by node: read through NVML (this node, no Ray) or from a Ray cluster.

A `Topology` is the input of the device plan (`plan.py`). Three sources:
- `local()`: this node's usable GPUs (NVML, via `rlvr_core.devices.gpu_state`; busy and
  likely-zombie GPUs are left out and their reasons kept), restricted to
  CUDA_VISIBLE_DEVICES when that is set. Indices are NVML's (PCI bus order);
  whoever sets CUDA_VISIBLE_DEVICES from them also sets
  CUDA_DEVICE_ORDER=PCI_BUS_ID so CUDA counts the same way.
- `from_ray()`: the alive nodes of the Ray cluster this process is connected
  to, each with its `GPU` resource (what `ray start` declared: the node's
  usable GPUs, `rlvr_core.devices.gpu_locks.ray_visible_devices`). GPU numbers are
  slots: Ray picks the physical GPU and sets CUDA_VISIBLE_DEVICES itself.
- `given([2, 2])`: a topology stated by hand (the CLI's `--gpus 2,2`, tests);
  several nodes mean one Ray cluster over them.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Source = Literal["nvml", "ray", "given"]


@dataclass(frozen=True)
class Node:
    """One machine: its usable GPUs, and why others were left out."""

    name: str
    gpus: tuple[int, ...]
    node_id: str | None = None          # Ray's node id (placement pins actors and tasks to it)
    gpu_memory_gib: float | None = None  # the smallest usable GPU's memory (NVML); None when unknown
    excluded: tuple[str, ...] = ()       # "GPU 3: likely zombie: ..." lines, for the log


@dataclass(frozen=True)
class Topology:
    nodes: tuple[Node, ...]
    source: Source
    ray: bool = False                    # placement goes through one Ray cluster over all nodes
    notes: tuple[str, ...] = field(default=())

    @property
    def gpu_count(self) -> int:
        return sum(len(n.gpus) for n in self.nodes)

    def describe(self) -> str:
        """`1 node x 2 GPUs`, `2 nodes x 8 GPUs`, `2 nodes (4 + 1 GPUs)`, `1 node, no GPU`."""
        counts = [len(n.gpus) for n in self.nodes]
        nodes = f"{len(counts)} node{'s' if len(counts) != 1 else ''}"
        if not any(counts):
            return f"{nodes}, no GPU"
        if len(set(counts)) == 1:
            return f"{nodes} x {counts[0]} GPU{'s' if counts[0] != 1 else ''}"
        return f"{nodes} ({' + '.join(map(str, counts))} GPUs)"

    def where(self) -> str:
        """How an error names the machines: `this node` or `the Ray cluster`."""
        return "the Ray cluster" if self.ray else "this node"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Topology":
        nodes = tuple(Node(**{**n, "gpus": tuple(n["gpus"]), "excluded": tuple(n.get("excluded", ()))})
                      for n in data["nodes"])
        return cls(nodes=nodes, source=data["source"], ray=bool(data.get("ray")), notes=tuple(data.get("notes", ())))


def given(counts: Sequence[int], *, gpu_memory_gib: float | None = None) -> Topology:
    """Nodes with `counts[i]` GPUs each; more than one node means one Ray cluster over them."""
    if not counts or any(c < 0 for c in counts):
        raise ValueError(f"GPU counts per node must be >= 0, one per node (got {list(counts)}). Fix: e.g. 2 or 8,8")
    nodes = tuple(Node(name=f"node{i}", gpus=tuple(range(c)), gpu_memory_gib=gpu_memory_gib)
                  for i, c in enumerate(counts))
    return Topology(nodes=nodes, source="given", ray=len(nodes) > 1)


def local(gpus: Sequence[Any] | None = None, *, environ: Mapping[str, str] | None = None,
          host: str | None = None) -> Topology:
    """This node's usable GPUs. `gpus`: `rlvr_core.devices.gpu_state.GpuInfo` records (default: read NVML now)."""
    from rlvr_core.devices.gpu_locks import split_usable

    if gpus is None:
        from rlvr_core.devices.gpu_state import discover_gpus

        gpus = discover_gpus()
    env = os.environ if environ is None else environ
    visible = _visible(env.get("CUDA_VISIBLE_DEVICES"), gpus)
    notes = ()
    if visible is not None:
        gpus = [g for g in gpus if g.index in visible]
        notes = (f"CUDA_VISIBLE_DEVICES={env['CUDA_VISIBLE_DEVICES']}: only those GPUs are considered",)
    usable, excluded = split_usable(gpus)
    memory = [g.memory_total_mb / 1024 for g in gpus if g.index in usable]
    node = Node(name=host or socket.gethostname(), gpus=tuple(usable),
                gpu_memory_gib=round(min(memory), 1) if memory else None,
                excluded=tuple(f"GPU {e.index}: {e.reason}" for e in excluded))
    return Topology(nodes=(node,), source="nvml", ray=False, notes=notes)


def _visible(value: str | None, gpus: Sequence[Any]) -> set[int] | None:
    """NVML indices named by CUDA_VISIBLE_DEVICES (indices or GPU UUIDs); None when it is unset."""
    if value is None:
        return None
    by_uuid = {g.uuid: g.index for g in gpus}
    chosen = set()
    for item in filter(None, (part.strip() for part in value.split(","))):
        if item.isdigit():
            chosen.add(int(item))
        elif item in by_uuid:
            chosen.add(by_uuid[item])
    return chosen


def from_ray() -> Topology:
    """The alive nodes of the Ray cluster this process is connected to; this process's node first."""
    import ray

    here = ray.get_runtime_context().get_node_id()
    alive = [n for n in ray.nodes() if n.get("Alive")]
    alive.sort(key=lambda n: (n["NodeID"] != here, n.get("NodeManagerAddress", ""), n["NodeID"]))
    nodes = tuple(Node(name=n.get("NodeName") or n.get("NodeManagerAddress") or n["NodeID"][:8],
                       gpus=tuple(range(int(n.get("Resources", {}).get("GPU", 0)))), node_id=n["NodeID"])
                  for n in alive)
    return Topology(nodes=nodes, source="ray", ray=True)


def discover(ray_address: str | None) -> Topology:
    """`from_ray()` when this process is (or, with `ray_address`, gets) connected to a Ray cluster, else `local()`."""
    import sys

    ray = sys.modules.get("ray")  # not imported: not connected either
    if ray_address or (ray is not None and ray.is_initialized()):
        import ray

        if not ray.is_initialized():
            ray.init(address=ray_address, log_to_driver=False)
        return from_ray()
    return local()
