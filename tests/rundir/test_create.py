"""Run folders record what ran: resolved config, provenance, git state."""

from __future__ import annotations

import json

import pytest
import yaml

from rlvr_core.config import load_config
from rlvr_core.rundir.create import create_run_dir, update_run_json


def test_run_folder_layout_and_provenance(tmp_path):
    config = load_config("tiny-arith", [f"run.runs_dir={tmp_path}", "training.max_steps=7"])
    run_dir = create_run_dir(config)
    assert run_dir.parent == tmp_path and run_dir.name.startswith("tiny-arith_")
    for sub in ("patches", "traces", "checkpoints", "evals"):
        assert (run_dir / sub).is_dir()
    resolved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert resolved["training"]["max_steps"] == 7
    assert load_config(run_dir / "config.yaml").config_hash() == config.config_hash()
    record = json.loads((run_dir / "run.json").read_text())
    assert record["config_hash"] == config.config_hash() and record["python"].startswith("3.")
    assert record["packages"]["torch"] and record["started_at"] and record["ended_at"] is None
    assert set(record["git"]) == {"commit", "dirty", "repo"}
    if record["git"]["repo"]:
        assert (run_dir / "patches" / "git_status.txt").exists() and (run_dir / "patches" / "git_diff.patch").exists()
    assert update_run_json(run_dir, ended_at="x", status="completed")["status"] == "completed"


def test_remote_runs_dir_is_refused_with_the_fix(tmp_path):
    config = load_config("tiny-arith")
    with pytest.raises(ValueError, match="run.runs_dir='s3://b/runs'.*local directory"):
        create_run_dir(config, runs_dir="s3://b/runs")
