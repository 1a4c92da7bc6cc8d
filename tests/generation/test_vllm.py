"""The vllm backend keeps the hf backend's contract, on whichever device the installed build runs.

CPU machines (CI included) install vLLM's CPU build from the lock, so these tests run everywhere; an
environment made from the lock that cannot import vllm fails here instead of skipping.
"""

import sys
from pathlib import Path

import pytest

if not (Path(sys.prefix) / "installed-from.lock").exists():
    pytest.importorskip("vllm")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM  # noqa: E402

from rlvr_core.generation import SamplingParams, create_backend  # noqa: E402
from rlvr_core.generation.consistency import logprob_spot_check  # noqa: E402
from rlvr_core.generation.vllm import _engine_device  # noqa: E402
from rlvr_core.grpo.weights import pack_weights  # noqa: E402

PROMPTS = ["What is 47 + 38?\n", "Hi\n", "What is 10 + 99?\n"]


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    # 4096, the evaluation settings' context, is longer than the tiny model's 512: the engine takes 512.
    backend = create_backend("vllm", str(tiny_model_dir), dtype="float32", max_model_len=4096,
                             gpu_memory_utilization=0.3, cpu_kv_cache_gib=0.25)
    yield backend
    backend.close()


def perturbed_model(folder, device: str, *, seed: int, scale: float):
    """The tiny model with every weight moved by seeded noise of size `scale`, on `device`."""
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).to(device)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(scale * torch.randn(p.shape, generator=generator).to(p.device))
    return model


@pytest.fixture()
def changed_model(tiny_model_dir, backend):
    return perturbed_model(tiny_model_dir, backend.device, seed=0, scale=0.3)


def test_a_context_longer_than_the_models_is_cut_to_the_models(backend, tiny_model_dir):
    own = AutoModelForCausalLM.from_pretrained(tiny_model_dir).config.max_position_embeddings
    assert own < 4096 and backend.llm.llm_engine.model_config.max_model_len == own


def test_groups_samples_by_prompt_with_one_logprob_per_token(backend):
    gens = backend.generate(PROMPTS, SamplingParams(max_new_tokens=8, n=3, seed=0))
    assert [(g.prompt_index, g.sample_index) for g in gens] == [(p, s) for p in range(3) for s in range(3)]
    assert all(len(g.logprobs) == len(g.token_ids) and g.finish_reason in ("stop", "length") for g in gens)
    assert all(lp <= 0.0 for g in gens for lp in g.logprobs)


def test_seeded_sampling_reproduces_and_per_sample_seeds_give_each_prompt_its_own_stream(backend):
    params = SamplingParams(max_new_tokens=8, n=3, seed=1)
    assert [g.token_ids for g in backend.generate(PROMPTS, params)] == \
        [g.token_ids for g in backend.generate(PROMPTS, params)]
    seeded = SamplingParams(max_new_tokens=8, n=2, seeds=tuple(range(100, 106)))
    gens = backend.generate(PROMPTS, seeded)
    assert [(g.prompt_index, g.sample_index) for g in gens] == [(p, s) for p in range(3) for s in range(2)]
    assert [g.token_ids for g in gens] == [g.token_ids for g in backend.generate(PROMPTS, seeded)]


def test_logprobs_are_the_models_own(backend, tiny_model_dir):
    """The engine's sampled-token log-probs equal a plain forward pass of the same weights (fp32 both)."""
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32).to(backend.device)
    assert logprob_spot_check(backend, model, PROMPTS) < 1e-3


def test_a_weight_update_changes_outputs_and_then_greedy_matches_hf_on_the_same_weights(
        backend, changed_model, tiny_model_dir):
    greedy = SamplingParams(max_new_tokens=12, temperature=0.0, n=1)
    before = [g.token_ids for g in backend.generate(PROMPTS, greedy)]
    assert logprob_spot_check(backend, changed_model, PROMPTS) > 1e-2  # the engine still has the old weights

    backend.load_weights(changed_model.state_dict(), version=3)
    after = backend.generate(PROMPTS, greedy)
    assert backend.weight_version == 3 and all(g.weight_version == 3 for g in after)
    assert [g.token_ids for g in after] != before
    assert logprob_spot_check(backend, changed_model, PROMPTS) < 1e-3

    hf = create_backend("hf", str(tiny_model_dir), device=backend.device, dtype="float32")
    hf.load_weights(changed_model.state_dict(), version=3)
    hf_greedy = [g.token_ids for g in hf.generate(PROMPTS, greedy)]
    # Each token vLLM picked is the hf model's argmax at that position (ties within 1e-4 may go either way).
    for gen, theirs in zip(after, hf_greedy):
        if gen.token_ids != theirs:
            margins = _argmax_shortfall(hf.model, gen.prompt_token_ids, gen.token_ids)
            assert max(margins) < 1e-4, (margins, gen.token_ids, theirs)
    hf.close()


def test_an_update_shipped_as_runs_ship_it_lands_tied_head_included(backend, tiny_model_dir):
    """Runs send the tied embedding once (rlvr_core/grpo/weights.py); the engine's head must follow it."""
    model = perturbed_model(tiny_model_dir, backend.device, seed=1, scale=0.01)
    payload = pack_weights(model, torch.float32)
    assert "lm_head.weight" not in payload.arrays and model.config.tie_word_embeddings
    backend.load_weights(payload.tensors(), version=4)
    assert logprob_spot_check(backend, model, PROMPTS) < 1e-3


def _argmax_shortfall(model, prompt: list[int], completion: list[int]) -> list[float]:
    """For each completion token: how far its log-prob lies below the best token's at that position."""
    ids = torch.tensor([prompt + completion], device=model.device)
    with torch.inference_mode():
        logprobs = model(input_ids=ids).logits.float()[0, len(prompt) - 1:-1].log_softmax(-1)
    chosen = logprobs.gather(-1, torch.tensor(completion, device=model.device).unsqueeze(-1)).squeeze(-1)
    return (logprobs.max(-1).values - chosen).tolist()


def test_an_update_missing_a_tensor_is_refused_and_names_the_fix(backend, changed_model):
    partial = dict(changed_model.state_dict())
    partial.pop("model.norm.weight")
    with pytest.raises(ValueError, match=r"model\.norm\.weight.*Fix: pass model\.state_dict\(\)"):
        backend.load_weights(partial, version=9)
    assert backend.weight_version != 9


@pytest.mark.parametrize(("requested", "on_cpu", "fix"), [
    ("cuda", True, "vLLM's CPU build"),
    ("cpu", False, "backend 'hf' on the CPU"),
    ("cuda:1", False, "CUDA_VISIBLE_DEVICES"),
])
def test_a_device_the_installed_build_cannot_use_is_refused_with_the_fix(requested, on_cpu, fix):
    with pytest.raises(ValueError, match=fix):
        _engine_device(requested, on_cpu=on_cpu)
    assert _engine_device("auto", on_cpu=on_cpu) == ("cpu" if on_cpu else "cuda")


def test_prompts_beyond_batch_size_are_generated_in_chunks_with_the_same_samples(backend):
    params = SamplingParams(max_new_tokens=6, n=2, seeds=list(range(10)))
    prompts = [f"What is {i} + 1?\n" for i in range(5)]
    whole = backend.generate(prompts, params)
    backend.batch_size = 2
    try:
        chunked = backend.generate(prompts, params)
    finally:
        backend.batch_size = None
    assert [(g.prompt_index, g.sample_index, g.token_ids) for g in chunked] == \
        [(g.prompt_index, g.sample_index, g.token_ids) for g in whole]


def test_a_sleeping_engine_refuses_work_and_after_waking_samples_as_before(tiny_model_dir):
    engine = create_backend("vllm", str(tiny_model_dir), dtype="float32", max_model_len=512, cpu_kv_cache_gib=0.25,
                            sleep_mode=True)
    try:
        params = SamplingParams(max_new_tokens=6, n=2, seed=5)
        before = engine.generate(PROMPTS, params)
        engine.sleep()
        with pytest.raises(RuntimeError, match="asleep"):
            engine.generate(PROMPTS, params)
        engine.wake_up()
        assert [g.token_ids for g in engine.generate(PROMPTS, params)] == [g.token_ids for g in before]
    finally:
        engine.close()


def test_an_engine_without_sleep_mode_cannot_sleep(backend):
    with pytest.raises(RuntimeError, match="without sleep_mode"):
        backend.sleep()
