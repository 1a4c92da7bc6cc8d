"""The live training table: step, reward, pass rate, held-out accuracy, step time, elapsed and ETA.

The progress bar artifact says how far a run is; this table says how well and
how fast it is going, so a user reads the UI instead of the trace. It is one
table artifact per run, updated in place (`PATCH /artifacts/{id}`), not a new
version per step, and at most every `min_interval_s` (kept rows included: they
wait for the next update) so a fast trainer does not turn into an API load.
Publishing every kept row at once cost the 300-step demo 46 updates in 50 s,
each a database write and an event on a server sharing training's 2 cores.

Rows are sparse on purpose: one every ~1/20 of the run, every step with a
held-out accuracy, and the newest step as the last row, so the table stays
readable at any `max_steps`.

Published through the outbox (`orchestration.outbox`): the reader of the trainer's
output only records rows; a stalled API delays the table, never training,
and the newest table replaces one still waiting to be sent.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from prefect.artifacts import create_table_artifact

from orchestration.outbox import outbox

TARGET_ROWS = 20


def clock(seconds: float | None) -> str:
    """`h:mm:ss` (or "" when unknown), the format people read durations in."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    whole = int(round(max(0.0, seconds)))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


@dataclass
class TrainingTable:
    """Rows of the table from the trainer's progress records (pure: no Prefect, testable alone)."""

    max_steps: int
    started: float = field(default_factory=time.monotonic)
    rows: list[dict[str, Any]] = field(default_factory=list)
    _first_step: int | None = None
    _latest: dict[str, Any] | None = None

    @property
    def every(self) -> int:
        return max(1, math.ceil(self.max_steps / TARGET_ROWS))

    def add(self, record: dict[str, Any], now: float | None = None) -> bool:
        """Take one progress record; True when it added a kept row."""
        now = time.monotonic() if now is None else now
        step = int(record["step"])
        if self._first_step is None:
            self._first_step = step - 1  # a resumed run starts counting from where it resumed
        elapsed = now - self.started
        done = step - self._first_step
        eta = elapsed / done * (self.max_steps - step) if done > 0 else None
        row = {"step": step, "reward mean": _round(record.get("reward_mean")),
               "pass rate": _round(record.get("pass_rate")),
               "held-out accuracy": _round(record.get("heldout_accuracy")),
               "step time (s)": _round(record.get("step_seconds"), 2),
               "elapsed": clock(elapsed), "ETA": clock(eta)}
        self._latest = row
        keep = step % self.every == 0 or record.get("heldout_accuracy") is not None or step >= self.max_steps
        if keep:
            self.rows.append(row)
        return keep

    def table(self) -> list[dict[str, Any]]:
        """Kept rows, then the newest step if it is not one of them."""
        if self._latest is not None and (not self.rows or self.rows[-1] is not self._latest):
            return [*self.rows, self._latest]
        return list(self.rows)


class LiveTrainingTable:
    """A `TrainingTable` published as one Prefect table artifact and updated in place."""

    def __init__(self, key: str, description: str, max_steps: int, min_interval_s: float = 5.0) -> None:
        self.key, self.description, self.min_interval_s = key, description, min_interval_s
        self.model = TrainingTable(max_steps)
        self._artifact_id: UUID | None = None
        self._published_at = -math.inf
        self._dirty = False

    def add(self, record: dict[str, Any]) -> None:
        self.model.add(record)
        self._dirty = True
        if time.monotonic() - self._published_at >= self.min_interval_s:
            self.flush()

    def flush(self) -> None:
        """Queue the current rows for publishing now (call once when training ends, so the last step is shown)."""
        if not self._dirty:
            return
        rows = self.model.table()

        def send() -> None:  # in the outbox thread: create the artifact on the first call that gets through
            if self._artifact_id is None:
                self._artifact_id = create_table_artifact(rows, key=self.key, description=self.description)
            else:
                _patch_table(self._artifact_id, rows)

        outbox().put(f"table:{self.key}:{id(self)}", send)
        self._published_at, self._dirty = time.monotonic(), False


def _patch_table(artifact_id: UUID, rows: list[dict[str, Any]]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import ArtifactUpdate

    with get_client(sync_client=True) as client:
        client.update_artifact(artifact_id, ArtifactUpdate(data=json.dumps(rows)))


def _round(value: Any, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)
