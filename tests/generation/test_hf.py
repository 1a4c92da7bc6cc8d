"""The hf backend against a real tiny Qwen3 model: grouping, determinism, stops, log-probs, weight updates."""

import pytest
import torch

from rlvr_core.generation import Generation, GenerationBackend, SamplingParams, create_backend
from rlvr_core.generation.consistency import logprob_spot_check, sequence_logprobs
from rlvr_core.generation.hf import HFBackend

PROMPTS = ["What is 47 + 38?\n", "Hi\n", "What is 10 + 99?\n"]


@pytest.fixture(scope="module")
def backend(tiny_model_dir) -> HFBackend:
    # batch_size 8 < rows in most tests, so micro-batching is exercised.
    backend = create_backend("hf", str(tiny_model_dir), device="cpu", seed=7, batch_size=8)
    yield backend
    backend.close()


def _forward_logprobs(backend: HFBackend, gens: list[Generation]) -> list[list[float]]:
    return sequence_logprobs(backend.model, [g.prompt_token_ids for g in gens], [g.token_ids for g in gens],
                             backend.tokenizer.pad_token_id)


def test_backend_satisfies_the_protocol(backend):
    assert isinstance(backend, GenerationBackend)
    assert backend.name == "hf" and backend.weight_version == 0


def test_returns_n_samples_per_prompt_grouped_in_prompt_order(backend):
    gens = backend.generate(PROMPTS, SamplingParams(max_new_tokens=6, n=4, seed=0))
    assert [(g.prompt_index, g.sample_index) for g in gens] == [(p, s) for p in range(3) for s in range(4)]
    for g in gens:
        assert g.prompt_token_ids == backend.tokenizer(PROMPTS[g.prompt_index])["input_ids"]
        assert 1 <= len(g.token_ids) <= 6
        assert len(g.logprobs) == len(g.token_ids)
        assert all(lp <= 0.0 for lp in g.logprobs)


def test_samples_of_one_prompt_equal_the_same_prompt_given_separately(backend):
    """n samples of a prompt start from one prefill of it (shared KV cache); the draws and log-probs are those
    of the prompt repeated n times, which is computed row by row."""
    seeds = tuple(range(100, 112))
    shared = backend.generate(PROMPTS, SamplingParams(max_new_tokens=8, n=4, seeds=seeds))
    repeated = backend.generate([p for p in PROMPTS for _ in range(4)], SamplingParams(max_new_tokens=8, seeds=seeds))
    assert [g.token_ids for g in shared] == [g.token_ids for g in repeated]
    assert [g.prompt_token_ids for g in shared] == [g.prompt_token_ids for g in repeated]
    for a, b in zip(shared, repeated):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4)


def test_finish_reason_is_stop_at_eos_and_length_at_the_limit(backend):
    eos = backend.tokenizer.eos_token_id
    gens = backend.generate(PROMPTS, SamplingParams(max_new_tokens=12, n=16, seed=3))
    for g in gens:
        if g.finish_reason == "stop":
            assert g.token_ids[-1] == eos and eos not in g.token_ids[:-1]
        else:
            assert len(g.token_ids) == 12 and eos not in g.token_ids
        assert g.text == backend.tokenizer.decode(g.token_ids, skip_special_tokens=True)
    # An untrained model emits eos about once per 100 tokens: both endings occur in 48 x 12 tokens.
    assert {g.finish_reason for g in gens} == {"stop", "length"}


def test_greedy_is_deterministic_and_identical_across_samples(backend):
    params = SamplingParams(max_new_tokens=8, temperature=0.0, n=3)
    first, second = backend.generate(PROMPTS, params), backend.generate(PROMPTS, params)
    assert first == second
    for p in range(len(PROMPTS)):
        assert len({tuple(g.token_ids) for g in first if g.prompt_index == p}) == 1


def test_seeded_sampling_reproduces_and_different_seeds_differ(backend):
    def sample(seed):
        return [g.token_ids for g in backend.generate(PROMPTS, SamplingParams(max_new_tokens=8, n=4, seed=seed))]

    assert sample(1) == sample(1)
    assert sample(1) != sample(2)


def test_unseeded_calls_follow_the_backend_seed(tiny_model_dir, backend):
    params = SamplingParams(max_new_tokens=8, n=4)
    a, b = (create_backend("hf", str(tiny_model_dir), device="cpu", seed=11) for _ in range(2))
    first_a, first_b = a.generate(PROMPTS, params), b.generate(PROMPTS, params)
    assert first_a == first_b  # same backend seed, same call number
    assert a.generate(PROMPTS, params) != first_a  # the stream advances per call


def test_sampling_leaves_the_global_torch_rng_alone(backend):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    backend.generate(PROMPTS, SamplingParams(max_new_tokens=4, n=2))
    assert torch.equal(torch.rand(3), expected)


def test_temperature_one_samples_the_full_distribution(backend):
    # transformers applies top_k=50 unless told otherwise; over a ~100-token near-uniform
    # untrained model, far more than 50 distinct first tokens must appear.
    gens = backend.generate(["x"], SamplingParams(max_new_tokens=1, n=600, seed=0))
    assert len({g.token_ids[0] for g in gens}) > 70


def test_per_sample_draws_follow_the_temperature_and_top_p_distribution(backend):
    # Each row samples from its own generator (a Gumbel race on the warped logits); 3000 first tokens must match
    # softmax(logits / T) cut to the top-p set: total variation near the ~0.07 sampling noise of 3000 draws over
    # ~100 tokens, and nothing outside the top-p set.
    n, temperature, top_p = 3000, 0.7, 0.9
    gens = backend.generate(["x"], SamplingParams(max_new_tokens=1, n=n, seed=0, temperature=temperature, top_p=top_p))
    ids = backend.tokenizer("x", return_tensors="pt", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        probs = (backend.model(ids).logits[0, -1] / temperature).softmax(-1)               # [V]
    sorted_probs, order = probs.sort(descending=True)
    kept = order[(sorted_probs.cumsum(0) - sorted_probs) < top_p]
    expected = torch.zeros_like(probs)
    expected[kept] = probs[kept] / probs[kept].sum()
    drawn = torch.bincount(torch.tensor([g.token_ids[0] for g in gens]), minlength=len(probs)).float() / n
    assert drawn[expected == 0].sum() == 0
    assert 0.5 * (drawn - expected).abs().sum() < 0.1


def test_stop_string_cuts_text_and_tokens(backend):
    greedy = SamplingParams(max_new_tokens=16, temperature=0.0)
    full = backend.generate(["Hi\n"], greedy)[0]
    assert len(full.text) >= 6, "fixture model should babble at least 6 visible characters"
    stop = full.text[3:5]
    cut = full.text.find(stop)
    stopped = backend.generate(["Hi\n"], SamplingParams(max_new_tokens=16, temperature=0.0, stop=("@@@", stop)))[0]
    assert stopped.finish_reason == "stop"
    assert stopped.text == full.text[:cut]
    # Tokens run up to and including the one that completed the stop string.
    assert backend.tokenizer.decode(stopped.token_ids, skip_special_tokens=True) == full.text[:cut + len(stop)]
    assert stopped.token_ids == full.token_ids[:len(stopped.token_ids)]
    assert stopped.logprobs == pytest.approx(full.logprobs[:len(stopped.token_ids)], abs=1e-6)


@pytest.mark.parametrize("temperature", [1.0, 0.7, 0.0])
def test_logprobs_are_the_raw_models_and_match_a_forward_pass(backend, temperature):
    gens = backend.generate(PROMPTS, SamplingParams(max_new_tokens=10, temperature=temperature, n=3, seed=5))
    for g, expected in zip(gens, _forward_logprobs(backend, gens)):
        assert g.logprobs == pytest.approx(expected, abs=1e-4)


def test_load_weights_changes_outputs_and_bumps_version(tiny_model_dir):
    backend = create_backend("hf", str(tiny_model_dir), device="cpu")
    greedy = SamplingParams(max_new_tokens=8, temperature=0.0)
    before = backend.generate(PROMPTS, greedy)
    torch.manual_seed(0)
    perturbed = {k: v + 0.5 * torch.randn_like(v) for k, v in backend.model.state_dict().items()}
    backend.load_weights(perturbed, version=3)
    after = backend.generate(PROMPTS, greedy)
    assert backend.weight_version == 3 and {g.weight_version for g in after} == {3}
    assert [g.token_ids for g in after] != [g.token_ids for g in before]
    assert torch.equal(backend.model.state_dict()["model.norm.weight"], perturbed["model.norm.weight"])


def test_load_weights_rejects_a_mismatched_state_dict(backend):
    state = dict(backend.model.state_dict())
    state.pop("model.norm.weight")
    with pytest.raises(ValueError, match="(?s)does not fit this model.*model.norm.weight"):
        backend.load_weights(state, version=9)
    wrong_shape = {k: (v[:-1] if k.endswith("embed_tokens.weight") else v) for k, v in backend.model.state_dict().items()}
    with pytest.raises(ValueError, match="size mismatch"):
        backend.load_weights(wrong_shape, version=9)
    assert backend.weight_version == 0


def test_spot_check_detects_an_unsynced_backend_and_passes_after_sync(tiny_model_dir, backend):
    from transformers import AutoModelForCausalLM

    trainer_model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    synced = create_backend("hf", str(tiny_model_dir), device="cpu")
    with torch.no_grad():
        for p in trainer_model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    assert logprob_spot_check(synced, trainer_model, PROMPTS) > 1e-3
    synced.load_weights(trainer_model.state_dict(), version=1)
    token_prompts = [synced.tokenizer(p)["input_ids"] for p in PROMPTS]
    assert logprob_spot_check(synced, trainer_model, token_prompts) < 1e-5


def test_closed_backend_refuses_to_generate(tiny_model_dir):
    closed = create_backend("hf", str(tiny_model_dir), device="cpu")
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        closed.generate(PROMPTS, SamplingParams(max_new_tokens=2))


def test_a_single_string_is_not_taken_for_a_list_of_prompts(backend):
    with pytest.raises(TypeError, match=r"wrap it: \[prompt\]"):
        backend.generate("Hi\n", SamplingParams(max_new_tokens=2))
