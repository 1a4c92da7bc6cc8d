"""Resume is exact on CPU: N steps straight == N/2 steps, SIGKILL of the real training process, resume, N/2 more.

Why bit-exact is the right bar here: with `max_staleness: 0` nothing is in
flight at a checkpoint, sampling seeds derive from a request counter that the
checkpoint stores, weights round-trip through fp32 safetensors unchanged, and
the optimizer, scheduler and RNG states are restored; the CPU kernels run with
a fixed thread count (`training.torch_threads=1`). Any difference is a resume bug.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
import yaml
from safetensors.numpy import load_file

from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow
METRICS = ("reward_mean", "loss", "kl", "grad_norm", "tokens")


def test_kill_9_and_resume_gives_the_same_weights_as_a_straight_run(ray_cluster, tiny_config, tmp_path):
    config = tiny_config("training.max_steps=4", "checkpointing.every_steps=2", "grpo.kl_beta=0.04")
    straight = train(config, run_dir=tmp_path / "straight")

    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    killed_dir = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "rlvr_core.grpo.train", str(config_file), "--run-dir",
                             str(killed_dir), "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, "RAY_ADDRESS": ray_cluster})
    try:
        for line in proc.stdout:
            if line.startswith("@@rlvr-event") and '"step": 2' in line:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert not (killed_dir / "checkpoints" / "step-000004").exists()

    resumed = train(config, run_dir=killed_dir, resume=True)
    assert resumed.steps == 4 and resumed.trainer_version == 4
    a = load_file(os.path.join(straight.final_checkpoint, "model.safetensors"))
    b = load_file(os.path.join(resumed.final_checkpoint, "model.safetensors"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    trace_a, trace_b = read_trace(straight.run_dir), read_trace(killed_dir)
    assert [s["step"] for s in trace_b] == [1, 2, 3, 4]  # the killed run's partial step 3 is not duplicated
    assert [[s[m] for m in METRICS] for s in trace_a] == [[s[m] for m in METRICS] for s in trace_b]
