"""The webextract report from real evaluations (the oracle and the always-abstain policy through the runner):
the seed's layout, intervals everywhere, and comparisons only between the same items (by content) in the same mode;
the command line exits non-zero when it refuses one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from rlvr_core.envs.web.task import GENERATOR_VERSION
from rlvr_core.evaluation.runner import evaluate
from rlvr_core.reports.__main__ import main as report_main
from rlvr_core.reports.webextract import build_webextract_report
from rlvr_core.storage import open_store

pytestmark = pytest.mark.slow  # four real evaluations, about a minute


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real eval folders: oracle and abstain on the first 72 bench items, the oracle on the first 24, and the
    oracle on 72 with a changed engine setting (another mode)."""
    root = tmp_path_factory.mktemp("webextract-evals")
    store = open_store(str(root / "store"))
    runs = {"oracle": ("webextract-oracle", 72, None), "abstain": ("webextract-abstain", 72, None),
            "oracle24": ("webextract-oracle", 24, None), "oracle-seed7": ("webextract-oracle", 72, {"seed": 7})}
    for name, (backend, limit, override) in runs.items():
        evaluate(name, "webextract", output_dir=root / name, backend=backend, limit=limit, store=store,
                 settings_override=override, progress=False, verifier_workers=1)
    return {name: root / name for name in runs}


def altered(source: Path, target: Path, change) -> Path:
    """A copy of an eval folder whose completions.jsonl records went through `change` (record -> record)."""
    shutil.copytree(source, target)
    lines = (target / "completions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [change(json.loads(line)) for line in lines]
    (target / "completions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return target


def tables(out: Path) -> dict[str, pd.DataFrame]:
    return {n: pd.read_csv(out / f"webextract_{n}.csv", dtype=str) for n in ("models", "archetypes", "failures")}


def test_per_model_rows_carry_n_and_95_percent_intervals_for_reward_pass_and_perfect_rate(evals, tmp_path):
    build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    models = tables(tmp_path)["models"].set_index("model")
    assert list(models["n"]) == ["72", "72"]
    assert models.loc["oracle", "avg reward [95% CI]"] == "1.000 [1.000, 1.000]"
    assert models.loc["oracle", "perfect rate [95% CI]"].startswith("100.0% [94.9%")
    assert models.loc["abstain", "avg reward [95% CI]"] == "0.000 [0.000, 0.000]"  # it read nothing


def test_the_same_items_in_the_same_mode_are_compared_paired_with_a_verdict(evals, tmp_path):
    result = build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    assert "Same 72 items (by content hash" in result.markdown and result.refused == []
    deltas = pd.read_csv(tmp_path / "webextract_comparisons.csv", dtype=str).set_index("metric")
    assert deltas.loc["avg reward", "verdict"] == "loss" and deltas.loc["avg reward", "method"] == "paired bootstrap"
    assert deltas.loc["avg reward", "n"] == "72"


def test_the_archetype_table_has_every_archetype_and_best_and_worst_lines(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path,
                                 labels=["oracle", "abstain"]).markdown
    arch = tables(tmp_path)["archetypes"]
    assert len(arch) == 24 and set(arch["abstain (n)"]) == {"3"}
    assert arch.set_index("archetype").loc["attribute", "abstain − oracle"].startswith("-1.00")
    assert "abstain: best aggregate_min_max 0.00 (n=3)" in md and "oracle: worst " in md


def test_the_behaviour_table_counts_answers_given_without_reading(evals, tmp_path):
    build_webextract_report([evals["oracle"], evals["abstain"]], out_dir=tmp_path, labels=["oracle", "abstain"])
    behaviour = pd.read_csv(tmp_path / "webextract_behaviour.csv", dtype=str).set_index("model")
    assert behaviour.loc["abstain", "answered without reading"] == "72"
    assert behaviour.loc["oracle", "answered without reading"] == "0" and behaviour.loc["oracle", "unsafe"] == "0"


def test_failures_are_counted_by_archetype_and_difficulty(evals, tmp_path):
    build_webextract_report([evals["abstain"]], out_dir=tmp_path, labels=["abstain"])
    failures = tables(tmp_path)["failures"].set_index("archetype")
    assert list(failures.columns[:3]) == ["easy", "medium", "hard"]
    assert failures.loc["attribute", "easy"] == "1/1" and failures.loc["attribute", "failed"] == "3"


def test_unequal_sample_sizes_are_refused_like_the_seeds_caveat(evals, tmp_path):
    result = build_webextract_report([evals["oracle"], evals["oracle24"]], out_dir=tmp_path, labels=["a", "b"])
    assert "**Not compared**: different sample sizes (72 vs 24 items); different items (24 shared)" in result.markdown
    assert result.refused and not (tmp_path / "webextract_comparisons.csv").exists()
    assert "b − a" not in tables(tmp_path)["archetypes"].columns


def test_allow_unequal_compares_the_shared_items_only_and_flags_it(evals, tmp_path):
    result = build_webextract_report([evals["oracle"], evals["oracle24"]], out_dir=tmp_path, labels=["a", "b"],
                                     allow_unequal=True)
    assert "**Flagged**: different sample sizes (72 vs 24 items)" in result.markdown
    assert "compared on the 24 shared items" in result.markdown and result.refused == []
    deltas = pd.read_csv(tmp_path / "webextract_comparisons.csv", dtype=str)
    assert set(deltas["n"]) == {"24"} and set(deltas["verdict"]) == {"noise"}


def test_the_same_items_in_another_mode_are_refused(evals, tmp_path):
    md = build_webextract_report([evals["oracle"], evals["oracle-seed7"]], out_dir=tmp_path, labels=["a", "b"]).markdown
    assert "**Not compared**: different settings (seed: 42 vs 7)" in md


def test_items_with_the_same_ids_but_other_content_are_not_the_same_items(evals, tmp_path):
    current = GENERATOR_VERSION

    def regenerated(record):  # what a generator change that keeps ids looks like in an evaluation
        if record["index"] < 10:
            record = {**record, "content_hash": f"{record['index']:020d}", "generator_version": current + 1}
        return record

    changed = altered(evals["oracle"], tmp_path / "changed", regenerated)
    result = build_webextract_report([evals["oracle"], changed], out_dir=tmp_path / "out", labels=["a", "b"])
    assert (f"same ids, different content (10 items changed; generator versions {current} vs {current}, {current + 1})"
            in result.markdown)
    assert result.refused


def test_an_evaluation_without_content_hashes_is_never_compared(evals, tmp_path):
    legacy = altered(evals["oracle"], tmp_path / "legacy", lambda r: {k: v for k, v in r.items() if k != "content_hash"})
    result = build_webextract_report([evals["oracle"], legacy], out_dir=tmp_path / "out", labels=["a", "b"])
    assert "b has no item content hashes" in result.markdown and result.refused


def test_the_command_line_exits_non_zero_when_it_refuses_a_comparison(evals, tmp_path, capsys):
    out = tmp_path / "report"
    assert report_main(["--webextract", str(evals["oracle"]), str(evals["abstain"]), "--labels", "oracle,abstain",
                        "--baseline", "abstain", "--out", str(out), "--quiet"]) == 0
    assert "### oracle vs abstain" in (out / "webextract_report.md").read_text()
    unequal = ["--webextract", str(evals["oracle"]), str(evals["oracle24"]), "--labels", "a,b", "--out", str(out), "--quiet"]
    assert report_main(unequal) == 3
    assert "refused to compare" in capsys.readouterr().err
    assert (out / "webextract_report.md").exists()
    assert report_main([*unequal, "--allow-unequal"]) == 0
    assert report_main(["--webextract", str(evals["oracle"])]) == 2
    assert "--webextract needs --out" in capsys.readouterr().err
