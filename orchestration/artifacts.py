"""Artifacts every run publishes: results table, markdown report, progress, links.

Prefect shows keyed artifacts on the Artifacts page and versions them by key,
so keys are derived from the run name and must match `[a-z0-9-]`
(`artifact_key`). A browser cannot load a local file named in a markdown
artifact, so images in published markdown are embedded as data URIs
(`embed_local_images`); standalone image artifacts still link `file://` URLs.
"""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect.artifacts import (
    create_image_artifact,
    create_link_artifact,
    create_markdown_artifact,
    create_progress_artifact,
    create_table_artifact,
    update_progress_artifact,
)

from orchestration.outbox import outbox
from rlvr_core.rundir import layout

_KEY_BAD = re.compile(r"[^a-z0-9-]+")
_LOCAL_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s:]+\.png)\)")
MAX_EMBEDDED_IMAGE_BYTES = 2_000_000  # the API stores artifacts in its database; a plot is ~50 KB


def artifact_key(*parts: str) -> str:
    """`parts` joined by dashes, lower-cased, with every other character turned into a dash."""
    key = _KEY_BAD.sub("-", "-".join(parts).lower()).strip("-")
    return re.sub(r"-{2,}", "-", key)[:200] or "rlvr"


def summary_rows(summaries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One table row per (model label, benchmark) from `{label: {benchmark: summary}}`."""
    rows = []
    for label, per_benchmark in summaries.items():
        for benchmark, summary in per_benchmark.items():
            metrics = summary.get("metrics", summary)
            row = {"model": label, "benchmark": benchmark}
            row.update({k: v for k, v in metrics.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)})
            rows.append(row)
    return rows


def publish_results_table(key: str, summaries: dict[str, dict[str, Any]], description: str) -> UUID | None:
    rows = summary_rows(summaries)
    return create_table_artifact(rows, key=key, description=description) if rows else None


def embed_local_images(markdown: str, base_dir: Path) -> str:
    """`markdown` with each `![alt](relative.png)` under `base_dir` inlined as a base64 data URI.

    A missing or oversized file (over MAX_EMBEDDED_IMAGE_BYTES), or one outside `base_dir`, is left as
    it was: the report on disk still links it.
    """
    root = base_dir.resolve()

    def inline(match: re.Match[str]) -> str:
        path = (root / match.group(2)).resolve()
        if not path.is_relative_to(root) or not path.is_file() or path.stat().st_size > MAX_EMBEDDED_IMAGE_BYTES:
            return match.group(0)
        return f"![{match.group(1)}](data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()})"

    return _LOCAL_IMAGE.sub(inline, markdown)


def publish_markdown(key: str, markdown: str, description: str, base_dir: Path | None = None) -> UUID:
    """A markdown artifact; with `base_dir`, its local images are embedded so the UI renders them."""
    body = embed_local_images(markdown, base_dir) if base_dir is not None else markdown
    return create_markdown_artifact(body, key=key, description=description)


def publish_run_links(run_name: str, run_dir: str) -> None:
    """A link to the run folder and the reward-curve image, when there is one."""
    folder = Path(run_dir).resolve()
    create_link_artifact(folder.as_uri(), link_text=str(folder), key=artifact_key(run_name, "run-folder"),
                         description=f"Run folder of {run_name}")
    curve = layout.reward_curve_path(folder)
    if curve.is_file():
        create_image_artifact(curve.as_uri(), key=artifact_key(run_name, "reward-curve"),
                              description=f"Reward curve of {run_name} ({curve})")


class Progress:
    """A progress artifact updated as work advances (0-100 in the UI), sent through the outbox
    (`orchestration.outbox`).

    An update is an API call (and a database write on the server, which
    shares the machine with the work it reports): it is queued when the
    percentage has moved by at least 1 and `min_interval_s` has passed since
    the last one, and always at 100. Without the interval a long run sends an
    update per percent however fast it goes; a person watching the UI needs one
    every few seconds.
    Queued, never made here: a stalled API delays what the UI shows, not the
    work (the newest percentage replaces one still waiting).
    """

    def __init__(self, key: str, description: str, min_interval_s: float = 5.0) -> None:
        self.key, self.description, self.min_interval_s = key, description, min_interval_s
        self.artifact_id: UUID | None = None  # set by the outbox thread once the artifact exists
        self.last, self._sent_at = 0.0, time.monotonic()
        self._publish(0.0, description)

    def update(self, done: float, total: float, note: str | None = None) -> None:
        percent = max(0.0, min(100.0, 100.0 * done / total)) if total > 0 else 0.0
        due = percent - self.last >= 1.0 and time.monotonic() - self._sent_at >= self.min_interval_s
        if due or (percent == 100.0 and self.last < 100.0):
            self._publish(percent, note or self.description)
            self.last, self._sent_at = percent, time.monotonic()

    def _publish(self, percent: float, description: str) -> None:
        def send() -> None:  # in the outbox thread: create the artifact on the first call that gets through
            if self.artifact_id is None:
                self.artifact_id = create_progress_artifact(percent, key=self.key, description=description)
            else:
                update_progress_artifact(self.artifact_id, percent, description=description)

        outbox().put(f"progress:{self.key}:{id(self)}", send)
