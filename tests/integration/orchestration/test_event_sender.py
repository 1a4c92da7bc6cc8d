"""The checkpoint event sender: a bounded queue, and related resources taken from the run context (no API call).

That its events leave while the API stalls is tested end to end in test_training_stalled_api.py.
"""

from __future__ import annotations

from orchestration.event_sender import EventSender, related_to_current_run


def test_the_queue_is_bounded_and_drops_the_oldest_waiting_event() -> None:
    sender = EventSender(max_queued=2)  # not started: nothing is sent, everything waits
    for step in (1, 2, 3):
        sender.emit("rlvr.checkpoint.saved", {"prefect.resource.id": "rlvr.run.x"}, {"step": step})
    assert [event.payload["step"] for event in sender.waiting()] == [2, 3]
    assert sender.dropped == 1


def test_related_resources_name_the_flow_run_flow_and_task_run_of_the_caller(prefect_harness: str) -> None:
    from prefect import flow, task

    @task(task_run_name="publish-step")
    def publish() -> list:
        return related_to_current_run()

    @flow(flow_run_name="training-run")
    def training() -> list:
        return publish()

    related = {r["prefect.resource.role"]: r for r in training()}
    assert related["flow-run"]["prefect.resource.name"] == "training-run"
    assert related["task-run"]["prefect.resource.name"] == "publish-step"
    assert related["flow"]["prefect.resource.name"] == "training"


def test_outside_a_run_there_is_nothing_to_relate() -> None:
    assert related_to_current_run() == []
