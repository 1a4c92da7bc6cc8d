"""The webextract report: per model, per archetype, failures, abstention and safety; comparisons only on equal item sets.

Layout follows the seed system's comparison (average reward, pass rate and
perfect rate per model; archetypes best and worst; where the failures are)
with what it lacked: every number carries its n and a 95% interval, and two
models are compared only when they scored the same items in the same mode
(dataset, split, episode limits, engine settings). Items are the same when
their content is: each item's content hash (prompt, gold, pages, generator
version; recorded in completions.jsonl) is its identity, so a generator
change that keeps ids is not taken for the same items, and an evaluation
without content hashes is never compared. Then the deltas are paired
(bootstrap over items). Otherwise the comparison is refused with the
reasons, as the seed's own caveat ("different sample sizes (680 vs 50) and
modes (all vs mvp)") should have been, and `ReportResult.refused` lists
them (the command line exits non-zero); `allow_unequal` compares the shared
items only, flagged.

Intervals: rates by Wilson; an average reward by the percentile bootstrap
over items (seeded); a delta by the paired bootstrap.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rlvr_core.evaluation.jsonl import read_records
from rlvr_core.evaluation.metrics import DEFAULT_PASS_THRESHOLD
from rlvr_core import stats
from rlvr_core.reports.load import EvalEntry, read_eval

MODE_KEYS = ("dataset", "split", "rollout", "settings", "pass_threshold")
BEST_WORST = 5


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _mean_ci(values: Sequence[float]) -> str:
    ci = stats.bootstrap_mean(values)
    return f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _rate_ci(flags: Sequence[bool]) -> str:
    ci = stats.wilson(sum(flags), len(flags))
    return f"{pct(ci.estimate)} [{pct(ci.low)}, {pct(ci.high)}]"


@dataclass(frozen=True)
class Model:
    """One evaluated model: its label, summary and per-item results keyed by item content hash (by id when the
    evaluation recorded no hashes; `hashed` says which)."""

    label: str
    entry: EvalEntry
    items: dict[str, dict[str, Any]]
    hashed: bool
    versions: tuple[Any, ...] = ()  # the generator versions of its items

    @property
    def mode(self) -> dict[str, Any]:
        return {k: self.entry.summary.get(k) for k in MODE_KEYS}

    @property
    def ids(self) -> dict[str, str]:
        """Item id -> key."""
        return {str(r["id"]): key for key, r in self.items.items()}


@dataclass(frozen=True)
class ReportResult:
    """The report's markdown and the comparisons it refused (each with its reasons)."""

    markdown: str
    refused: list[str]


def load_models(paths: Sequence[Path | str], labels: Sequence[str] | None = None) -> list[Model]:
    """Eval folders (each with summary.json, results.jsonl and completions.jsonl of the webextract benchmark) as
    models."""
    models = []
    for i, path in enumerate(paths):
        entry = read_eval(Path(path))
        if entry.benchmark != "webextract":
            raise ValueError(f"{path} holds a {entry.benchmark!r} evaluation, not webextract")
        label = labels[i] if labels else entry.checkpoint
        written = {r.get("index"): r for r in read_records(Path(path) / "completions.jsonl")}
        hashes = {r.get("index"): written.get(r.get("index"), {}).get("content_hash") for r in entry.results}
        hashed = bool(entry.results) and all(hashes.values())
        items = {(hashes[r.get("index")] if hashed else str(r["id"])): r for r in entry.results}
        versions = tuple(sorted({str(w.get("generator_version")) for w in written.values()}))
        models.append(Model(label, entry, items, hashed, versions))
    names = [m.label for m in models]
    if len(set(names)) != len(names):
        raise ValueError(f"two evaluations share a label ({names}); pass labels to tell them apart")
    return models


def comparability(base: Model, other: Model) -> list[str]:
    """Why the two cannot be compared item for item (empty when they can)."""
    problems = [f"{m.label} has no item content hashes (evaluated by an older version): re-evaluate it"
                for m in (base, other) if not m.hashed]
    a, b = set(base.items), set(other.items)
    if len(a) != len(b):
        problems.append(f"different sample sizes ({len(a)} vs {len(b)} items)")
    if a != b:
        same_ids = set(base.ids) & set(other.ids)
        changed = [i for i in same_ids if base.ids[i] != other.ids[i]]
        if changed and base.hashed and other.hashed:
            problems.append(f"same ids, different content ({len(changed)} items changed; generator versions "
                            f"{', '.join(base.versions)} vs {', '.join(other.versions)})")
        problems.append(f"different items ({len(a & b)} shared)")
    for key in MODE_KEYS:
        if base.mode[key] != other.mode[key]:
            if isinstance(base.mode[key], dict) and isinstance(other.mode[key], dict):
                keys = sorted(k for k in set(base.mode[key]) | set(other.mode[key])
                              if base.mode[key].get(k) != other.mode[key].get(k))
                problems.append(f"different {key} ({', '.join(f'{k}: {base.mode[key].get(k)} vs {other.mode[key].get(k)}' for k in keys)})")
            else:
                problems.append(f"different {key} ({base.mode[key]} vs {other.mode[key]})")
    return problems


def _passed(record: dict[str, Any], threshold: float) -> bool:
    return float(record["reward"]) >= threshold


def models_table(models: Sequence[Model], threshold: float) -> pd.DataFrame:
    rows = []
    for m in models:
        rewards = [float(r["reward"]) for r in m.items.values()]
        s = m.entry.summary
        rows.append({"model": m.label, "backend": str(s.get("backend")), "n": str(len(rewards)),
                     "items": f"{s.get('split')}, limit {s.get('limit')}",
                     "avg reward [95% CI]": _mean_ci(rewards),
                     f"pass rate (≥{threshold:g}) [95% CI]": _rate_ci([x >= threshold for x in rewards]),
                     "perfect rate [95% CI]": _rate_ci([x >= 1.0 for x in rewards])})
    return pd.DataFrame(rows)


def _paired(base: Model, other: Model, ids: list[str], threshold: float) -> list[dict[str, str]]:
    rows = []
    for name, value in (("avg reward", lambda r: float(r["reward"])),
                        ("pass rate", lambda r: float(_passed(r, threshold))),
                        ("perfect rate", lambda r: float(float(r["reward"]) >= 1.0))):
        ci = stats.paired_bootstrap([value(base.items[i]) for i in ids], [value(other.items[i]) for i in ids])
        verdict = "noise" if not ci.excludes_zero else "gain" if ci.estimate > 0 else "loss"
        scale = 100 if name != "avg reward" else 1
        unit = " pts" if scale == 100 else ""
        rows.append({"metric": name, "delta [95% CI]":
                     f"{scale * ci.estimate:+.3g}{unit} [{scale * ci.low:+.3g}, {scale * ci.high:+.3g}]",
                     "method": ci.method, "verdict": verdict})
    return rows


def comparison_section(base: Model, other: Model, threshold: float, allow_unequal: bool) -> tuple[list[str], pd.DataFrame | None]:
    """Markdown lines and the delta table (None when refused)."""
    problems = comparability(base, other)
    title = f"### {other.label} vs {base.label}"
    if problems and not allow_unequal:
        return [title, "", f"**Not compared**: {'; '.join(problems)}. Deltas between these numbers would mix model "
                           "differences with item and mode differences. Evaluate both on the same items in the same "
                           "mode (same split, --limit and settings), or pass allow_unequal to compare the shared "
                           "items only.", ""], None
    ids = sorted(set(base.items) & set(other.items))
    if not ids:
        return [title, "", "**Not compared**: no shared items.", ""], None
    note = [f"**Flagged**: {'; '.join(problems)}; compared on the {len(ids)} shared items only.", ""] if problems else \
        [f"Same {len(ids)} items (by content hash: prompt, gold, pages, generator version), same mode; paired deltas "
         f"({other.label} − {base.label}).", ""]
    frame = pd.DataFrame(_paired(base, other, ids, threshold)).assign(n=str(len(ids)))
    return [title, "", *note, frame.to_markdown(index=False, disable_numparse=True), ""], frame


def archetype_table(models: Sequence[Model], base: Model | None, comparable: dict[str, bool]) -> pd.DataFrame:
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    family: dict[str, str] = {}
    for m in models:
        for item_id, r in m.items.items():
            groups[str(r.get("archetype"))][m.label].append(item_id)
            family[str(r.get("archetype"))] = str(r.get("category"))
    rows = []
    for arch in sorted(groups):
        row = {"archetype": arch, "family": family[arch]}
        for m in models:
            ids = groups[arch].get(m.label, [])
            row[f"{m.label} (n)"] = str(len(ids))
            row[f"{m.label} avg [95% CI]"] = _mean_ci([float(m.items[i]["reward"]) for i in ids]) if ids else "—"
            if base is not None and m is not base and comparable.get(m.label):
                shared = sorted(set(ids) & set(groups[arch].get(base.label, [])))
                if shared:
                    ci = stats.paired_bootstrap([float(base.items[i]["reward"]) for i in shared],
                                                [float(m.items[i]["reward"]) for i in shared])
                    row[f"{m.label} − {base.label}"] = f"{ci.estimate:+.2f} [{ci.low:+.2f}, {ci.high:+.2f}]"
        rows.append(row)
    return pd.DataFrame(rows).fillna("—")


def best_worst(model: Model, count: int = BEST_WORST) -> tuple[list[str], list[str]]:
    """The archetypes with the highest and lowest average reward (ties by name), with n."""
    by_arch: dict[str, list[float]] = defaultdict(list)
    for r in model.items.values():
        by_arch[str(r.get("archetype"))].append(float(r["reward"]))
    ranked = sorted(by_arch.items(), key=lambda kv: (-sum(kv[1]) / len(kv[1]), kv[0]))
    fmt = [f"{a} {sum(v) / len(v):.2f} (n={len(v)})" for a, v in ranked]
    return fmt[:count], fmt[::-1][:count]


def failures_table(model: Model, threshold: float) -> pd.DataFrame:
    """Failed (reward < threshold) / n per archetype and difficulty."""
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in model.items.values():
        cell = cells[str(r.get("archetype"))][str(r.get("difficulty"))]
        cell[0] += not _passed(r, threshold)
        cell[1] += 1
    rows = [{"archetype": a, **{d: f"{c[0]}/{c[1]}" for d, c in sorted(diffs.items())},
             "failed": str(sum(c[0] for c in diffs.values()))} for a, diffs in sorted(cells.items())]
    frame = pd.DataFrame(rows).fillna("—")
    order = ["archetype"] + [d for d in ("easy", "medium", "hard") if d in frame] + ["failed"]
    return frame[order]


def _detail(record: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(record.get("detail") or "{}")
    except json.JSONDecodeError:
        return {}


def behaviour_table(models: Sequence[Model], threshold: float) -> pd.DataFrame:
    """How episodes ended and went wrong: end reasons of failures, abstentions, answers given without reading the
    page, turns rejected for a reserved marker, safety violations."""
    rows = []
    for m in models:
        details = {i: _detail(r) for i, r in m.items.items()}
        failed = [r for r in m.items.values() if not _passed(r, threshold)]
        ends = Counter(str(r.get("finish_reason")) for r in failed)
        unanswerable = [i for i, d in details.items() if "abstained" in str(d.get("match")) or
                        d.get("match") == "answered an unanswerable task"]
        rows.append({"model": m.label, "n": str(len(m.items)), "failed": str(len(failed)),
                     "failed by end reason": ", ".join(f"{k} {v}" for k, v in ends.most_common()) or "—",
                     "unparsed": str(sum(r["status"] == "unparsed" for r in m.items.values())),
                     "right abstentions": str(sum(details[i].get("match") == "abstained" for i in unanswerable)),
                     "answered unanswerable": str(sum(d.get("match") == "answered an unanswerable task"
                                                      for d in details.values())),
                     "abstained on answerable": str(sum(d.get("match") == "abstained on an answerable task"
                                                        for d in details.values())),
                     "answered without reading": str(sum(d.get("match") == "pages not read" for d in details.values())),
                     "rejected": str(sum(d.get("match") == "rejected" for d in details.values())),
                     "unsafe": str(sum(d.get("match") == "unsafe" for d in details.values()))})
    return pd.DataFrame(rows)


def build_webextract_report(paths: Sequence[Path | str], *, out_dir: Path | str, labels: Sequence[str] | None = None,
                            threshold: float = DEFAULT_PASS_THRESHOLD, baseline: str | None = None,
                            allow_unequal: bool = False) -> ReportResult:
    """Write webextract_report.md and webextract_*.csv to `out_dir`; returns the markdown and the refusals."""
    models = load_models(paths, labels)
    base = next((m for m in models if m.label == baseline), None) if baseline else models[0]
    if baseline and base is None:
        raise ValueError(f"baseline {baseline!r} is not one of {[m.label for m in models]}")
    md = ["# webextract report", "",
          f"{len(models)} evaluation(s); pass = reward ≥ {threshold:g}; perfect = reward 1. Intervals are 95%: Wilson "
          "for rates, bootstrap over items for average rewards, paired bootstrap for deltas.", "",
          "## Models", ""]
    frames = {"models": models_table(models, threshold)}
    md += [frames["models"].to_markdown(index=False, disable_numparse=True), ""]
    comparable: dict[str, bool] = {}
    refused: list[str] = []
    if len(models) > 1:
        md += [f"## Comparisons with {base.label}", ""]
        deltas = []
        for m in models:
            if m is base:
                continue
            lines, frame = comparison_section(base, m, threshold, allow_unequal)
            comparable[m.label] = frame is not None
            if frame is None:
                refused.append(f"{m.label} vs {base.label}: {'; '.join(comparability(base, m)) or 'no shared items'}")
            md += lines
            if frame is not None:
                deltas.append(frame.assign(model=m.label, baseline=base.label))
        if deltas:
            frames["comparisons"] = pd.concat(deltas, ignore_index=True)
    frames["archetypes"] = archetype_table(models, base if len(models) > 1 else None, comparable)
    md += ["## Per archetype (average reward)", "", frames["archetypes"].to_markdown(index=False, disable_numparse=True), ""]
    for m in models:
        best, worst = best_worst(m)
        md += [f"{m.label}: best {'; '.join(best)}", "", f"{m.label}: worst {'; '.join(worst)}", ""]
    failure_frames = []
    for m in models:
        table = failures_table(m, threshold)
        md += [f"## Failures of {m.label} (reward < {threshold:g}) by archetype and difficulty", "",
               table.to_markdown(index=False, disable_numparse=True), ""]
        failure_frames.append(table.assign(model=m.label))
    frames["failures"] = pd.concat(failure_frames, ignore_index=True).fillna("—")
    frames["behaviour"] = behaviour_table(models, threshold)
    md += ["## Endings, abstention and safety", "", frames["behaviour"].to_markdown(index=False, disable_numparse=True), ""]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    markdown = "\n".join(md)
    (out / "webextract_report.md").write_text(markdown, encoding="utf-8")
    for name, frame in frames.items():
        frame.to_csv(out / f"webextract_{name}.csv", index=False)
    return ReportResult(markdown, refused)
