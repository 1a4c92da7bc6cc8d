"""Report tables from fixture evaluation folders: exact markdown, flags on unequal samples and settings."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from rlvr_core.reports import build_report

METRICS = """\
| checkpoint   | step   | arith (accuracy)   | gsm8k (accuracy)   |
|:-------------|:-------|:-------------------|:-------------------|
| base         | 0      | 50.0% (n=20)       | 25.0% (n=20)       |
| step-000050  | 50     | 80.0% (n=20)       | 30.0% (n=10)       |"""

COMPARISONS = """\
| benchmark   | metric   | baseline           | trained                   | delta (pts) [95% CI]   | method           | verdict   |
|:------------|:---------|:-------------------|:--------------------------|:-----------------------|:-----------------|:----------|
| arith       | accuracy | base: 50.0% (n=20) | step-000050: 80.0% (n=20) | +30.0 [+10.0, +50.0]   | paired bootstrap | gain      |
| gsm8k       | accuracy | base: 25.0% (n=20) | step-000050: 30.0% (n=10) | +5.0 [-24.1, +38.3]    | newcombe         | noise     |

| benchmark   | flags                |
|:------------|:---------------------|
| arith       | —                    |
| gsm8k       | UNEQUAL n (20 vs 10) |"""

REWARDS = """\
| checkpoint   | benchmark   | n   | avg reward   | pass rate (≥0.5) [95% CI]   | perfect rate [95% CI]   |
|:-------------|:------------|:----|:-------------|:----------------------------|:------------------------|
| base         | arith       | 20  | 0.500        | 50.0% [29.9%, 70.1%]        | 50.0% [29.9%, 70.1%]    |
| base         | gsm8k       | 20  | 0.250        | 25.0% [11.2%, 46.9%]        | 25.0% [11.2%, 46.9%]    |
| step-000050  | arith       | 20  | 0.800        | 80.0% [58.4%, 91.9%]        | 80.0% [58.4%, 91.9%]    |
| step-000050  | gsm8k       | 10  | 0.300        | 30.0% [10.8%, 60.3%]        | 30.0% [10.8%, 60.3%]    |"""

BREAKDOWN = """\
## arith by category (step-000050 vs base)

| category   | n   | step-000050   | n (baseline)   | base   | delta (pts)   |
|:-----------|:----|:--------------|:---------------|:-------|:--------------|
| carry      | 10  | 90.0%         | 10             | 40.0%  | +50.0         |
| no-carry   | 10  | 70.0%         | 10             | 60.0%  | +10.0         |

Best: carry (+50.0, n=10); no-carry (+10.0, n=10)

Worst: no-carry (+10.0, n=10); carry (+50.0, n=10)"""


def test_report_tables_are_exact(run_dir: Path):
    markdown = build_report(run_dir)
    for table in (METRICS, COMPARISONS, REWARDS, BREAKDOWN):
        assert table in markdown
    assert (run_dir / "report.md").read_text() == markdown


def test_every_table_fits_the_artifact_page_and_a_split_table_repeats_its_key(run_dir: Path):
    """The Prefect UI cuts a table wider than its page: wide tables are split by columns, each part led by the
    row's key, and the CSV keeps the whole table."""
    from rlvr_core.reports.tables import MAX_ROW_CHARS

    markdown = build_report(run_dir)
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    assert rows and max(len(line) for line in rows) <= MAX_ROW_CHARS
    with (run_dir / "report_comparisons.csv").open() as handle:
        assert "flags" in next(csv.reader(handle))


def test_unequal_samples_are_flagged_and_the_gain_is_called_noise(run_dir: Path):
    build_report(run_dir)
    with (run_dir / "report_comparisons.csv").open() as handle:
        rows = {r["benchmark"]: r for r in csv.DictReader(handle)}
    assert rows["gsm8k"]["flags"] == "UNEQUAL n (20 vs 10)" and rows["gsm8k"]["verdict"] == "noise"
    assert rows["arith"]["flags"] == "—" and rows["arith"]["verdict"] == "gain"


def test_different_settings_are_flagged_and_marked(tmp_path: Path, write_eval):
    base = write_eval(tmp_path / "a" / "base" / "arith", "arith", [1.0, 0.0, 0.0, 1.0], step=None)
    hot = write_eval(tmp_path / "b" / "step-10" / "arith", "arith", [1.0, 1.0, 0.0, 1.0], step=10,
                     settings={"temperature": 0.7})
    markdown = build_report([base, hot], out_dir=tmp_path / "report")
    assert "settings differ: temperature; non-standard settings" in markdown
    assert "| step-10 †" in markdown and "† evaluated with overridden settings" in markdown


def test_every_table_is_written_as_csv_and_the_plot_as_png(run_dir: Path):
    build_report(run_dir)
    for name in ("metrics", "comparisons", "rewards", "breakdowns"):
        assert (run_dir / f"report_{name}.csv").stat().st_size > 0
    assert (run_dir / "metric_vs_step.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rebuilds_the_report_and_explains_a_wrong_folder(run_dir: Path, tmp_path: Path):
    ok = subprocess.run([sys.executable, "-m", "rlvr_core.reports", str(run_dir), "--quiet"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert COMPARISONS in (run_dir / "report.md").read_text()
    bad = subprocess.run([sys.executable, "-m", "rlvr_core.reports", str(tmp_path / "empty")], capture_output=True, text=True)
    assert bad.returncode == 2 and "no evaluations under" in bad.stderr


def test_the_report_states_which_verifier_mode_scored_what(run_dir: Path):
    """Evaluations in the reference mode; a run's training rewards in the mode its config chose (issue 28)."""
    (run_dir / "config.yaml").write_text("verifiers:\n  strict: true\n")
    markdown = build_report(run_dir)
    assert "Evaluations scored in the verifiers' reference mode" in markdown
    assert "Training rewards scored in the verifiers' strict mode (verifiers.strict: true)" in markdown
    (run_dir / "config.yaml").write_text("verifiers:\n  strict: false\n")
    assert "Training rewards scored in the verifiers' reference mode (verifiers.strict: false)" in build_report(run_dir)
