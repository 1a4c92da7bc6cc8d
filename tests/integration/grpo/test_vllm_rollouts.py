"""GRPO with vLLM rollouts (the production layout) learns on the CPU build of vLLM that every machine installs.

The split layout: a trainer actor and a rollout actor holding an in-process vLLM
engine whose weights are reloaded in place after every step. The sync spot check
runs each step, so a reload that did not land fails the run instead of letting
rollouts come from a stale policy; the run must then raise held-out accuracy as
the hf layout does (tests/integration/grpo/test_learning.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

if not (Path(sys.prefix) / "installed-from.lock").exists():
    pytest.importorskip("vllm")

pytestmark = pytest.mark.slow


def test_grpo_with_vllm_rollouts_syncs_every_step_and_raises_heldout_accuracy(ray_cluster, tiny_config, tmp_path):
    config = tiny_config("training.generation_backend=vllm", "training.verify_sync_logprobs=true",
                         "sampling.prompts_per_step=16", "sampling.group_size=8", "training.max_steps=40",
                         "training.eval_every=40", "training.eval_problems=500")
    assert not config.training.colocated
    result = train(config, run_dir=tmp_path / "run")
    trace = read_trace(result.run_dir)
    measured = {s["step"]: s["heldout_accuracy"] for s in trace if s.get("heldout_accuracy") is not None}
    assert set(measured) == {0, 40}
    assert measured[40] - measured[0] >= 0.04, measured
    gaps = [s["sync_logprob_gap"] for s in trace if "sync_logprob_gap" in s]
    assert len(gaps) == 40 and all(gap is not None and gap < 1e-3 for gap in gaps), gaps
