"""Claims: one evaluation per folder, however many processes ask for it.

`claim(eval_dir)` is an atomic marker (`O_CREAT | O_EXCL`) so concurrent
duplicates (the same event delivered twice, a watcher racing a trigger)
evaluate once; a claim left by a dead process on this host is taken over,
one from another host only after `stale_after_s`. Ownership is decided by the
file system's exclusive create, so it holds across processes and, on a shared
file system, across nodes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import pid_alive
from rlvr_core.rundir.evals import has_result, read_result

log = logging.getLogger(__name__)


@contextlib.contextmanager
def claim(directory: str | Path, stale_after_s: float = 6 * 3600) -> Iterator[bool]:
    """Yield True if this process now owns `directory`'s evaluation, False if another live owner does.

    The claim file is removed on exit when owned. Ownership is decided by the
    filesystem's exclusive create, so it holds across processes and, on a
    shared filesystem, across nodes.
    """
    path = layout.claim_path(directory)
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
        if not layout.claim_path(directory).exists():
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
        return None if pid_alive(int(owner.get("pid", -1))) else owner
    return owner if time.time() - float(owner.get("created", time.time())) > stale_after_s else None


def _take_over(path: Path, stale: dict[str, Any]) -> bool:
    """Move the stale claim aside (atomic) and claim afresh.

    Two contenders may both judge the same claim stale; the loser of the
    rename may have moved the winner's fresh claim aside instead, so it checks
    what it moved and puts a fresh claim back.
    """
    aside = path.with_name(f"{layout.CLAIM}.stale-{os.getpid()}")
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
