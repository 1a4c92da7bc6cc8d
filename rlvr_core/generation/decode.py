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
the pass that chose it. The loop ends once every row has finished. The KV
cache keeps one slot per line in buffers reserved up front (room for every
row and every new token), so a line that splits off or replaces a finished
one copies its own slot, never the whole cache (`next_lines`, `ReservedLayer`).
`benchmarks/generation.py` measures it against plain `model.generate`.

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
    reserve(cache, max_new_tokens, slots=max(rows, len(prompt_ids)))
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
        inputs, line, source = next_lines(line, chosen, ~finished, len(line_logits), line_logits.shape[1])
        if source is not None:
            regroup(cache, source)
            line_mask, line_position = line_mask[source], line_position[source]
        line_logits = model(input_ids=inputs[:, None], attention_mask=line_mask[:, :width + step + 1],
                            position_ids=(line_position + step)[:, None], past_key_values=cache,
                            use_cache=True).logits[:, -1].float()                       # [U, V]
    return Decoded(tokens=torch.stack(tokens, dim=1), logprobs=torch.stack(logprobs, dim=1))


def next_lines(line: torch.Tensor, chosen: torch.Tensor, live: torch.Tensor, lines: int, vocab: int
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """After every row drew `chosen`: the next pass's input token per line, each row's line, and for each next
    line the line whose cache it continues (None: every line continues its own).

    The next lines are the distinct (line, token) pairs of the live rows, and the cache keeps one slot per
    line. A line continues in its parent's slot when it is the parent's first child and that slot is still
    in range; the other lines (a parent's further children, and lines whose parent's slot lies past the new
    line count) take the free slots. So only those slots are copied (`ReservedLayer.regroup`): a split copies
    the lines that split off, a finished line is filled by the last one, never the whole cache.
    Dead rows (`live` False) keep a line index that no longer means anything; their tokens are padding.
    """
    pairs, pair_of_row = torch.unique(line[live] * vocab + chosen[live], return_inverse=True)  # sorted by line
    parents = pairs // vocab                                                            # [U'] each pair's line
    count = len(pairs)
    if count == lines and bool((parents == torch.arange(count, device=parents.device)).all()):
        return pairs % vocab, torch.zeros_like(line).masked_scatter(live, pair_of_row), None  # no split, no end
    first = torch.ones_like(parents, dtype=torch.bool)
    first[1:] = parents[1:] != parents[:-1]
    stays = first & (parents < count)                                                   # keeps its parent's slot
    slot = parents.clone()
    taken = torch.zeros(count, dtype=torch.bool, device=parents.device)
    taken[parents[stays]] = True
    slot[~stays] = torch.nonzero(~taken).squeeze(1)
    inputs, source = torch.empty_like(pairs), torch.empty_like(parents)
    inputs[slot], source[slot] = pairs % vocab, parents
    return inputs, torch.zeros_like(line).masked_scatter(live, slot[pair_of_row]), source


def _positions(mask: torch.Tensor) -> torch.Tensor:
    """Position ids of left-padded rows: 0 at each row's first real token (pads get 0; they are masked)."""
    return (mask.cumsum(dim=1) - 1).clamp(min=0)


def reserve(cache: Cache, tokens: int, slots: int | None = None) -> None:
    """Give each plain dynamic layer of `cache` room for `tokens` more positions and `slots` rows (default: the
    rows it holds; see `ReservedLayer`); other layer kinds (sliding windows, quantized) stay as they are."""
    for index, layer in enumerate(cache.layers):
        if type(layer) is DynamicLayer and layer.is_initialized:
            cache.layers[index] = ReservedLayer(layer, tokens, slots)


def regroup(cache: Cache, source: torch.Tensor) -> None:
    """Make row i of every layer of `cache` what row `source[i]` was ([U'] indices into the current rows)."""
    for layer in cache.layers:
        if isinstance(layer, ReservedLayer):
            layer.regroup(source)
        else:
            layer.batch_select_indices(source)


class ReservedLayer(DynamicLayer):
    """A `DynamicLayer` whose keys and values sit at the front of a buffer with room for more positions and rows.

    `DynamicLayer.update` concatenates: every new token copies every layer's whole cache again, a fifth of
    the tiny model's sampling time. Here `update` writes the new positions into the buffer and returns views
    of the filled part, the same values. Rows are slots of the buffer: `regroup` copies only the slots whose
    content changes, where `batch_select_indices` would copy every row (a quarter of the sampling time of
    diverse completions, whose decoding lines split at most steps).
    """

    def __init__(self, layer: DynamicLayer, tokens: int, slots: int | None = None) -> None:
        super().__init__()
        self.lazy_initialization(layer.keys, layer.values)
        self.rows, self.length = layer.keys.shape[0], layer.keys.shape[-2]
        slots = max(slots or self.rows, self.rows)
        shape = (slots, *layer.keys.shape[1:-2], self.length + tokens, layer.keys.shape[-1])
        self._key_buffer = layer.keys.new_empty(shape)
        self._value_buffer = layer.values.new_empty((*shape[:-1], layer.values.shape[-1]))
        self._key_buffer[:self.rows, ..., :self.length, :] = layer.keys
        self._value_buffer[:self.rows, ..., :self.length, :] = layer.values
        self._expose()

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
               ) -> tuple[torch.Tensor, torch.Tensor]:
        end = self.length + key_states.shape[-2]
        if end > self._key_buffer.shape[-2]:
            raise RuntimeError(f"ReservedLayer: {end} positions, but room was reserved for "
                               f"{self._key_buffer.shape[-2]}; reserve() at least as many tokens as are decoded")
        self._key_buffer[:self.rows, ..., self.length:end, :] = key_states
        self._value_buffer[:self.rows, ..., self.length:end, :] = value_states
        self.length = end
        self._expose()
        return self.keys, self.values

    def regroup(self, source: torch.Tensor) -> None:
        """Row i becomes what row `source[i]` was (`source` [U'] indexes the current rows, repeats allowed, U' at
        most the slots reserved); only rows whose content changes are copied, and only their filled part."""
        if len(source) > self._key_buffer.shape[0]:
            raise RuntimeError(f"ReservedLayer: {len(source)} rows, but {self._key_buffer.shape[0]} slots were "
                               f"reserved; reserve() as many slots as rows are decoded")
        moved = torch.nonzero(source != torch.arange(len(source), device=source.device)).squeeze(1)
        if len(moved):
            filled = slice(0, self.length)
            self._key_buffer[moved, ..., filled, :] = self._key_buffer[source[moved], ..., filled, :]
            self._value_buffer[moved, ..., filled, :] = self._value_buffer[source[moved], ..., filled, :]
        self.rows = len(source)
        self._expose()

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        """Keep the batch rows `indices` (repeats allowed), room for more positions included."""
        self.regroup(indices)

    def _expose(self) -> None:
        self.keys = self._key_buffer[:self.rows, ..., :self.length, :]
        self.values = self._value_buffer[:self.rows, ..., :self.length, :]
