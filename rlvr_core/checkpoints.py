"""Publish training checkpoints so a reader never sees half of one.

A checkpoint is `<checkpoints_dir>/step-000050/`: a Hugging Face folder
(loads with `from_pretrained` as is), an optional `training_state/state.pt`
(optimizer, scheduler, RNG, data position: whatever the trainer needs to
resume) and `checkpoint.json`, the manifest naming every file with its
sha256. Everything is written in a hidden temp folder next to the target,
the manifest last, and the folder is then renamed into place: the rename is
the commit. A crash at any point leaves either the complete checkpoint or
only a hidden temp folder, which listing ignores and a later publish removes.

Scope: local folders on the trainer host (rename is atomic only within one
filesystem); copying a finished checkpoint to a store is the caller's
`Store.put_dir`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_core.filehash import hash_files, sha256_file

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

MANIFEST = "checkpoint.json"
TRAINING_STATE = "training_state/state.pt"
SHARD_INDEX = "model.safetensors.index.json"
_TMP_PREFIX = ".tmp-"
_FORMAT_VERSION = 1


class CheckpointError(RuntimeError):
    """A checkpoint is missing, incomplete, corrupted or would overwrite another."""


@dataclass(frozen=True)
class CheckpointInfo:
    path: str
    step: int
    trainer_version: int
    config_hash: str
    content_hash: str  # sha256 over the sorted (relpath, file sha256) pairs: equal content, equal hash

    @property
    def name(self) -> str:
        return Path(self.path).name


def checkpoint_name(step: int) -> str:
    return f"step-{step:06d}"


def publish_checkpoint(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", checkpoints_dir: Path | str,
                       *, step: int, trainer_version: int, config_hash: str,
                       training_state: dict[str, Any] | None = None, keep_last: int | None = None,
                       max_shard_size: str | int = "5GB") -> CheckpointInfo:
    """Write the checkpoint for `step` atomically and return its info; then prune to `keep_last` if given.

    Raises CheckpointError if a checkpoint for `step` already exists (resume
    from it instead of overwriting it) and ValueError on bad arguments. If
    anything fails, the temp folder is removed and earlier checkpoints are untouched.
    """
    if step < 0:
        raise ValueError(f"publish_checkpoint(step={step}) must be >= 0")
    if keep_last is not None and keep_last < 1:
        raise ValueError(f"publish_checkpoint(keep_last={keep_last}) must be >= 1 or None (keep all)")
    root = Path(checkpoints_dir)
    root.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_temp_dirs(root)
    final = root / checkpoint_name(step)
    if final.exists():
        raise CheckpointError(f"{final} already exists; a step is published once. Fix: resume from it, "
                              "or delete it if it is known to be bad")
    tmp = root / f"{_TMP_PREFIX}{final.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        tmp.mkdir()
        model.save_pretrained(tmp, safe_serialization=True, max_shard_size=max_shard_size)
        tokenizer.save_pretrained(tmp)
        _verify_shard_index(tmp)
        if training_state is not None:
            import torch

            (tmp / TRAINING_STATE).parent.mkdir()
            torch.save(training_state, tmp / TRAINING_STATE)
        files = hash_files(tmp)
        manifest = {"format": _FORMAT_VERSION, "step": step, "trainer_version": trainer_version,
                    "config_hash": config_hash, "created_at": datetime.now(timezone.utc).isoformat(),
                    "content_hash": _content_hash(files), "files": files}
        _fsync_files(tmp, files)
        _write_atomic(tmp / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True).encode())
        _fsync_dir(tmp)
        os.rename(tmp, final)  # the commit point
        _fsync_dir(root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    info = read_checkpoint(final)
    if keep_last is not None:
        prune_checkpoints(root, keep_last)
    return info


def list_checkpoints(checkpoints_dir: Path | str) -> list[CheckpointInfo]:
    """Complete checkpoints (manifest present) sorted by step; temp and manifest-less folders are skipped."""
    root = Path(checkpoints_dir)
    if not root.is_dir():
        return []
    infos = [read_checkpoint(p) for p in root.iterdir()
             if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).is_file()]
    return sorted(infos, key=lambda info: info.step)


def latest_checkpoint(checkpoints_dir: Path | str) -> CheckpointInfo | None:
    found = list_checkpoints(checkpoints_dir)
    return found[-1] if found else None


def read_checkpoint(path: Path | str) -> CheckpointInfo:
    """The info in `path`'s manifest; CheckpointError if the folder is not a complete checkpoint."""
    manifest = _read_manifest(Path(path))
    return CheckpointInfo(path=str(Path(path)), step=manifest["step"], trainer_version=manifest["trainer_version"],
                          config_hash=manifest["config_hash"], content_hash=manifest["content_hash"])


def verify_checkpoint(path: Path | str) -> CheckpointInfo:
    """Re-hash every file named in the manifest; CheckpointError naming the first missing or changed file."""
    path = Path(path)
    manifest = _read_manifest(path)
    for rel, expected in sorted(manifest["files"].items()):
        if not (path / rel).is_file():
            raise CheckpointError(f"checkpoint {path} is missing {rel}, which its manifest lists")
        if sha256_file(path / rel) != expected:
            raise CheckpointError(f"checkpoint {path}: {rel} does not match its manifest hash (corrupted or edited)")
    return read_checkpoint(path)


def load_training_state(path: Path | str) -> dict[str, Any] | None:
    """The `training_state` dict published with the checkpoint at `path`, or None if it had none.

    The file is checked against its manifest hash before unpickling: it holds
    arbitrary Python objects (RNG states), so it is loaded with
    `weights_only=False` and must come from a checkpoint you wrote.
    """
    import torch

    path = Path(path)
    manifest = _read_manifest(path)
    if TRAINING_STATE not in manifest["files"]:
        return None
    if sha256_file(path / TRAINING_STATE) != manifest["files"][TRAINING_STATE]:
        raise CheckpointError(f"{path / TRAINING_STATE} does not match its manifest hash; refusing to load it")
    return torch.load(path / TRAINING_STATE, map_location="cpu", weights_only=False)


def prune_checkpoints(checkpoints_dir: Path | str, keep_last: int) -> list[CheckpointInfo]:
    """Delete all but the newest `keep_last` complete checkpoints; return the deleted ones.

    A checkpoint is first renamed to a hidden temp name, so one half-deleted
    by a crash is never listed. Temp folders (writes in progress) are never touched.
    """
    if keep_last < 1:
        raise ValueError(f"prune_checkpoints(keep_last={keep_last}) must be >= 1")
    complete = list_checkpoints(checkpoints_dir)
    doomed = complete[:-keep_last]
    for info in doomed:
        path = Path(info.path)
        trash = path.parent / f"{_TMP_PREFIX}delete-{path.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        os.rename(path, trash)
        shutil.rmtree(trash)
    return doomed


def _read_manifest(path: Path) -> dict[str, Any]:
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise CheckpointError(f"{path} has no {MANIFEST}: not a checkpoint, or one whose write did not finish")
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {manifest_path}: {exc}") from None
    missing = {"step", "trainer_version", "config_hash", "content_hash", "files"} - manifest.keys()
    if missing:
        raise CheckpointError(f"{manifest_path} lacks {sorted(missing)}; it was not written by publish_checkpoint")
    return manifest


def _verify_shard_index(folder: Path) -> None:
    """A sharded save's index must name exactly the shard files present, or loading fails later and far away."""
    index_path = folder / SHARD_INDEX
    if not index_path.is_file():
        return
    named = set(json.loads(index_path.read_text())["weight_map"].values())
    present = {p.name for p in folder.glob("*.safetensors")}
    if named != present:
        raise CheckpointError(f"{index_path} names shards {sorted(named - present)} that are missing and omits "
                              f"{sorted(present - named)} that are present; the save is inconsistent")


def _content_hash(files: dict[str, str]) -> str:
    return hashlib.sha256("".join(f"{rel}\0{sha}\n" for rel, sha in sorted(files.items())).encode()).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{_TMP_PREFIX}{path.name}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync_files(folder: Path, files: dict[str, str]) -> None:
    """Data on disk before the rename, so a power cut cannot leave a committed folder of empty files."""
    for rel in files:
        with open(folder / rel, "rb") as f:
            os.fsync(f.fileno())
    for sub in {(folder / rel).parent for rel in files}:
        _fsync_dir(sub)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_abandoned_temp_dirs(root: Path) -> None:
    """Remove temp folders whose writer process is gone (a crash); those of live processes are left alone."""
    for path in root.glob(f"{_TMP_PREFIX}*"):
        pid = _writer_pid(path.name)
        if path.is_dir() and pid is not None and not _pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)


def _writer_pid(name: str) -> int | None:
    parts = name.rsplit("-", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
