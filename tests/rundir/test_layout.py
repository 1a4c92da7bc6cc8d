"""The run folder's names are its on-disk format: spelled here once, so existing run folders stay readable."""

from __future__ import annotations

from pathlib import Path

from rlvr_core.rundir import layout


def test_the_names_on_disk_are_the_format_existing_run_folders_use(tmp_path: Path) -> None:
    run = tmp_path / "tiny-arith_20260101-120000"
    assert [layout.config_path(run), layout.run_record_path(run), layout.patches_dir(run),
            layout.device_plan_path(run)] == [run / "config.yaml", run / "run.json", run / "patches",
                                              run / "device_plan.json"]
    assert [layout.trace_path(run, name) for name in layout.TRACE_FILES] == [
        run / "traces" / "trace.jsonl", run / "traces" / "samples.jsonl", run / "traces" / "rollouts.jsonl"]
    assert layout.checkpoint_dir(run, 50) == run / "checkpoints" / "step-000050"
    assert layout.manifest_path(layout.checkpoint_dir(run, 50)).name == "checkpoint.json"
    folder = layout.eval_dir(run, "step-000050", "gsm8k")
    assert folder == run / "evals" / "step-000050" / "gsm8k"
    assert (layout.summary_path(folder).name, layout.claim_path(folder).name) == ("summary.json", ".claim")
    assert layout.pass_at_k_shard_dir(folder, 1, 4) == folder / "shards" / "shard-1-of-4"
    assert layout.lm_eval_dir(folder, "mmlu") == folder / "lm_eval-mmlu"
    assert [layout.results_path(run), layout.reward_curve_path(run), layout.report_path(run)] == [
        run / "RESULTS.md", run / "reward_curve.png", run / "report.md"]


def test_checkpoint_names_sort_in_step_order() -> None:
    steps = [100, 2, 1000, 50]
    assert sorted(layout.checkpoint_name(s) for s in steps) == [layout.checkpoint_name(s) for s in sorted(steps)]


def test_the_run_of_a_checkpoint_is_the_folder_it_was_published_in(tmp_path: Path) -> None:
    assert layout.run_dir_of(layout.checkpoint_dir(tmp_path / "run", 4)) == tmp_path / "run"
    assert layout.run_dir_of(tmp_path / "models" / "qwen") is None
    assert layout.run_dir_of("Qwen/Qwen3-1.7B-Base") is None


def test_only_a_folder_with_its_manifest_is_a_checkpoint(tmp_path: Path) -> None:
    folder = layout.checkpoint_dir(tmp_path, 2)
    folder.mkdir(parents=True)
    assert not layout.is_checkpoint(folder)
    layout.manifest_path(folder).write_text("{}")
    assert layout.is_checkpoint(folder)


def test_summary_paths_lists_finished_evaluations_only(tmp_path: Path) -> None:
    done, running = layout.eval_dir(tmp_path, "step-000002", "arith"), layout.eval_dir(tmp_path, "base", "arith")
    for folder in (done, running):
        folder.mkdir(parents=True)
    layout.summary_path(done).write_text("{}")
    assert layout.summary_paths(layout.evals_dir(tmp_path)) == [layout.summary_path(done)]
