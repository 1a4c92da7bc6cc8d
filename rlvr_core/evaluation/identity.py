"""What exactly was evaluated: the model's content hash and the code's git commit.

The content hash (not the path) is what makes an evaluation idempotent: the
same weights under a new folder name are the same evaluation, and a folder
overwritten with new weights is a new one. Published checkpoints carry their
hash in `checkpoint.json`; other local folders are hashed file by file; a
name that is not a local folder (a hub id, an endpoint's model) is
identified by its name.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

from rlvr_core.rundir import layout

_SKIP_DIRS = {"training_state", ".cache"}


def _hash_folder(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if rel.parts[0] in _SKIP_DIRS:
            continue
        digest.update(str(rel).encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_identity(model: str) -> dict[str, Any]:
    """`{"path", "content_hash", "kind", "step"}` for a checkpoint, a local folder or a remote name."""
    folder = Path(model)
    if layout.is_checkpoint(folder):
        from rlvr_core.rundir.checkpoints import read_checkpoint

        info = read_checkpoint(folder)
        return {"path": str(folder), "content_hash": info.content_hash, "kind": "checkpoint", "step": info.step}
    if folder.is_dir():
        return {"path": str(folder), "content_hash": _hash_folder(folder), "kind": "folder", "step": None}
    return {"path": model, "content_hash": "name:" + model, "kind": "remote", "step": None}


def git_commit(cwd: Path | None = None) -> dict[str, Any]:
    """The commit of the code that ran (and whether the tree was dirty); nulls outside a git checkout."""
    where = cwd or Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=where, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None}
    if commit.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
