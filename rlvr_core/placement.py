"""Which GPU an evaluation may use: exclude busy ones, and hand out local slots without Ray.

Two placements (deployments/README.md):
- Ray cluster over all nodes (preferred): each node's Ray is started with only
  its *usable* GPUs visible (`ray_visible_devices`), and every evaluation asks
  Ray for `num_gpus=1`; Ray picks the node and sets CUDA_VISIBLE_DEVICES.
- No Ray (fallback): one Prefect worker per node with a concurrency limit equal
  to its GPU count; each evaluation takes a free local GPU with
  `local_gpu_slot`, an exclusive `flock` per GPU index that the kernel
  releases when the holder dies, so a crashed evaluation never leaks a GPU.

A GPU that NVML shows holding memory for processes we do not own (or with
memory used and zero utilisation: a likely zombie) is excluded and reported,
never used or killed. No Prefect here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_LOCK_DIR = Path(".rlvr/gpu-locks")


@dataclass(frozen=True)
class Exclusion:
    """A GPU left out of placement and why (shown in logs and artifacts)."""

    index: int
    reason: str


def split_usable(gpus: Sequence[Any]) -> tuple[list[int], list[Exclusion]]:
    """(usable GPU indices, excluded GPUs with reasons) from `rlvr_core.gpus.discover_gpus()` records.

    Uses the records' own verdict (`free`, `likely_zombie`, `reason`) so the
    rule for "foreign" and "zombie" lives in one place, `rlvr_core.gpus`.
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
    folder.mkdir(parents=True, exist_ok=True)
    for index in candidates:
        handle = open(folder / f"gpu-{index}.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            yield index
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        return
    raise RuntimeError(f"all GPUs {list(candidates)} are held by other evaluations on this node. Fix: set the "
                       f"worker's concurrency limit to the number of usable GPUs ({len(candidates)}).")
