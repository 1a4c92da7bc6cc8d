"""The outbox: artifact updates leave from a background thread; the newest update of an artifact replaces the one
still waiting; the queue is bounded; a failed call costs nothing but itself."""

from __future__ import annotations

import contextvars
import threading

from orchestration.outbox import Outbox


class Gate:
    """A first call that blocks (as a stalled API does) until opened, and a record of what was sent."""

    def __init__(self) -> None:
        self.open, self.entered = threading.Event(), threading.Event()
        self.sent: list[object] = []

    def blocking(self, value: object):
        def send() -> None:
            self.entered.set()
            assert self.open.wait(60)
            self.sent.append(value)
        return send

    def recording(self, value: object):
        return lambda: self.sent.append(value)


def test_putting_never_waits_for_the_call_in_flight() -> None:
    box, gate = Outbox(), Gate()
    box.put("progress", gate.blocking("first"))
    assert gate.entered.wait(30)
    for step in range(1000):
        box.put("progress", gate.recording(step))
    assert gate.sent == [], "the blocked call is still in flight while the caller went on"
    gate.open.set()
    assert box.drain(30)


def test_a_newer_update_replaces_the_one_still_waiting() -> None:
    box, gate = Outbox(), Gate()
    box.put("table", gate.blocking("first"))
    assert gate.entered.wait(30)
    for step in range(50):
        box.put("table", gate.recording(step))
    gate.open.set()
    assert box.drain(30)
    assert gate.sent == ["first", 49]
    assert box.dropped == 49


def test_updates_of_different_artifacts_each_go_out_in_order_of_arrival() -> None:
    box, gate = Outbox(), Gate()
    box.put("blocker", gate.blocking("blocker"))
    assert gate.entered.wait(30)
    for key in ("progress", "table", "progress"):
        box.put(key, gate.recording(key))
    gate.open.set()
    assert box.drain(30)
    assert gate.sent == ["blocker", "progress", "table"]


def test_the_queue_is_bounded_and_drops_the_oldest_waiting_update() -> None:
    box, gate = Outbox(max_pending=3), Gate()
    box.put("blocker", gate.blocking("blocker"))
    assert gate.entered.wait(30)
    for key in "abcde":
        box.put(key, gate.recording(key))
    gate.open.set()
    assert box.drain(30)
    assert gate.sent == ["blocker", "c", "d", "e"]
    assert box.dropped == 2


def test_a_failed_call_is_dropped_and_the_next_update_still_goes_out() -> None:
    box, sent = Outbox(), []

    def refused() -> None:
        raise ConnectionError("API unreachable")

    box.put("progress", refused)
    assert box.drain(30)
    box.put("progress", lambda: sent.append("later"))
    assert box.drain(30)
    assert sent == ["later"] and box.failed == 1


def test_a_call_runs_in_the_context_it_was_put_from() -> None:
    run = contextvars.ContextVar("run", default="none")
    box, seen = Outbox(), []
    run.set("train-abc")
    box.put("progress", lambda: seen.append(run.get()))
    assert box.drain(30)
    assert seen == ["train-abc"]


def test_drain_says_when_a_call_is_still_stuck() -> None:
    box, gate = Outbox(), Gate()
    box.put("progress", gate.blocking("stuck"))
    assert gate.entered.wait(30)
    assert not box.drain(0.2)
    gate.open.set()
    assert box.drain(30)


def test_an_update_queued_by_a_flow_run_still_goes_out_after_the_run_has_ended(prefect_harness: str) -> None:
    """The run's own API client is closed when its flow ends; an update the stalled API held back until then
    (the last training table, the 100 %) must still be sent."""
    import uuid

    from prefect import flow, get_client
    from prefect.artifacts import create_table_artifact
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    key, gate, box = f"outbox-{uuid.uuid4().hex[:8]}", Gate(), Outbox()

    @flow
    def queues_an_update_and_ends() -> None:
        box.put("blocker", gate.blocking("blocker"))
        assert gate.entered.wait(30)
        box.put("table", lambda: create_table_artifact([{"step": 200}], key=key))

    queues_an_update_and_ends()
    gate.open.set()
    assert box.drain(60) and box.failed == 0
    with get_client(sync_client=True) as client:
        [artifact] = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
    assert artifact.flow_run_id is not None, "the artifact is still linked to the run that queued it"
