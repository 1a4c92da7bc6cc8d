"""Find and read evaluation folders (`summary.json` + `results.jsonl`).

A run folder holds `evals/<checkpoint>/<benchmark>/`; the checkpoint folder
name is "base" for the untrained model or "step-000050" for a checkpoint.
Reports read only these files — never logs — so a table can always be rebuilt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_core.evaluation.jsonl import read_records
from rlvr_core.rundir import layout

_STEP = re.compile(r"step[-_]?(\d+)")


@dataclass(frozen=True)
class EvalEntry:
    """One finished evaluation: which checkpoint, which benchmark, its summary and per-item results."""

    checkpoint: str
    step: int | None
    benchmark: str
    path: Path
    summary: dict[str, Any]
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.summary["n"])

    @property
    def primary(self) -> str:
        return self.summary.get("primary_metric") or "reward_mean"

    def metric(self, name: str | None = None) -> float:
        return float(self.summary["metrics"][name or self.primary])

    def rewards_by_id(self) -> dict[str, float]:
        return {str(r["id"]): float(r["reward"]) for r in self.results}


def _step_of(checkpoint: str, summary: dict[str, Any]) -> int | None:
    step = (summary.get("model") or {}).get("step")
    if isinstance(step, int):
        return step
    if checkpoint == layout.BASE_LABEL:
        return 0
    match = _STEP.search(checkpoint)
    return int(match.group(1)) if match else None


def read_eval(folder: Path, checkpoint: str | None = None) -> EvalEntry:
    """The evaluation in `folder`; ValueError if it has no summary.json."""
    summary_path = layout.summary_path(folder)
    if not summary_path.is_file():
        raise ValueError(f"{folder} has no summary.json; is it an evaluation folder (run the evaluation first)?")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    name = checkpoint or folder.parent.name
    results = sorted(read_records(folder / layout.EVAL_RESULTS), key=lambda r: r.get("index", 0))
    return EvalEntry(checkpoint=name, step=_step_of(name, summary), benchmark=summary["benchmark"], path=folder,
                     summary=summary, results=results)


def discover(paths: list[Path]) -> list[EvalEntry]:
    """Evaluations under run folders (`evals/*/*/summary.json`) or given as eval folders, sorted by step."""
    entries = []
    for path in paths:
        if layout.summary_path(path).is_file():
            entries.append(read_eval(path))
            continue
        evals = layout.evals_dir(path) if layout.evals_dir(path).is_dir() else path
        found = layout.summary_paths(evals)
        if not found:
            raise ValueError(f"no evaluations under {path} (looked for {evals}/<checkpoint>/<benchmark>/summary.json)")
        entries.extend(read_eval(f.parent) for f in found)
    return sorted(entries, key=lambda e: (e.step if e.step is not None else 10**12, e.checkpoint, e.benchmark))
