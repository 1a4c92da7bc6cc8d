"""Copy a run folder to the store as it grows: traces, RESULTS.md, evaluations, published checkpoints.

Why: run folders live on a node's local disk (fast appends, atomic renames),
but a node can be lost and other people read results from S3. `sync_run`
copies what changed since its last call to `<store>/runs/<run name>/`:

- idempotent: a file whose size and modification time are those of its last
  upload is skipped (the record is `<run>/.sync/<store digest>.json`), so
  calling it every minute costs a directory walk, not an upload;
- resumable: the record is saved after every checkpoint and at the end, so a
  sync killed half-way redoes at most one checkpoint's files;
- readers never see half a checkpoint: only published checkpoints
  (`checkpoint.json` present) are copied, and their `checkpoint.json` goes
  last, so a checkpoint in the store is complete when its manifest is there.

Hidden files (claims, temporaries, the record itself) are never copied.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_atomic
from rlvr_core.storage import Store


@dataclass(frozen=True)
class SyncReport:
    """What one call copied: files uploaded, files already current, and bytes sent."""

    uploaded: int
    unchanged: int
    bytes: int
    destination: str


def sync_run(run_dir: str | Path, store: Store) -> SyncReport:
    """Upload the files of `run_dir` that changed since the last sync to `store` under `runs/<run name>/`."""
    run_dir = Path(run_dir)
    prefix = f"runs/{run_dir.name}"
    record_path = layout.sync_records_dir(run_dir) / f"{hashlib.sha256(store.uri().encode()).hexdigest()[:16]}.json"
    record = _read_record(record_path)
    uploaded = unchanged = sent = 0
    for group in _groups(run_dir):
        for path in group:
            rel = path.relative_to(run_dir).as_posix()
            stat = path.stat()
            signature = [stat.st_size, stat.st_mtime_ns]
            if record.get(rel) == signature:
                unchanged += 1
                continue
            store.put_file(path, f"{prefix}/{rel}")
            record[rel] = signature
            uploaded, sent = uploaded + 1, sent + stat.st_size
        _write_record(record_path, record)
    return SyncReport(uploaded, unchanged, sent, store.uri(prefix))


def _groups(run_dir: Path) -> Iterator[list[Path]]:
    """Files to copy: one group per published checkpoint (manifest last), then everything else."""
    checkpoints = layout.checkpoints_dir(run_dir)
    if checkpoints.is_dir():
        for folder in sorted(checkpoints.iterdir()):
            if layout.is_checkpoint(folder):
                files = _visible_files(folder)
                yield sorted(files, key=lambda p: (p.name == layout.CHECKPOINT_MANIFEST, p.as_posix()))
    yield [p for p in _visible_files(run_dir, skip=checkpoints)]


def _visible_files(root: Path, skip: Path | None = None) -> list[Path]:
    """Regular files below `root`, without hidden files or folders, and without `skip`'s subtree."""
    found = []
    for folder, dirs, files in os.walk(root):
        current = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and current / d != skip)
        found.extend(current / f for f in sorted(files) if not f.startswith(".") and (current / f).is_file())
    return found


def _read_record(path: Path) -> dict[str, list[int]]:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}  # no record (first sync) or a torn one: uploading again is the safe answer


def _write_record(path: Path, record: dict[str, list[int]]) -> None:
    path.parent.mkdir(exist_ok=True)
    write_atomic(path, json.dumps(record, sort_keys=True))
