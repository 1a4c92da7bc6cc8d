"""IFEval-style scoring through the real ifeval verifier: strict vs loose, prompt vs instruction level."""

from __future__ import annotations

import json

import pytest

from rlvr_core.problem import Problem
from rlvr_core.evaluation.benchmarks import get_benchmark
from rlvr_core.evaluation.metrics import summarise_records
from rlvr_core.evaluation.scoring import score_completions
from rlvr_core.verifiers import VerifierPool

pytest.importorskip("rlvr_core.verifiers.ifeval.verifier", reason="the ifeval verifier has not landed yet")

CHECKS = [{"instruction_id": "change_case:english_lowercase", "kwargs": {}},
          {"instruction_id": "punctuation:no_comma", "kwargs": {}}]


def test_a_preamble_line_fails_strict_but_passes_loose():
    item = Problem(id="k1", source="google/IFEval", prompt="Write in lowercase without commas.",
                   answer=json.dumps(CHECKS), verifier="ifeval")
    texts = ["Sure, Here It Is:\nhello world and goodbye", "hello world and goodbye", "Hello, World"]
    with VerifierPool(workers=1) as pool:
        records = score_completions(get_benchmark("ifeval"), [item] * 3, texts, pool)
    assert [r["instructions"]["strict"] for r in records] == [[False, False], [True, True], [False, False]]
    assert [r["instructions"]["loose"] for r in records] == [[True, True], [True, True], [False, False]]
    metrics = summarise_records(records)["metrics"]
    assert metrics["prompt_level_strict_acc"] == pytest.approx(1 / 3)
    assert metrics["prompt_level_loose_acc"] == pytest.approx(2 / 3)
    assert metrics["inst_level_strict_acc"] == pytest.approx(2 / 6)
    assert metrics["inst_level_loose_acc"] == pytest.approx(4 / 6)
    assert records[2]["detail"] == "failed: change_case:english_lowercase, punctuation:no_comma"
