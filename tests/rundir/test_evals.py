"""Evaluation folders: where a checkpoint's results go and which published checkpoints still wait for them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.rundir import evals, layout


def _published(run: Path, step: int) -> str:
    """A checkpoint folder with a manifest in the form `publish_checkpoint` writes (no weights: none are read)."""
    folder = layout.checkpoint_dir(run, step)
    folder.mkdir(parents=True)
    layout.manifest_path(folder).write_text(json.dumps({"step": step, "trainer_version": step, "config_hash": "c",
                                                        "content_hash": f"h{step}", "files": {}}))
    return str(folder)


def test_results_live_under_the_run_or_under_an_explicit_root(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run_1" / "checkpoints" / "step-000004"
    assert evals.results_dir(checkpoint, "arith") == tmp_path / "run_1" / "evals" / "step-000004" / "arith"
    assert evals.results_dir("Qwen/Qwen3-1.7B-Base", "gsm8k", tmp_path / "evals") == tmp_path / "evals" / "base" / "gsm8k"
    with pytest.raises(ValueError, match="pass evals_root"):
        evals.results_dir("Qwen/Qwen3-1.7B-Base", "gsm8k")


def test_a_published_checkpoint_is_pending_until_its_summary_is_written(tmp_path: Path) -> None:
    first, second = _published(tmp_path, 2), _published(tmp_path, 4)
    layout.checkpoint_dir(tmp_path, 6).mkdir()  # still being written: no manifest, not pending
    evals.results_dir(first, "arith").mkdir(parents=True)
    layout.summary_path(evals.results_dir(first, "arith")).write_text(json.dumps({"metrics": {}}))
    assert evals.pending_evaluations(tmp_path, ["arith", "gsm8k"]) == [
        (first, "gsm8k"), (second, "arith"), (second, "gsm8k")]


def test_the_watcher_yields_each_published_checkpoint_once(tmp_path: Path) -> None:
    watcher = evals.CheckpointWatcher(tmp_path)
    assert watcher.new_checkpoints() == []
    first = _published(tmp_path, 2)
    assert watcher.new_checkpoints() == [first]
    second = _published(tmp_path, 4)
    assert watcher.new_checkpoints() == [second]
    assert watcher.new_checkpoints() == []
