"""The structured lines the trainer prints among its log: `@@rlvr-event {json}` and `@@rlvr-progress {json}`.

Why lines on stdout: the trainer is its own process group, and its output is
the one channel that needs no shared service. The `train` task reads them to
publish checkpoint events and progress; a malformed line is logged and
skipped, never raised, so a stray print cannot stop a run.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

EVENT_PREFIX = "@@rlvr-event "
PROGRESS_PREFIX = "@@rlvr-progress "
CHECKPOINT_SAVED = "rlvr.checkpoint.saved"


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
