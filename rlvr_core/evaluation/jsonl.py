"""Append-only JSONL files that survive a crash at any byte.

Why: evaluations run for hours and get killed (preemption, OOM, SIGKILL).
Records are appended one batch at a time and flushed + fsynced, so after a
crash the file holds every finished batch plus at most one torn last line.
`read_records` drops that torn line and `JsonlAppender` truncates it away
before appending, so a resumed run never writes duplicates or garbage.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line of `path` ([] if it does not exist).

    A last line without a trailing newline (a write cut short) is ignored;
    a malformed line elsewhere means the file was edited by hand, and raises.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    records = []
    for number, line in enumerate(complete.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number} is not valid JSON ({err}); fix or delete the file to start over") from None
    return records


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
