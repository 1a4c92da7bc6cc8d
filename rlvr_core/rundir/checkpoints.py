"""Publish training checkpoints so a reader never sees half of one.

A checkpoint is `<checkpoints_dir>/step-000050/`: a Hugging Face folder
(loads with `from_pretrained` as is), an optional `training_state/state.pt`
(optimizer, scheduler, RNG, data position, and the fp32 master weights when
the folder's weights are bf16: whatever the trainer needs to resume exactly)
and `checkpoint.json`, the manifest naming every file with its sha256: the
model's files under `files` (their hash is the checkpoint's `content_hash`,
its identity for evaluations) and the training state's under `state_files`.
Everything is written in a hidden temp folder next to the target, the
manifest last, and the folder is then renamed into place: the rename is the
commit. A crash at any point leaves either the complete checkpoint or only a
hidden temp folder, which listing ignores and a later publish removes.

Size: at Qwen3-1.7B fp32 weights plus AdamW were ~20 GB a checkpoint, ~100
GB at `keep_last: 5`. So the weights are written in the dtype the rollout
and evaluation engines load (`weights_dtype`, bf16 for the GPU configs), and
with `keep_optimizer="latest"` only the newest checkpoint keeps its training
state: publishing one strips the state of the others (manifest rewritten
first, then the files removed; their `content_hash` does not change). Sizes
per config: `python -m rlvr_core.devices.memory CONFIG`.

Off the training thread: `write_checkpoint` writes the files into the temp
folder (the weights must be read while they hold still); `commit` hashes,
fsyncs, writes the manifest, renames and prunes, which a
`BackgroundPublisher` runs in a thread while training goes on.

Scope: local folders on the trainer host (rename is atomic only within one
filesystem); copying a finished checkpoint to a store is the caller's
`Store.put_dir`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rlvr_core.filehash import hash_files, sha256_file
from rlvr_core.rundir.atomic import fsync_dir, pid_alive, write_json_atomic
from rlvr_core.rundir.layout import CHECKPOINT_MANIFEST as MANIFEST
from rlvr_core.rundir.layout import checkpoint_name

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

TRAINING_STATE = "training_state/state.pt"
STATE_DIR = "training_state"
SHARD_INDEX = "model.safetensors.index.json"
_TMP_PREFIX = ".tmp-"
_FORMAT_VERSION = 2   # 1: the training state's files were listed (and hashed into content_hash) with the model's
KeepOptimizer = Literal["all", "latest"]


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


@dataclass(frozen=True)
class PendingCheckpoint:
    """Files written into a hidden temp folder, not yet committed (`commit` makes them a checkpoint)."""

    tmp: Path
    final: Path
    step: int
    trainer_version: int
    config_hash: str
    keep_last: int | None
    keep_optimizer: KeepOptimizer

    def commit(self) -> CheckpointInfo:
        """Hash, fsync, write the manifest, rename into place; then prune (`keep_last`) and strip older training
        state (`keep_optimizer="latest"`). On failure the temp folder is removed and earlier checkpoints stay."""
        try:
            files = hash_files(self.tmp)
            state = {rel: sha for rel, sha in files.items() if rel.startswith(f"{STATE_DIR}/")}
            model = {rel: sha for rel, sha in files.items() if rel not in state}
            manifest = {"format": _FORMAT_VERSION, "step": self.step, "trainer_version": self.trainer_version,
                        "config_hash": self.config_hash, "created_at": datetime.now(timezone.utc).isoformat(),
                        "content_hash": _content_hash(model), "files": model, "state_files": state}
            _fsync_files(self.tmp, files)
            write_json_atomic(self.tmp / MANIFEST, manifest)  # fsyncs the folder too
            os.rename(self.tmp, self.final)  # the commit point
            fsync_dir(self.final.parent)
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise
        info = read_checkpoint(self.final)
        if self.keep_last is not None:
            prune_checkpoints(self.final.parent, self.keep_last)
        if self.keep_optimizer == "latest":
            for older in list_checkpoints(self.final.parent)[:-1]:
                strip_training_state(older.path)
        return info

    def abandon(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def write_checkpoint(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", checkpoints_dir: Path | str,
                     *, step: int, trainer_version: int, config_hash: str,
                     training_state: dict[str, Any] | None = None, keep_last: int | None = None,
                     keep_optimizer: KeepOptimizer = "all", weights_dtype: "torch.dtype | None" = None,
                     max_shard_size: str | int = "5GB") -> PendingCheckpoint:
    """Write the checkpoint for `step` into a temp folder (weights in `weights_dtype`, default the model's).

    Raises CheckpointError if a checkpoint for `step` already exists (resume from it instead of overwriting
    it) and ValueError on bad arguments; on failure nothing is left behind.
    """
    if step < 0:
        raise ValueError(f"publish_checkpoint(step={step}) must be >= 0")
    if keep_last is not None and keep_last < 1:
        raise ValueError(f"publish_checkpoint(keep_last={keep_last}) must be >= 1 or None (keep all)")
    if keep_optimizer not in ("all", "latest"):
        raise ValueError(f"publish_checkpoint(keep_optimizer={keep_optimizer!r}) must be 'all' or 'latest'")
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
        _save_weights(model, tmp, weights_dtype, max_shard_size)
        tokenizer.save_pretrained(tmp)
        _verify_shard_index(tmp)
        if training_state is not None:
            import torch

            (tmp / TRAINING_STATE).parent.mkdir()
            torch.save(training_state, tmp / TRAINING_STATE)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return PendingCheckpoint(tmp=tmp, final=final, step=step, trainer_version=trainer_version,
                             config_hash=config_hash, keep_last=keep_last, keep_optimizer=keep_optimizer)


def publish_checkpoint(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", checkpoints_dir: Path | str,
                       **options: Any) -> CheckpointInfo:
    """Write and commit the checkpoint for `step` atomically and return its info (`write_checkpoint`'s options);
    then prune to `keep_last` and strip older training state as `keep_optimizer` says."""
    return write_checkpoint(model, tokenizer, checkpoints_dir, **options).commit()


def _save_weights(model: "PreTrainedModel", folder: Path, dtype: "torch.dtype | None",
                  max_shard_size: str | int) -> None:
    """`save_pretrained` in `dtype` (tied tensors saved once, as transformers does), config.json saying so."""
    if dtype is None or all(p.dtype == dtype for p in model.state_dict().values()):
        model.save_pretrained(folder, safe_serialization=True, max_shard_size=max_shard_size)
        return
    state = cpu_state(model.state_dict(), dtype)
    model.save_pretrained(folder, state_dict=state, safe_serialization=True, max_shard_size=max_shard_size)
    config_path = folder / "config.json"
    config = json.loads(config_path.read_text())
    name = str(dtype).removeprefix("torch.")
    for key in ("dtype", "torch_dtype"):
        if key in config:
            config[key] = name
    config.setdefault("dtype", name)
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def cpu_state(state: dict[str, "torch.Tensor"], dtype: "torch.dtype | None" = None) -> dict[str, "torch.Tensor"]:
    """`state` on the CPU, floating tensors in `dtype` when given, each tensor copied once: keys that share one
    tensor (a tied embedding and output head) still share the copy, so safetensors and `torch.save` store it
    once. A copy per key would store the embedding twice (0.6 GiB more bf16 weights and 1.2 GiB more fp32
    master weights per Qwen3-1.7B checkpoint)."""
    copies: dict[tuple[int, tuple[int, ...]], "torch.Tensor"] = {}
    out = {}
    for key, tensor in state.items():
        shared = (tensor.data_ptr(), tuple(tensor.shape))
        if shared not in copies:
            target = dtype if dtype is not None and tensor.is_floating_point() else tensor.dtype
            copies[shared] = tensor.detach().to("cpu", target)
        out[key] = copies[shared]
    return out


def strip_training_state(path: Path | str) -> bool:
    """Drop a checkpoint's training state (it can no longer be resumed from; its weights stay, with the same
    `content_hash`); True when there was one. The manifest is rewritten first, so a crash leaves at worst
    files no manifest names."""
    path = Path(path)
    manifest = _read_manifest(path)
    state = manifest.get("state_files") or {rel: sha for rel, sha in manifest["files"].items()
                                            if rel.startswith(f"{STATE_DIR}/")}
    if not state:
        return False
    manifest["files"] = {rel: sha for rel, sha in manifest["files"].items() if rel not in state}
    manifest["state_files"] = {}
    manifest["training_state_removed"] = datetime.now(timezone.utc).isoformat()
    write_json_atomic(path / MANIFEST, manifest)
    trash = path / f"{_TMP_PREFIX}{STATE_DIR}-{uuid.uuid4().hex[:8]}"
    if (path / STATE_DIR).is_dir():
        os.rename(path / STATE_DIR, trash)
        shutil.rmtree(trash, ignore_errors=True)
    return True


class BackgroundPublisher:
    """Commits written checkpoints in one background thread, in order, while training goes on.

    `submit(pending)` queues a commit; `finished(wait=False)` returns the infos committed since the last call
    (with `wait`, after every queued commit is done) and raises the first failure. Used by the trainer actor,
    so its training thread pays for the write only, not for hashing and fsync.
    """

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint-commit")
        self._futures: list[Future[CheckpointInfo]] = []
        self._lock = threading.Lock()

    def submit(self, pending: PendingCheckpoint) -> None:
        with self._lock:
            self._futures.append(self._pool.submit(pending.commit))

    def finished(self, wait: bool = False) -> list[CheckpointInfo]:
        with self._lock:
            futures = list(self._futures)
        done = []
        for future in futures:
            if not wait and not future.done():
                break
            done.append(future.result())  # a failed commit raises here, in the caller
            with self._lock:
                self._futures.remove(future)
        return done


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


def latest_resumable_checkpoint(checkpoints_dir: Path | str) -> CheckpointInfo | None:
    """The newest checkpoint that still holds its training state (`keep_optimizer="latest"` strips the others)."""
    for info in reversed(list_checkpoints(checkpoints_dir)):
        manifest = _read_manifest(Path(info.path))
        if TRAINING_STATE in {**manifest["files"], **manifest.get("state_files", {})}:
            return info
    return None


def read_checkpoint(path: Path | str) -> CheckpointInfo:
    """The info in `path`'s manifest; CheckpointError if the folder is not a complete checkpoint."""
    manifest = _read_manifest(Path(path))
    return CheckpointInfo(path=str(Path(path)), step=manifest["step"], trainer_version=manifest["trainer_version"],
                          config_hash=manifest["config_hash"], content_hash=manifest["content_hash"])


def verify_checkpoint(path: Path | str) -> CheckpointInfo:
    """Re-hash every file named in the manifest; CheckpointError naming the first missing or changed file."""
    path = Path(path)
    manifest = _read_manifest(path)
    for rel, expected in sorted({**manifest["files"], **manifest.get("state_files", {})}.items()):
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
    expected = {**manifest["files"], **manifest.get("state_files", {})}.get(TRAINING_STATE)
    if expected is None:
        return None
    if sha256_file(path / TRAINING_STATE) != expected:
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


def _fsync_files(folder: Path, files: dict[str, str]) -> None:
    """Data on disk before the rename, so a power cut cannot leave a committed folder of empty files."""
    for rel in files:
        with open(folder / rel, "rb") as f:
            os.fsync(f.fileno())
    for sub in {(folder / rel).parent for rel in files}:
        fsync_dir(sub)


def _remove_abandoned_temp_dirs(root: Path) -> None:
    """Remove temp folders whose writer process is gone (a crash); those of live processes are left alone."""
    for path in root.glob(f"{_TMP_PREFIX}*"):
        pid = _writer_pid(path.name)
        if path.is_dir() and pid is not None and not pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)


def _writer_pid(name: str) -> int | None:
    parts = name.rsplit("-", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None

