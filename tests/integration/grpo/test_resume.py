"""Resume from anything, on CPU: every way a real training process can be killed ends in the same weights.

N steps straight == the same run SIGKILLed (after a checkpoint, or before the
first one) and resumed. Why bit-exact is the right bar: with `max_staleness:
0` nothing is in flight at a checkpoint, sampling seeds derive from a request
counter that the checkpoint stores, weights round-trip through fp32
safetensors unchanged, and the optimizer, scheduler and RNG states are
restored; the CPU kernels run with a fixed thread count
(`training.torch_threads=1`). Any difference is a resume bug. The trace must
hold every step once, whatever the kill left in it (a torn last line in each
file, rows of steps after the checkpoint); damage a crash cannot cause (a bad
line mid-file) stops the resume with the file and line.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from safetensors.numpy import load_file

from rlvr_core.rundir.checkpoints import list_checkpoints
from rlvr_core.config import load_config
from rlvr_core.grpo import train
from rlvr_core.grpo.driver_session import ResumeError
from rlvr_core.grpo.trace import FILES, read_trace

pytestmark = pytest.mark.slow
METRICS = ("reward_mean", "loss", "kl", "grad_norm", "tokens")
ROWS_PER_STEP = {"trace.jsonl": 1, "samples.jsonl": 4, "rollouts.jsonl": 16}  # 4 prompts x 4 samples


@pytest.fixture(scope="module")
def config(trained_tiny_model_dir, tmp_path_factory):
    """tiny-arith shrunk (as in conftest's tiny_config), shared by the module so one straight run serves all tests."""
    root = tmp_path_factory.mktemp("resume")
    return load_config("tiny-arith", [
        f"model.name_or_path={trained_tiny_model_dir}", f"storage.root={root / 'store'}",
        f"run.runs_dir={root / 'runs'}", "sampling.prompts_per_step=4", "sampling.group_size=4",
        "training.max_steps=4", "training.eval_every=0", "checkpointing.every_steps=2",
        "training.torch_threads=1", "grpo.kl_beta=0.04"])


@pytest.fixture(scope="module")
def straight(ray_cluster, config, tmp_path_factory):
    return train(config, run_dir=tmp_path_factory.mktemp("straight") / "run")


KILLED_TRAINER = Path(__file__).with_name("killed_trainer.py")


def killed_run(ray_cluster: str, config, run_dir: Path, kill_step: int, *overrides: str) -> None:
    """Run a real trainer process on `config` that SIGKILLs itself after step `kill_step` (see killed_trainer.py:
    the kill point is the driver's own, so a slow reader cannot let the run go past it)."""
    config_file = run_dir.parent / f"{run_dir.name}.config.yaml"
    config_file.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    done = subprocess.run([sys.executable, str(KILLED_TRAINER), str(config_file), str(run_dir), str(kill_step),
                           *overrides],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "RAY_ADDRESS": ray_cluster})
    assert done.returncode == -signal.SIGKILL, f"the trainer was not killed: {done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def killed_after_checkpoint(ray_cluster, config, tmp_path_factory) -> Path:
    """A run folder SIGKILLed after step 3: its step-2 checkpoint is complete and step 3's trace rows are written
    (rows a resume must drop). Tests copy it before changing it."""
    run_dir = tmp_path_factory.mktemp("killed") / "run"
    killed_run(ray_cluster, config, run_dir, 3)
    assert [c.step for c in list_checkpoints(run_dir / "checkpoints")] == [2]
    assert max(row["step"] for row in read_trace(run_dir)) == 3
    return run_dir


def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run_dir, tmp_path / run_dir.name, symlinks=True))


def weights(result) -> dict:
    return load_file(os.path.join(result.final_checkpoint, "model.safetensors"))


def assert_same_run(straight, resumed) -> None:
    assert resumed.steps == 4 and resumed.trainer_version == 4
    a, b = weights(straight), weights(resumed)
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    trace_a, trace_b = read_trace(straight.run_dir), read_trace(resumed.run_dir)
    assert [[s[m] for m in METRICS] for s in trace_a] == [[s[m] for m in METRICS] for s in trace_b]


def assert_every_step_once(run_dir: Path) -> None:
    for name in FILES:
        steps = [json.loads(line)["step"] for line in (run_dir / "traces" / name).read_text().splitlines()]
        assert steps == [s for s in (1, 2, 3, 4) for _ in range(ROWS_PER_STEP[name])], name


def test_kill_9_and_resume_gives_the_same_weights_as_a_straight_run(straight, killed_after_checkpoint, config,
                                                                    tmp_path):
    run_dir = copy_of(killed_after_checkpoint, tmp_path)
    assert not (run_dir / "checkpoints" / "step-000004").exists()
    resumed = train(config, run_dir=run_dir, resume=True)
    assert_same_run(straight, resumed)
    assert_every_step_once(run_dir)  # the killed run's rows of step 3 are not duplicated
    assert any("continuing from step-000002 (step 2)" in e for e in resumed.events)


def test_a_torn_last_line_in_every_trace_file_does_not_stop_the_resume(straight, killed_after_checkpoint, config,
                                                                       tmp_path):
    run_dir = copy_of(killed_after_checkpoint, tmp_path)
    for name in FILES:
        with open(run_dir / "traces" / name, "a") as f:  # appends cut short by the kill
            f.write('{"step": 3, "text": "half a li')
    resumed = train(config, run_dir=run_dir, resume=True)
    assert_same_run(straight, resumed)
    assert_every_step_once(run_dir)


def test_kill_9_before_the_first_checkpoint_restarts_from_step_0_with_a_message(
        straight, ray_cluster, config, tmp_path, caplog):
    run_dir = tmp_path / "run"
    killed_run(ray_cluster, config, run_dir, 1, "checkpointing.every_steps=3")
    assert list_checkpoints(run_dir / "checkpoints") == [], "the kill must land before the first checkpoint"
    assert read_trace(run_dir), "the stopped attempt must have left trace rows to drop"
    with open(run_dir / "traces" / "rollouts.jsonl", "a") as f:
        f.write('{"step": 2, "te')
    with caplog.at_level(logging.WARNING, logger="rlvr_core.grpo.driver_session"):
        resumed = train(config, run_dir=run_dir, resume=True)
    message = "no complete checkpoint yet (the run stopped before its first one); restarting from step 0"
    assert message in caplog.text and any(message in e for e in resumed.events)
    assert message in (run_dir / "RESULTS.md").read_text()
    assert_same_run(straight, resumed)
    assert_every_step_once(run_dir)


def test_garbage_mid_file_stops_the_resume_naming_the_file_and_line(killed_after_checkpoint, ray_cluster, tmp_path):
    run_dir = copy_of(killed_after_checkpoint, tmp_path)
    path = run_dir / "traces" / "rollouts.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines[:5], "\x00\x00garbage\n", *lines[5:]]))
    done = subprocess.run([sys.executable, "-m", "rlvr_core.grpo.train", "--resume", str(run_dir), "--no-progress"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "RAY_ADDRESS": ray_cluster})
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert f"rlvr train: {path}:6: not valid JSON" in done.stderr
    assert "Fix: remove or repair that line, then resume again" in done.stderr
    assert len(path.read_text().splitlines()) == len(lines) + 1  # nothing was cut


def test_a_fresh_start_in_a_folder_with_checkpoints_is_refused(killed_after_checkpoint, config, tmp_path):
    run_dir = copy_of(killed_after_checkpoint, tmp_path)
    with pytest.raises(ResumeError, match=rf"--run-dir {run_dir} already holds checkpoints of a run\. Fix: continue "
                                          rf"it with --resume {run_dir}"):
        train(config, run_dir=run_dir)
