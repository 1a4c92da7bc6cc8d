"""The hf backend's token loop: each distinct prompt runs once, then one forward pass per further token.

Why not `model.generate`: on small models its per-token machinery (stopping
criteria lists, cache and kwargs bookkeeping, logits processors, a tuple of
logits returned for every step) costs as much as the forward pass itself.
This loop keeps only what the backend's calls need: a KV cache, one forward
per token for the distinct lines (prompt + tokens so far) of the unfinished
rows (the first token's logits come from the prompts' own pass, so n samples
of a prompt add no pass of their own, nor later ones while they draw alike:
on tiny-arith's 64 rows that is 8 lines for 5 of the 7 decode steps), a
caller's `choose` (greedy or per-row seeded sampling), eos and stop strings
that finish a row (finished rows carry pad tokens, as `generate` pads them),
and the raw-model log-prob of each chosen token, taken from the logits of
the pass that chose it. The loop ends once every row has finished. `benchmarks/generation.py` measures it against plain
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
    The model runs once per distinct *line* (prompt + tokens so far) of the unfinished rows, not once per
    row: the n samples of a prompt share one prefill, and keep sharing a forward pass for as long as they
    have drawn the same tokens (a fixed answer format such as "#### " is drawn alike by every sample of a
    sure model). Each row still draws its own token from its line's logits. A row finishes at an eos token
    or when `stop` says its sequence ends with a stop string. Runs under the caller's grad mode (use
    `torch.inference_mode()`).
    """
    from transformers import DynamicCache

    rows, width = len(group), prompt_ids.shape[1]
    prefill = model(input_ids=prompt_ids, attention_mask=prompt_mask, position_ids=_positions(prompt_mask),
                    past_key_values=DynamicCache(config=model.config), use_cache=True, logits_to_keep=1)
    cache = prefill.past_key_values
    reserve(cache, max_new_tokens)
    line_logits = prefill.logits[:, -1].float()                                         # [U, V], U lines
    line = group.clone()                                                                # [B] each row's line
    line_mask = torch.ones(len(prompt_ids), width + max_new_tokens, dtype=prompt_mask.dtype, device=prompt_ids.device)
    line_mask[:, :width] = prompt_mask                                                  # [U, W + N]
    line_position = prompt_mask.sum(dim=1)                                              # [U]
    sequences = prompt_ids[group]                                                       # [B, W + t]
    eos = torch.tensor(sorted(eos_ids), device=prompt_ids.device)
    finished = torch.zeros(rows, dtype=torch.bool, device=prompt_ids.device)
    tokens, logprobs = [], []
    for step in range(max_new_tokens):
        chosen = torch.where(finished, pad_id, choose(line_logits[line]))               # [B]
        tokens.append(chosen)
        logprobs.append(line_logits.log_softmax(dim=-1)[line, chosen])
        sequences = torch.cat([sequences, chosen[:, None]], dim=1)
        finished |= torch.isin(chosen, eos)
        if stop is not None:
            finished |= stop(sequences, None)
        if bool(finished.all()) or step == max_new_tokens - 1:
            break
        inputs, line, parents = _next_lines(line, chosen, ~finished, len(line_logits), line_logits.shape[1], pad_id)
        if parents is not None:
            cache.batch_select_indices(parents)
            line_mask, line_position = line_mask[parents], line_position[parents]
        line_logits = model(input_ids=inputs[:, None], attention_mask=line_mask[:, :width + step + 1],
                            position_ids=(line_position + step)[:, None], past_key_values=cache,
                            use_cache=True).logits[:, -1].float()                       # [U, V]
    return Decoded(tokens=torch.stack(tokens, dim=1), logprobs=torch.stack(logprobs, dim=1))


def _next_lines(line: torch.Tensor, chosen: torch.Tensor, live: torch.Tensor, lines: int, vocab: int,
                pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """After every row drew `chosen`: the next pass's input token per line, each row's line, and the cache
    rows to regroup into (None: each line keeps its row).

    The next lines are the distinct (line, token) pairs of the live rows. A line whose rows drew different
    tokens splits, so the cache is regrouped (copied); lines all of whose rows finished die, and are only
    regrouped away once they are half the lines (until then a dead line is fed padding: a copy of the whole
    cache per finished row would cost more than the rows it saves on a large model).
    """
    pairs, regrouped = torch.unique(line[live] * vocab + chosen[live], return_inverse=True)
    parents = pairs // vocab
    if bool((parents[1:] == parents[:-1]).any()) or 2 * len(pairs) <= lines:
        return pairs % vocab, torch.zeros_like(line).masked_scatter(live, regrouped), parents
    inputs = torch.full((lines,), pad_id, dtype=chosen.dtype, device=chosen.device)
    inputs[parents] = pairs % vocab
    return inputs, line, None


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

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        """Keep the batch rows `indices` (repeats allowed), room for more positions included."""
        self._key_buffer, self._value_buffer = self._key_buffer[indices], self._value_buffer[indices]
        self._expose()

    def _expose(self) -> None:
        self.keys = self._key_buffer[..., :self.length, :]
        self.values = self._value_buffer[..., :self.length, :]
