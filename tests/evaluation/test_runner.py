"""The evaluation runner on the real tiny model: the three files, idempotency, overrides, crash-resume."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlvr_core.data import cache
from rlvr_core.data.loader import load_problems
from rlvr_core.data.registry import resolve
from rlvr_core.evaluation import EvalFolderConflict, evaluate, evaluate_on_gpu
from rlvr_core.evaluation.jsonl import read_records
from rlvr_core.reports import build_report
from rlvr_core.storage import open_store
from rlvr_core.verifiers import verify

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    return open_store(str(tmp_path_factory.mktemp("store")))


@pytest.fixture(scope="module")
def arith_eval(trained_tiny_model_dir: Path, store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "evals" / "base" / "arith"
    evaluate(str(trained_tiny_model_dir), "arith", output_dir=out, limit=64, device="cpu", batch_size=32,
             store=store, progress=False)
    return out


def test_tiny_model_on_arith_writes_completions_results_and_summary(arith_eval: Path, store):
    completions = read_records(arith_eval / "completions.jsonl")
    results = read_records(arith_eval / "results.jsonl")
    summary = json.loads((arith_eval / "summary.json").read_text())
    assert [r["index"] for r in completions] == [r["index"] for r in results] == list(range(64))
    problems = load_problems("arith", "test", store=store, limit=64)
    assert [c["id"] for c in completions] == [p.id for p in problems]
    assert completions[0]["prompt"] == problems[0].prompt + "\n"
    # Every reward is the verifier's verdict on the stored completion, and the summary aggregates exactly those.
    for problem, completion, result in zip(problems, completions, results):
        assert result["reward"] == verify(completion["completion"], problem).reward
    accuracy = sum(r["reward"] for r in results) / 64
    assert summary["metrics"]["accuracy"] == summary["metrics"]["reward_mean"] == accuracy
    assert 0 < accuracy < 1  # the warmed-up tiny model gets some, not all, right
    assert summary["n"] == 64 and summary["primary_metric"] == "accuracy"
    assert summary["settings"] == {"tensor_parallel_size": 1, "seed": 42, "temperature": 0.0, "max_model_len": 4096,
                                   "gpu_memory_utilization": 0.8, "dtype": "float32"}
    assert summary["standard_settings"] is True and summary["settings_overridden"] == {}
    assert summary["verifier_mode"] == "reference"  # evaluations never score in the strict training mode
    assert len(summary["model"]["content_hash"]) == 64 and "commit" in summary["git"]
    assert set(summary["breakdowns"]) == {"category", "difficulty"}


def test_an_evaluation_placed_on_one_gpu_runs_in_its_own_process_that_sees_only_that_gpu(
        arith_eval: Path, trained_tiny_model_dir, tmp_path: Path):
    # device="cpu" stands in for the child's only GPU on this CPU machine; the process and its view are real.
    summary = evaluate_on_gpu(3, device="cpu", model=str(trained_tiny_model_dir), benchmark="arith",
                              output_dir=tmp_path / "gpu3", limit=64, batch_size=32, store=str(tmp_path / "store"),
                              progress=False)
    assert summary["where"]["cuda_visible_devices"] == "3"
    assert os.environ.get("CUDA_VISIBLE_DEVICES") != "3"  # the parent's view is untouched
    in_process = json.loads((arith_eval / "summary.json").read_text())
    assert in_process["where"]["cuda_visible_devices"] == os.environ.get("CUDA_VISIBLE_DEVICES")
    assert summary["metrics"] == in_process["metrics"] and summary["key"] == in_process["key"]


def test_a_report_builds_from_the_real_evaluation(arith_eval: Path):
    markdown = build_report(arith_eval.parents[2])
    assert "| base " in markdown and "(n=64)" in markdown
    assert (arith_eval.parents[2] / "report.md").exists()


def test_same_key_returns_the_finished_summary_without_recomputing(arith_eval: Path, trained_tiny_model_dir, store):
    before = (arith_eval / "completions.jsonl").stat().st_mtime_ns
    summary = evaluate(str(trained_tiny_model_dir), "arith", output_dir=arith_eval, limit=64, device="cpu",
                       batch_size=8, store=store, progress=False)  # batch size is not part of the key
    assert summary == json.loads((arith_eval / "summary.json").read_text())
    assert (arith_eval / "completions.jsonl").stat().st_mtime_ns == before


def test_another_key_in_the_same_folder_is_refused(arith_eval: Path, trained_tiny_model_dir, store):
    with pytest.raises(EvalFolderConflict, match="choose another output_dir"):
        evaluate(str(trained_tiny_model_dir), "arith", output_dir=arith_eval, limit=10, device="cpu", store=store,
                 progress=False)


def test_items_that_changed_behind_the_same_prompts_are_a_new_evaluation(arith_eval: Path, trained_tiny_model_dir,
                                                                        store, tmp_path: Path):
    """The key hashes each item's content, not only the prompts: a generator change that keeps every prompt (here
    the answers change; webextract's prompts name a page whose content changed) is not the finished evaluation."""
    problems = load_problems("arith", "test", store=store)
    version = resolve("arith").source.version()
    same, changed = open_store(str(tmp_path / "same")), open_store(str(tmp_path / "changed"))
    cache.write_cache(same, "arith", "test", problems, source="offline:arith", revision=None, generator_version=version)
    edited = [dataclasses.replace(p, answer=str(int(p.answer) + 1)) for p in problems]
    cache.write_cache(changed, "arith", "test", edited, source="offline:arith", revision=None,
                      generator_version=version)
    finished = json.loads((arith_eval / "summary.json").read_text())
    assert evaluate(str(trained_tiny_model_dir), "arith", output_dir=arith_eval, limit=64, device="cpu",
                    store=same, progress=False) == finished
    with pytest.raises(EvalFolderConflict, match="choose another output_dir"):
        evaluate(str(trained_tiny_model_dir), "arith", output_dir=arith_eval, limit=64, device="cpu", store=changed,
                 progress=False)


def test_cpu_threads_cap_torch_for_the_evaluation_and_a_bad_count_is_refused(trained_tiny_model_dir, store,
                                                                             tmp_path: Path):
    """In a fresh process: torch's thread count is the whole process's, so any other thread a test process keeps
    (from earlier tests) may set it too."""
    script = ("import sys, torch; from rlvr_core.evaluation import evaluate; torch.set_num_threads(2); "
              "evaluate(sys.argv[1], 'arith', output_dir=sys.argv[2], limit=4, device='cpu', store=sys.argv[3], "
              "progress=False, cpu_threads=1); print(torch.get_num_threads())")
    out = subprocess.run([sys.executable, "-c", script, str(trained_tiny_model_dir), str(tmp_path / "one"),
                          store.root], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "1"
    with pytest.raises(ValueError, match=r"cpu_threads=0 must be >= 1"):
        evaluate(str(trained_tiny_model_dir), "arith", output_dir=tmp_path / "zero", cpu_threads=0, store=store)


def test_overridden_settings_are_recorded(trained_tiny_model_dir, store, tmp_path: Path):
    summary = evaluate(str(trained_tiny_model_dir), "arith", output_dir=tmp_path, limit=8, device="cpu", store=store,
                       settings_override={"temperature": "0.7", "seed": 42}, progress=False)
    assert summary["settings_overridden"] == {"temperature": 0.7}
    assert summary["standard_settings"] is False and summary["settings"]["temperature"] == 0.7
    with pytest.raises(ValueError, match="unknown setting 'tp'"):
        evaluate(str(trained_tiny_model_dir), "arith", output_dir=tmp_path / "x", settings_override={"tp": 2},
                 store=store)


def test_sigkill_mid_run_then_rerun_gives_identical_results_without_duplicates(
        trained_tiny_model_dir, store, tmp_path: Path):
    limit, batch = 48, 4
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "rlvr_core.evaluation", str(trained_tiny_model_dir), "arith", "--out", str(out),
           "--limit", str(limit), "--batch-size", str(batch), "--device", "cpu", "--store", store.root,
           "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(read_records(out / "results.jsonl")) < 2 * batch and proc.poll() is None:
        assert time.monotonic() < deadline, "evaluation made no progress"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = len(read_records(out / "results.jsonl"))
    generated_before = len(read_records(out / "completions.jsonl"))
    assert 0 < finished_before < limit, "the kill must land mid-run"
    with (out / "completions.jsonl").open("a") as handle:  # a write cut short by the kill
        handle.write('{"index": 9999, "completion": "tor')

    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    reference = tmp_path / "reference"
    evaluate(str(trained_tiny_model_dir), "arith", output_dir=reference, limit=limit, device="cpu", batch_size=batch,
             store=store, progress=False)

    def items(folder: Path, name: str) -> list[tuple]:
        return [(r["index"], r.get("completion"), r.get("reward")) for r in read_records(folder / name)]

    for name in ("completions.jsonl", "results.jsonl"):
        got = items(out, name)
        assert [i for i, *_ in got] == list(range(limit)), f"{name}: duplicates or gaps"
        assert got == items(reference, name)
    resumed, fresh = (json.loads((d / "summary.json").read_text()) for d in (out, reference))
    assert resumed["metrics"] == fresh["metrics"]
    assert resumed["timing"]["generated_items"] == limit - generated_before  # finished work was not redone


def test_the_vllm_engine_gets_the_evaluations_batch_size_which_is_also_its_write_chunk():
    from rlvr_core.evaluation.runner import _backend_options
    from rlvr_core.evaluation.settings import STANDARD

    assert _backend_options("vllm", STANDARD, 256)["batch_size"] == 256
