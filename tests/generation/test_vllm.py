"""The vllm backend keeps the same contract as hf (runs only where vllm and a GPU are present)."""

import pytest

vllm = pytest.importorskip("vllm")
torch = pytest.importorskip("torch")

from rlvr_core.generation import SamplingParams, create_backend  # noqa: E402
from rlvr_core.generation.consistency import logprob_spot_check  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]
PROMPTS = ["What is 47 + 38?\n", "Hi\n"]


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    backend = create_backend("vllm", str(tiny_model_dir), dtype="float32", gpu_memory_utilization=0.3,
                             max_model_len=256)
    yield backend
    backend.close()


def test_groups_samples_by_prompt_with_one_logprob_per_token(backend):
    gens = backend.generate(PROMPTS, SamplingParams(max_new_tokens=8, n=3, seed=0))
    assert [(g.prompt_index, g.sample_index) for g in gens] == [(p, s) for p in range(2) for s in range(3)]
    assert all(len(g.logprobs) == len(g.token_ids) and g.finish_reason in ("stop", "length") for g in gens)


def test_seeded_sampling_reproduces(backend):
    params = SamplingParams(max_new_tokens=8, n=3, seed=1)
    assert [g.token_ids for g in backend.generate(PROMPTS, params)] == \
        [g.token_ids for g in backend.generate(PROMPTS, params)]


def test_weight_sync_is_verified_by_the_spot_check(tiny_model_dir, backend):
    from transformers import AutoModelForCausalLM

    trainer_model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).cuda()
    with torch.no_grad():
        for p in trainer_model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    assert logprob_spot_check(backend, trainer_model, PROMPTS) > 1e-3
    backend.load_weights(trainer_model.state_dict(), version=1)
    assert backend.weight_version == 1
    assert logprob_spot_check(backend, trainer_model, PROMPTS) < 1e-3
