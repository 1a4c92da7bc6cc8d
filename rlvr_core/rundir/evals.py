"""Evaluation folders: where one (checkpoint, benchmark) evaluation writes, what is done, what is still pending.

Why here and not in the orchestration layer: the rules that make checkpoint
evaluation idempotent (where a checkpoint's results live, what counts as
done) must hold for every caller — a Prefect flow, an event-triggered run, a
watcher catching up, a notebook. A run's results live in
`<run>/evals/<step-NNNNNN | base>/<benchmark>/`; `summary.json` there means done.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rlvr_core.rundir import layout
from rlvr_core.rundir.checkpoints import list_checkpoints


def results_dir(checkpoint_or_model: str | Path, benchmark: str, evals_root: str | Path | None = None) -> Path:
    """Where one (checkpoint, benchmark) evaluation writes: under the run, else under `evals_root`.

    A model outside a run (a base model, a hub id) needs `evals_root`; its
    results go to `<evals_root>/base/<benchmark>` — the layout reports read.
    """
    if evals_root is not None:
        label = Path(str(checkpoint_or_model)).name if layout.is_checkpoint(checkpoint_or_model) else layout.BASE_LABEL
        return layout.eval_dir_in(evals_root, label, benchmark)
    run_dir = layout.run_dir_of(checkpoint_or_model)
    if run_dir is None:
        raise ValueError(f"{checkpoint_or_model}: not inside `<run>/{layout.CHECKPOINTS}/`; pass evals_root to say "
                         f"where its results go")
    return layout.eval_dir(run_dir, Path(checkpoint_or_model).name, benchmark)


def has_result(directory: str | Path) -> bool:
    return layout.summary_path(directory).is_file()


def read_result(directory: str | Path) -> dict[str, Any]:
    return json.loads(layout.summary_path(directory).read_text())


def pending_evaluations(run_dir: str | Path, benchmarks: Iterable[str]) -> list[tuple[str, str]]:
    """(checkpoint path, benchmark) pairs of this run whose checkpoint is published but has no result yet."""
    checkpoints_dir = layout.checkpoints_dir(run_dir)
    if not checkpoints_dir.is_dir():
        return []
    benchmarks = list(benchmarks)
    return [(info.path, bench) for info in list_checkpoints(checkpoints_dir) for bench in benchmarks
            if not has_result(results_dir(info.path, bench))]


class CheckpointWatcher:
    """Yields each published checkpoint of a run once, in step order, as it appears."""

    def __init__(self, run_dir: str | Path) -> None:
        self.checkpoints_dir = layout.checkpoints_dir(run_dir)
        self.seen: set[str] = set()

    def new_checkpoints(self) -> list[str]:
        if not self.checkpoints_dir.is_dir():
            return []
        fresh = [info.path for info in list_checkpoints(self.checkpoints_dir) if info.path not in self.seen]
        self.seen.update(fresh)
        return fresh
