"""The machinery learns tool use: GRPO on `arith-calc` teaches the tool-using tiny model to reach for the
calculator, and held-out accuracy with tools ends far above what the same model scores without them.

The start point (`tiny:arith-calc`, built once into the test store) calls the
calculator correctly when it calls, but greedy decoding answers directly and
sampling calls about 30% of the time, so GRPO has a decision to learn.
Three-digit sums are out of the model's reach without the tool (~0%).
Figures and margins are in the README ("Tool use"); the assertions leave
wide room for other seeds and CPUs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.envs.calc import generate, no_tool_accuracy
from rlvr_core.generation import create_backend
from rlvr_core.grpo import train
from rlvr_core.grpo.trace import read_trace

pytestmark = pytest.mark.slow

STEPS = 30


@pytest.fixture(scope="module")
def calc_model_dir() -> Path:
    from rlvr_core.models.tiny_calc import ensure_calc_model
    from rlvr_core.storage import open_store
    from tests.conftest import TEST_CACHE

    return ensure_calc_model(open_store(str(TEST_CACHE / "store")))


def _call_rate(rows: list[dict]) -> float:
    return sum("<calc>" in r["text"] for r in rows) / len(rows)


def test_grpo_learns_to_call_the_calculator(ray_cluster, tiny_config, calc_model_dir, tmp_path):
    config = tiny_config(f"model.name_or_path={calc_model_dir}", "data.train=[{name: arith-calc, split: train}]",
                         "training.eval_dataset=arith-calc", "training.eval_split=test",
                         f"training.eval_every={STEPS}", "training.eval_problems=200", f"training.max_steps={STEPS}",
                         "sampling.prompts_per_step=8", "sampling.group_size=8", "sampling.max_new_tokens=24",
                         "training.learning_rate=1e-3", "evaluation.benchmarks=[arith]")
    result = train(config, run_dir=tmp_path / "run")
    heldout = {s["step"]: s["heldout_accuracy"] for s in read_trace(result.run_dir)
               if s.get("heldout_accuracy") is not None}
    assert set(heldout) == {0, STEPS}

    rows = [json.loads(line) for line in (result.run_dir / "traces" / "rollouts.jsonl").read_text().splitlines()]
    first = _call_rate([r for r in rows if r["step"] <= 3])
    last = _call_rate([r for r in rows if r["step"] > STEPS - 3])

    problems = generate("test")[:200]
    no_tool = {name: no_tool_accuracy(create_backend("hf", str(path), device="cpu", dtype="float32"), problems)
               for name, path in (("start", calc_model_dir), ("trained", result.final_checkpoint))}
    figures = {"heldout_with_tools": heldout, "no_tool": no_tool, "call_rate": (first, last)}
    print(figures)
    assert last >= first + 0.3, figures
    assert heldout[STEPS] >= max(no_tool.values()) + 0.25, figures
