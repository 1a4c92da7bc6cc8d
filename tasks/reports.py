"""Reports as a Prefect task: rebuild the run's markdown report and publish it with its artifacts.

The report is rebuilt from the `summary.json` files on disk (not from task
results), so it is the same whether the evaluations ran in this flow run, in
triggered runs, or in earlier attempts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.logging import get_run_logger

from orchestration.artifacts import artifact_key, publish_markdown, publish_results_table, publish_run_links
from rlvr_core.rundir import layout


@task(name="publish-report", task_run_name="report-{run_name}", retries=1, retry_delay_seconds=5)
def publish_report(run_dir: str, run_name: str, summaries: dict[str, dict[str, Any]] | None = None) -> str:
    """Build `<run_dir>/report.md`, publish it, the results table and the run links; returns the markdown."""
    from rlvr_core.reports import build_report

    markdown = build_report(Path(run_dir))  # also writes report.md, the CSVs and the metric-vs-step plot
    report_path = layout.report_path(run_dir)
    publish_markdown(artifact_key(run_name, "report"), markdown, f"Report of {run_name} ({report_path})",
                     base_dir=Path(run_dir))
    if summaries:
        publish_results_table(artifact_key(run_name, "results"), summaries, f"All results of {run_name}")
    publish_run_links(run_name, run_dir)
    get_run_logger().info("report written to %s", report_path)
    return markdown
