"""`lm-eval/checkpoint`: refuses at once, with the fix, what it cannot run; writes beside the project's evals.

lm-eval runs through vLLM (the `lmeval` extra, GPU nodes), which CPU CI does
not install: the run itself is exercised only where the extra is present.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HAS_LM_EVAL = importlib.util.find_spec("lm_eval") is not None and importlib.util.find_spec("vllm") is not None


def test_without_the_extra_the_run_fails_at_once_naming_it(prefect_harness: str, tmp_path: Path) -> None:
    if HAS_LM_EVAL:
        pytest.skip("lm-eval and vLLM are installed here")
    from flows.lm_eval_checkpoint import lm_eval_checkpoint

    state = lm_eval_checkpoint(str(tmp_path / "model"), ["gsm8k"], evals_root=str(tmp_path / "evals"),
                               return_state=True)
    assert state.is_failed() and "pip install 'rlvr-pipeline[lmeval]'" in state.message
    assert not (tmp_path / "evals").exists(), "nothing written for a run that could not start"


def test_no_tasks_is_a_bad_parameter(prefect_harness: str, tmp_path: Path) -> None:
    from flows.lm_eval_checkpoint import lm_eval_checkpoint

    state = lm_eval_checkpoint(str(tmp_path), [], return_state=True)
    assert state.is_failed() and state.message.startswith("tasks is empty. Fix:")


@pytest.mark.skipif(not HAS_LM_EVAL, reason="lm-eval runs through vLLM: install the lmeval extra on a GPU node")
def test_results_land_beside_the_projects_own_evals(prefect_harness: str, trained_tiny_model_dir: Path,
                                                    tmp_path: Path) -> None:
    from flows.lm_eval_checkpoint import lm_eval_checkpoint

    summaries = lm_eval_checkpoint(str(trained_tiny_model_dir), ["arithmetic_2da"], limit=8,
                                   evals_root=str(tmp_path / "evals"))
    assert (tmp_path / "evals" / "base" / "lm_eval-arithmetic_2da" / "summary.json").is_file()
    assert summaries["arithmetic_2da"]["n"] == 8
