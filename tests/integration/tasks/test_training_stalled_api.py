"""Training never waits on the API: with every API request held for up to a minute, the trainer's steps go on,
its output is drained, and a checkpoint's event reaches the server while the stall lasts.

Real parts: the Prefect API (the session's test server) behind `StallingProxy`, the `train` task in a flow
run, and a stand-in trainer process that prints progress markers with ~4 KB of output per step (far more than
a pipe holds, so a reader that stopped would stop it) and one checkpoint marker. Nothing here depends on how
fast the machine is: the assertions are about order (what happened before the stall was released).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest
from prefect import flow

from orchestration.outbox import outbox
from tasks.training import train
from tests.integration.tasks.stalling_proxy import stalling_proxy

pytestmark = pytest.mark.slow

STEPS, CHECKPOINT_STEP = 200, 100
HOLD_S = 60.0
STANDIN = """
import json, sys, time
from pathlib import Path

work, run, steps, checkpoint_step = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
(work / "started").touch()
while not (work / "go").exists():
    time.sleep(0.05)
filler = "x" * 2000
for step in range(1, steps + 1):
    print("@@rlvr-progress " + json.dumps({"step": step, "max_steps": steps, "reward_mean": step / steps,
                                           "filler": filler}), flush=True)
    print(f"step {step}/{steps} loss 0.1 {filler}", flush=True)
    if step == checkpoint_step:
        (work / "published").write_text(repr(time.time()))
        print("@@rlvr-event " + json.dumps({"event": "rlvr.checkpoint.saved", "run": run, "step": step,
                                           "path": str(work / "checkpoints" / f"step-{step:06d}")}), flush=True)
    time.sleep(0.01)
(work / "finished").write_text(repr(time.time()))
"""


def checkpoint_events(api_url: str, run: str) -> list[dict]:
    """The server's stored `rlvr.checkpoint.saved` events of `run`, read directly (not through the proxy)."""
    body = {"filter": {"event": {"name": ["rlvr.checkpoint.saved"]}, "resource": {"id": [f"rlvr.run.{run}"]}},
            "limit": 10}
    response = httpx.post(f"{api_url}/events/filter", json=body, timeout=10)
    response.raise_for_status()
    return response.json()["events"]


def stop_prefect_workers() -> None:
    """Send what Prefect's log and events workers hold for the proxy, and stop them: the events worker is one
    per process, bound to the first API URL it served, and must not outlive the proxy into later tests."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        worker.instance().drain()


def wait_for(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_stalled_api_neither_pauses_training_nor_delays_its_checkpoint_event(prefect_harness: str,
                                                                               tmp_path: Path) -> None:
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.settings import PREFECT_API_URL, temporary_settings

    run = f"stall-{uuid.uuid4().hex[:8]}"
    seen: dict[str, float] = {}  # monotonic times the stall thread saw things, while the stall lasted

    def stall_while_training(proxy) -> None:
        """Stall once the trainer has started, until it has finished and its event is stored (or HOLD_S)."""
        if not wait_for(lambda: (tmp_path / "started").exists(), 180):
            return
        proxy.stall()
        seen["stalled"] = time.monotonic()
        (tmp_path / "go").touch()
        deadline = seen["stalled"] + HOLD_S
        while time.monotonic() < deadline and not {"finished", "event"} <= seen.keys():
            if "finished" not in seen and (tmp_path / "finished").exists():
                seen["finished"] = time.monotonic()
            if "event" not in seen and checkpoint_events(prefect_harness, run):
                seen["event"] = time.monotonic()
            time.sleep(0.2)
        seen["released"] = time.monotonic()
        seen["released_wall"] = time.time()
        proxy.release()

    @flow
    def training_beside_a_stalled_api() -> dict:
        return train("unused", [], str(tmp_path), run, command=[sys.executable, "-c", STANDIN, str(tmp_path), run,
                                                                 str(STEPS), str(CHECKPOINT_STEP)])

    with stalling_proxy(prefect_harness, hold_s=HOLD_S) as proxy:
        staller = threading.Thread(target=stall_while_training, args=(proxy,), daemon=True)
        staller.start()
        with temporary_settings({PREFECT_API_URL: proxy.api_url}):
            try:
                result = training_beside_a_stalled_api()
                assert outbox().drain(120), "artifact updates still queued after the stall"
            finally:
                stop_prefect_workers()
        staller.join(HOLD_S + 60)

    assert result["status"] == 0 and result["checkpoint_events"] == 1
    assert "released" in seen, "the trainer never started"
    assert proxy.held > 0, "the stall held no request: it tested nothing"
    assert "finished" in seen, f"the trainer did not finish its {STEPS} steps while the API stalled ({HOLD_S:g} s)"
    assert "event" in seen, "the checkpoint event did not reach the server while the API stalled"
    [event] = checkpoint_events(prefect_harness, run)
    published = datetime.fromtimestamp(float((tmp_path / "published").read_text()), timezone.utc)
    occurred = datetime.fromisoformat(event["occurred"])
    assert published <= occurred < datetime.fromtimestamp(seen["released_wall"], timezone.utc)
    assert {"flow-run", "task-run", "flow"} <= {r["prefect.resource.role"] for r in event["related"]}
    print(f"checkpoint event emitted {(occurred - published).total_seconds():.3f} s after the marker; "
          f"{proxy.held} request(s) held")

    # What waited during the stall went out after it, newest state only: 100 % and the table's last step.
    with temporary_settings({PREFECT_API_URL: prefect_harness}), get_client(sync_client=True) as client:
        artifacts = {a.key: a for a in client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(like_=run)))}
    assert artifacts[f"{run}-training-progress"].data == 100.0
    assert json.loads(artifacts[f"{run}-training-table"].data)[-1]["step"] == STEPS

