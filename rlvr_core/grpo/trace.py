"""What a run leaves in its folder as it trains: trace.jsonl, samples.jsonl, rollouts.jsonl, the curve, RESULTS.md.

Reports and tests read these files (never log text). On resume, lines for
steps after the checkpoint being resumed are dropped first, so every step
appears once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILES = ("trace.jsonl", "samples.jsonl", "rollouts.jsonl")


class TraceWriter:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.traces = self.run_dir / "traces"
        self.traces.mkdir(parents=True, exist_ok=True)

    def truncate_after(self, step: int) -> None:
        """Forget records of steps > `step` (they belong to the run before a crash, past its checkpoint)."""
        for name in FILES:
            path = self.traces / name
            if path.exists():
                kept = [line for line in path.read_text().splitlines()
                        if line.strip() and json.loads(line).get("step", 0) <= step]
                path.write_text("".join(line + "\n" for line in kept))

    def append(self, name: str, records: list[dict[str, Any]]) -> None:
        if records:
            with open(self.traces / name, "a") as f:
                f.write("".join(json.dumps(r) + "\n" for r in records))

    def steps(self) -> list[dict[str, Any]]:
        return read_trace(self.run_dir)


def read_trace(run_dir: Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / "traces" / "trace.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot_reward_curve(run_dir: Path, steps: list[dict[str, Any]]) -> Path:
    """reward_curve.png: training reward per step and held-out greedy accuracy where measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
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
    path = Path(run_dir) / "reward_curve.png"
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
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
    path = Path(run_dir) / "RESULTS.md"
    path.write_text("\n".join(lines) + "\n")
    return path
