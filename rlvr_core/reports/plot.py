"""A PNG of each benchmark's primary metric against checkpoint step (headless: matplotlib Agg)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rlvr_core.reports.load import EvalEntry


def plot_metric_vs_step(entries: Sequence[EvalEntry], path: Path) -> Path | None:
    """Write the plot to `path`; None (nothing written) when no evaluation has a step."""
    points = [e for e in entries if e.step is not None]
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for benchmark in sorted({e.benchmark for e in points}):
        series = sorted((e.step, e.metric()) for e in points if e.benchmark == benchmark)
        metric = next(e.primary for e in points if e.benchmark == benchmark)
        ax.plot([s for s, _ in series], [100 * v for _, v in series], marker="o", label=f"{benchmark} ({metric})")
    ax.set_xlabel("checkpoint step (0 = base)")
    ax.set_ylabel("score (%)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
