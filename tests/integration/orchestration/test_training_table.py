"""The live training table: sparse readable rows, an honest ETA, one artifact updated in place."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from prefect import flow

from orchestration.training_table import TrainingTable, clock


def record(step: int, heldout: float | None = None) -> dict:
    return {"step": step, "max_steps": 100, "reward_mean": 0.1 + step / 1000, "pass_rate": step / 100,
            "heldout_accuracy": heldout, "step_seconds": 0.5}


def test_rows_are_one_per_twentieth_of_the_run_plus_held_out_steps_plus_the_newest() -> None:
    table = TrainingTable(max_steps=100, started=0.0)
    for step in range(1, 58):
        table.add(record(step, heldout=0.3 if step == 50 else None), now=float(step))
    steps = [row["step"] for row in table.table()]
    assert steps == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 57]
    assert table.table()[steps.index(50)]["held-out accuracy"] == 0.3


def test_the_eta_is_the_remaining_steps_at_the_observed_wall_clock_rate() -> None:
    table = TrainingTable(max_steps=100, started=0.0)
    for step in range(1, 11):
        table.add(record(step), now=2.0 * step)  # 2 s per step, evaluations included
    newest = table.table()[-1]
    assert newest["elapsed"] == "0:00:20" and newest["ETA"] == clock(90 * 2.0) == "0:03:00"


def test_a_resumed_run_measures_its_rate_from_where_it_resumed() -> None:
    table = TrainingTable(max_steps=100, started=0.0)
    for step in range(61, 71):
        table.add(record(step), now=1.0 * (step - 60))
    assert table.table()[-1]["ETA"] == "0:00:30"


def test_the_last_step_is_always_a_row() -> None:
    table = TrainingTable(max_steps=7, started=0.0)
    kept = [table.add({**record(step), "max_steps": 7}, now=float(step)) for step in range(1, 8)]
    assert kept[-1] and table.table()[-1]["step"] == 7 and table.table()[-1]["ETA"] == "0:00:00"


def test_unknown_durations_are_blank_not_zero() -> None:
    assert clock(None) == "" and clock(float("inf")) == "" and clock(3725.4) == "1:02:05"


@pytest.mark.slow
def test_the_training_task_keeps_one_table_artifact_and_updates_it_in_place(prefect_harness: str,
                                                                          tmp_path: Path) -> None:
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from orchestration.outbox import outbox
    from tasks.training import train

    script = ("import json\n"
              "for step in range(1, 41):\n"
              "    print('@@rlvr-progress ' + json.dumps({'step': step, 'max_steps': 40, 'reward_mean': step / 40,\n"
              "          'pass_rate': 0.5, 'heldout_accuracy': 0.25 if step == 40 else None, 'step_seconds': 0.01}),\n"
              "          flush=True)\n")

    @flow
    def run() -> dict:
        return train("unused", [], str(tmp_path), "table-run", command=[sys.executable, "-c", script])

    run()
    assert outbox().drain(60), "the table's last update was never sent"
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["table-run-training-table"])))
    assert len(artifacts) == 1, "one artifact updated in place, not a version per update"
    rows = json.loads(artifacts[0].data)
    assert [row["step"] for row in rows] == [2 * k for k in range(1, 21)]
    assert rows[-1]["held-out accuracy"] == 0.25 and rows[-1]["reward mean"] == 1.0
