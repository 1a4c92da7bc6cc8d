"""Supervised warm-up of the tiny model to a chosen held-out accuracy, robust to where the cliff lands.

Why it is built this way: supervised training on `arith` has a cliff.
Accuracy idles at 2-10% while carrying is not learned, then climbs to 70%+
within a few dozen steps. Where the cliff falls moves with the seed, the
library versions and the host's floating-point kernels (step 240 on one
machine, never within 600 on another), so a recipe that stops at a fixed
step, or that must see a snapshot inside a narrow band, fails on some hosts.

What it does instead:
1. Train until the measured accuracy first reaches `target` (checked every
   `check_every` steps on a selection set disjoint from both the warm-up
   data and the arith test split), keeping the last snapshot still below it.
2. If that evaluation landed inside `[target, band_high]`, that is the model.
3. If it jumped past the band, the model is found on the straight line between
   the two snapshots (a few steps apart, so the same basin): accuracy there
   moves from below `target` to above `band_high` as the mixing weight goes
   0 -> 1, so bisection reaches the band (by the intermediate value theorem,
   up to ties between items) in a dozen evaluations.
4. If the step budget runs out first, the snapshot closest to `target` is
   returned and marked out of band; the caller says so and carries on.
"""

from __future__ import annotations

import copy
import logging
import random
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rlvr_core.data.arith import generate_arith, split_size
from rlvr_core.progress import Progress

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerFast

    from rlvr_core.problem import Problem
    from rlvr_core.models.tiny import TinyRecipe

log = logging.getLogger(__name__)


@dataclass
class Snapshot:
    """Weights (a state-dict copy) and the selection-set accuracy measured on them."""

    step: float  # a fractional step marks a point between two snapshots
    accuracy: float
    state: dict[str, "torch.Tensor"] = field(repr=False)


@dataclass(frozen=True)
class WarmupResult:
    """What the warm-up chose and how: `history` is every (step, accuracy) it measured."""

    steps: int
    chosen_step: float
    accuracy: float
    in_band: bool
    how: str  # "snapshot", "interpolated" or "closest" (budget exhausted)
    selection_problems: int
    history: list[tuple[float, float]]

    def as_record(self) -> dict[str, Any]:
        return {"steps": self.steps, "chosen_step": self.chosen_step, "accuracy": self.accuracy,
                "in_band": self.in_band, "how": self.how, "selection_problems": self.selection_problems,
                "history": self.history}


def warmup_data(recipe: "TinyRecipe") -> tuple[list["Problem"], list["Problem"]]:
    """(training problems, selection problems): disjoint slices of the arith train split.

    Selecting on the test split would bias the base model's reported accuracy
    on that same split, so the selection set comes from train pairs the warm-up
    never trains on.
    """
    pool = generate_arith("train", split_size("train"), seed=recipe.seed)
    return pool[: recipe.train_problems], pool[recipe.train_problems : recipe.train_problems + recipe.eval_problems]


def warm_up(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerFast", recipe: "TinyRecipe") -> WarmupResult:
    """Train `model` in place and leave it holding the chosen weights (see the module docstring)."""
    import torch

    from rlvr_core.models.tiny import greedy_accuracy

    torch.manual_seed(recipe.seed)
    train, selection = warmup_data(recipe)
    rows = [_supervised_row(tokenizer, p) for p in train]
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate, betas=(0.9, recipe.adam_beta2),
                                  weight_decay=recipe.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / recipe.lr_warmup_steps))
    rng = random.Random(recipe.seed)
    low, high = recipe.target_band
    history: list[tuple[float, float]] = []

    def measure(step: float) -> Snapshot:
        accuracy = greedy_accuracy(model, tokenizer, selection, recipe.max_new_tokens)
        history.append((step, accuracy))
        return Snapshot(step, accuracy, copy.deepcopy(model.state_dict()))

    below = measure(0)
    closest = below
    desc = f"tiny warm-up (until {recipe.target:.0%} held-out)"
    with Progress(recipe.max_warmup_steps, desc, log, eta=False) as progress:
        for step in range(1, recipe.max_warmup_steps + 1):
            model.train()
            batch = _pad_batch(tokenizer, rng.sample(rows, recipe.batch_size))
            loss = model(**batch).loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.grad_clip)
            optimizer.step()
            schedule.step()
            if step % recipe.check_every:
                progress.update(loss=round(loss.item(), 3))
                continue
            now = measure(step)
            progress.update(loss=round(loss.item(), 3), accuracy=now.accuracy)
            closest = min(closest, now, key=lambda s: abs(s.accuracy - recipe.target))
            if now.accuracy < recipe.target:
                below = now
                continue
            if now.accuracy <= high:
                return _result(step, now, low, high, "snapshot", len(selection), history)
            log.info("tiny warm-up: accuracy jumped %.3f -> %.3f between steps %d and %d; "
                     "bisecting between the two snapshots", below.accuracy, now.accuracy, below.step, step)
            chosen = bisect_between(model, below, now, recipe, measure)
            return _result(step, chosen, low, high, "interpolated", len(selection), history)
    model.load_state_dict(closest.state)
    return _result(recipe.max_warmup_steps, closest, low, high, "closest", len(selection), history)


def bisect_between(model: "PreTrainedModel", below: Snapshot, above: Snapshot, recipe: "TinyRecipe",
                   measure: Callable[[float], Snapshot]) -> Snapshot:
    """Load into `model` a point on the segment below -> above whose accuracy is in [target, band high].

    `below` must measure under `recipe.target` and `above` over the band;
    `measure(step)` evaluates the weights `model` holds now. Returns the
    point found, or (after `recipe.max_bisections` tries) the measured point
    closest to the target, which `model` then holds.
    """
    import torch

    low_weight, high_weight = 0.0, 1.0
    closest = min(below, above, key=lambda s: abs(s.accuracy - recipe.target))
    for _ in range(recipe.max_bisections):
        mix = (low_weight + high_weight) / 2
        with torch.no_grad():
            model.load_state_dict({name: torch.lerp(below.state[name].float(), above.state[name].float(), mix)
                                   .to(below.state[name].dtype) for name in below.state})
        point = measure(below.step + mix * (above.step - below.step))
        closest = min(closest, point, key=lambda s: abs(s.accuracy - recipe.target))
        if recipe.target <= point.accuracy <= recipe.target_band[1]:
            return point
        if point.accuracy < recipe.target:
            low_weight = mix
        else:
            high_weight = mix
    model.load_state_dict(closest.state)
    return closest


def _result(steps: int, chosen: Snapshot, low: float, high: float, how: str, selection: int,
            history: list[tuple[float, float]]) -> WarmupResult:
    in_band = low <= chosen.accuracy <= high
    return WarmupResult(steps=steps, chosen_step=round(chosen.step, 4), accuracy=chosen.accuracy, in_band=in_band,
                        how=how, selection_problems=selection, history=history)


def _supervised_row(tokenizer: "PreTrainedTokenizerFast", problem: "Problem") -> tuple[list[int], list[int]]:
    """(token ids, labels): the loss falls only on the completion `#### N<eos>`; prompt positions are -100."""
    from rlvr_core.models.tiny import PROMPT_TEMPLATE

    prompt_ids = tokenizer(PROMPT_TEMPLATE.format(prompt=problem.prompt))["input_ids"]
    answer_ids = tokenizer(f"#### {problem.answer}")["input_ids"] + [tokenizer.eos_token_id]
    return prompt_ids + answer_ids, [-100] * len(prompt_ids) + answer_ids


def _pad_batch(tokenizer: "PreTrainedTokenizerFast", rows: list[tuple[list[int], list[int]]]) -> dict[str, "torch.Tensor"]:
    """Left-padded tensors for a list of rows, as generation sees prompts."""
    import torch

    width = max(len(ids) for ids, _ in rows)
    pad = tokenizer.pad_token_id
    input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids, _ in rows])          # [B, T]
    labels = torch.tensor([[-100] * (width - len(lab)) + lab for _, lab in rows])             # [B, T]
    attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids, _ in rows])  # [B, T]
    return {"input_ids": input_ids, "labels": labels, "attention_mask": attention}
