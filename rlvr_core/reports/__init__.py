"""Reports: tables (markdown + CSV) and a plot from evaluation folders, with honest confidence intervals.

Public API: `build_report(run_dir_or_eval_dirs)` (build.py); the table builders in `tables.py`; the
intervals come from `rlvr_core.stats`. CLI: `python -m rlvr_core.reports PATH...`.
"""

from rlvr_core.reports.build import build_report

__all__ = ["build_report"]
