"""Run EleutherAI's lm-evaluation-harness under our enforced settings and convert its results.

Why a wrapper: lm-eval's defaults differ run to run (batch size, seeds,
dtype, TP), and its code tasks execute model-written programs. One function
builds every invocation with the settings of `settings.py` (vLLM backend,
tensor_parallel_size=1, seed 42, temperature 0, max_model_len 4096,
gpu_memory_utilization 0.8, bfloat16), and sets the code-execution opt-ins
(`HF_ALLOW_CODE_EVAL=1`, `--confirm_run_unsafe_code`) only on the invocation
that holds code tasks — other tasks run in a separate invocation without them,
even if the caller's environment has the variable set.

The results JSON (`results_<date>.json` under `--output_path`) becomes one
`summary.json` per task in `<output_dir>/lm_eval-<task>/`, the form reports
read. lm-eval is an optional extra: `pip install 'rlvr-pipeline[lmeval]'`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rlvr_core.evaluation.settings import STANDARD, EvalSettings
from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_json_atomic

CODE_TASK_PREFIXES = ("mbpp", "humaneval", "ds1000", "apps", "livecodebench", "bigcodebench")
CODE_ENV = "HF_ALLOW_CODE_EVAL"


def is_code_task(task: str) -> bool:
    return task.lower().startswith(CODE_TASK_PREFIXES)


@dataclass(frozen=True)
class Invocation:
    """One lm-eval subprocess: its argv and the environment changes it needs."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str | None], ...]  # (name, value); None removes the variable
    tasks: tuple[str, ...]
    output_path: Path

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        for name, value in self.env:
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env


def model_args(model_path: str, settings: EvalSettings) -> str:
    """lm-eval's `--model_args` for the vLLM backend with our settings."""
    return ",".join([
        f"pretrained={model_path}", f"tensor_parallel_size={settings.tensor_parallel_size}",
        f"dtype={settings.dtype}", f"gpu_memory_utilization={settings.gpu_memory_utilization}",
        f"max_model_len={settings.max_model_len}", f"seed={settings.seed}",
    ])


def build_invocations(model_path: str, tasks: Sequence[str], *, output_dir: Path | str, num_fewshot: int | None = None,
                      limit: int | None = None, settings: EvalSettings = STANDARD, batch_size: str = "auto",
                      apply_chat_template: bool = False, python: str = sys.executable) -> list[Invocation]:
    """One invocation for the non-code tasks and one for the code tasks (only the latter may execute code)."""
    if not tasks:
        raise ValueError("lm_eval: tasks is empty. Fix: pass task names, e.g. ['gsm8k', 'ifeval']")
    if settings.tensor_parallel_size != 1:
        raise ValueError("lm_eval: tensor_parallel_size must be 1 (TP>1 has given badly wrong scores)")
    groups = [(tuple(t for t in tasks if not is_code_task(t)), False), (tuple(t for t in tasks if is_code_task(t)), True)]
    invocations = []
    for group, code in groups:
        if not group:
            continue
        out = Path(output_dir) / "raw" / ("code" if code else "default")
        argv = [python, "-m", "lm_eval", "--model", "vllm", "--model_args", model_args(model_path, settings),
                "--tasks", ",".join(group), "--batch_size", batch_size,
                "--gen_kwargs", f"temperature={settings.temperature}", "--seed", str(settings.seed),
                "--output_path", str(out)]
        if num_fewshot is not None:
            argv += ["--num_fewshot", str(num_fewshot)]
        if limit is not None:
            argv += ["--limit", str(limit)]
        if apply_chat_template:
            argv += ["--apply_chat_template"]
        if code:
            argv += ["--confirm_run_unsafe_code"]
        invocations.append(Invocation(tuple(argv), ((CODE_ENV, "1" if code else None),), group, out))
    return invocations


def _metric_name(key: str) -> str | None:
    """'exact_match,strict-match' -> 'exact_match_strict_match'; None for stderr and alias entries."""
    metric, _, flt = key.partition(",")
    if metric == "alias" or metric.endswith("_stderr"):
        return None
    name = metric if flt in ("", "none") else f"{metric}_{flt}"
    return name.replace("-", "_")


def convert_results(results: dict[str, Any], *, model: dict[str, Any], settings: EvalSettings = STANDARD
                    ) -> dict[str, dict[str, Any]]:
    """lm-eval's results JSON -> {task: summary dict in our `summary.json` form}."""
    try:
        task_results, n_samples = results["results"], results["n-samples"]
    except KeyError as err:
        raise ValueError(f"lm-eval results JSON has no {err.args[0]!r} section; is it from lm-eval >= 0.4.3?") from None
    summaries = {}
    for task, values in task_results.items():
        if task not in n_samples:  # a group aggregate, not a task with items
            continue
        metrics, stderr = {}, {}
        for key, value in values.items():
            name = _metric_name(key)
            if name is not None and isinstance(value, (int, float)):
                metrics[name] = float(value)
            elif key.split(",")[0].endswith("_stderr") and isinstance(value, (int, float)):
                stderr[_metric_name(key.replace("_stderr", "")) or key] = float(value)
        summaries[task] = {
            "benchmark": f"lm_eval:{task}",
            "n": int(n_samples[task]["effective"]),
            "expected_size": int(n_samples[task]["original"]),
            "primary_metric": next(iter(metrics)),
            "metrics": metrics,
            "stderr": stderr,
            "breakdowns": {},
            "settings": settings.to_dict(),
            "settings_overridden": {k: v for k, v in settings.to_dict().items() if STANDARD.to_dict()[k] != v},
            "standard_settings": settings == STANDARD,
            "model": model,
            "backend": "lm_eval/vllm",
            "lm_eval": {"version": results.get("versions", {}).get(task), "n_shot": results.get("n-shot", {}).get(task),
                        "git_hash": results.get("git_hash"), "model_args": results.get("config", {}).get("model_args")},
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    return summaries


def latest_results_json(output_path: Path) -> Path:
    """The newest `results_*.json` lm-eval wrote under `output_path` (it nests them by model name)."""
    found = sorted(output_path.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise FileNotFoundError(f"lm-eval wrote no results_*.json under {output_path}; see its output above")
    return found[-1]


def write_summaries(summaries: dict[str, dict[str, Any]], output_dir: Path | str) -> list[Path]:
    """One `<output_dir>/lm_eval-<task>/summary.json` per task."""
    paths = []
    for task, summary in summaries.items():
        folder = layout.lm_eval_dir(output_dir, task)
        folder.mkdir(parents=True, exist_ok=True)
        paths.append(write_json_atomic(layout.summary_path(folder), summary))
    return paths


def run_lm_eval(model_path: str, tasks: Sequence[str], *, output_dir: Path | str, **options: Any) -> dict[str, dict[str, Any]]:
    """Run lm-eval (as subprocesses) and write our summaries; returns them by task."""
    if importlib.util.find_spec("lm_eval") is None:
        raise ImportError("lm-eval is not installed. Fix: pip install 'rlvr-pipeline[lmeval]' (needs vLLM and a GPU)")
    from rlvr_core.evaluation.identity import model_identity

    settings = options.get("settings", STANDARD)
    summaries: dict[str, dict[str, Any]] = {}
    for invocation in build_invocations(model_path, tasks, output_dir=output_dir, **options):
        subprocess.run(list(invocation.argv), env=invocation.environment(), check=True)
        results = json.loads(latest_results_json(invocation.output_path).read_text())
        summaries.update(convert_results(results, model=model_identity(model_path), settings=settings))
    write_summaries(summaries, output_dir)
    return summaries
