"""Which GPUs are free, busy, or held by a likely zombie — read through NVML, never acted on.

Definitions (what placement relies on):
- free: no other process holds memory on the GPU (our own pids excluded). When
  NVML lists no processes (another container's processes are invisible) but
  more than `hidden_memory_mb` is used, the GPU is not free either.
- likely zombie: memory is held by others and utilisation was 0% in every
  sample of a short window — typically a crashed job's orphan that keeps its
  CUDA context. It is reported (pids included) so a person can look; this
  module never kills anything and placement never uses such a GPU.

`classify` is a pure function over recorded snapshots, so the rules are
tested without a GPU; `discover_gpus` samples the real devices and returns
[] (no exception) on a machine without the NVIDIA driver.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    used_mb: float


@dataclass(frozen=True)
class GpuSample:
    """One NVML reading of one GPU."""

    index: int
    uuid: str
    name: str
    memory_used_mb: float
    memory_total_mb: float
    utilization_pct: float
    processes: tuple[GpuProcess, ...] = ()


@dataclass(frozen=True)
class GpuInfo:
    """A GPU's state over the sampled window."""

    index: int
    uuid: str
    name: str
    memory_total_mb: float
    memory_used_mb: float  # the largest reading in the window
    utilization_pct: float  # the mean reading in the window
    processes: tuple[GpuProcess, ...]  # other processes holding memory (last reading)
    free: bool
    likely_zombie: bool
    reason: str


def classify(
    snapshots: Sequence[Sequence[GpuSample]],
    *,
    own_pids: Sequence[int] = (),
    hidden_memory_mb: float = 1024.0,
) -> list[GpuInfo]:
    """Classify each GPU from snapshots taken over a window (each snapshot lists every GPU once)."""
    by_gpu: dict[int, list[GpuSample]] = {}
    for snapshot in snapshots:
        for sample in snapshot:
            by_gpu.setdefault(sample.index, []).append(sample)
    infos = []
    for index in sorted(by_gpu):
        samples = by_gpu[index]
        last = samples[-1]
        others = tuple(p for p in last.processes if p.pid not in own_pids and p.used_mb > 0)
        peak_used = max(s.memory_used_mb for s in samples)
        mean_util = sum(s.utilization_pct for s in samples) / len(samples)
        hidden = not last.processes and peak_used > hidden_memory_mb
        held = bool(others) or hidden
        idle = all(s.utilization_pct == 0 for s in samples)
        if not held:
            reason = "no memory held by other processes"
        elif idle:
            who = f"pids {[p.pid for p in others]}" if others else "processes NVML cannot see"
            reason = f"{peak_used:.0f} MiB held by {who} at 0% utilisation over {len(samples)} samples: likely zombie"
        else:
            reason = f"in use ({mean_util:.0f}% utilisation, {peak_used:.0f} MiB)"
        infos.append(GpuInfo(index=index, uuid=last.uuid, name=last.name, memory_total_mb=last.memory_total_mb,
                             memory_used_mb=peak_used, utilization_pct=mean_util, processes=others,
                             free=not held, likely_zombie=held and idle, reason=reason))
    return infos


def read_snapshot() -> list[GpuSample]:
    """One reading of every GPU; [] when NVML or the driver is missing."""
    try:
        import pynvml
    except ImportError:
        return []
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return []
    try:
        samples = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            try:
                util = float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
            except pynvml.NVMLError:  # not supported (e.g. a MIG slice): treat as unknown-but-busy
                util = -1.0
            try:
                procs = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
            except pynvml.NVMLError:
                procs = []
            name = pynvml.nvmlDeviceGetName(handle)
            uuid = pynvml.nvmlDeviceGetUUID(handle)
            samples.append(GpuSample(
                index=index,
                uuid=uuid.decode() if isinstance(uuid, bytes) else str(uuid),
                name=name.decode() if isinstance(name, bytes) else str(name),
                memory_used_mb=memory.used / MIB,
                memory_total_mb=memory.total / MIB,
                utilization_pct=util,
                processes=tuple(GpuProcess(int(p.pid), (p.usedGpuMemory or 0) / MIB) for p in procs),
            ))
        return samples
    except pynvml.NVMLError:
        return []
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass


def discover_gpus(window_s: float = 2.0, interval_s: float = 0.5, own_pids: Sequence[int] | None = None) -> list[GpuInfo]:
    """Sample every GPU for `window_s` and classify them; [] on a machine without GPUs."""
    first = read_snapshot()
    if not first:
        return []
    snapshots = [first]
    deadline = time.monotonic() + window_s
    while time.monotonic() < deadline:
        time.sleep(interval_s)
        snapshots.append(read_snapshot())
    return classify(snapshots, own_pids=own_pids if own_pids is not None else (os.getpid(),))


def free_gpu_indices(window_s: float = 1.0) -> list[int]:
    """Indices of free GPUs (zombie-held and busy ones excluded); [] without GPUs."""
    return [g.index for g in discover_gpus(window_s=window_s) if g.free]


def main() -> int:
    """`python -m rlvr_core.devices.gpu_state`: print one line per GPU."""
    gpus = discover_gpus()
    if not gpus:
        print("no NVIDIA GPUs visible (no driver, or none present)")
    for g in gpus:
        state = "FREE" if g.free else ("LIKELY ZOMBIE" if g.likely_zombie else "BUSY")
        print(f"gpu {g.index} {g.name}: {state} - {g.reason} ({g.memory_used_mb:.0f}/{g.memory_total_mb:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
