"""The webextract report from real evaluations (the oracle and the always-abstain policy through the runner):
the seed's layout, intervals everywhere, and comparisons only between equal item sets in the same mode."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rlvr_core.evaluation.runner import evaluate
from rlvr_core.reports.__main__ import main as report_main
from rlvr_core.reports.webextract import build_webextract_report
from rlvr_core.storage import open_store

pytestmark = pytest.mark.slow  # four real evaluations, about a minute


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real eval folders: oracle and abstain on the first 72 bench items (one per archetype and difficulty),
    the oracle on the first 24, and the oracle on 72 with a changed engine setting (another mode)."""
    root = tmp_path_factory.mktemp("webextract-evals")
    store = open_store(str(root / "store"))
    runs = {"oracle": ("webextract-oracle", 72, None), "abstain": ("webextract-abstain", 72, None),
            "oracle24": ("webextract-oracle", 24, None), "oracle-seed7": ("webextract-oracle", 72, {"seed": 7})}
    for name, (backend, limit, override) in runs.items():
        evaluate(name, "webextract", output_dir=root / name, backend=backend, limit=limit, store=store,
                 settings_override=override, progress=False, verifier_workers=1)
    return {name: root / name for name in runs}


def tables(out: Path) -> dict[str, pd.DataFrame]:
    return {n: pd.read_csv(out / f"webextract_{n}.csv", dtype=str) for n in ("models", "archetypes", "failures")}


def test_per_model_rows_carry_n_and_95_percent_intervals_for_reward_pass_and_perfect_rate(evals, tmp_path):
    build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    models = tables(tmp_path)["models"].set_index("model")
    assert list(models["n"]) == ["72", "72"]
    assert models.loc["oracle", "avg reward [95% CI]"] == "1.000 [1.000, 1.000]"
    assert models.loc["oracle", "perfect rate [95% CI]"].startswith("100.0% [94.9%")
    abstain = models.loc["abstain", "avg reward [95% CI]"]
    estimate, low, high = (float(x) for x in abstain.replace("[", "").replace("]", "").replace(",", "").split())
    assert low <= estimate <= high and high < 0.2


def test_equal_items_in_the_same_mode_are_compared_paired_with_a_verdict(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    assert "Same 72 items" in md and "Not compared" not in md
    deltas = pd.read_csv(tmp_path / "webextract_comparisons.csv", dtype=str).set_index("metric")
    assert deltas.loc["avg reward", "verdict"] == "loss" and deltas.loc["avg reward", "method"] == "paired bootstrap"
    assert deltas.loc["avg reward", "n"] == "72"


def test_the_archetype_table_has_every_archetype_and_best_and_worst_lines(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    arch = tables(tmp_path)["archetypes"]
    assert len(arch) == 24 and set(arch["abstain (n)"]) == {"3"}
    assert arch.set_index("archetype").loc["text_by_id", "abstain − oracle"].startswith("-1.00")
    assert "abstain: best limit_" in md and "abstain: worst " in md


def test_failures_are_counted_by_archetype_and_difficulty(evals, tmp_path):
    build_webextract_report([evals["abstain"]], out_dir=tmp_path, labels=["abstain"])
    failures = tables(tmp_path)["failures"].set_index("archetype")
    assert list(failures.columns[:3]) == ["easy", "medium", "hard"]
    assert failures.loc["text_by_id", "easy"] == "1/1" and failures.loc["text_by_id", "failed"] == "3"
    assert failures.loc["limit_image_text", "easy"] == "0/1"  # the right abstention passes


def test_unequal_sample_sizes_are_refused_like_the_seeds_caveat(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["oracle24"]], out_dir=tmp_path, labels=["a", "b"])
    assert "**Not compared**: different sample sizes (72 vs 24 items); different items (24 shared)" in md
    assert not (tmp_path / "webextract_comparisons.csv").exists()
    assert "b − a" not in tables(tmp_path)["archetypes"].columns


def test_allow_unequal_compares_the_shared_items_only_and_flags_it(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["oracle24"]], out_dir=tmp_path, labels=["a", "b"],
                                 allow_unequal=True)
    assert "**Flagged**: different sample sizes (72 vs 24 items)" in md and "compared on the 24 shared items" in md
    deltas = pd.read_csv(tmp_path / "webextract_comparisons.csv", dtype=str)
    assert set(deltas["n"]) == {"24"} and set(deltas["verdict"]) == {"noise"}


def test_the_same_items_in_another_mode_are_refused(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["oracle-seed7"]], out_dir=tmp_path, labels=["a", "b"])
    assert "**Not compared**: different settings (seed: 42 vs 7)" in md


def test_the_command_line_writes_the_report_and_refuses_without_an_output_folder(evals, tmp_path, capsys):
    out = tmp_path / "report"
    assert report_main(["--webextract", str(evals["oracle"]), str(evals["abstain"]), "--labels", "oracle,abstain",
                        "--baseline", "abstain", "--out", str(out), "--quiet"]) == 0
    assert "### oracle vs abstain" in (out / "webextract_report.md").read_text()
    assert report_main(["--webextract", str(evals["oracle"])]) == 2
    assert "--webextract needs --out" in capsys.readouterr().err
