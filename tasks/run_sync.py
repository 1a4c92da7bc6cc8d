"""`sync-run`: copy a run folder's new files to the store (`rlvr_core.run_sync`); safe to call any number of times."""

from __future__ import annotations

from prefect import task
from prefect.logging import get_run_logger

from rlvr_core.run_sync import sync_run
from rlvr_core.storage import open_store
from tasks.retry import retry_transient


@task(name="sync-run", retries=2, retry_delay_seconds=30, retry_condition_fn=retry_transient)
def sync_run_to_store(run_dir: str, store_root: str, endpoint_url: str | None = None) -> dict[str, int | str]:
    report = sync_run(run_dir, open_store(store_root, endpoint_url))
    get_run_logger().info("synced %s: %d file(s) uploaded (%.1f MB), %d unchanged", report.destination,
                          report.uploaded, report.bytes / 1e6, report.unchanged)
    return {"uploaded": report.uploaded, "unchanged": report.unchanged, "bytes": report.bytes,
            "destination": report.destination}
