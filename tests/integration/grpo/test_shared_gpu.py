"""The shared-gpu layout (`training.colocate: true` with vLLM): a trainer and a vLLM engine on one GPU, the
engine asleep whenever it is not generating or taking weights, and nothing generated beside an update.

vLLM's sleep mode frees GPU memory on CUDA only; on the CPU build the same calls pause and resume the engine,
so what runs here is the real sequencing (real engine, real Ray actors), not the memory it frees.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

if not (Path(sys.prefix) / "installed-from.lock").exists():
    pytest.importorskip("vllm")

SHARED = ("training.generation_backend=vllm", "training.colocate=true")


def test_the_engine_sleeps_except_while_it_generates_or_takes_weights(ray_cluster, tiny_model_dir):
    """A rollout actor as the shared-gpu run starts it (in its own process: vLLM's CPU worker pins this
    process's torch threads once an engine runs here)."""
    import ray
    import torch
    from transformers import AutoModelForCausalLM

    from rlvr_core.grpo.actors import RolloutWorker
    from rlvr_core.grpo.weights import pack_weights

    worker = ray.remote(num_cpus=0.5)(RolloutWorker).remote(
        "vllm", str(tiny_model_dir), device="auto", dtype="float32", seed=0, torch_threads=None,
        options={"sleep_mode": True, "max_model_len": 512, "cpu_kv_cache_gib": 0.25}, sleeps=True)
    try:
        assert ray.get(worker.asleep.remote(), timeout=600), "a new engine sleeps until asked for work"
        out = ray.get(worker.generate.remote(["What is 1 + 2?\n"], {"max_new_tokens": 4, "n": 2, "seed": 0}))
        assert len(out) == 2 and ray.get(worker.asleep.remote())
        model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
        assert ray.get(worker.load_weights.remote(pack_weights(model), 7)) == 7 and ray.get(worker.asleep.remote())
    finally:
        ray.kill(worker)


@pytest.mark.slow
def test_a_shared_gpu_run_never_generates_beside_an_update(ray_cluster, tiny_config, tmp_path):
    """With max_staleness 1 the split layout generates the next batch while the trainer steps (samples one
    version old); sharing a GPU it must not, so every sample is fresh and the sync check still holds."""
    config = tiny_config(*SHARED, "training.max_staleness=1", "training.sync_every=1", "training.max_steps=4",
                         "training.verify_sync_logprobs=true")
    assert config.training.shares_gpu and not config.training.colocated
    result = train(config, run_dir=tmp_path / "run")
    steps = read_trace(result.run_dir)
    assert [s["step"] for s in steps] == [1, 2, 3, 4]
    assert all(set(s["staleness"]) == {"0"} for s in steps), [s["staleness"] for s in steps]
    assert all(s["sync_logprob_gap"] is not None and s["sync_logprob_gap"] < 1e-3 for s in steps)
    assert (result.run_dir / "device_plan.json").is_file()


def test_the_trainer_refuses_a_gpu_count_it_cannot_run_before_any_model_loads(tmp_path):
    """gsm8k needs a trainer GPU and a rollout GPU; with none visible the CLI stops at once, naming the fix."""
    import json
    import os
    import subprocess

    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "HF_HUB_OFFLINE": "1"}
    env.pop("RAY_ADDRESS", None)
    env.pop("RLVR_RAY_ADDRESS", None)
    done = subprocess.run([sys.executable, "-m", "rlvr_core.grpo.train", "gsm8k", "training.max_steps=20",
                           "--run-dir", str(tmp_path / "run"), "--no-progress"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "training.device is 'cuda', but this node has no usable GPU" in done.stderr
    assert "Fix:" in done.stderr
    assert not any((tmp_path / "run" / "checkpoints").iterdir())
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"].startswith("failed: DevicePlanError")
