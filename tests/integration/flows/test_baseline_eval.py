"""`baseline-eval` (the nightly deployment) evaluates what the node it lands on can run.

The nightly deployment passes no config: on a CPU-only node (like this one) the
run evaluates the tiny model on arith instead of downloading Qwen3-1.7B-Base and
failing offline every night.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import TEST_CACHE

pytestmark = pytest.mark.slow


def test_without_a_config_a_cpu_node_evaluates_the_tiny_model_on_arith(
        prefect_harness: str, trained_tiny_model_dir: Path, tmp_path: Path) -> None:
    from flows.baseline_eval import baseline_eval
    from rlvr_core.devices.gpu_state import discover_gpus

    if discover_gpus():
        pytest.skip("this node has GPUs, so the nightly picks the gsm8k config")
    evals_root = tmp_path / "baselines"
    results = baseline_eval(limit=8, evals_root=str(evals_root), overrides=[f"storage.root={TEST_CACHE / 'store'}"])

    assert list(results) == ["tiny:arith"]
    assert list(results["tiny:arith"]) == ["arith"]
    summary_file = next((evals_root / "tiny_arith").rglob("summary.json"))
    summary = json.loads(summary_file.read_text())
    assert summary["n"] == 8 and 0.0 <= summary["metrics"]["accuracy"] <= 1.0


def test_a_config_without_baseline_models_is_refused_with_the_fix(prefect_harness: str) -> None:
    from flows.baseline_eval import baseline_eval

    state = baseline_eval(config="mbpp", overrides=["evaluation.baseline_models=[]"], return_state=True)
    assert state.is_failed() and "lists no evaluation.baseline_models. Fix" in state.message


def test_the_config_names_the_nightly_benchmarks_and_they_default_to_its_own() -> None:
    from rlvr_core.config import load_config

    assert load_config("gsm8k").evaluation.baseline_benchmarks == ["gsm8k", "math", "ifeval", "mbpp"]
    tiny = load_config("tiny-arith").evaluation
    assert tiny.baseline_models == ["tiny:arith"] and tiny.baseline_benchmarks == []
