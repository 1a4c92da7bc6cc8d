"""Assemble `report.md` (+ one CSV per table + the step plot) from evaluation folders.

Baseline = the checkpoint named "base", else the lowest step; every other
checkpoint is compared with it on every benchmark both evaluated, and the
breakdowns compare the last checkpoint with the baseline. The report states
which verifier mode scored what: evaluations in the reference mode, and, for
a run folder, the training rewards in the mode its config chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import yaml

from rlvr_core.evaluation.metrics import DEFAULT_PASS_THRESHOLD
from rlvr_core.reports import tables
from rlvr_core.reports.load import EvalEntry, discover
from rlvr_core.reports.plot import plot_metric_vs_step
from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_atomic

BREAKDOWN_KEYS = ("category", "difficulty", "archetype")
PLOT_NAME = layout.REPORT_PLOT


def _md(df: pd.DataFrame) -> str:
    """The table as markdown, split into tables narrow enough for the Prefect UI (`tables.split_columns`)."""
    shown = df.drop(columns=[c for c in df.columns if c.startswith("_")])
    # disable_numparse: cells are display strings; tabulate would turn "+50.0" into 50.
    return "\n\n".join(part.to_markdown(index=False, disable_numparse=True) for part in tables.split_columns(shown))


def _baseline(entries: Sequence[EvalEntry]) -> str:
    names = [e.checkpoint for e in entries]
    return layout.BASE_LABEL if layout.BASE_LABEL in names else names[0]


def build_tables(entries: Sequence[EvalEntry], *, threshold: float = DEFAULT_PASS_THRESHOLD
                 ) -> tuple[list[str], dict[str, pd.DataFrame]]:
    """The report's markdown sections and its tables (by CSV name)."""
    checkpoints = list(dict.fromkeys(e.checkpoint for e in entries))
    base_name = _baseline(entries)
    last_name = checkpoints[-1]
    by_key = {(e.checkpoint, e.benchmark): e for e in entries}
    frames: dict[str, pd.DataFrame] = {"metrics": tables.metrics_table(entries)}
    sections = ["## Metrics per checkpoint", "", _md(frames["metrics"]), ""]
    if any(not e.summary.get("standard_settings", True) for e in entries):
        sections += [f"{tables.NON_STANDARD} evaluated with overridden settings (see its summary.json).", ""]
    sections += [_evaluation_mode(entries), ""]

    comparisons = [tables.compare(by_key[(base_name, e.benchmark)], e) for e in entries
                   if e.checkpoint != base_name and (base_name, e.benchmark) in by_key]
    if comparisons:
        frames["comparisons"] = tables.comparison_table(comparisons)
        sections += [f"## Baseline ({base_name}) vs trained", "",
                     "Delta = trained − baseline in percentage points with a 95% interval (paired bootstrap over "
                     "the same items, else Newcombe's difference of Wilson intervals); verdict \"noise\" when the "
                     "interval contains 0.", "", _md(frames["comparisons"]), ""]

    rewards = tables.reward_table(entries, threshold)
    if not rewards.empty:
        frames["rewards"] = rewards
        sections += ["## Rewards", "", _md(rewards), ""]

    breakdown_frames = []
    for benchmark in sorted({e.benchmark for e in entries}):
        trained = by_key.get((last_name, benchmark)) or next(e for e in reversed(entries) if e.benchmark == benchmark)
        base = by_key.get((base_name, benchmark)) if trained.checkpoint != base_name else None
        for key in BREAKDOWN_KEYS:
            if key not in trained.summary.get("breakdowns", {}):
                continue
            table = tables.breakdown_table(base, trained, key)
            best, worst = tables.best_and_worst(table, key)
            versus = f" vs {base.checkpoint}" if base else ""
            sections += [f"## {benchmark} by {key} ({trained.checkpoint}{versus})", "", _md(table), "",
                         f"Best: {'; '.join(best)}", "", f"Worst: {'; '.join(worst)}", ""]
            breakdown_frames.append(table.drop(columns=["_sort"]).rename(columns={key: "group"})
                                    .assign(benchmark=benchmark, key=key))
    if breakdown_frames:
        frames["breakdowns"] = pd.concat(breakdown_frames, ignore_index=True)
    return sections, frames


def _evaluation_mode(entries: Sequence[EvalEntry]) -> str:
    """Which verifier mode scored the evaluations (summaries written before the field existed were reference)."""
    modes = sorted({str(e.summary.get("verifier_mode", "reference")) for e in entries})
    return (f"Evaluations scored in the verifiers' {' and '.join(modes)} mode"
            + (" (as the benchmarks' reference implementations score, comparable with published numbers)."
               if modes == ["reference"] else "; modes differ, so these numbers are not comparable with each other."))


def _training_mode(run_folder: Path) -> str | None:
    """The verifier mode of a run's training rewards, from its resolved config.yaml; None if it does not say."""
    config = layout.config_path(run_folder)
    if not config.is_file():
        return None
    verifiers = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("verifiers")
    if not isinstance(verifiers, dict) or "strict" not in verifiers:
        return None  # a run from before the strict mode existed
    strict = bool(verifiers["strict"])
    return ("Training rewards scored in the verifiers' strict mode (verifiers.strict: true): instruction checks close "
            "the loopholes their reference accepts." if strict else
            "Training rewards scored in the verifiers' reference mode (verifiers.strict: false).")


def build_report(paths: Path | str | Sequence[Path | str], *, out_dir: Path | str | None = None,
                 threshold: float = DEFAULT_PASS_THRESHOLD, title: str | None = None) -> str:
    """Rebuild every table for a run folder (or eval folders); writes report.md, CSVs and the plot; returns the markdown.

    `out_dir` defaults to the run folder (the single path given) — for a list
    of eval folders it must be given.
    """
    path_list = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if out_dir is None:
        if len(path_list) != 1:
            raise ValueError("build_report: pass out_dir when reporting on several folders")
        out_dir = path_list[0]
    out = Path(out_dir)
    entries = discover(path_list)
    sections, frames = build_tables(entries, threshold=threshold)
    plot = plot_metric_vs_step(entries, out / PLOT_NAME)
    header = [f"# {title or 'Evaluation report: ' + out.name}", "",
              f"{len(entries)} evaluations; pass threshold {threshold:g}. Every number states its n.", ""]
    training = _training_mode(path_list[0]) if len(path_list) == 1 else None
    if training:
        header += [training, ""]
    footer = ["## Metric vs step", "", f"![primary metric vs checkpoint step]({PLOT_NAME})", ""] if plot else []
    markdown = "\n".join(header + sections + footer)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(layout.report_path(out), markdown)
    for name, frame in frames.items():
        table = frame.drop(columns=[c for c in frame.columns if c.startswith("_")])
        table.to_csv(layout.report_table_path(out, name), index=False)
    return markdown
