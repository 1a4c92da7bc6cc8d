"""vLLM backend: one in-process engine on one GPU, weights replaced in place between GRPO steps.

The engine core runs in this process (`VLLM_ENABLE_V1_MULTIPROCESSING=0`,
set before the engine starts) so `load_weights` can reach the model object
and copy tensors without a restart or a trip through disk. Log-probs are the
raw model's (`logprobs_mode="raw_logprobs"`), the same quantity the hf backend
returns (see base.py). Not covered: tensor parallelism (weights would need
sharding), multiple engines, CPU. Imported only when chosen: vllm is a GPU-only
optional dependency (`pip install 'rlvr-pipeline[gpu]'`).
"""

from __future__ import annotations

import gc
import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from rlvr_core.generation.base import Generation, SamplingParams

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase


class VLLMBackend:
    """A `GenerationBackend` over `vllm.LLM`."""

    name = "vllm"

    def __init__(self, model_path: str, *, device: str = "auto", dtype: str = "auto", seed: int = 42,
                 gpu_memory_utilization: float = 0.9, max_model_len: int | None = None,
                 trust_remote_code: bool = False) -> None:
        if device not in ("auto", "cuda"):
            raise ValueError(f"the vllm backend runs on one CUDA device; device={device!r} is not supported. "
                             "Fix: use device='auto' or 'cuda', or backend 'hf' for CPU")
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        try:
            import vllm
        except ImportError as exc:
            raise ImportError(f"the vllm backend needs vllm ({exc}). Fix: pip install 'rlvr-pipeline[gpu]' on a GPU "
                              "machine, or use backend 'hf'") from exc

        self._llm: Any = vllm.LLM(
            model=model_path, tensor_parallel_size=1, seed=seed, dtype="bfloat16" if dtype == "auto" else dtype,
            gpu_memory_utilization=gpu_memory_utilization, max_model_len=max_model_len,
            trust_remote_code=trust_remote_code, logprobs_mode="raw_logprobs",
        )
        self.tokenizer: PreTrainedTokenizerBase = self._llm.get_tokenizer()
        self.weight_version = 0

    @property
    def llm(self) -> Any:
        if self._llm is None:
            raise RuntimeError("this VLLMBackend is closed; create a new backend with create_backend('vllm', ...)")
        return self._llm

    def generate(self, prompts: Sequence[str], params: SamplingParams) -> list[Generation]:
        import vllm

        if isinstance(prompts, str):
            raise TypeError("generate() takes a sequence of prompts, not one string; wrap it: [prompt]")
        texts, sampling = self._requests(vllm, prompts, params)
        outputs = self.llm.generate(texts, sampling, use_tqdm=False)
        per_request = 1 if params.seeds else params.n
        gens = []
        for r, request in enumerate(outputs):
            for k, completion in enumerate(sorted(request.outputs, key=lambda c: c.index)):
                prompt_index, sample_index = divmod(r * per_request + k, params.n)
                if completion.finish_reason not in ("stop", "length"):
                    raise RuntimeError(f"vLLM ended a sample with finish_reason={completion.finish_reason!r} "
                                       f"(prompt {prompt_index}); the engine aborted the request")
                ids = list(completion.token_ids)
                gens.append(Generation(
                    prompt_index=prompt_index, sample_index=sample_index,
                    prompt_token_ids=list(request.prompt_token_ids), token_ids=ids, text=completion.text,
                    logprobs=[step[token].logprob for step, token in zip(completion.logprobs, ids)],
                    finish_reason=completion.finish_reason, weight_version=self.weight_version))
        return gens

    @staticmethod
    def _requests(vllm: Any, prompts: Sequence[str], params: SamplingParams) -> tuple[list[str], Any]:
        """The engine's prompts and sampling settings: one request of `n` per prompt, or with `params.seeds` one
        request per sample carrying its own seed (vLLM seeds the `n` samples of one request from one value,
        so per-sample seeds need a request each; automatic prefix caching shares the repeated prompt)."""
        common = dict(temperature=params.temperature, top_p=params.top_p, max_tokens=params.max_new_tokens,
                      stop=list(params.stop), logprobs=0)  # logprobs 0: only the sampled token's log-prob
        if not params.seeds:
            return list(prompts), vllm.SamplingParams(n=params.n, seed=params.seed, **common)
        seeds = params.sample_seeds(len(prompts), default=0)  # checks there is one per sample
        return ([p for p in prompts for _ in range(params.n)],
                [vllm.SamplingParams(n=1, seed=seed, **common) for seed in seeds])

    def load_weights(self, state_dict: Mapping[str, "torch.Tensor"], version: int) -> None:
        """Copy Hugging Face-named tensors into the engine's model, then drop KV blocks cached under the old weights."""
        if not isinstance(version, int):
            raise TypeError(f"load_weights(version={version!r}) must be an int (the trainer's weight version)")
        model = self._engine_model()
        expected = {name for name, _ in model.named_parameters()}
        loaded = model.load_weights(state_dict.items())
        # Recent vLLM models return the parameter names they filled; anything left would keep old weights.
        if loaded is not None and expected - set(loaded):
            raise ValueError(f"load_weights: the state_dict left {sorted(expected - set(loaded))[:5]} unset. "
                             "Fix: pass model.state_dict() of the same architecture the engine loaded.")
        self.llm.reset_prefix_cache()
        self.weight_version = version

    def _engine_model(self) -> "torch.nn.Module":
        worker = self.llm.llm_engine.model_executor.driver_worker
        worker = getattr(worker, "worker", worker)  # newer releases wrap the worker in a WorkerWrapperBase
        return worker.model_runner.model

    def close(self) -> None:
        import torch

        self._llm = None
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
