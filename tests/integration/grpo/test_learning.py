"""The embedded default learns: a short tiny-arith run raises held-out greedy accuracy (read from trace.jsonl).

A fast version of the CPU demo's claim (configs/tiny-arith.yaml: +18 to +22
points in 300 steps over seeds 0-2): 40 steps must add at least 4 points on 500
held-out problems.
The run is seeded and CPU kernels run single-threaded, so on one machine this
is deterministic rather than flaky; the margin covers other CPUs' numerics.
"""

from __future__ import annotations

import pytest

from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow


def test_short_grpo_run_raises_heldout_accuracy(ray_cluster, tiny_config, tmp_path):
    config = tiny_config("sampling.prompts_per_step=16", "sampling.group_size=8", "training.max_steps=40",
                         "training.eval_every=40", "training.eval_problems=500")
    result = train(config, run_dir=tmp_path / "run")
    measured = {s["step"]: s["heldout_accuracy"] for s in read_trace(result.run_dir)
                if s.get("heldout_accuracy") is not None}
    assert set(measured) == {0, 40}
    assert measured[40] - measured[0] >= 0.04, measured
