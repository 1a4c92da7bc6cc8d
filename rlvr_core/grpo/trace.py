"""What a run leaves in its folder as it trains: trace.jsonl, samples.jsonl, rollouts.jsonl, the curve, RESULTS.md,
and rollout_settings.json (the prompt template, each dataset's stop strings and the seeding scheme, written at
the start of every session, so a reader of the rollouts knows how they were sampled).

Reports and tests read these files (never log text). Durability: appends
are flushed to the OS at once (so they survive a kill -9 of the trainer) and
fsynced by `sync()` before each checkpoint (so a power cut never leaves a
checkpoint whose steps are missing from the trace). Rows written after the
last checkpoint may be lost to a power cut, and nothing is lost by that: a
resume cuts them away anyway. An fsync per step (or worse, per line) would
cost a visible share of a tiny model's step for no durability a resume uses.
After a crash a file holds whole lines plus at most one torn last line. Readers
drop that torn line; a malformed line anywhere else is damage a crash cannot
cause and raises `CorruptJsonlError` naming the file and line.

On resume, rows of steps after the checkpoint being resumed (and the torn
line) are cut away first, so every step appears once; a run restarted from
step 0 starts with empty trace files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from rlvr_core.evaluation.jsonl import CorruptJsonlError, parse_line, read_records
from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import atomic_file, fsync_dir, write_atomic, write_json_atomic

FILES = layout.TRACE_FILES
REPAIR = "remove or repair that line, then resume again"

__all__ = ["FILES", "BackgroundSummaries", "CorruptJsonlError", "TraceWriter", "plot_reward_curve", "read_trace",
           "write_results", "write_rollout_settings"]


class TraceWriter:
    """Appends records to the run's trace files; `sync()` makes everything appended so far durable."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.traces = layout.traces_dir(self.run_dir)
        self.traces.mkdir(parents=True, exist_ok=True)
        self._handles: dict[str, IO[str]] = {}
        self._unsynced: set[str] = set()

    def truncate_after(self, step: int) -> dict[str, int]:
        """Durably drop rows of steps > `step` and any torn last line; return rows dropped per file.

        `step=-1` empties the files, whatever they hold (a restart from step
        0). Rows are appended in step order, so this is normally one
        `truncate()` at the first dropped row; a file whose rows are out of
        order is rewritten instead. Raises CorruptJsonlError, and cuts
        nothing, for a malformed line that is not the last.
        """
        self.close()
        return {name: _truncate_file(self.traces / name, step) for name in FILES if (self.traces / name).exists()}

    def append(self, name: str, records: list[dict[str, Any]]) -> None:
        """Write whole lines and hand them to the OS (a kill -9 keeps them; `sync()` for a power cut)."""
        if not records:
            return
        handle = self._handles.get(name)
        if handle is None:
            path = self.traces / name
            created = not path.exists()
            handle = self._handles[name] = open(path, "a", encoding="utf-8")
            if created:
                fsync_dir(self.traces)
        handle.write("".join(json.dumps(r) + "\n" for r in records))
        handle.flush()
        self._unsynced.add(name)

    def sync(self) -> None:
        """fsync every file appended to since the last sync (called before each checkpoint, and by `close`)."""
        for name in sorted(self._unsynced):
            os.fsync(self._handles[name].fileno())
        self._unsynced.clear()

    def close(self) -> None:
        self.sync()
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()

    def steps(self) -> list[dict[str, Any]]:
        return read_trace(self.run_dir)


def read_trace(run_dir: Path) -> list[dict[str, Any]]:
    """The records of traces/trace.jsonl ([] if absent); a torn last line is dropped, other damage raises."""
    return read_records(layout.trace_path(run_dir), fix=REPAIR)


def write_rollout_settings(run_dir: Path, settings: dict[str, Any]) -> Path:
    """traces/rollout_settings.json, replaced atomically (a resumed session rewrites it from its config)."""
    path = layout.trace_path(run_dir, layout.ROLLOUT_SETTINGS)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_json_atomic(path, settings, sort_keys=False)


def _truncate_file(path: Path, step: int) -> int:
    """See `TraceWriter.truncate_after`; one file."""
    if step < 0:  # everything goes, so nothing needs to parse
        with open(path, "r+b") as f:
            dropped = sum(1 for line in f if line.endswith(b"\n") and line.strip())
            f.truncate(0)
            os.fsync(f.fileno())
        return dropped
    cut = keep_to = None  # byte offset of the first dropped row; end of the last complete line
    dropped, out_of_order = 0, False
    with open(path, "rb") as f:
        offset = 0
        for number, line in enumerate(f, start=1):
            start, offset = offset, offset + len(line)
            if not line.endswith(b"\n"):
                break  # the torn last line
            keep_to = offset
            if not line.strip():
                continue
            record = parse_line(path, number, line, REPAIR)
            record_step = record.get("step", 0)
            if not isinstance(record_step, int):
                raise CorruptJsonlError(path, number, f"its step is {repr(record_step)[:40]}, not a whole number",
                                        REPAIR)
            if record_step > step:
                dropped += 1
                cut = start if cut is None else cut
            elif cut is not None:
                out_of_order = True
    end = (cut if cut is not None else keep_to) or 0
    if out_of_order:
        _rewrite_keeping(path, step)
    elif end != path.stat().st_size:
        with open(path, "r+b") as f:
            f.truncate(end)
            os.fsync(f.fileno())
    return dropped


def _rewrite_keeping(path: Path, step: int) -> None:
    """Replace `path` by its complete rows of steps <= `step`, atomically (temp file, fsync, rename)."""
    with open(path, "rb") as src, atomic_file(path) as dst:
        for number, line in enumerate(src, start=1):
            if line.endswith(b"\n") and line.strip() and parse_line(path, number, line, REPAIR).get("step", 0) <= step:
                dst.write(line)


def plot_reward_curve(run_dir: Path, steps: list[dict[str, Any]]) -> Path:
    """reward_curve.png: training reward per step and held-out greedy accuracy where measured.

    Drawn on a `Figure` of its own (no pyplot state), so any thread may draw it (see `BackgroundSummaries`).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    xs = [s["step"] for s in steps if "reward_mean" in s]
    ax.plot(xs, [s["reward_mean"] for s in steps if "reward_mean" in s], label="train reward (mean)", alpha=0.6)
    evals = [(s["step"], s["heldout_accuracy"]) for s in steps if s.get("heldout_accuracy") is not None]
    if evals:
        ax.plot(*zip(*evals), marker="o", label="held-out greedy accuracy")
    ax.set_xlabel("step")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(Path(run_dir).name)
    path = layout.reward_curve_path(run_dir)
    fig.tight_layout()
    with atomic_file(path) as handle:  # sync and readers never see half an image
        fig.savefig(handle, format="png", dpi=100)
    return path


def write_results(run_dir: Path, steps: list[dict[str, Any]], *, checkpoints: list[str], events: list[str]) -> Path:
    """RESULTS.md: a short human summary of the run, built from the trace."""
    evals = [(s["step"], s["heldout_accuracy"]) for s in steps if s.get("heldout_accuracy") is not None]
    trained = [s for s in steps if s.get("step", 0) > 0]
    lines = [f"# {Path(run_dir).name}", ""]
    if evals:
        (s0, a0), (s1, a1) = evals[0], evals[-1]
        lines += [f"- held-out greedy accuracy: {a0:.3f} (step {s0}) -> {a1:.3f} (step {s1}), "
                  f"change {100 * (a1 - a0):+.1f} points", ""]
    if trained:
        seconds = sum(s["seconds"]["total"] for s in trained)
        samples = sum(s["samples"] for s in trained)
        first = trained[: max(1, len(trained) // 10)]
        last = trained[-max(1, len(trained) // 10):]
        mean = lambda rows: sum(r["reward_mean"] for r in rows) / len(rows)  # noqa: E731
        lines += [f"- steps: {len(trained)}; samples: {samples}; training wall time {seconds:.1f} s "
                  f"({samples / max(seconds, 1e-9):.1f} samples/s)",
                  f"- train reward (first/last 10% of steps): {mean(first):.3f} -> {mean(last):.3f}",
                  f"- stale samples dropped: {sum(s['stale_dropped'] for s in trained)}; "
                  f"max staleness trained on: {max(max(map(int, s['staleness'] or {0: 0})) for s in trained)}", ""]
    lines += ["## Held-out accuracy", "", "| step | accuracy |", "|---:|---:|"]
    lines += [f"| {s} | {a:.3f} |" for s, a in evals]
    lines += ["", "## Checkpoints", ""] + [f"- {c}" for c in checkpoints]
    if events:
        lines += ["", "## Events", ""] + [f"- {e}" for e in events]
    path = layout.results_path(run_dir)
    write_atomic(path, "\n".join(lines) + "\n")
    return path


class BackgroundSummaries:
    """reward_curve.png and RESULTS.md redrawn in one worker thread, in the order asked, while training goes on.

    Drawing the curve takes 0.07 s, and the first drawing in a process 0.4 s (matplotlib's import and font
    cache): in the training loop that stalled every actor waiting for the next step, about 4 % of a 60-step
    run on 2 cores. Here the loop hands over a snapshot of the trace and goes on. `submit` first waits for the
    previous drawing (so one is drawn at a time and its error, if any, surfaces in the loop); `wait` blocks
    until everything asked is written, as a run's end needs.
    """

    def __init__(self, run_dir: Path) -> None:
        from concurrent.futures import Future, ThreadPoolExecutor

        self.run_dir = Path(run_dir)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-summaries")
        # matplotlib's import and font cache now, while the session starts its actors, not mid-training.
        self._drawing: Future | None = self._worker.submit(_draw_nothing)

    def submit(self, steps: list[dict[str, Any]], *, checkpoints: list[str], events: list[str]) -> None:
        self.wait()
        self._drawing = self._worker.submit(self._write, steps, list(checkpoints), list(events))

    def _write(self, steps: list[dict[str, Any]], checkpoints: list[str], events: list[str]) -> None:
        plot_reward_curve(self.run_dir, steps)
        write_results(self.run_dir, steps, checkpoints=checkpoints, events=events)

    def wait(self) -> None:
        drawing, self._drawing = self._drawing, None
        if drawing is not None:
            drawing.result()

    def close(self) -> None:
        """Finish what was asked (its errors are not raised: a run that failed reports its own)."""
        self._worker.shutdown(wait=True)


def _draw_nothing() -> None:
    """Render an empty figure to memory: loads what every later drawing needs."""
    import io

    from matplotlib.figure import Figure

    Figure(figsize=(1, 1)).savefig(io.BytesIO(), format="png")
