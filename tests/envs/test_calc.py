"""`arith-calc` and episodes as training samples: the calculator, the splits, and the loss mask of a real
tiny model's episodes (1 on what the model generated, 0 on the tool's reply)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlvr_core.envs.calc import CalcEnv, calculate, generate
from rlvr_core.envs.registry import ENVIRONMENTS, environment_for
from rlvr_core.envs.sampling import episode_samples
from rlvr_core.envs.web.env import EpisodeLimits
from rlvr_core.generation import SamplingParams, create_backend
from rlvr_core.models.tiny_calc import CalcRecipe, build_calc_model
from rlvr_core.verifiers.math.verifier import MathVerifier


@pytest.mark.parametrize("expression, value", [("347+812", "1159"), (" 2 * 3 + 4 ", "10"), ("2+3*4", "14"),
                                               ("900-1000", "-100")])
def test_the_calculator_evaluates_integer_expressions(expression, value):
    assert calculate(expression) == value


@pytest.mark.parametrize("expression", ["", "import os", "2**100000", "1/0", "9" * 50, "1+2+3+4+5+6"])
def test_anything_else_is_an_error_message_not_an_evaluation(expression):
    assert calculate(expression).startswith("error: ")


def test_train_and_test_are_disjoint_three_digit_sums():
    train, test = generate("train"), generate("test")
    assert len(train) == 20000 and len(test) == 2000
    assert not {p.prompt for p in train} & {p.prompt for p in test}
    assert all(environment_for(p) is ENVIRONMENTS["arith-calc"] for p in test[:5])


def test_the_webextract_spec_matches_its_episode_limits():
    spec, limits = ENVIRONMENTS["webextract"], EpisodeLimits()
    assert (spec.max_turns, spec.max_context_tokens) == (limits.max_turns, limits.max_context_tokens)


def test_a_call_is_answered_and_a_turn_without_one_ends_the_episode():
    env = CalcEnv(generate("test")[0])
    assert env.canonical("<calc>1+2", "stop") == "<calc>1+2</calc>"
    result = env.step("<calc>1+2</calc>", "stop", last_turn=False)
    assert not result.done and "3" in result.reply["content"]
    assert env.step("#### 3", "stop", last_turn=False).done
    assert env.step("<calc>1+2</calc>", "stop", last_turn=True).end_reason == "max_turns"


@pytest.fixture(scope="module")
def tool_caller(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The untrained tiny model taught (in seconds) to call the calculator on a few problems, then answer."""
    folder = tmp_path_factory.mktemp("tool-caller")
    recipe = CalcRecipe(batch_size=16, learning_rate=3e-3, max_tool_steps=60, check_every=60, target=1.0, rate_steps=0)
    build_calc_model(folder, tiny_model_dir, recipe, problems=generate("train")[:4])
    return folder


@pytest.mark.slow
def test_an_episode_sample_masks_the_tool_reply_out_and_keeps_the_models_tokens(tool_caller):
    backend = create_backend("hf", str(tool_caller), device="cpu", dtype="float32", seed=0, batch_size=8)
    problems = generate("train")[:4]
    samples = episode_samples(backend, problems, SamplingParams(max_new_tokens=24, temperature=0.0, n=2))
    assert len(samples) == 8
    tokenizer = backend.tokenizer
    for sample in samples:
        ids, mask = sample["token_ids"], sample["loss_mask"]
        assert len(ids) == len(mask) == len(sample["logprobs"])
        model_text = tokenizer.decode([t for t, m in zip(ids, mask) if m], skip_special_tokens=True)
        tool_text = tokenizer.decode([t for t, m in zip(ids, mask) if not m], skip_special_tokens=True)
        turns = [t["text"] for t in sample["episode"]["turns"]]
        assert model_text == "".join(turns)
        env_segments = [s["text"] for s in sample["episode"]["segments"] if s["kind"] == "env"]
        assert tool_text == "".join(env_segments)
        assert all(lp == 0.0 for lp, m in zip(sample["logprobs"], mask) if not m)
    # A call the model left open at the token limit gets no reply (its mask is all ones, checked above); the
    # episodes that got one have it masked. Which problems the taught model calls cleanly depends on the host's
    # float kernels, so the test needs only that some did.
    called = [s for s in samples if any(seg["kind"] == "env" for seg in s["episode"]["segments"])]
    assert called, [s["text"] for s in samples]
    assert all(0 in s["loss_mask"] for s in called)
    rewards = [MathVerifier().verify(s["text"], p).reward for s, p in zip(samples, [p for p in problems for _ in "ab"])]
    assert sum(rewards) >= 1  # the memorised episodes end with the tool's (right) sum
