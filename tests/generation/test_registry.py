"""Choosing a backend by name."""

import pytest

from rlvr_core.generation import SamplingParams, create_backend


def test_unknown_backend_names_the_choices():
    with pytest.raises(ValueError, match=r"unknown generation backend 'tgi'.*\['hf', 'openai', 'vllm'\]"):
        create_backend("tgi", "/nowhere")


def test_bad_device_and_dtype_are_named(tiny_model_dir):
    with pytest.raises(ValueError, match="dtype='int8'"):
        create_backend("hf", str(tiny_model_dir), device="cpu", dtype="int8")
    with pytest.raises(ValueError, match="batch_size=0"):
        create_backend("hf", str(tiny_model_dir), device="cpu", batch_size=0)


@pytest.mark.parametrize(("field", "kwargs"), [
    ("max_new_tokens", dict(max_new_tokens=0)),
    ("temperature", dict(max_new_tokens=1, temperature=-0.1)),
    ("top_p", dict(max_new_tokens=1, top_p=0.0)),
    ("n", dict(max_new_tokens=1, n=0)),
    ("stop", dict(max_new_tokens=1, stop="\n")),
    ("stop", dict(max_new_tokens=1, stop=("",))),
])
def test_sampling_params_reject_bad_values_naming_the_field(field, kwargs):
    with pytest.raises(ValueError, match=f"SamplingParams.{field}="):
        SamplingParams(**kwargs)


def test_vllm_backend_refuses_a_device_its_build_cannot_use_before_starting_an_engine(tiny_model_dir):
    platforms = pytest.importorskip("vllm.platforms")
    other = "cuda" if platforms.current_platform.is_cpu() else "cpu"
    with pytest.raises(ValueError, match=f"cannot run on device='{other}'. Fix: "):
        create_backend("vllm", str(tiny_model_dir), device=other)
