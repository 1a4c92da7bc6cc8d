"""Which GPU an evaluation may use: exclude busy ones, and hand out local slots without Ray.

Two placements (deployments/README.md):
- Ray cluster over all nodes (preferred): each node's Ray is started with only
  its *usable* GPUs visible (`ray_visible_devices`), and every evaluation asks
  Ray for `num_gpus=1`; Ray picks the node and sets CUDA_VISIBLE_DEVICES.
- No Ray (fallback): one Prefect worker per node with a concurrency limit equal
  to its GPU count; each evaluation takes a free local GPU with
  `local_gpu_slot`, an exclusive `flock` per GPU index that the kernel
  releases when the holder dies, so a crashed evaluation never leaks a GPU.
  A run's device plan names the GPU itself (`hold_gpu`, which waits for the
  lock), and a training process holds the locks of its GPUs while it runs
  (`hold_gpus`), so an evaluation of another flow (a nightly baseline) never
  lands on them. The locks live in one folder per user under the system temp
  folder, whatever the working folder.

A GPU that NVML shows holding memory for processes we do not own (or with
memory used and zero utilisation: a likely zombie) is excluded and reported,
never used or killed. No Prefect here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

DEFAULT_LOCK_DIR = Path(tempfile.gettempdir()) / f"rlvr-gpu-locks-{os.getuid()}"
LOCK_POLL_S = 5.0


class GpuBusyError(RuntimeError):
    """A GPU the device plan gives this process is held by another process of ours; the message names it."""


@dataclass(frozen=True)
class Exclusion:
    """A GPU left out of placement and why (shown in logs and artifacts)."""

    index: int
    reason: str


def split_usable(gpus: Sequence[Any]) -> tuple[list[int], list[Exclusion]]:
    """(usable GPU indices, excluded GPUs with reasons) from `rlvr_core.devices.gpu_state.discover_gpus()` records.

    Uses the records' own verdict (`free`, `likely_zombie`, `reason`) so the
    rule for "foreign" and "zombie" lives in one place, `rlvr_core.devices.gpu_state`.
    """
    usable: list[int] = []
    excluded: list[Exclusion] = []
    for gpu in gpus:
        if gpu.free:
            usable.append(int(gpu.index))
        else:
            kind = "likely zombie" if gpu.likely_zombie else "held by another process"
            excluded.append(Exclusion(int(gpu.index), f"{kind}: {gpu.reason}"))
    return usable, excluded


def ray_visible_devices(usable: Sequence[int]) -> str:
    """CUDA_VISIBLE_DEVICES for `ray start` on a node, so Ray only schedules onto usable GPUs."""
    return ",".join(str(i) for i in usable)


@contextlib.contextmanager
def local_gpu_slot(candidates: Sequence[int], lock_dir: Path | None = None) -> Iterator[int | None]:
    """Hold one free GPU index from `candidates` for the block; None when there are no GPUs (CPU run).

    Raises RuntimeError when every candidate is held: the per-node concurrency
    limit should make that impossible, so it signals a misconfigured worker.
    """
    if not candidates:
        yield None
        return
    folder = lock_dir or DEFAULT_LOCK_DIR
    for index in candidates:
        handle = _try_lock(folder, index)
        if handle is None:
            continue
        try:
            yield index
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        return
    raise RuntimeError(f"all GPUs {list(candidates)} are held by other evaluations on this node. Fix: set the "
                       f"worker's concurrency limit to the number of usable GPUs ({len(candidates)}).")


def _try_lock(folder: Path, index: int) -> IO[str] | None:
    """The open, locked lock file of GPU `index` (our pid written in it), or None when another process holds it."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle = open(folder / f"gpu-{index}.lock", "a+")  # noqa: SIM115 - returned open, closed by the holder
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _holder(folder: Path, index: int) -> str:
    try:
        return f"pid {(folder / f'gpu-{index}.lock').read_text().strip() or '?'}"
    except OSError:
        return "another process"


@contextlib.contextmanager
def hold_gpu(index: int, lock_dir: Path | None = None,
             on_wait: Callable[[str], None] | None = None) -> Iterator[int]:
    """Hold GPU `index` (the device plan's choice) for the block, waiting while another process holds it;
    `on_wait(message)` is called once if it has to wait."""
    folder = lock_dir or DEFAULT_LOCK_DIR
    told = False
    while (handle := _try_lock(folder, index)) is None:
        if on_wait is not None and not told:
            told = True
            on_wait(f"GPU {index} is held by {_holder(folder, index)} (another evaluation or training); waiting")
        time.sleep(LOCK_POLL_S)
    try:
        yield index
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


@contextlib.contextmanager
def hold_gpus(indices: Sequence[int], lock_dir: Path | None = None) -> Iterator[list[int]]:
    """Hold every GPU in `indices` for the block (a training process's), or raise GpuBusyError at once."""
    folder = lock_dir or DEFAULT_LOCK_DIR
    handles: list[IO[str]] = []
    try:
        for index in indices:
            handle = _try_lock(folder, index)
            if handle is None:
                raise GpuBusyError(f"GPU {index}, which the device plan gives training, is held by "
                                   f"{_holder(folder, index)} (an evaluation of another run?). Fix: wait for it to "
                                   f"end, or plan this run again (python -m rlvr_core.devices plan CONFIG)")
            handles.append(handle)
        yield list(indices)
    finally:
        for handle in handles:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
