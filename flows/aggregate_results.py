"""`aggregate-results`: rebuild a run's report tables from the summaries stored on disk."""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from orchestration.bad_input import BadParameter, fails_cleanly
from tasks.reports import publish_report


@flow(name="aggregate-results", log_prints=True)
@fails_cleanly
def aggregate_results(run_dir: str) -> str:
    """Rebuild `<run_dir>/report.md` (and CSVs) from `evals/**/summary.json` and publish it; returns the markdown."""
    if not Path(run_dir).is_dir():
        raise BadParameter(f"run_dir={run_dir!r} is not a folder. Fix: pass a run folder such as "
                         f".rlvr/runs/tiny-arith_20260101-120000")
    return publish_report(run_dir, Path(run_dir).name)
