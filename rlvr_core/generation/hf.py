"""Transformers backend: batched sampling with left padding and a KV cache, on CPU or one GPU.

Covers: n samples per prompt (each prompt prefilled once, its KV cache gathered
per sample), greedy (temperature 0),
seeded sampling with one `torch.Generator` per sample (its seed from
`SamplingParams.sample_seeds`), so a sample's randomness does not depend on
the other prompts of its call or on its row in the batch; stop strings, eos,
raw-model log-probs taken from the logits that chose each token (no second
forward pass; see benchmarks/generation.py for the cost of one), and in-place
weight updates. The token loop is `decode.py`'s, not `model.generate`: the
same tokens for far less per-token overhead on small models. Does not cover: multi-GPU, beam search, or sampling that is
bit-identical across different `batch_size` settings (padding changes the
float rounding of the logits, not the random draws).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Mapping, Sequence

from rlvr_core.generation.base import FinishReason, Generation, SamplingParams

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from transformers.generation.stopping_criteria import StopStringCriteria

    from rlvr_core.generation.decode import ChooseTokens

log = logging.getLogger(__name__)

_DTYPES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
           "float16": "float16", "fp16": "float16"}


def resolve_device_dtype(device: str, dtype: str) -> tuple[str, "torch.dtype"]:
    """Turn "auto" into cuda + bf16 when a GPU is present, else cpu + fp32; validate explicit choices."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} but no CUDA device is available; use device='cpu' or 'auto'")
    if dtype == "auto":
        return device, torch.bfloat16 if device.startswith("cuda") else torch.float32
    if dtype not in _DTYPES:
        raise ValueError(f"dtype={dtype!r} is not one of {sorted(_DTYPES)} or 'auto'")
    return device, getattr(torch, _DTYPES[dtype])


def aliased_keys(model: "torch.nn.Module") -> set[str]:
    """State-dict keys whose tensor is the same storage as an earlier key's (tied embeddings): shipped once."""
    seen: set[int] = set()
    aliased = set()
    for name, tensor in model.state_dict(keep_vars=True).items():
        if tensor.data_ptr() in seen:
            aliased.add(name)
        seen.add(tensor.data_ptr())
    return aliased


def _check_batch_size(batch_size: int) -> None:
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be >= 1 (sequences per generate call)")


class HFBackend:
    """A `GenerationBackend` over a local Hugging Face folder (or hub id, offline cache permitting)."""

    name = "hf"

    def __init__(self, model_path: str, *, device: str = "auto", dtype: str = "auto", seed: int = 42,
                 batch_size: int = 64, trust_remote_code: bool = False) -> None:
        from transformers import AutoModelForCausalLM

        _check_batch_size(batch_size)
        device, model_dtype = resolve_device_dtype(device, dtype)
        model = AutoModelForCausalLM.from_pretrained(model_path, dtype=model_dtype,
                                                     trust_remote_code=trust_remote_code)
        self._attach(model.to(device).eval(), model_path, seed=seed, batch_size=batch_size,
                     trust_remote_code=trust_remote_code)

    @classmethod
    def sharing(cls, model: "PreTrainedModel", model_path: str, *, seed: int, batch_size: int = 64,
                trust_remote_code: bool = False) -> "HFBackend":
        """A backend that generates with `model` itself, not a copy: the colocated trainer's own policy.

        Nothing is loaded but a tokenizer (its own, so left padding never
        leaks into the tokenizer a checkpoint saves). Weight updates to
        `model` are seen by the next `generate` with no sync; the caller keeps
        `weight_version` in step and puts the model in eval mode first.
        """
        _check_batch_size(batch_size)
        backend = cls.__new__(cls)
        backend._attach(model, model_path, seed=seed, batch_size=batch_size, trust_remote_code=trust_remote_code)
        return backend

    def _attach(self, model: "PreTrainedModel", model_path: str, *, seed: int, batch_size: int,
                trust_remote_code: bool) -> None:
        from transformers import AutoTokenizer

        self.device, self.dtype = str(model.device), model.dtype
        self.batch_size, self.seed = batch_size, seed
        self.weight_version, self._calls = 0, 0
        self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(
            model_path, trust_remote_code=trust_remote_code)
        # Left padding keeps every prompt's last token at the right edge, where generation continues.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._model: PreTrainedModel | None = model
        self._eos_ids = _eos_ids(model, self.tokenizer)

    @property
    def model(self) -> "PreTrainedModel":
        if self._model is None:
            raise RuntimeError("this HFBackend is closed; create a new backend with create_backend('hf', ...)")
        return self._model

    def generate(self, prompts: Sequence[str], params: SamplingParams) -> list[Generation]:
        import torch

        if isinstance(prompts, str):
            raise TypeError("generate() takes a sequence of prompts, not one string; wrap it: [prompt]")
        model = self.model
        # Without explicit seeds, (backend seed, call number) seeds the call: reproducible, different per call.
        seeds = params.sample_seeds(len(prompts), default=self.seed * 1_000_003 + self._calls)
        self._calls += 1
        rows = [(p, s) for p in range(len(prompts)) for s in range(params.n)]
        out: list[Generation] = []
        with torch.inference_mode():
            for start in range(0, len(rows), self.batch_size):
                out.extend(self._generate_batch(model, prompts, rows[start:start + self.batch_size], params,
                                                seeds[start:start + self.batch_size]))
        return out

    def _generate_batch(self, model: "PreTrainedModel", prompts: Sequence[str], rows: list[tuple[int, int]],
                        params: SamplingParams, seeds: list[int]) -> list[Generation]:
        import torch

        from rlvr_core.generation.decode import decode

        position = {p: k for k, p in enumerate(dict.fromkeys(p for p, _ in rows))}  # prompt -> its batch row
        batch = self.tokenizer([prompts[p] for p in position], return_tensors="pt", padding=True,
                               add_special_tokens=False).to(self.device)
        group = torch.tensor([position[p] for p, _ in rows], device=self.device)
        decoded = decode(model, batch["input_ids"], batch["attention_mask"], group,
                         max_new_tokens=params.max_new_tokens, choose=self._chooser(params, seeds),
                         eos_ids=self._eos_ids, pad_id=self.tokenizer.pad_token_id, stop=self._stop_criteria(params))
        completions, logprobs = decoded.tokens.tolist(), decoded.logprobs.tolist()      # [B, steps]
        prompt_ids = [ids[m.bool()].tolist() for ids, m in zip(batch["input_ids"], batch["attention_mask"])]
        gens = []
        for i, (prompt_index, sample_index) in enumerate(rows):
            token_ids, text, reason = self._finish(completions[i], params.stop)
            gens.append(Generation(prompt_index=prompt_index, sample_index=sample_index,
                                   prompt_token_ids=prompt_ids[position[prompt_index]], token_ids=token_ids, text=text,
                                   logprobs=logprobs[i][:len(token_ids)], finish_reason=reason,
                                   weight_version=self.weight_version))
        return gens

    def _chooser(self, params: SamplingParams, seeds: list[int]) -> "ChooseTokens":
        """Greedy argmax, or each row's draw from its own generator (`RowSampler`)."""
        if params.greedy:
            return lambda logits: logits.argmax(dim=-1)
        return RowSampler(seeds, self.device, params.temperature, params.top_p, params.max_new_tokens)

    def _stop_criteria(self, params: SamplingParams) -> "StopStringCriteria | None":
        """transformers' `StopStringCriteria` for the stop strings (it matches token ends against the strings,
        so a row finishes on the token that completes one); None without stop strings."""
        if not params.stop:
            return None
        from transformers.generation.stopping_criteria import StopStringCriteria

        return StopStringCriteria(self.tokenizer, list(params.stop))

    def _finish(self, ids: list[int], stop: tuple[str, ...]) -> tuple[list[int], str, FinishReason]:
        """Cut one completion at its first eos or stop string; the pad tokens generate adds after it go too."""
        reason: FinishReason = "length"
        for k, token in enumerate(ids):
            if token in self._eos_ids:
                ids, reason = ids[:k + 1], "stop"
                break
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        hits = [(pos, s) for s in stop if (pos := text.find(s)) >= 0]
        if not hits:
            return ids, text, reason
        pos, s = min(hits)
        return ids[:self._tokens_covering(ids, pos + len(s))], text[:pos], "stop"

    def _tokens_covering(self, ids: list[int], chars: int) -> int:
        """Smallest k whose decoded prefix ids[:k] is at least `chars` characters long (binary search)."""
        low, high = 1, len(ids)
        while low < high:
            mid = (low + high) // 2
            if len(self.tokenizer.decode(ids[:mid], skip_special_tokens=True)) >= chars:
                high = mid
            else:
                low = mid + 1
        return low

    def load_weights(self, state_dict: Mapping[str, "torch.Tensor"], version: int) -> None:
        """Copy `state_dict` into the model in place, then set the version.

        Strict: the same keys and shapes, except that a key aliasing another
        (a tied `lm_head.weight`) may be left out, since loading the tensor it
        shares loads it too; the trainer ships tied weights once.
        """
        if not isinstance(version, int):
            raise TypeError(f"load_weights(version={version!r}) must be an int (the trainer's weight version)")
        fix = "Fix: pass model.state_dict() of the same architecture the backend loaded."
        try:
            result = self.model.load_state_dict(dict(state_dict), strict=False)
        except RuntimeError as exc:
            raise ValueError(f"load_weights: the state_dict does not fit this model ({exc}). {fix}") from None
        missing = set(result.missing_keys) - aliased_keys(self.model)
        if missing or result.unexpected_keys:
            raise ValueError(f"load_weights: the state_dict does not fit this model (missing {sorted(missing)}, "
                             f"unexpected {sorted(result.unexpected_keys)}). {fix}")
        self.weight_version = version

    def close(self) -> None:
        import gc

        import torch

        self._model = None
        gc.collect()
        if self.device.startswith("cuda"):
            torch.cuda.empty_cache()


class RowSampler:
    """Draws row i's next token from its own `torch.Generator` seeded with `seeds[i]`.

    Gumbel-max in its exponential form: argmax(warped logits - log E), with
    E ~ Exp(1) drawn per token from the row's generator, is a draw from
    softmax(warped logits), where warped = temperature, then top-p, as
    transformers' warpers apply them (no top-k). A -inf logit (cut by top-p)
    is never drawn.

    Each row's noise for the next several tokens is drawn in one call (up to
    `max_new_tokens`, as many as fit in `NOISE_BUDGET_BYTES` for the batch): one
    generator call per row and token costs more than the tiny model's
    decoding step itself, while a large vocabulary still draws token by token.
    """

    NOISE_BUDGET_BYTES = 32 * 2**20

    def __init__(self, seeds: list[int], device: str, temperature: float, top_p: float,
                 max_new_tokens: int) -> None:
        import torch
        from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopPLogitsWarper

        self.generators = [torch.Generator(device).manual_seed(seed) for seed in seeds]
        self.warpers = LogitsProcessorList(
            [TemperatureLogitsWarper(temperature), *([TopPLogitsWarper(top_p)] if top_p < 1 else [])])
        self.noise: "torch.Tensor | None" = None   # [B, k, V]: log E for the next k tokens
        self.used, self.left = 0, max_new_tokens

    def __call__(self, logits: "torch.Tensor") -> "torch.Tensor":
        """[B, V] raw logits of the next position -> [B] drawn token ids."""
        import torch

        warped = self.warpers(None, logits)                                                # [B, V]
        if self.noise is None or self.used == self.noise.shape[1]:
            rows, vocab = warped.shape
            ahead = max(1, min(self.left, self.NOISE_BUDGET_BYTES // (rows * vocab * warped.element_size())))
            self.noise = torch.stack([warped.new_empty(ahead, vocab).exponential_(generator=g)
                                      for g in self.generators]).log_()                    # [B, k, V]
            self.used = 0
        self.used, self.left = self.used + 1, self.left - 1
        return (warped - self.noise[:, self.used - 1]).argmax(dim=-1)                        # [B]


def _eos_ids(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase") -> set[int]:
    """The model's eos ids (an int or a list in generation_config) plus the tokenizer's eos."""
    configured = model.generation_config.eos_token_id
    ids = set(configured if isinstance(configured, list) else [configured] if configured is not None else [])
    if tokenizer.eos_token_id is not None:
        ids.add(tokenizer.eos_token_id)
    if not ids:
        raise ValueError("the model has no eos token id (generation_config.eos_token_id and tokenizer.eos_token "
                         "are both unset); set one so generation can stop")
    return ids
