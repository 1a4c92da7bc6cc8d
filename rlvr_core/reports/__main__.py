"""`python -m rlvr_core.reports PATH...`: rebuild report.md, the CSVs and the plot."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.reports",
        description="Rebuild a run's report (report.md, report_*.csv, metric_vs_step.png) from its "
                    "evals/<checkpoint>/<benchmark>/summary.json + results.jsonl, or from a list of eval folders.")
    parser.add_argument("paths", nargs="+", type=Path, help="a run folder, or eval folders holding summary.json")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: the run folder)")
    parser.add_argument("--threshold", type=float, default=0.5, help="reward counted as a pass")
    parser.add_argument("--quiet", action="store_true", help="do not print the markdown")
    args = parser.parse_args(argv)
    from rlvr_core.reports.build import build_report

    try:
        markdown = build_report(args.paths, out_dir=args.out, threshold=args.threshold)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
