"""The container entry point for real on CPU: SageMaker's /opt/ml layout under a temp root, the tiny model.

A SIGTERM (what SageMaker sends on a stop or a spot interruption) as soon as
the first checkpoint is on disk, then the same job started again on the same
folders:
training resumes from the checkpoint and the model folder gets the final
checkpoint and the report files, with every step in the trace once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlvr_core.cloud.sagemaker import resolved_yaml
from rlvr_core.cloud.sagemaker_entry import ROOT_ENV, Layout
from rlvr_core.config import load_config
from rlvr_core.rundir.checkpoints import list_checkpoints

MAX_STEPS = 4


def make_layout(root: Path, model_dir: Path, hyperparameters: dict[str, str]) -> Layout:
    """What SageMaker puts in the container: the channel's config.yaml and hyperparameters.json."""
    layout = Layout(root)
    config = load_config("tiny-arith", [
        f"model.name_or_path={model_dir}", f"storage.root={root.parent / 'store'}",
        "sampling.prompts_per_step=4", "sampling.group_size=4", "training.eval_every=0",
        "training.torch_threads=1", "checkpointing.every_steps=1"])
    layout.config.parent.mkdir(parents=True)
    layout.config.write_text(resolved_yaml(config))
    layout.hyperparameters.parent.mkdir(parents=True)
    layout.hyperparameters.write_text(json.dumps(hyperparameters))
    return layout


@pytest.fixture
def cwd() -> Iterator[Path]:
    """The container's working folder; short, because Ray's socket paths (under ./.rlvr/ray) have a length limit."""
    folder = Path(tempfile.mkdtemp(prefix="rlvr-sm-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def start_entry(layout: Layout, cwd: Path, stdout=subprocess.PIPE) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "rlvr_core.cloud.sagemaker_entry", "train"], cwd=cwd,
                            env={**os.environ, ROOT_ENV: str(layout.root)}, stdout=stdout,
                            stderr=subprocess.STDOUT, text=True)


@pytest.mark.slow
def test_a_stopped_job_restarted_resumes_and_exports_the_final_checkpoint(trained_tiny_model_dir, tmp_path,
                                                                          cwd) -> None:
    layout = make_layout(tmp_path / "ml", trained_tiny_model_dir, {"training.max_steps": str(MAX_STEPS)})
    log = tmp_path / "first-attempt.log"
    with open(log, "w") as out:
        first = start_entry(layout, cwd, stdout=out)
    try:
        # Watched on disk, not through the checkpoint event: the event follows the checkpoint's background
        # commit and the entry's relay, while the stop must land with steps still to go.
        while first.poll() is None and not list_checkpoints(layout.run_dir / "checkpoints"):
            time.sleep(0.02)
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=120)
    finally:
        first.kill()
    steps = [c.step for c in list_checkpoints(layout.run_dir / "checkpoints")]
    assert first.returncode == 128 + signal.SIGTERM and steps and MAX_STEPS not in steps, \
        f"the stop must land mid-run: {first.returncode} {steps}\n{log.read_text()[-3000:]}"

    second = start_entry(layout, cwd)
    output, _ = second.communicate(timeout=600)
    assert second.returncode == 0, output[-3000:]
    assert f"resuming: {sys.executable} -m rlvr_core.grpo.train training.max_steps={MAX_STEPS} --resume" in output
    model = layout.model_dir
    final = f"step-{MAX_STEPS:06d}"
    assert (model / final / "checkpoint.json").is_file()
    assert [p.name for p in model.glob("step-*")] == [final]
    assert "continuing from step-" in (model / "RESULTS.md").read_text()
    trace = (model / "traces" / "trace.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in trace] == list(range(1, MAX_STEPS + 1))
    assert (model / "config.yaml").is_file() and (model / "run.json").is_file()


def test_a_failed_training_leaves_sagemaker_a_failure_reason(tmp_path, cwd) -> None:
    layout = make_layout(tmp_path / "ml", tmp_path / "no-model", {"training.max_steps": "-1"})
    entry = start_entry(layout, cwd)
    output, _ = entry.communicate(timeout=120)
    assert entry.returncode == 1, output
    reason = layout.failure.read_text()
    assert reason.startswith("training exited with status 2.") and "training.max_steps = -1" in reason
    assert not layout.model_dir.exists()
