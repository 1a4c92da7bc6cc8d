"""Readable names and filterable tags for flow runs.

Why: the runs list in the Prefect UI is where a user finds an experiment.
Random run names and no tags mean opening runs one by one; `<config>-<time>`
names and `config:`, `model:`, `dataset:`, `run:`, `checkpoint:` tags make
the list searchable and filterable (the UI's tag filter, `prefect flow-run ls`).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any


def config_run_name(config: str, now: datetime | None = None, current: str | None = None) -> str:
    """`tiny-arith-20261123-184501` for config `tiny-arith` or `configs/tiny-arith.yaml`.

    `current` is the flow run's name so far: when it already is such a name for this config (a retried flow
    run), it is kept, so a retry does not rename the run it continues.
    """
    stem = Path(config).stem
    if current and re.fullmatch(re.escape(stem) + r"-\d{8}-\d{6}", current):
        return current
    return f"{stem}-{(now or datetime.now()):%Y%m%d-%H%M%S}"


def experiment_tags(config: str, cfg: Any) -> list[str]:
    """Tags naming what a run trains: its config, base model and training datasets."""
    return [f"config:{Path(config).stem}", f"model:{cfg.model.name_or_path}",
            *(f"dataset:{spec.name}" for spec in cfg.data.train)]


def tag_current_flow_run(tags: list[str]) -> None:
    """Add `tags` to the running flow run (its deployment's tags stay); a no-op outside a flow run."""
    from prefect import get_client
    from prefect.runtime import flow_run

    if not flow_run.id:
        return
    with get_client(sync_client=True) as client:
        current = client.read_flow_run(flow_run.id)
        client.update_flow_run(flow_run.id, tags=list(dict.fromkeys([*current.tags, *tags])))
