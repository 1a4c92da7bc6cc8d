"""The hf backend's token loop: each distinct prompt runs once, then one forward pass per further token.

Why not `model.generate`: on small models its per-token machinery (stopping
criteria lists, cache and kwargs bookkeeping, logits processors, a tuple of
logits returned for every step) costs as much as the forward pass itself.
This loop keeps only what the backend's calls need: a KV cache, one forward
per token for all rows (the first token's logits come from the prompts' own
pass, so n samples of a prompt add no pass of their own), a caller's `choose` (greedy or per-row seeded
sampling), eos and stop strings that finish a row (finished rows carry pad
tokens, as `generate` pads them), and the raw-model log-prob of each chosen
token, taken from the logits of the pass that chose it. The loop ends once
every row has finished. `benchmarks/generation.py` measures it against plain
`model.generate`.

Covers Hugging Face causal LMs whose forward takes `past_key_values`,
`position_ids` and `logits_to_keep` (every decoder-only model in
transformers 5). Not beam search, not speculative decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import torch
from transformers.cache_utils import Cache, DynamicLayer

if TYPE_CHECKING:
    from transformers import PreTrainedModel
    from transformers.generation.stopping_criteria import StopStringCriteria

ChooseTokens = Callable[[torch.Tensor], torch.Tensor]  # [B, V] float32 logits -> [B] token ids


@dataclass(frozen=True)
class Decoded:
    """`tokens[i, t]`: row i's t-th new token (pad once the row has finished); `logprobs`: raw-model log-probs."""

    tokens: torch.Tensor     # [B, T], T <= max_new_tokens
    logprobs: torch.Tensor   # [B, T] float32


def decode(model: "PreTrainedModel", prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, group: torch.Tensor, *,
           max_new_tokens: int, choose: ChooseTokens, eos_ids: set[int], pad_id: int,
           stop: "StopStringCriteria | None" = None) -> Decoded:
    """Continue `prompt_ids[group[i]]` as row i for up to `max_new_tokens` tokens.

    `prompt_ids`/`prompt_mask`: [P, W] left-padded distinct prompts; `group`: [B] the prompt of each row.
    Each distinct prompt runs once, whole: its cache is gathered per row and its last position's logits
    give every row of it the first token's distribution, so n samples of a prompt cost one prefill and
    then one forward pass per further token. A row finishes at an eos token or when `stop` says its
    sequence ends with a stop string. Runs under the caller's grad mode (use `torch.inference_mode()`).
    """
    from transformers import DynamicCache

    rows, width = len(group), prompt_ids.shape[1]
    prefill = model(input_ids=prompt_ids, attention_mask=prompt_mask, position_ids=_positions(prompt_mask),
                    past_key_values=DynamicCache(config=model.config), use_cache=True, logits_to_keep=1)
    cache = prefill.past_key_values
    cache.batch_select_indices(group)
    reserve(cache, max_new_tokens)
    logits = prefill.logits[:, -1].float()[group]                                      # [B, V]
    mask = torch.ones(rows, width + max_new_tokens, dtype=prompt_mask.dtype, device=prompt_mask.device)
    mask[:, :width] = prompt_mask[group]                                                # [B, W + N]
    sequences = prompt_ids[group]                                                       # [B, W + t]
    position = prompt_mask[group].sum(dim=1, keepdim=True)                              # [B, 1]
    eos = torch.tensor(sorted(eos_ids), device=prompt_ids.device)
    finished = torch.zeros(rows, dtype=torch.bool, device=prompt_ids.device)
    tokens, logprobs = [], []
    for step in range(max_new_tokens):
        chosen = torch.where(finished, pad_id, choose(logits))                          # [B]
        tokens.append(chosen)
        logprobs.append(logits.log_softmax(dim=-1).gather(1, chosen[:, None]).squeeze(1))
        sequences = torch.cat([sequences, chosen[:, None]], dim=1)
        finished |= torch.isin(chosen, eos)
        if stop is not None:
            finished |= stop(sequences, None)
        if bool(finished.all()) or step == max_new_tokens - 1:
            break
        logits = model(input_ids=chosen[:, None], attention_mask=mask[:, :width + step + 1],
                       position_ids=position + step, past_key_values=cache,
                       use_cache=True).logits[:, -1].float()                             # [B, V]
    return Decoded(tokens=torch.stack(tokens, dim=1), logprobs=torch.stack(logprobs, dim=1))


def _positions(mask: torch.Tensor) -> torch.Tensor:
    """Position ids of left-padded rows: 0 at each row's first real token (pads get 0; they are masked)."""
    return (mask.cumsum(dim=1) - 1).clamp(min=0)


def reserve(cache: Cache, tokens: int) -> None:
    """Give each plain dynamic layer of `cache` room for `tokens` more positions (see `ReservedLayer`); other
    layer kinds (sliding windows, quantized) stay as they are."""
    for index, layer in enumerate(cache.layers):
        if type(layer) is DynamicLayer and layer.is_initialized:
            cache.layers[index] = ReservedLayer(layer, tokens)


class ReservedLayer(DynamicLayer):
    """A `DynamicLayer` whose keys and values sit at the front of a buffer with room for more positions.

    `DynamicLayer.update` concatenates: every new token copies every layer's whole cache again, a fifth of
    the tiny model's sampling time. Here `update` writes the new positions into the buffer and returns views
    of the filled part, the same values.
    """

    def __init__(self, layer: DynamicLayer, tokens: int) -> None:
        super().__init__()
        self.lazy_initialization(layer.keys, layer.values)
        self.length = layer.keys.shape[-2]
        shape = (*layer.keys.shape[:-2], self.length + tokens, layer.keys.shape[-1])
        self._key_buffer = layer.keys.new_empty(shape)
        self._value_buffer = layer.values.new_empty((*shape[:-1], layer.values.shape[-1]))
        self._key_buffer[..., :self.length, :] = layer.keys
        self._value_buffer[..., :self.length, :] = layer.values
        self._expose()

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
               ) -> tuple[torch.Tensor, torch.Tensor]:
        end = self.length + key_states.shape[-2]
        if end > self._key_buffer.shape[-2]:
            raise RuntimeError(f"ReservedLayer: {end} positions, but room was reserved for "
                               f"{self._key_buffer.shape[-2]}; reserve() at least as many tokens as are decoded")
        self._key_buffer[..., self.length:end, :] = key_states
        self._value_buffer[..., self.length:end, :] = value_states
        self.length = end
        self._expose()
        return self.keys, self.values

    def _expose(self) -> None:
        self.keys = self._key_buffer[..., :self.length, :]
        self.values = self._value_buffer[..., :self.length, :]
