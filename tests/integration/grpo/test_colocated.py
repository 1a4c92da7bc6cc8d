"""Colocated mode (`training.colocate`): one actor trains and generates with one copy of the weights.

It is the same algorithm as the split layout, only without weight shipping:
with the same seeds both layouts sample the same rollouts and end with the
same weights, the staleness bound still holds, and configurations it cannot
serve are refused by name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file

from rlvr_core.config import ConfigError
from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow


def _rollout_rows(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "traces" / "rollouts.jsonl").read_text().splitlines()]


def _rollouts(run_dir) -> list[tuple[int, str, float]]:
    return [(r["step"], r["text"], r["reward"]) for r in _rollout_rows(run_dir)]


def test_colocated_and_split_runs_sample_the_same_rollouts_and_reach_the_same_weights(ray_cluster, tiny_config,
                                                                                      tmp_path):
    common = ("training.max_steps=3", "training.learning_rate=1e-3", "checkpointing.every_steps=3")
    split = train(tiny_config(*common, "training.colocate=false"), run_dir=tmp_path / "split")
    colocated = train(tiny_config(*common, "training.colocate=true"), run_dir=tmp_path / "colocated")

    assert _rollouts(colocated.run_dir) == _rollouts(split.run_dir)
    assert len({step for step, _, _ in _rollouts(colocated.run_dir)}) == 3
    # Each step's generation, queued behind the previous update, sampled the weights that update made.
    assert {(r["step"], r["weight_version"]) for r in _rollout_rows(colocated.run_dir)} == {(1, 0), (2, 1), (3, 2)}
    a = load_file(os.path.join(split.final_checkpoint, "model.safetensors"))
    b = load_file(os.path.join(colocated.final_checkpoint, "model.safetensors"))
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=0, atol=1e-5, err_msg=key)
    # The generator has a tokenizer of its own: the one a checkpoint saves is the trainer's, as in the split run.
    def tokenizer_config(result) -> dict:
        return json.loads((Path(result.final_checkpoint) / "tokenizer_config.json").read_text())
    assert tokenizer_config(colocated) == tokenizer_config(split)

def test_colocated_generation_ahead_keeps_the_staleness_bound_and_the_exact_weights(ray_cluster, tiny_config,
                                                                                     tmp_path):
    config = tiny_config("training.colocate=true", "training.max_staleness=2", "training.sync_every=2",
                         "training.max_steps=4", "training.verify_sync_logprobs=true")
    steps = read_trace(train(config, run_dir=tmp_path / "run").run_dir)
    assert [s["step"] for s in steps] == [1, 2, 3, 4]
    assert all(max(map(int, s["staleness"])) <= 2 for s in steps)
    gaps = [s["sync_logprob_gap"] for s in steps if s["sync_logprob_gap"] is not None]
    assert gaps and max(gaps) < 1e-5  # the sampler and the trainer are the same module


def test_colocate_refuses_several_rollout_workers(tiny_config):
    with pytest.raises(ConfigError) as err:
        tiny_config("training.colocate=true", "training.device=cuda", "training.rollout_workers=2")
    assert "training.colocate" in str(err.value) and "rollout_workers 1" in str(err.value)


def test_colocate_with_vllm_means_one_shared_gpu_not_one_actor(tiny_config):
    t = tiny_config("training.colocate=true", "training.device=cuda", "training.generation_backend=vllm").training
    assert t.shares_gpu and not t.colocated


@pytest.mark.parametrize("overrides,colocated", [
    ((), True),                                                        # the demo: hf, one rollout worker
    (("training.rollout_workers=2",), False),
    (("training.device=cuda", "training.generation_backend=vllm"), False),
    (("training.colocate=false",), False),
])
def test_colocated_is_the_default_wherever_it_can_run(tiny_config, overrides, colocated):
    assert tiny_config(*overrides).training.colocated is colocated
