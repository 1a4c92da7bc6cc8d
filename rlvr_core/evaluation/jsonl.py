"""Append-only JSONL files that survive a crash at any byte.

Why: evaluations run for hours and get killed (preemption, OOM, SIGKILL).
Records are appended one batch at a time and flushed + fsynced, so after a
crash the file holds every finished batch plus at most one torn last line.
`read_records` drops that torn line and `JsonlAppender` truncates it away
before appending, so a resumed run never writes duplicates or garbage. A
malformed line anywhere else is not a crash artefact: it raises
`CorruptJsonlError` naming the file and line. The training trace
(`rlvr_core/grpo/trace.py`) reads its files with the same rules.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class CorruptJsonlError(ValueError):
    """A malformed line that is not the last one: a crash cannot produce it (appends only ever tear the last line),
    so the file was edited or damaged otherwise and the data cannot be trusted silently."""

    def __init__(self, path: Path, line: int, reason: str, fix: str) -> None:
        self.path, self.line = Path(path), line
        super().__init__(f"{path}:{line}: {reason}; only the last line can be cut short by a crash, so this one "
                         f"was damaged some other way. Fix: {fix}")


def parse_line(path: Path, number: int, line: bytes, fix: str) -> dict[str, Any]:
    """One complete JSONL line as a dict, or CorruptJsonlError naming `path:number`."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CorruptJsonlError(path, number, f"not valid JSON ({err})", fix) from None
    if not isinstance(record, dict):
        raise CorruptJsonlError(path, number, f"not a JSON object (a {type(record).__name__})", fix)
    return record


def read_records(path: Path, *, fix: str = "repair or delete that line (or the file, to start over)",
                 ) -> list[dict[str, Any]]:
    """Every complete JSON line of `path` ([] if it does not exist).

    A last line without a trailing newline (a write cut short) is ignored;
    a malformed line elsewhere raises CorruptJsonlError naming the file and
    line, with `fix` as the advice.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    return [parse_line(path, number, line, fix)
            for number, line in enumerate(complete.split(b"\n")[:-1], start=1) if line.strip()]


def _truncate_torn_tail(path: Path) -> None:
    """Cut the file back to its last newline (removes a half-written record)."""
    if not path.exists():
        return
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep != len(data):
        with path.open("r+b") as handle:
            handle.truncate(keep)


class JsonlAppender:
    """Appends batches of records durably; use as a context manager."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _truncate_torn_tail(path)
        self.path = path
        self._handle = path.open("a", encoding="utf-8")

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Write `records` and make them durable before returning."""
        lines = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        if not lines:
            return
        self._handle.write(lines)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "JsonlAppender":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
