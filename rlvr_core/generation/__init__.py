"""Sampling completions from a policy: the backend contract, a registry, and the hf and vllm backends."""

from rlvr_core.generation.base import FinishReason, Generation, GenerationBackend, SamplingParams, derive_seed
from rlvr_core.generation.registry import BACKENDS, create_backend

__all__ = ["BACKENDS", "FinishReason", "Generation", "GenerationBackend", "SamplingParams", "create_backend",
           "derive_seed"]
