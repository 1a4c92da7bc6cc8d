"""The training task: output streamed, marker lines turned into progress and events, failures and crashes contained.

A stand-in process plays the trainer (same CLI contract: marker lines on
stdout, children of its own); the real trainer is exercised end to end in
tests/integration/flows/test_deployments_e2e.py.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from prefect import flow

from rlvr_core.procgroup import group_alive
from tasks.training import TrainingFailed, train, training_in_background

pytestmark = pytest.mark.slow


def standin(script: str) -> list[str]:
    return [sys.executable, "-c", script]


TWO_CHECKPOINTS = """
import json
for step in (1, 2):
    print("@@rlvr-progress " + json.dumps({"step": step, "max_steps": 2, "reward_mean": 0.25 * step}), flush=True)
    print(f"step {step} loss 0.1", flush=True)
    print("@@rlvr-event " + json.dumps({"event": "rlvr.checkpoint.saved", "run": "standin", "step": step,
                                       "path": f"/runs/standin/checkpoints/step-{step:06d}", "content_hash": "h"}), flush=True)
"""


def test_marker_lines_become_events_and_the_rest_is_logged(prefect_harness: str, tmp_path: Path) -> None:
    @flow
    def run() -> dict:
        return train("unused", [], str(tmp_path), "standin", command=standin(TWO_CHECKPOINTS))

    result = run()
    assert result["status"] == 0 and result["checkpoint_events"] == 2 and not result["resumed"]


def test_a_failed_training_raises_with_its_last_output(prefect_harness: str, tmp_path: Path) -> None:
    @flow
    def run() -> dict:
        return train("unused", [], str(tmp_path), "standin",
                     command=standin("print('CUDA out of memory', flush=True); raise SystemExit(3)"))

    with pytest.raises(TrainingFailed, match="(?s)status 3.*CUDA out of memory"):
        run()


def test_a_crashing_flow_leaves_no_training_process(prefect_harness: str, tmp_path: Path) -> None:
    """The flow fails while training (and its child) run: both are gone when the flow run ends."""
    pids = tmp_path / "pids.json"
    script = (
        "import json, os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pids)!r}, 'w').write(json.dumps({{'trainer': os.getpid(), 'child': child.pid, 'pgid': os.getpgrp()}}))\n"
        "print('step 1', flush=True)\n"
        "time.sleep(300)\n"
    )

    @flow
    def pipeline() -> None:
        with training_in_background("unused", [], str(tmp_path), "standin", command=standin(script)):
            deadline = time.monotonic() + 60
            while not pids.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            raise RuntimeError("checkpoint evaluation failed")

    state = pipeline(return_state=True)
    assert state.is_failed()
    recorded = json.loads(pids.read_text())
    assert not group_alive(recorded["pgid"]), "training processes outlived the failed flow run"
    for name in ("trainer", "child"):
        assert not _alive(recorded[name]), f"the {name} process survived"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
