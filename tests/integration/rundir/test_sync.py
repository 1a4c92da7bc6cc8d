"""A run folder copied to the store as it grows: only what changed, never half a checkpoint, never hidden files.

Against a real S3 endpoint (moto's server) and a local store.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rlvr_core.rundir.sync import sync_run
from rlvr_core.storage import Store


@pytest.fixture(params=["s3", "local"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "local":
        return Store(str(tmp_path / "store"))
    endpoint, bucket = request.getfixturevalue("s3_endpoint"), request.getfixturevalue("s3_bucket")
    return Store(f"s3://{bucket}/team", endpoint_url=endpoint)


def make_run(root: Path) -> Path:
    run = root / "tiny-arith_20261123-120000"
    (run / "traces").mkdir(parents=True)
    (run / "traces" / "steps.jsonl").write_text('{"step": 1}\n')
    (run / "RESULTS.md").write_text("# results\n")
    (run / ".claim").write_text("{}")
    publish(run, 10)
    (run / "evals" / "step-000010" / "arith").mkdir(parents=True)
    (run / "evals" / "step-000010" / "arith" / "summary.json").write_text('{"n": 8}')
    return run


def publish(run: Path, step: int) -> Path:
    folder = run / "checkpoints" / f"step-{step:06d}"
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(os.urandom(4096))
    (folder / "checkpoint.json").write_text(json.dumps({"step": step}))
    return folder


def test_the_first_sync_copies_results_and_published_checkpoints_but_no_hidden_files(store: Store,
                                                                                   tmp_path: Path) -> None:
    run = make_run(tmp_path / "runs")
    report = sync_run(run, store)
    assert store.list(f"runs/{run.name}") == [f"runs/{run.name}/{rel}" for rel in (
        "RESULTS.md", "checkpoints/step-000010/checkpoint.json", "checkpoints/step-000010/model.safetensors",
        "evals/step-000010/arith/summary.json", "traces/steps.jsonl")]
    assert report.uploaded == 5 and report.unchanged == 0 and report.bytes > 4096
    assert store.read_bytes(f"runs/{run.name}/checkpoints/step-000010/model.safetensors") == \
        (run / "checkpoints" / "step-000010" / "model.safetensors").read_bytes()


def test_a_second_sync_copies_only_what_changed(store: Store, tmp_path: Path) -> None:
    run = make_run(tmp_path / "runs")
    sync_run(run, store)
    assert sync_run(run, store).uploaded == 0

    with (run / "traces" / "steps.jsonl").open("a") as trace:
        trace.write('{"step": 2}\n')
    report = sync_run(run, store)
    assert (report.uploaded, report.unchanged) == (1, 4)
    assert store.read_text(f"runs/{run.name}/traces/steps.jsonl").count("step") == 2


def test_a_checkpoint_is_copied_only_once_published(store: Store, tmp_path: Path) -> None:
    run = make_run(tmp_path / "runs")
    writing = run / "checkpoints" / "step-000020"
    writing.mkdir()
    (writing / "model.safetensors").write_bytes(b"half")
    sync_run(run, store)
    assert not store.exists(f"runs/{run.name}/checkpoints/step-000020/model.safetensors")

    (writing / "checkpoint.json").write_text('{"step": 20}')
    sync_run(run, store)
    assert store.exists(f"runs/{run.name}/checkpoints/step-000020/checkpoint.json")
    assert store.read_bytes(f"runs/{run.name}/checkpoints/step-000020/model.safetensors") == b"half"


def test_a_lost_record_means_uploading_again_not_losing_files(store: Store, tmp_path: Path) -> None:
    run = make_run(tmp_path / "runs")
    sync_run(run, store)
    for record in (run / ".sync").iterdir():
        record.write_text("{torn")
    assert sync_run(run, store).uploaded == 5
    assert sync_run(run, store).uploaded == 0
