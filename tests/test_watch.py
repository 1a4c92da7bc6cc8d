"""Checkpoint watching: trainer markers, where results live, what is pending, and exclusive claims."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from rlvr_core import watch


def test_markers_are_parsed_and_malformed_ones_ignored() -> None:
    event = watch.parse_marker('@@rlvr-event {"event": "rlvr.checkpoint.saved", "path": "/r/checkpoints/step-000002", "step": 2}')
    assert event == watch.Marker("event", {"event": "rlvr.checkpoint.saved", "path": "/r/checkpoints/step-000002", "step": 2})
    assert watch.parse_marker('@@rlvr-progress {"step": 3, "max_steps": 9}').kind == "progress"
    assert watch.parse_marker("@@rlvr-event {not json") is None
    assert watch.parse_marker("@@rlvr-event [1, 2]") is None
    assert watch.parse_marker("step 3 loss 0.1") is None


def test_results_live_under_the_run_or_under_an_explicit_root(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run_1" / "checkpoints" / "step-000004"
    assert watch.eval_dir(checkpoint, "arith") == tmp_path / "run_1" / "evals" / "step-000004" / "arith"
    assert watch.eval_dir("Qwen/Qwen3-1.7B-Base", "gsm8k", tmp_path / "evals") == tmp_path / "evals" / "base" / "gsm8k"
    with pytest.raises(ValueError, match="pass evals_root"):
        watch.eval_dir("Qwen/Qwen3-1.7B-Base", "gsm8k")


def _hold_claim(directory: str, ready: "multiprocessing.synchronize.Event", release: "multiprocessing.synchronize.Event") -> None:
    with watch.claim(directory) as owned:
        assert owned
        ready.set()
        release.wait(30)


def test_only_one_claimant_owns_an_evaluation(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_claim, args=(str(tmp_path), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with watch.claim(tmp_path) as owned:
            assert not owned, "a second process got a claim that a live process holds"
    finally:
        release.set()
        holder.join(30)
    with watch.claim(tmp_path) as owned:
        assert owned, "a released claim stays taken"


def test_a_claim_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    dead = ctx.Process(target=os.getpid)
    dead.start()
    dead.join()
    (tmp_path / watch.CLAIM_FILE).write_text(json.dumps({"host": os.uname().nodename, "pid": dead.pid, "created": 0}))
    with watch.claim(tmp_path) as owned:
        assert owned


def test_a_fresh_claim_from_another_host_is_respected(tmp_path: Path) -> None:
    import time

    (tmp_path / watch.CLAIM_FILE).write_text(json.dumps({"host": "other-node", "pid": 1, "created": time.time()}))
    with watch.claim(tmp_path) as owned:
        assert not owned


def test_waiting_for_another_owner_returns_its_summary(tmp_path: Path) -> None:
    (tmp_path / watch.SUMMARY_FILE).write_text(json.dumps({"metrics": {"accuracy": 0.5}}))
    assert watch.wait_for_result(tmp_path, timeout_s=1) == {"metrics": {"accuracy": 0.5}}
    assert watch.wait_for_result(tmp_path / "nobody", timeout_s=0.2) is None
