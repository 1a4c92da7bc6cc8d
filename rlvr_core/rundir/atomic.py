"""The one way a file in a run folder (or a local store) is replaced: whole, or not at all, and durably.

`atomic_file(path)` hands out a hidden temporary file beside `path`; when the
block ends normally the file is flushed and fsynced, renamed over `path`, and
the folder is fsynced so the rename itself survives a power cut. If the block
raises, or the process dies, `path` keeps its previous content (or stays
absent) and the temporary is removed (a killed process leaves it behind,
hidden: its name starts with a dot and carries `TMP_MARK`, which listings skip).

Where it stops: the rename is atomic only within one file system, which is why
the temporary lives in the target's own folder; appending to a file (the trace,
evaluation samples) is not a replacement and does not come here.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

TMP_MARK = ".rlvr-tmp-"


def temp_path(target: Path | str) -> Path:
    """A hidden sibling of `target` no other writer picks: `.<name>.rlvr-tmp-<pid>-<random>`."""
    target = Path(target)
    return target.parent / f".{target.name}{TMP_MARK}{os.getpid()}-{uuid.uuid4().hex[:12]}"


@contextlib.contextmanager
def atomic_file(path: Path | str) -> Iterator[IO[bytes]]:
    """A binary handle whose bytes replace `path` when the block ends without an exception (see the module)."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: Path | str, data: bytes | str) -> Path:
    """Replace `path` by `data` (text is written as UTF-8) atomically and durably; return `path`."""
    with atomic_file(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def write_json_atomic(path: Path | str, payload: Any, *, sort_keys: bool = True) -> Path:
    """`payload` as indented JSON with a final newline, serialised before anything is written."""
    return write_atomic(path, json.dumps(payload, indent=2, sort_keys=sort_keys) + "\n")


def fsync_dir(path: Path | str) -> None:
    """Make the entries of folder `path` (a new file, a rename) durable, not only the files' bytes."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists on this host (one owned by another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
