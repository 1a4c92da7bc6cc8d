"""Real short runs on a real local Ray cluster: staleness bound, verified sync, every parameter moves,
and rollout-worker failures (killed actor, second death, hung process) handled in bounded time.

The sync and worker-failure tests run the split layout (`training.colocate=false`: a trainer actor and a
rollout actor); the colocated layout has its own tests in test_colocated.py."""

from __future__ import annotations

import os
import signal

import pytest
from safetensors.numpy import load_file

from rlvr_core.grpo import train
from rlvr_core.grpo.rollouts import RolloutWorkerError
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow
SPLIT = "training.colocate=false"


@pytest.mark.parametrize("max_staleness,sync_every", [(0, 1), (2, 2)])
def test_run_never_trains_beyond_the_staleness_bound(ray_cluster, tiny_config, tmp_path, max_staleness, sync_every):
    config = tiny_config(SPLIT, f"training.max_staleness={max_staleness}", f"training.sync_every={sync_every}",
                         "training.max_steps=5", "training.verify_sync_logprobs=true")
    result = train(config, run_dir=tmp_path / "run")
    steps = read_trace(result.run_dir)
    assert [s["step"] for s in steps] == [1, 2, 3, 4, 5]
    for s in steps:
        assert s["staleness"] and max(map(int, s["staleness"])) <= max_staleness
        assert sum(s["staleness"].values()) + s["stale_dropped"] == s["samples"]
    if max_staleness == 0:
        assert all(set(s["staleness"]) == {"0"} for s in steps)
    else:  # generation ran ahead of training: some samples were one or more versions old
        assert any(set(s["staleness"]) - {"0"} for s in steps)
    synced = [s["sync_logprob_gap"] for s in steps if s["sync_logprob_gap"] is not None]
    assert synced and max(synced) < 1e-3


def test_tiny_run_changes_every_trainable_parameter_and_writes_the_run_folder(ray_cluster, tiny_config, tmp_path,
                                                                              trained_tiny_model_dir):
    config = tiny_config("training.max_steps=2", "training.learning_rate=1e-3", "training.eval_every=2",
                         "training.eval_problems=20", "grpo.kl_beta=0.0")
    events = []
    result = train(config, run_dir=tmp_path / "run", hooks=[events.append])
    before = load_file(trained_tiny_model_dir / "model.safetensors")
    after = load_file(os.path.join(result.final_checkpoint, "model.safetensors"))
    unchanged = [k for k in before if (before[k] == after[k]).all()]
    assert not unchanged
    assert [e["step"] for e in events] == [2] and events[0]["event"] == "rlvr.checkpoint.saved"
    steps = read_trace(result.run_dir)
    assert steps[0]["step"] == 0 and steps[-1]["heldout_accuracy"] is not None
    for name in ("config.yaml", "run.json", "RESULTS.md", "reward_curve.png", "traces/samples.jsonl",
                 "traces/rollouts.jsonl"):
        assert (result.run_dir / name).exists(), name
    keys = {"reward_mean", "reward_std", "pass_rate", "loss", "kl", "clip_fraction", "grad_norm", "staleness",
            "tokens", "seconds"}
    assert keys <= set(steps[1]) and set(steps[1]["seconds"]) >= {"generate", "verify", "train", "sync"}


def _kill_worker_at(run_name: str, steps_to_kill: set[int], how: str):
    """A step hook that kills (or freezes with SIGSTOP) the live rollout actor after the given steps."""
    import ray

    from rlvr_core.grpo.actors import rollout_actor_name

    def hook(record):
        if record["step"] in steps_to_kill:
            actor = ray.get_actor(rollout_actor_name(run_name, 0, record["worker_restarts"]))
            if how == "kill":
                ray.kill(actor, no_restart=True)
            else:
                os.kill(ray.get(actor.pid.remote()), signal.SIGSTOP)
    return hook


def test_killed_rollout_worker_is_restarted_once_and_the_run_completes(ray_cluster, tiny_config, tmp_path):
    config = tiny_config(SPLIT, "training.max_steps=4", "training.heartbeat_timeout_s=30")
    result = train(config, run_dir=tmp_path / "run", step_hooks=[_kill_worker_at("run", {2}, "kill")])
    assert result.steps == 4 and result.worker_restarts == 1
    assert "actor died" in result.events[0]
    assert [s["worker_restarts"] for s in read_trace(result.run_dir)] == [0, 0, 1, 1]


def test_second_death_fails_the_run_with_a_clear_message(ray_cluster, tiny_config, tmp_path):
    config = tiny_config(SPLIT, "training.max_steps=5", "training.heartbeat_timeout_s=30")
    with pytest.raises(RolloutWorkerError, match="rollout worker 0 failed again after its one restart"):
        train(config, run_dir=tmp_path / "run", step_hooks=[_kill_worker_at("run", {1, 2}, "kill")])


def test_hung_rollout_worker_is_detected_within_the_heartbeat_timeout(ray_cluster, tiny_config, tmp_path):
    config = tiny_config(SPLIT, "training.max_steps=3", "training.heartbeat_timeout_s=3")
    result = train(config, run_dir=tmp_path / "run", step_hooks=[_kill_worker_at("run", {1}, "stop")])
    assert result.steps == 3 and result.worker_restarts == 1 and "hung" in result.events[0]
    step2 = read_trace(result.run_dir)[1]
    assert 3 <= step2["seconds"]["generate"] < 3 + 60  # detected after the timeout, not a silent hang
