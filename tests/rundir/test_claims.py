"""Claims: one evaluation per folder, whichever process asks first; a dead owner's claim is taken over."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

from rlvr_core.rundir import claims, layout


def _hold_claim(directory: str, ready: "multiprocessing.synchronize.Event", release: "multiprocessing.synchronize.Event") -> None:
    with claims.claim(directory) as owned:
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
        with claims.claim(tmp_path) as owned:
            assert not owned, "a second process got a claim that a live process holds"
    finally:
        release.set()
        holder.join(30)
    with claims.claim(tmp_path) as owned:
        assert owned, "a released claim stays taken"


def test_a_claim_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    dead = ctx.Process(target=os.getpid)
    dead.start()
    dead.join()
    (tmp_path / layout.CLAIM).write_text(json.dumps({"host": os.uname().nodename, "pid": dead.pid, "created": 0}))
    with claims.claim(tmp_path) as owned:
        assert owned


def test_a_fresh_claim_from_another_host_is_respected(tmp_path: Path) -> None:
    import time

    (tmp_path / layout.CLAIM).write_text(json.dumps({"host": "other-node", "pid": 1, "created": time.time()}))
    with claims.claim(tmp_path) as owned:
        assert not owned


def test_waiting_for_another_owner_returns_its_summary(tmp_path: Path) -> None:
    (tmp_path / layout.EVAL_SUMMARY).write_text(json.dumps({"metrics": {"accuracy": 0.5}}))
    assert claims.wait_for_result(tmp_path, timeout_s=1) == {"metrics": {"accuracy": 0.5}}
    assert claims.wait_for_result(tmp_path / "nobody", timeout_s=0.2) is None
