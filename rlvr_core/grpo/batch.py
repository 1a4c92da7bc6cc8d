"""From verified rollouts to a training batch: staleness filter, group filters, advantages, padding.

Everything here runs on the driver and is pure (numpy/torch on CPU), so the
rules that decide what the trainer sees — which samples are too stale, which
groups carry no signal, how tokens are weighted — are unit-testable without Ray.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rlvr_core.problem import Problem
    from rlvr_core.grpo.algo import Algorithm


@dataclass
class Rollout:
    """One completion of one prompt, with its reward once verified."""

    prompt_token_ids: list[int]
    token_ids: list[int]
    logprobs: list[float]        # raw-model log-probs under the weights that sampled it
    text: str
    finish_reason: str           # "stop" | "length"
    weight_version: int
    reward: float = 0.0
    status: str = ""
    loss_mask: list[int] | None = None  # multi-turn: 1 on model tokens, 0 on tool outputs; None: all trained
    episode: dict | None = None          # multi-turn: the whole conversation, kept in rollouts.jsonl


@dataclass
class Group:
    """The G completions of one prompt; `position` is the prompt's index in the data stream."""

    position: int
    problem: "Problem"
    rollouts: list[Rollout]
    worker: int = 0   # the rollout worker (or colocated replica) that sampled it

    @property
    def weight_version(self) -> int:
        """Oldest weights among the group's samples (one generate call: all the same in practice)."""
        return min(r.weight_version for r in self.rollouts)

    @property
    def rewards(self) -> list[float]:
        return [r.reward for r in self.rollouts]


@dataclass
class StalenessSplit:
    fresh: list[Group]
    stale: list[Group]
    histogram: dict[int, int] = field(default_factory=dict)  # staleness -> samples kept


def split_by_staleness(groups: list[Group], trainer_version: int, max_staleness: int) -> StalenessSplit:
    """Keep groups sampled by weights no older than `trainer_version - max_staleness`.

    Staleness of a sample = trainer_version - weight_version (the number of
    optimizer updates since its weights). Stale groups are returned so their
    prompts can be re-queued; the histogram counts kept samples by staleness.
    A sample from the future (weight_version > trainer_version) is a bug in the
    weight bookkeeping and raises.
    """
    split = StalenessSplit(fresh=[], stale=[])
    for group in groups:
        staleness = trainer_version - group.weight_version
        if staleness < 0:
            raise RuntimeError(f"a rollout claims weight version {group.weight_version}, newer than the trainer's "
                               f"{trainer_version}: the weight-sync bookkeeping is broken")
        if staleness > max_staleness:
            split.stale.append(group)
            continue
        split.fresh.append(group)
        split.histogram[staleness] = split.histogram.get(staleness, 0) + len(group.rollouts)
    return split


def split_unjudged(groups: list[Group]) -> tuple[list[Group], list[Group]]:
    """(groups every sample of which was judged, groups with a sample the verifier could not judge).

    A score with status "error" is not a verdict on the completion: the grader or its environment failed
    (a sandbox that could not start, a problem without a gold). Its reward of 0 would teach the policy that
    an answer it never got judged on was wrong, and would shift its group's advantages for the others; so
    such a group is not trained on, and the trace counts its samples (`error_dropped`). A completion that
    makes the grader time out or crash is the policy's doing and scores "timeout" or "wrong", not "error".
    """
    judged, unjudged = [], []
    for group in groups:
        (unjudged if any(r.status == "error" for r in group.rollouts) else judged).append(group)
    return judged, unjudged


@dataclass
class FilterResult:
    groups: list[Group]
    zero_variance_dropped: int = 0   # groups
    overlong_masked: int = 0         # samples


def filter_groups(groups: list[Group], *, filter_zero_variance: bool) -> FilterResult:
    """Drop groups whose rewards are all equal when asked (their advantages are all zero)."""
    if not filter_zero_variance:
        return FilterResult(groups=list(groups))
    kept = [g for g in groups if max(g.rewards) != min(g.rewards)]
    return FilterResult(groups=kept, zero_variance_dropped=len(groups) - len(kept))


def build_train_batch(groups: list[Group], algorithm: "Algorithm", *, max_new_tokens: int, pad_token_id: int,
                      skip_overlong: bool) -> dict[str, np.ndarray] | None:
    """Pad the groups' sequences into arrays the trainer consumes; None when nothing is left to train on.

    Advantages come from each *whole* group's rewards; `skip_overlong` then
    zeroes the loss of completions that hit `max_new_tokens` (they keep their
    place in the group statistics, as in DAPO's overlong filtering). A
    multi-turn rollout's `token_ids` hold its model turns and tool outputs in
    order, and its `loss_mask` keeps the tool outputs out of the loss (and out
    of the token weights' lengths). Rows are left-padded like `generate` does;
    position ids count from the first real token. Arrays (B completions,
    L = longest prompt+completion):
      input_ids [B, L] int64, attention_mask [B, L] int64, position_ids [B, L] int64,
      completion_mask [B, L-1] float32 (1 where the *target* token is a trained completion token),
      old_logprobs [B, L-1] float32, token_weights [B, L-1] float32, advantages [B] float32,
      prompt_lengths [B] int64 (real prompt tokens per row: the trainer runs rows with the same prompt once).
    """
    import torch

    rollouts = [r for g in groups for r in g.rollouts]
    if not rollouts:
        return None
    sizes = {len(g.rollouts) for g in groups}
    if len(sizes) != 1:
        raise ValueError(f"groups must all have the same size to compute group advantages, got sizes {sorted(sizes)}")
    rewards = torch.tensor([g.rewards for g in groups], dtype=torch.float32)                # [P, G]
    advantages = algorithm.advantages(rewards).reshape(-1).numpy()                          # [B]
    padded = pad_rows([(r.prompt_token_ids, r.token_ids) for r in rollouts], pad_token_id)
    b, width = padded["input_ids"].shape
    completion = np.zeros((b, width - 1), dtype=np.float32)
    old_logprobs = np.zeros((b, width - 1), dtype=np.float32)
    for i, r in enumerate(rollouts):
        n = len(r.token_ids)
        if n and not (skip_overlong and r.finish_reason == "length"):
            completion[i, width - 1 - n:] = 1.0 if r.loss_mask is None else r.loss_mask
            old_logprobs[i, width - 1 - n:] = r.logprobs
    if not completion.any():
        return None
    weights = algorithm.token_weights(torch.from_numpy(completion), max_new_tokens).numpy().astype(np.float32)
    return {**padded, "completion_mask": completion, "old_logprobs": old_logprobs, "token_weights": weights,
            "advantages": advantages.astype(np.float32)}


def merge_identical_rows(batch: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """`batch` with rows identical in every array merged into one row that counts for all of them, and how
    many completions each row of the result stands for ([B'] int64, all 1 when no row repeats).

    Sampling a small or well-trained policy repeats completions (the 8 answers to "12+30" are often a few
    distinct strings), and a repeated row costs a forward and a backward pass that add the very same
    gradient again. The loss is a sum over rows of per-token terms times `token_weights`, each term a
    function of its own row's arrays only (ids, old log-probs, advantage), so one row carrying k times the
    token weights of k identical rows gives the same loss and gradient, up to float summation order. Its
    `completion_mask` is scaled by k too, so the token counts and per-token metrics the trainer sums over
    it stay the whole batch's. Rows keep their order (a prompt's completions stay together).
    """
    n = len(batch["input_ids"])
    if any(len(v) != n for v in batch.values()):
        raise ValueError(f"every array of a training batch has one row per completion ({n} rows); got lengths "
                         f"{ {k: len(v) for k, v in batch.items()} }")
    fingerprint = np.concatenate([np.ascontiguousarray(batch[k]).reshape(n, -1).view(np.uint8)
                                  for k in sorted(batch)], axis=1)
    seen: dict[bytes, list[int]] = {}  # row bytes -> [first row, copies], in first-seen order
    for i, row in enumerate(fingerprint):
        seen.setdefault(row.tobytes(), [i, 0])[1] += 1
    if len(seen) == n:
        return batch, np.ones(n, dtype=np.int64)
    keep = np.array([first for first, _ in seen.values()])
    copies = np.array([count for _, count in seen.values()], dtype=np.int64)
    merged = {k: v[keep] for k, v in batch.items()}
    for k in ("completion_mask", "token_weights"):
        merged[k] = merged[k] * copies[:, None].astype(merged[k].dtype)
    return merged, copies


def rows_with_gradient(batch: dict[str, np.ndarray], copies: np.ndarray, *,
                       zero_advantage_counts: bool) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """`batch` (and its rows' `copies`) without the rows whose every loss term is exactly 0 with a 0 gradient.

    A row whose token weights are all 0 (a completion `skip_overlong` masked) adds nothing to the loss.
    Unless `zero_advantage_counts`, neither does a row whose advantage is 0 (every completion of a group with
    equal rewards): its PPO term is -min(ratio * 0, clip(ratio) * 0) = 0 for any weights, so without a KL
    term, and without metrics that read every row's log-probs, it is a forward and backward pass that adds
    exact zeros. On hard prompts (all samples wrong) or easy ones (all right) that is whole groups. The loss
    weights were computed over the whole batch, so the kept rows' loss and gradient are the whole batch's.
    """
    live = batch["token_weights"].any(axis=1)
    if not zero_advantage_counts:
        live &= batch["advantages"] != 0
    if live.all():
        return batch, copies
    return {k: v[live] for k, v in batch.items()}, copies[live]


def pad_rows(rows: list[tuple[list[int], list[int]]], pad_token_id: int) -> dict[str, np.ndarray]:
    """(prompt ids, completion ids) rows left-padded to one right edge, as `generate` pads them:
    input_ids [B, L], attention_mask [B, L], position_ids [B, L] (counted from each row's first real token),
    prompt_lengths [B]."""
    width = max(len(p) + len(c) for p, c in rows)
    input_ids = np.full((len(rows), width), pad_token_id, dtype=np.int64)
    attention = np.zeros((len(rows), width), dtype=np.int64)
    for i, (prompt, completion) in enumerate(rows):
        n = len(prompt) + len(completion)
        input_ids[i, width - n:] = [*prompt, *completion]
        attention[i, width - n:] = 1
    return {"input_ids": input_ids, "attention_mask": attention,
            "position_ids": np.clip(attention.cumsum(axis=1) - 1, 0, None),
            "prompt_lengths": np.array([len(p) for p, _ in rows], dtype=np.int64)}
