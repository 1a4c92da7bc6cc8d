"""Reference log-probs ahead (colocated.py): computed while the driver verifies, the same as computed in the update.

Real parts: the tiny Qwen3 model sampling real rollouts with the colocated trainer, in this process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from rlvr_core.data.arith import generate_arith
from rlvr_core.grpo.algo import get_algorithm
from rlvr_core.grpo.algo.common import ClipSettings
from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
from rlvr_core.grpo.colocated import ColocatedTrainer
from rlvr_core.grpo.sampling import sample_seeds
from rlvr_core.grpo.trainer_actor import PolicyTrainer
from tests.grpo.test_trainer_microbatch import trainer_options

GROUP = 4


def sampled_batch(trainer: ColocatedTrainer, prompts: int, step: int = 1) -> dict:
    """`prompts` arith problems x GROUP samples from `trainer`, rewarded at random but never all equal."""
    problems = generate_arith("train", prompts, seed=step)
    params = {"max_new_tokens": 8, "temperature": 1.0, "n": GROUP,
              "seeds": sample_seeds(0, step, list(range(prompts)), GROUP)}
    gens = trainer.generate([f"{p.prompt}\n" for p in problems], params)
    groups = [Group(position=k, problem=p, rollouts=[
        Rollout(prompt_token_ids=g["prompt_token_ids"], token_ids=g["token_ids"], logprobs=g["logprobs"],
                text=g["text"], finish_reason=g["finish_reason"], weight_version=g["weight_version"],
                reward=float(i % 2)) for i, g in enumerate(gens[k * GROUP:(k + 1) * GROUP])])
              for k, p in enumerate(problems)]
    return build_train_batch(groups, get_algorithm("grpo"), max_new_tokens=8, pad_token_id=0, skip_overlong=False)


def colocated(model_dir: Path, **options) -> ColocatedTrainer:
    return ColocatedTrainer(str(model_dir), generation_batch_size=64, **trainer_options(model_dir, **options))


@pytest.fixture
def other_reference(tiny_model_dir: Path, tmp_path: Path) -> str:
    """The tiny model with every weight nudged: a reference the policy differs from, so the KL term is not 0."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=generator))
    model.save_pretrained(tmp_path / "reference")
    AutoTokenizer.from_pretrained(tiny_model_dir).save_pretrained(tmp_path / "reference")
    return str(tmp_path / "reference")


def test_an_update_on_prepared_reference_log_probs_is_the_update_that_computes_them(tiny_model_dir,
                                                                                    other_reference):
    ahead = colocated(tiny_model_dir, reference_path=other_reference)
    batch = sampled_batch(ahead, prompts=3)
    computing = PolicyTrainer(str(tiny_model_dir), **trainer_options(tiny_model_dir, reference_path=other_reference))

    got, expected = ahead.train_step(batch), computing.train_step(batch)
    assert got["reference_prepared"] == len(batch["advantages"]) and expected["reference_prepared"] == 0
    assert got["kl"] == pytest.approx(expected["kl"], rel=1e-4, abs=1e-8) and got["kl"] != 0
    assert got["loss"] == pytest.approx(expected["loss"], rel=1e-4, abs=1e-8)
    for p, q in zip(ahead.model.parameters(), computing.model.parameters()):
        torch.testing.assert_close(p, q, rtol=0, atol=1e-6)


def test_greedy_evaluations_prepare_nothing_and_unprepared_rows_are_computed(tiny_model_dir):
    ahead = colocated(tiny_model_dir)
    ahead.generate(["What is 12 + 34?\n"], {"max_new_tokens": 8, "temperature": 0.0})
    assert ahead.references.batches == 0
    other = colocated(tiny_model_dir)
    batch = sampled_batch(other, prompts=2)  # sampled by another trainer: nothing prepared here
    assert ahead.train_step(batch)["reference_prepared"] == 0


def test_rows_an_update_read_are_forgotten_and_rows_sampled_ahead_are_kept(tiny_model_dir):
    ahead = colocated(tiny_model_dir)
    first = sampled_batch(ahead, prompts=2, step=1)
    second = sampled_batch(ahead, prompts=2, step=2)  # generated ahead of the first update
    ahead.train_step(first)
    assert ahead.train_step(second)["reference_prepared"] == len(second["advantages"])
    assert ahead.references.rows == {}


def test_without_a_kl_term_no_reference_is_loaded_prepared_or_run(tiny_model_dir):
    trainer = colocated(tiny_model_dir, clip=ClipSettings(eps_low=0.2, eps_high=0.2, kl_beta=0.0))
    assert trainer.reference is None and trainer.references is None
    metrics = trainer.train_step(sampled_batch(trainer, prompts=2))
    seconds = metrics["trainer_seconds"]
    assert seconds["reference"] == seconds["reference_ahead"] == 0.0 and metrics["kl"] == 0.0


def test_each_update_reports_where_the_replicas_time_went_since_the_last_one(tiny_model_dir):
    trainer = colocated(tiny_model_dir)
    seconds = trainer.train_step(sampled_batch(trainer, prompts=2))["trainer_seconds"]
    assert set(seconds) == set(PolicyTrainer.STEP_PARTS)
    assert all(seconds[part] > 0 for part in ("decode", "reference_ahead", "reference", "update", "optimizer"))
    nothing_sampled = trainer.train_step(None)["trainer_seconds"]
    assert all(nothing_sampled[part] == 0.0 for part in ("decode", "reference_ahead", "reference", "update"))
