"""The report's tables as pandas DataFrames of display strings (so markdown and CSV match exactly).

Every comparison states both sample sizes, flags unequal samples or settings
in a `flags` column, and carries a 95% interval with the method used and a
verdict ("gain", "loss", or "noise" when the interval contains 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from rlvr_core import stats
from rlvr_core.reports.load import EvalEntry

NON_STANDARD = "†"


# The widest a markdown table row may be, in characters, for the Prefect UI's artifact page to show it whole:
# the page cuts a wider table at its edge instead of wrapping it.
MAX_ROW_CHARS = 140


def split_columns(df: pd.DataFrame, keep: int = 1, max_chars: int = MAX_ROW_CHARS) -> list[pd.DataFrame]:
    """`df` as one or more tables whose rendered rows fit `max_chars`, each repeating the first `keep` columns
    (the row's key), so a reader can still tell which row a cell belongs to.

    A column wider than the budget alone still gets a table of its own (with the key columns): it is
    never cut. Column order is kept.
    """
    def width(column: str) -> int:  # "| cell " per column; tabulate pads a header by two spaces more
        return max([len(str(column)) + 2, *(len(str(v)) for v in df[column])]) + 3

    key, rest = list(df.columns[:keep]), list(df.columns[keep:])
    budget = max_chars - 1 - sum(width(c) for c in key)
    groups: list[list[str]] = []
    used = budget + 1
    for column in rest:
        if used + width(column) > budget and (not groups or groups[-1]):
            groups.append([])
            used = 0
        groups[-1].append(column)
        used += width(column)
    return [df[key + group] for group in groups] if groups else [df]


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _label(entry: EvalEntry) -> str:
    return entry.checkpoint + ("" if entry.summary.get("standard_settings", True) else f" {NON_STANDARD}")


def metrics_table(entries: Sequence[EvalEntry]) -> pd.DataFrame:
    """Primary metric per checkpoint (rows) per benchmark (columns), each cell with its n."""
    benchmarks = sorted({e.benchmark for e in entries})
    rows: dict[str, dict[str, str]] = {}
    for e in entries:
        row = rows.setdefault(_label(e), {"checkpoint": _label(e), "step": "" if e.step is None else str(e.step)})
        row[f"{e.benchmark} ({e.primary})"] = f"{pct(e.metric())} (n={e.n})"
    columns = ["checkpoint", "step"] + [f"{b} ({next(e.primary for e in entries if e.benchmark == b)})" for b in benchmarks]
    return pd.DataFrame(list(rows.values()), columns=columns).fillna("—")


def _rate(entry: EvalEntry, threshold: float, perfect: bool) -> tuple[float, int]:
    """(successes, n) for pass rate (reward >= threshold) or perfect rate, from results when present."""
    if entry.results:
        cut = 1.0 if perfect else threshold
        return sum(float(r["reward"]) >= cut for r in entry.results), len(entry.results)
    name = "perfect_rate" if perfect else "pass_rate"
    return round(entry.metric(name) * entry.n), entry.n


def _with_ci(successes: float, n: int) -> str:
    ci = stats.wilson(successes, n)
    return f"{pct(ci.estimate)} [{pct(ci.low)}, {pct(ci.high)}]"


def reward_table(entries: Sequence[EvalEntry], threshold: float) -> pd.DataFrame:
    """Average reward, pass rate (reward >= threshold) and perfect rate (reward = 1), rates with Wilson 95% CIs.

    Evaluations without per-item rewards (e.g. converted lm-eval results) have no row.
    """
    rows = []
    for e in entries:
        if not e.results and "reward_mean" not in e.summary.get("metrics", {}):
            continue
        rewards = [float(r["reward"]) for r in e.results]
        mean = sum(rewards) / len(rewards) if rewards else e.metric("reward_mean")
        rows.append({
            "checkpoint": _label(e), "benchmark": e.benchmark, "n": str(e.n), "avg reward": f"{mean:.3f}",
            f"pass rate (≥{threshold:g}) [95% CI]": _with_ci(*_rate(e, threshold, perfect=False)),
            "perfect rate [95% CI]": _with_ci(*_rate(e, threshold, perfect=True)),
        })
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    metric: str
    baseline: EvalEntry
    trained: EvalEntry
    interval: stats.Interval
    flags: tuple[str, ...]

    @property
    def verdict(self) -> str:
        if not self.interval.excludes_zero:
            return "noise"
        return "gain" if self.interval.estimate > 0 else "loss"


def comparison_flags(base: EvalEntry, other: EvalEntry) -> tuple[str, ...]:
    """Why the two numbers may not be comparable: sample sizes, items, settings."""
    flags = []
    if base.n != other.n:
        flags.append(f"UNEQUAL n ({base.n} vs {other.n})")
    elif base.results and other.results and set(base.rewards_by_id()) != set(other.rewards_by_id()):
        flags.append("different items")
    if base.summary.get("settings") != other.summary.get("settings"):
        changed = sorted(k for k in set(base.summary.get("settings", {})) | set(other.summary.get("settings", {}))
                         if base.summary.get("settings", {}).get(k) != other.summary.get("settings", {}).get(k))
        flags.append("settings differ: " + ", ".join(changed))
    if not (base.summary.get("standard_settings", True) and other.summary.get("standard_settings", True)):
        flags.append("non-standard settings")
    return tuple(flags)


def compare(base: EvalEntry, other: EvalEntry, *, seed: int = 0) -> Comparison:
    """Delta of the primary metric (other - base) with the fitting 95% interval."""
    a, b = base.rewards_by_id(), other.rewards_by_id()
    if a and b and set(a) == set(b):
        ids = sorted(a)
        interval = stats.paired_bootstrap([a[i] for i in ids], [b[i] for i in ids], seed=seed)
    elif a and b and not all(v in (0.0, 1.0) for v in (*a.values(), *b.values())):
        interval = stats.unpaired_bootstrap(list(a.values()), list(b.values()), seed=seed)
    else:  # binary rewards on different items, or only summaries (e.g. converted lm-eval results)
        interval = stats.newcombe_difference(round(base.metric() * base.n), base.n, round(other.metric() * other.n), other.n)
    return Comparison(base.benchmark, base.primary, base, other, interval, comparison_flags(base, other))


def comparison_table(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    return pd.DataFrame([{
        "benchmark": c.benchmark, "metric": c.metric,
        "baseline": f"{_label(c.baseline)}: {pct(c.baseline.metric())} (n={c.baseline.n})",
        "trained": f"{_label(c.trained)}: {pct(c.trained.metric())} (n={c.trained.n})",
        "delta (pts) [95% CI]": f"{pts(c.interval.estimate)} [{pts(c.interval.low)}, {pts(c.interval.high)}]",
        "method": c.interval.method, "verdict": c.verdict, "flags": "; ".join(c.flags) or "—",
    } for c in comparisons], columns=["benchmark", "metric", "baseline", "trained", "delta (pts) [95% CI]",
                                      "method", "verdict", "flags"])


def breakdown_table(base: EvalEntry | None, trained: EvalEntry, key: str) -> pd.DataFrame:
    """Primary metric per group (`key` = category / difficulty / archetype), with n, and deltas vs `base`."""
    metric = trained.primary
    groups = trained.summary.get("breakdowns", {}).get(key, {})
    base_groups = (base.summary.get("breakdowns", {}).get(key, {}) if base else {})
    rows = []
    for value, group in groups.items():
        row = {key: value, "n": str(group["n"]), trained.checkpoint: pct(group[metric])}
        if base is not None:
            ref = base_groups.get(value)
            row["n (baseline)"] = str(ref["n"]) if ref else "0"
            row[base.checkpoint] = pct(ref[metric]) if ref else "—"
            row["delta (pts)"] = pts(group[metric] - ref[metric]) if ref else "—"
            row["_sort"] = group[metric] - ref[metric] if ref else float("nan")
        else:
            row["_sort"] = group[metric]
        rows.append(row)
    return pd.DataFrame(rows)


def best_and_worst(table: pd.DataFrame, key: str, count: int = 3) -> tuple[list[str], list[str]]:
    """The groups with the largest and smallest delta (or metric, without a baseline), with their n."""
    ranked = table.dropna(subset=["_sort"]).sort_values(["_sort", key], ascending=[False, True])
    label = "delta (pts)" if "delta (pts)" in table else table.columns[2]
    fmt = [f"{r[key]} ({r[label]}, n={r['n']})" for _, r in ranked.iterrows()]
    return fmt[:count], fmt[::-1][:count]
