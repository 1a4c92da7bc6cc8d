"""Pick a generation backend by name; each backend's module (and its heavy imports) loads only when chosen."""

from __future__ import annotations

import importlib
from typing import Any

from rlvr_core.generation.base import GenerationBackend

# name -> (module, class). openai_api is written by the evaluation helper.
BACKENDS: dict[str, tuple[str, str]] = {
    "hf": ("rlvr_core.generation.hf", "HFBackend"),
    "vllm": ("rlvr_core.generation.vllm", "VLLMBackend"),
    "openai": ("rlvr_core.generation.openai_api", "OpenAIBackend"),
}


def create_backend(name: str, model_path: str, *, device: str = "auto", dtype: str = "auto", seed: int = 42,
                   **options: Any) -> GenerationBackend:
    """Build the backend `name` over `model_path`; `options` go to that backend's constructor (e.g. batch_size)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown generation backend {name!r}; choose one of {sorted(BACKENDS)}")
    module_name, class_name = BACKENDS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(f"generation backend {name!r} needs a package that is not installed ({exc}). Fix: "
                          "install it (vllm: make install; on a GPU machine pip install 'rlvr-pipeline[gpu]') "
                          "or use backend 'hf'") from exc
    return getattr(module, class_name)(model_path, device=device, dtype=dtype, seed=seed, **options)
