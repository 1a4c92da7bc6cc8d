"""`sync-run`: copy a run folder's new files to the store (`rlvr_core.rundir.sync`); safe to call any number of times.

`RunSync` is how `train-and-eval` uses it beside training (`storage.sync_runs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import create_link_artifact
from prefect.futures import PrefectFuture
from prefect.logging import get_run_logger

from orchestration.artifacts import artifact_key
from orchestration.retry import retry_transient
from rlvr_core.rundir.sync import sync_run
from rlvr_core.storage import open_store


@task(name="sync-run", retries=2, retry_delay_seconds=30, retry_condition_fn=retry_transient)
def sync_run_to_store(run_dir: str, store_root: str, endpoint_url: str | None = None) -> dict[str, int | str]:
    report = sync_run(run_dir, open_store(store_root, endpoint_url))
    get_run_logger().info("synced %s: %d file(s) uploaded (%.1f MB), %d unchanged", report.destination,
                          report.uploaded, report.bytes / 1e6, report.unchanged)
    return {"uploaded": report.uploaded, "unchanged": report.unchanged, "bytes": report.bytes,
            "destination": report.destination}


class RunSync:
    """Copies of the run folder to the store beside training: at most one in flight, one last at the end."""

    def __init__(self, run_dir: str, storage: Any) -> None:
        self.args = (run_dir, storage.root, storage.endpoint_url)
        self.in_flight: PrefectFuture[Any] | None = None

    def start(self) -> None:
        """Begin a copy in a worker thread unless one is still running (it will be caught up by the next)."""
        if self.in_flight is None or self.in_flight.state.is_final():
            self.in_flight = sync_run_to_store.submit(*self.args)

    def finish(self) -> None:
        """Wait for the copy in flight, copy what the end of the run added (report, final evals), link the copy."""
        if self.in_flight is not None:
            self.in_flight.wait()
        copy = sync_run_to_store(*self.args)
        run_name = Path(self.args[0]).name
        create_link_artifact(copy["destination"], link_text=copy["destination"],
                             key=artifact_key(run_name, "store-copy"), description=f"Copy of {run_name} in the store")
