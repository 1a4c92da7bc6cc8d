"""Retries: transient failures are retried, deterministic ones are not, and a flow-run retry skips finished tasks."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect import flow, task

from orchestration.retry import is_transient, retry_transient
from tasks.training import create_run


def test_network_and_storage_failures_are_transient_but_bad_input_is_not() -> None:
    from rlvr_core.config import ConfigError
    from rlvr_core.storage import StorageError

    assert is_transient(ConnectionError("reset by peer"))
    assert is_transient(TimeoutError())
    assert is_transient(StorageError("s3://bucket: endpoint unreachable"))
    assert not is_transient(ConfigError("training.max_steps = -1: must be >= 1"))
    assert not is_transient(ValueError("unknown benchmark"))
    assert not is_transient(FileNotFoundError("configs/nope.yaml"))
    assert not is_transient(PermissionError(13, "Permission denied", "/data/store"))
    assert not is_transient(IsADirectoryError(21, "Is a directory", "configs"))
    assert is_transient(OSError(28, "No space left on device"))


def _count(path: Path) -> int:
    """Increment and return a counter kept in a file (it survives retries, unlike a local variable)."""
    n = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(n))
    return n


@pytest.mark.slow
def test_a_task_that_fails_once_is_retried_and_the_flow_completes(prefect_harness: str, tmp_path: Path) -> None:
    attempts = tmp_path / "attempts"

    @task(retries=2, retry_delay_seconds=0, retry_condition_fn=retry_transient)
    def flaky_download() -> int:
        if _count(attempts) == 1:
            raise ConnectionError("connection reset by peer")
        return 42

    @flow
    def pipeline() -> int:
        return flaky_download()

    state = pipeline(return_state=True)
    assert state.is_completed()
    assert state.result() == 42
    assert attempts.read_text() == "2"


@pytest.mark.slow
def test_a_deterministic_failure_is_not_retried(prefect_harness: str, tmp_path: Path) -> None:
    attempts = tmp_path / "attempts"

    @task(retries=3, retry_delay_seconds=0, retry_condition_fn=retry_transient)
    def load_bad_config() -> None:
        _count(attempts)
        raise ValueError("training.max_steps = -1: must be >= 1")

    @flow
    def pipeline() -> None:
        load_bad_config()

    state = pipeline(return_state=True)
    assert state.is_failed()
    assert attempts.read_text() == "1"


@pytest.mark.slow
def test_a_flow_run_retry_does_not_rerun_finished_tasks(prefect_harness: str, tmp_path: Path) -> None:
    """The real `create-run` task: a retried flow run gets the same run folder back instead of a second one."""
    runs = tmp_path / "runs"
    crashed = tmp_path / "crashed-once"

    @flow(retries=1, retry_delay_seconds=0)
    def pipeline() -> str:
        run_dir = create_run("tiny-arith", [f"run.runs_dir={runs}"])
        if not crashed.exists():
            crashed.touch()
            raise ConnectionError("worker lost after the run folder was created")
        return run_dir

    state = pipeline(return_state=True)
    assert state.is_completed()
    assert [p for p in runs.iterdir()] == [Path(state.result())]
