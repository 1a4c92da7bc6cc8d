"""Checkpoint watching for evaluation: trainer marker lines, eval folders, pending work, claims.

Why here and not in the orchestration layer: the rules that make checkpoint
evaluation idempotent (where a checkpoint's results live, what counts as
done, who may start it) must hold for every caller — a Prefect flow, an
event-triggered run, a watcher catching up, a notebook. No Prefect here.

- Trainer stdout carries `@@rlvr-event {json}` / `@@rlvr-progress {json}` lines
  (`parse_marker`).
- A run's evaluation results live in `<run_dir>/evals/<checkpoint-name|base>/<benchmark>/`;
  `summary.json` there means done.
- `claim(eval_dir)` is an atomic marker (`O_CREAT | O_EXCL`) so concurrent
  duplicates (the same event delivered twice, a watcher racing a trigger)
  evaluate once; a claim left by a dead process on this host is taken over,
  one from another host only after `stale_after_s`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

EVENT_PREFIX = "@@rlvr-event "
PROGRESS_PREFIX = "@@rlvr-progress "
CHECKPOINT_SAVED = "rlvr.checkpoint.saved"
SUMMARY_FILE = "summary.json"
CLAIM_FILE = ".claim"
BASE_LABEL = "base"


@dataclass(frozen=True)
class Marker:
    """One structured line from the trainer: kind is "event" or "progress"."""

    kind: str
    data: dict[str, Any]


def parse_marker(line: str) -> Marker | None:
    """The marker on `line`, or None for ordinary log lines and malformed markers (logged, never raised)."""
    for kind, prefix in (("event", EVENT_PREFIX), ("progress", PROGRESS_PREFIX)):
        if line.startswith(prefix):
            try:
                data = json.loads(line[len(prefix):])
            except json.JSONDecodeError as err:
                log.warning("ignoring malformed %s line (%s): %.200s", kind, err, line)
                return None
            if not isinstance(data, dict):
                log.warning("ignoring %s line whose payload is not an object: %.200s", kind, line)
                return None
            return Marker(kind, data)
    return None


def run_resource_id(run_name: str) -> str:
    """The Prefect event resource id of a run (`rlvr.run.<run-name>`), matched by the deployment trigger."""
    return f"rlvr.run.{run_name}"


def run_dir_of(checkpoint_path: str | Path) -> Path | None:
    """The run folder holding `<run>/checkpoints/<name>`, or None for a checkpoint outside a run."""
    path = Path(checkpoint_path)
    return path.parent.parent if path.parent.name == "checkpoints" else None


def eval_dir(checkpoint_or_model: str | Path, benchmark: str, evals_root: str | Path | None = None) -> Path:
    """Where one (checkpoint, benchmark) evaluation writes: under the run, else under `evals_root`.

    A model outside a run (a base model, a hub id) needs `evals_root`; its
    results go to `<evals_root>/base/<benchmark>` — the layout reports read.
    """
    if evals_root is not None:
        label = Path(str(checkpoint_or_model)).name if is_checkpoint(checkpoint_or_model) else BASE_LABEL
        return Path(evals_root) / label / benchmark
    run_dir = run_dir_of(checkpoint_or_model)
    if run_dir is None:
        raise ValueError(f"{checkpoint_or_model}: not inside `<run>/checkpoints/`; pass evals_root to say where "
                         f"its results go")
    return run_dir / "evals" / Path(checkpoint_or_model).name / benchmark


def is_checkpoint(path: str | Path) -> bool:
    """A published checkpoint: a folder whose `checkpoint.json` manifest exists (written last)."""
    return (Path(str(path)) / "checkpoint.json").is_file()


def has_result(directory: str | Path) -> bool:
    return (Path(directory) / SUMMARY_FILE).is_file()


def read_result(directory: str | Path) -> dict[str, Any]:
    return json.loads((Path(directory) / SUMMARY_FILE).read_text())


def pending_evaluations(run_dir: str | Path, benchmarks: Iterable[str]) -> list[tuple[str, str]]:
    """(checkpoint path, benchmark) pairs of this run whose checkpoint is published but has no result yet."""
    from rlvr_core.checkpoints import list_checkpoints

    checkpoints_dir = Path(run_dir) / "checkpoints"
    if not checkpoints_dir.is_dir():
        return []
    benchmarks = list(benchmarks)
    return [(info.path, bench) for info in list_checkpoints(checkpoints_dir) for bench in benchmarks
            if not has_result(eval_dir(info.path, bench))]


class CheckpointWatcher:
    """Yields each published checkpoint of a run once, in step order, as it appears."""

    def __init__(self, run_dir: str | Path) -> None:
        self.checkpoints_dir = Path(run_dir) / "checkpoints"
        self.seen: set[str] = set()

    def new_checkpoints(self) -> list[str]:
        from rlvr_core.checkpoints import list_checkpoints

        if not self.checkpoints_dir.is_dir():
            return []
        fresh = [info.path for info in list_checkpoints(self.checkpoints_dir) if info.path not in self.seen]
        self.seen.update(fresh)
        return fresh


@contextlib.contextmanager
def claim(directory: str | Path, stale_after_s: float = 6 * 3600) -> Iterator[bool]:
    """Yield True if this process now owns `directory`'s evaluation, False if another live owner does.

    The claim file is removed on exit when owned. Ownership is decided by the
    filesystem's exclusive create, so it holds across processes and, on a
    shared filesystem, across nodes.
    """
    path = Path(directory) / CLAIM_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    owned = _try_create(path)
    if not owned and (stale := _stale_owner(path, stale_after_s)) is not None:
        owned = _take_over(path, stale)
    try:
        yield owned
    finally:
        if owned:
            path.unlink(missing_ok=True)


def wait_for_result(directory: str | Path, timeout_s: float, poll_s: float = 1.0) -> dict[str, Any] | None:
    """The summary another owner writes, or None if its claim vanished without one or time ran out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if has_result(directory):
            return read_result(directory)
        if not (Path(directory) / CLAIM_FILE).exists():
            return read_result(directory) if has_result(directory) else None
        time.sleep(poll_s)
    return None


def _try_create(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as handle:
        json.dump({"host": socket.gethostname(), "pid": os.getpid(), "created": time.time()}, handle)
    return True


def _stale_owner(path: Path, stale_after_s: float) -> dict[str, Any] | None:
    """The claim's content if its owner is gone (dead pid here, or too old elsewhere), else None."""
    try:
        owner = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None  # being written right now, or just released: not ours to take
    if owner.get("host") == socket.gethostname():
        return None if _pid_alive(int(owner.get("pid", -1))) else owner
    return owner if time.time() - float(owner.get("created", time.time())) > stale_after_s else None


def _take_over(path: Path, stale: dict[str, Any]) -> bool:
    """Move the stale claim aside (atomic) and claim afresh.

    Two contenders may both judge the same claim stale; the loser of the
    rename may have moved the winner's fresh claim aside instead, so it checks
    what it moved and puts a fresh claim back.
    """
    aside = path.with_name(f"{CLAIM_FILE}.stale-{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return _try_create(path)
    try:
        moved = json.loads(aside.read_text())
    except (OSError, json.JSONDecodeError):
        moved = None
    if moved != stale:
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)
        aside.unlink(missing_ok=True)
        return False
    aside.unlink(missing_ok=True)
    log.warning("took over a stale evaluation claim at %s (owner %s)", path, stale)
    return _try_create(path)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
