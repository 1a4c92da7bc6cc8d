"""Fixture evaluation folders written in the runner's format (summary.json + results.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.evaluation.metrics import summarise_records

STANDARD = {"tensor_parallel_size": 1, "seed": 42, "temperature": 0.0, "max_model_len": 4096,
            "gpu_memory_utilization": 0.8, "dtype": "bfloat16"}


def _write_eval(folder: Path, benchmark: str, rewards: list[float], *, step: int | None, ids: list[str] | None = None,
               categories: list[str] | None = None, settings: dict | None = None) -> Path:
    """An eval folder whose summary is computed from `rewards` exactly as the runner does."""
    folder.mkdir(parents=True)
    ids = ids or [f"{benchmark}-{i}" for i in range(len(rewards))]
    records = [{"index": i, "id": ids[i], "reward": r, "status": "correct" if r == 1 else "wrong", "detail": "",
                "scores": {"accuracy": r}, "category": categories[i] if categories else None,
                "difficulty": None, "archetype": None} for i, r in enumerate(rewards)]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    overridden = {k: v for k, v in (settings or {}).items() if STANDARD.get(k) != v}
    summary = {"benchmark": benchmark, "primary_metric": "accuracy", **summarise_records(records),
               "settings": {**STANDARD, **(settings or {})}, "settings_overridden": overridden,
               "standard_settings": not overridden, "model": {"step": step}}
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


@pytest.fixture
def write_eval():
    """The helper that writes one fixture eval folder."""
    return _write_eval


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """base and step-000050 on arith (same 20 items, two categories) and gsm8k (20 vs 10 items: unequal)."""
    run = tmp_path / "run"
    cats = ["carry"] * 10 + ["no-carry"] * 10
    base_arith = [1.0] * 4 + [0.0] * 6 + [1.0] * 6 + [0.0] * 4  # carry 40%, no-carry 60%
    trained_arith = [1.0] * 9 + [0.0] * 1 + [1.0] * 7 + [0.0] * 3  # carry 90%, no-carry 70%
    _write_eval(run / "evals" / "base" / "arith", "arith", base_arith, step=None, categories=cats)
    _write_eval(run / "evals" / "step-000050" / "arith", "arith", trained_arith, step=50, categories=cats)
    _write_eval(run / "evals" / "base" / "gsm8k", "gsm8k", [1.0] * 5 + [0.0] * 15, step=None)
    _write_eval(run / "evals" / "step-000050" / "gsm8k", "gsm8k", [1.0] * 3 + [0.0] * 7, step=50,
               ids=[f"gsm8k-{i}" for i in range(10)])
    return run
