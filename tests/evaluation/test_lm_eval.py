"""The lm-eval wrapper: invocations carry our settings, code opt-ins only for code tasks, results convert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.evaluation.lm_eval import build_invocations, convert_results, run_lm_eval, write_summaries
from rlvr_core.reports import build_report

FIXTURE = Path(__file__).parent / "fixtures" / "lm_eval_results.json"
MODEL = {"path": "Qwen/Qwen3-1.7B-Base", "content_hash": "name:Qwen/Qwen3-1.7B-Base", "kind": "remote", "step": None}


def test_settings_go_into_model_args_and_flags(tmp_path: Path):
    [inv] = build_invocations("/ckpt/step-50", ["gsm8k", "ifeval"], output_dir=tmp_path, num_fewshot=8, python="py")
    argv = list(inv.argv)
    assert argv[:5] == ["py", "-m", "lm_eval", "--model", "vllm"]
    assert argv[argv.index("--model_args") + 1] == (
        "pretrained=/ckpt/step-50,tensor_parallel_size=1,dtype=bfloat16,gpu_memory_utilization=0.8,"
        "max_model_len=4096,seed=42")
    assert argv[argv.index("--tasks") + 1] == "gsm8k,ifeval"
    assert argv[argv.index("--gen_kwargs") + 1] == "temperature=0.0"
    assert argv[argv.index("--seed") + 1] == "42" and argv[argv.index("--num_fewshot") + 1] == "8"


def test_code_execution_is_allowed_only_in_the_code_task_invocation(tmp_path: Path):
    plain, code = build_invocations("m", ["gsm8k", "mbpp", "humaneval"], output_dir=tmp_path)
    assert plain.tasks == ("gsm8k",) and code.tasks == ("mbpp", "humaneval")
    assert "--confirm_run_unsafe_code" not in plain.argv and "--confirm_run_unsafe_code" in code.argv
    inherited = {"HF_ALLOW_CODE_EVAL": "1", "PATH": "/bin"}  # set by the caller's shell: must not leak
    assert "HF_ALLOW_CODE_EVAL" not in plain.environment(inherited)
    assert code.environment({"PATH": "/bin"})["HF_ALLOW_CODE_EVAL"] == "1"


def test_tensor_parallel_other_than_one_is_refused(tmp_path: Path):
    from rlvr_core.evaluation.settings import apply_overrides

    settings, _ = apply_overrides({"tensor_parallel_size": 2})
    with pytest.raises(ValueError, match="tensor_parallel_size must be 1"):
        build_invocations("m", ["gsm8k"], output_dir=tmp_path, settings=settings)


def test_results_json_converts_to_our_summaries():
    summaries = convert_results(json.loads(FIXTURE.read_text()), model=MODEL)
    gsm8k, ifeval = summaries["gsm8k"], summaries["ifeval"]
    assert gsm8k["benchmark"] == "lm_eval:gsm8k" and gsm8k["n"] == 1319
    assert gsm8k["metrics"] == {"exact_match_strict_match": 0.6960, "exact_match_flexible_extract": 0.7013}
    assert gsm8k["primary_metric"] == "exact_match_strict_match"
    assert gsm8k["stderr"]["exact_match_flexible_extract"] == 0.0126
    assert gsm8k["lm_eval"]["n_shot"] == 5 and gsm8k["standard_settings"] is True
    assert ifeval["n"] == 541 and ifeval["metrics"]["inst_level_loose_acc"] == 0.3525
    assert set(ifeval["stderr"]) == {"prompt_level_strict_acc", "prompt_level_loose_acc"}  # "N/A" is dropped


def test_converted_summaries_feed_the_report(tmp_path: Path):
    write_summaries(convert_results(json.loads(FIXTURE.read_text()), model=MODEL), tmp_path / "evals" / "base")
    markdown = build_report(tmp_path)
    assert "69.6% (n=1319)" in markdown and "21.3% (n=541)" in markdown


def test_a_results_file_without_sample_counts_is_explained():
    with pytest.raises(ValueError, match="no 'n-samples' section"):
        convert_results({"results": {}}, model=MODEL)


def test_missing_lm_eval_names_the_extra_to_install(tmp_path: Path):
    import importlib.util

    if importlib.util.find_spec("lm_eval") is not None:
        pytest.skip("lm-eval is installed here")
    with pytest.raises(ImportError, match=r"pip install 'rlvr-pipeline\[lmeval\]'"):
        run_lm_eval("m", ["gsm8k"], output_dir=tmp_path)
