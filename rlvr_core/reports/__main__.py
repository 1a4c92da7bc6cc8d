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
    parser.add_argument("--webextract", action="store_true",
                        help="PATHs are webextract eval folders, one per model: write webextract_report.md (per model, "
                             "per archetype, failures; paired comparisons only on the same items, by content hash, in "
                             "the same mode). Exits 3 when it refuses a comparison (the report is still written)")
    parser.add_argument("--labels", default=None, help="--webextract: comma-separated model labels, one per PATH")
    parser.add_argument("--baseline", default=None, help="--webextract: the label the others are compared with")
    parser.add_argument("--allow-unequal", action="store_true",
                        help="--webextract: compare unequal evaluations on their shared items (flagged) instead of refusing")
    args = parser.parse_args(argv)
    from rlvr_core.reports.build import build_report

    refused: list[str] = []
    try:
        if args.webextract:
            from rlvr_core.reports.webextract import build_webextract_report

            if args.out is None:
                raise ValueError("--webextract needs --out DIR")
            result = build_webextract_report(
                args.paths, out_dir=args.out, labels=args.labels.split(",") if args.labels else None,
                threshold=args.threshold, baseline=args.baseline, allow_unequal=args.allow_unequal)
            markdown, refused = result.markdown, result.refused
        else:
            markdown = build_report(args.paths, out_dir=args.out, threshold=args.threshold)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(markdown)
    if refused:
        print("error: refused to compare " + "; ".join(refused) + ". Evaluate both on the same items in the same mode, "
              "or pass --allow-unequal to compare the shared items only.", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
