"""Multi-turn GRPO through the real Ray loop: `arith-calc` episodes are played by the rollout workers, trained
on with their loss masks, and kept whole in rollouts.jsonl; staleness and held-out accuracy are traced as for
single-turn data."""

from __future__ import annotations

import json

import pytest

from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow


def test_a_multi_turn_run_trains_on_episodes_and_keeps_them_in_the_trace(ray_cluster, tiny_config, tmp_path):
    config = tiny_config("data.train=[{name: arith-calc, split: train}]", "training.eval_dataset=arith-calc",
                         "training.eval_split=test", "training.eval_every=2", "training.eval_problems=16",
                         "training.max_steps=2", "sampling.max_new_tokens=24", "evaluation.benchmarks=[arith]")
    result = train(config, run_dir=tmp_path / "run")
    steps = read_trace(result.run_dir)
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert all(s["staleness"] == {"0": 16} for s in steps[1:])  # max_staleness 0: every sample on-policy
    assert steps[-1]["heldout_accuracy"] is not None
    rows = [json.loads(line) for line in (result.run_dir / "traces" / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * 16
    for row in rows:
        episode = row["episode"]
        assert episode["segments"][0]["kind"] == "prompt" and episode["turns"]
        assert row["text"] == "\n".join(t["text"] for t in episode["turns"])
        assert 0 < row["trained_tokens"] <= row["tokens"]
        tool_tokens = sum(s["tokens"] for s in episode["segments"][1:] if s["kind"] == "env")
        assert row["tokens"] - row["trained_tokens"] == tool_tokens
