"""Aggregate result records into the metrics `summary.json` carries.

Always reported, whatever the benchmark: `reward_mean` (average reward),
`pass_rate` (share with reward >= `pass_threshold`), `perfect_rate` (share
with reward == 1), the status counts, and every per-filter score. IFEval-style
benchmarks add instruction-level accuracies. Breakdowns group the same
numbers by category / difficulty / archetype where items carry them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

BREAKDOWN_KEYS = ("category", "difficulty", "archetype")
DEFAULT_PASS_THRESHOLD = 0.5


def _rates(records: Sequence[dict[str, Any]], pass_threshold: float) -> dict[str, float]:
    n = len(records)
    rewards = [float(r["reward"]) for r in records]
    metrics = {
        "reward_mean": sum(rewards) / n,
        "pass_rate": sum(x >= pass_threshold for x in rewards) / n,
        "perfect_rate": sum(x >= 1.0 for x in rewards) / n,
    }
    names = sorted({name for r in records for name in r.get("scores", {})})
    for name in names:
        metrics[name] = sum(float(r.get("scores", {}).get(name, 0.0)) for r in records) / n
    instruction_records = [r["instructions"] for r in records if "instructions" in r]
    if instruction_records:
        for level in ("strict", "loose"):
            flags = [flag for ins in instruction_records for flag in ins[level]]
            metrics[f"inst_level_{level}_acc"] = sum(flags) / len(flags) if flags else 0.0
    return metrics


def summarise_records(records: Sequence[dict[str, Any]], *, pass_threshold: float = DEFAULT_PASS_THRESHOLD) -> dict[str, Any]:
    """`{"n", "metrics", "status_counts", "breakdowns": {key: {value: {"n", **metrics}}}}` of the records."""
    if not records:
        return {"n": 0, "metrics": {}, "status_counts": {}, "breakdowns": {}}
    breakdowns: dict[str, dict[str, Any]] = {}
    for key in BREAKDOWN_KEYS:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            if record.get(key) not in (None, ""):
                groups[str(record[key])].append(record)
        if groups:
            breakdowns[key] = {
                value: {"n": len(group), **_rates(group, pass_threshold)} for value, group in sorted(groups.items())
            }
    return {
        "n": len(records),
        "metrics": _rates(records, pass_threshold),
        "status_counts": dict(sorted(Counter(r["status"] for r in records).items())),
        "breakdowns": breakdowns,
    }
