"""`lm-eval`: run EleutherAI's lm-evaluation-harness on a checkpoint, results beside the project's own evals.

The wrapper (`rlvr_core.evaluation.lm_eval`) enforces the evaluation settings
(vLLM, TP 1, seed 42, greedy, bf16) and lets only code tasks execute code.
Summaries land in `<run>/evals/<step>/lm_eval-<task>/summary.json` (or under
`evals_root` for a model outside a run), where `aggregate-results` and the
report read them. lm-eval and vLLM are an optional extra for GPU nodes
(`pip install 'rlvr-pipeline[lmeval]'`); without them the run fails at once
with that line, before any work.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from prefect import flow, task

from orchestration.artifacts import artifact_key, publish_results_table
from orchestration.bad_input import BadParameter, fails_cleanly
from orchestration.retry import retry_transient
from rlvr_core.rundir.evals import results_dir
from rlvr_core.rundir.layout import run_dir_of

MISSING_EXTRA = ("lm-eval is not installed on this worker. Fix: pip install 'rlvr-pipeline[lmeval]' "
                 "on the GPU nodes (it needs vLLM), or run this deployment on a pool whose workers have it")


@task(name="lm-eval", retries=1, retry_delay_seconds=20, retry_condition_fn=retry_transient)
def run_harness(checkpoint: str, tasks: list[str], output_dir: str, limit: int | None,
                num_fewshot: int | None) -> dict[str, dict[str, Any]]:
    from rlvr_core.evaluation.lm_eval import run_lm_eval

    return run_lm_eval(checkpoint, tasks, output_dir=output_dir, limit=limit, num_fewshot=num_fewshot)


@flow(name="lm-eval", flow_run_name="lm-eval-{tasks}", log_prints=True)
@fails_cleanly
def lm_eval_checkpoint(checkpoint: str, tasks: list[str], limit: int | None = None, num_fewshot: int | None = None,
                       evals_root: str | None = None) -> dict[str, dict[str, Any]]:
    """Summaries by lm-eval task for `checkpoint` (a published checkpoint, a model folder or a hub id)."""
    if not tasks:
        raise BadParameter("tasks is empty. Fix: pass lm-eval task names, e.g. ['gsm8k', 'ifeval']")
    if importlib.util.find_spec("lm_eval") is None:
        raise BadParameter(MISSING_EXTRA)
    if evals_root is None and run_dir_of(checkpoint) is None:
        raise BadParameter(f"{checkpoint}: not a checkpoint inside a run, so its results have no run folder. "
                           f"Fix: pass evals_root, e.g. .rlvr/baselines/<model>")
    output_dir = results_dir(checkpoint, "lm_eval", evals_root).parent
    summaries = run_harness(checkpoint, list(tasks), str(output_dir), limit, num_fewshot)
    label = Path(checkpoint).name
    publish_results_table(artifact_key(label, "lm-eval-results"), {label: summaries},
                          f"lm-eval results of {checkpoint}")
    return summaries
