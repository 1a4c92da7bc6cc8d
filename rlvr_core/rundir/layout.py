"""Every name in a run folder, and the small functions that join them into paths.

The run folder is how the trainer, the flow, evaluations, reports and sync
talk to each other, so its names are spelled once, here; everything else asks
this module. The names are the on-disk format: changing one makes existing
run folders unreadable.

    <runs_dir>/<name>_<YYYYMMDD-HHMMSS>/
        config.yaml, run.json, patches/, device_plan.json
        traces/          trace.jsonl, samples.jsonl, rollouts.jsonl, rollout_settings.json, ray_cluster.json
        checkpoints/     step-NNNNNN/ (a Hugging Face folder; checkpoint.json written last)
        evals/           <step-NNNNNN | base>/<benchmark>/ (completions.jsonl, results.jsonl, eval_key.json,
                         summary.json when done, .claim while held; pass@k shards and lm-eval tasks inside)
        RESULTS.md, reward_curve.png, report.md (with report_<table>.csv and metric_vs_step.png)
        .sync/           what was last copied to each store (hidden files are never copied)

Path functions take a folder and return a `Path`; they create nothing.
"""

from __future__ import annotations

from pathlib import Path

# -- the run folder's top level ------------------------------------------------------------------------------
CONFIG = "config.yaml"
RUN_RECORD = "run.json"
PATCHES = "patches"
DEVICE_PLAN = "device_plan.json"
TRACES = "traces"
CHECKPOINTS = "checkpoints"
EVALS = "evals"
RESULTS = "RESULTS.md"
REWARD_CURVE = "reward_curve.png"
REPORT = "report.md"
REPORT_PLOT = "metric_vs_step.png"
REPORT_TABLE = "report_{name}.csv"
SYNC_RECORDS = ".sync"  # what `rundir.sync` last copied to each store; hidden, so never copied itself
SUBDIRS = (PATCHES, TRACES, CHECKPOINTS, EVALS)  # created with the run folder

# -- traces/ ---------------------------------------------------------------------------------------------------
TRACE = "trace.jsonl"
SAMPLES = "samples.jsonl"
ROLLOUTS = "rollouts.jsonl"
TRACE_FILES = (TRACE, SAMPLES, ROLLOUTS)  # appended per step, cut back on resume
ROLLOUT_SETTINGS = "rollout_settings.json"
RAY_CLUSTER = "ray_cluster.json"

# -- checkpoints/ ----------------------------------------------------------------------------------------------
CHECKPOINT_MANIFEST = "checkpoint.json"
CHECKPOINT_PREFIX = "step-"

# -- evals/<label>/<benchmark>/ ----------------------------------------------------------------------------
BASE_LABEL = "base"  # the label of a model that is not one of the run's checkpoints
EVAL_COMPLETIONS = "completions.jsonl"
EVAL_RESULTS = "results.jsonl"
EVAL_KEY = "eval_key.json"
EVAL_SUMMARY = "summary.json"  # written last: its presence means the evaluation is done
CLAIM = ".claim"
PASS_AT_K_SHARDS = "shards"
PASS_AT_K_SAMPLES = "samples.jsonl"
PASS_AT_K_SETTINGS = "settings.json"
PASS_AT_K_RESULT = "pass_at_k.json"
LM_EVAL_PREFIX = "lm_eval-"


def config_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / CONFIG


def run_record_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / RUN_RECORD


def patches_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / PATCHES


def device_plan_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / DEVICE_PLAN


def traces_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / TRACES


def trace_path(run_dir: Path | str, name: str = TRACE) -> Path:
    """A file in `traces/`: `trace.jsonl` unless `name` says which."""
    return traces_dir(run_dir) / name


def checkpoints_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / CHECKPOINTS


def checkpoint_name(step: int) -> str:
    """`step-000050`: zero-padded so names sort in step order."""
    return f"{CHECKPOINT_PREFIX}{step:06d}"


def checkpoint_dir(run_dir: Path | str, step: int) -> Path:
    return checkpoints_dir(run_dir) / checkpoint_name(step)


def manifest_path(checkpoint: Path | str) -> Path:
    return Path(str(checkpoint)) / CHECKPOINT_MANIFEST


def is_checkpoint(path: Path | str) -> bool:
    """A published checkpoint: a folder whose manifest exists (it is written last)."""
    return manifest_path(path).is_file()


def run_dir_of(checkpoint: Path | str) -> Path | None:
    """The run folder holding `<run>/checkpoints/<name>`, or None for a folder outside a run."""
    path = Path(str(checkpoint))
    return path.parent.parent if path.parent.name == CHECKPOINTS else None


def evals_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / EVALS


def eval_dir(run_dir: Path | str, checkpoint_or_base: str, benchmark: str) -> Path:
    """`<run>/evals/<step-NNNNNN | base>/<benchmark>/`: one evaluation's folder."""
    return eval_dir_in(evals_dir(run_dir), checkpoint_or_base, benchmark)


def eval_dir_in(evals_root: Path | str, checkpoint_or_base: str, benchmark: str) -> Path:
    """The same folder under an `evals/`-shaped root of the caller's choosing (a model outside any run)."""
    return Path(evals_root) / checkpoint_or_base / benchmark


def summary_path(eval_folder: Path | str) -> Path:
    return Path(eval_folder) / EVAL_SUMMARY


def claim_path(eval_folder: Path | str) -> Path:
    return Path(eval_folder) / CLAIM


def summary_paths(evals_root: Path | str) -> list[Path]:
    """Every finished evaluation's `summary.json` under an `evals/` folder, sorted."""
    return sorted(Path(evals_root).glob(f"*/*/{EVAL_SUMMARY}"))


def pass_at_k_shards_dir(eval_folder: Path | str) -> Path:
    return Path(eval_folder) / PASS_AT_K_SHARDS


def pass_at_k_shard_dir(eval_folder: Path | str, shard: int, shards: int) -> Path:
    """`<eval folder>/shards/shard-i-of-m/`, which holds that shard's `samples.jsonl`."""
    return pass_at_k_shards_dir(eval_folder) / f"shard-{shard}-of-{shards}"


def lm_eval_dir(eval_folder: Path | str, task: str) -> Path:
    """`<eval folder>/lm_eval-<task>/`, which holds that task's `summary.json`."""
    return Path(eval_folder) / f"{LM_EVAL_PREFIX}{task}"


def results_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / RESULTS


def reward_curve_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / REWARD_CURVE


def report_path(run_dir: Path | str) -> Path:
    return Path(run_dir) / REPORT


def sync_records_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / SYNC_RECORDS


def report_table_path(out_dir: Path | str, name: str) -> Path:
    """`report_<name>.csv`, one per table of `report.md`, beside it."""
    return Path(out_dir) / REPORT_TABLE.format(name=name)
