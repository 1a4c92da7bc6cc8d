"""`tiny:arith-calc`: the tiny model taught to call the `arith-calc` calculator, the start point of the tool-use demo.

Built offline on top of `tiny:arith` and cached in the store by recipe hash
(`models/tiny-arith-calc/<hash>/`, file hashes checked on every use) with the
same machinery as the tiny model (`tiny.ensure_built`).

What GRPO should find: three-digit sums are out of the tiny model's reach
(about 0% held-out answering directly), and the calculator makes them easy.
So the start point must call the tool correctly and copy its result when it
calls, yet rarely choose to call. Supervised steps on transcripts rendered
exactly as episodes render them (`arith-calc`'s `transcript`) get there in
two stages:
1. Every example calls the tool until, on a selection set disjoint from the
   training problems, the model reproduces the whole tool episode (call,
   then the result copied into `#### N`) under teacher forcing for a
   fraction `target` of problems. Copying has a cliff like arith's carrying
   (loss idles, then drops within ~100 steps; where moves with seed and
   host), hence a measured stopping point, not a fixed step count.
2. `rate_steps` steps where only `tool_fraction` of the examples call and
   the rest answer directly: this sets how often the model reaches for the
   tool (greedy decoding answers directly, sampling calls about that often)
   without time to forget the copying.
The record keeps both measurements and the model's first-token probability
of calling on the selection set.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_core.filehash import hash_files
from rlvr_core.models.tiny import RECORD, TinyRecipe, ensure_built, ensure_tiny_model

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from rlvr_core.problem import Problem
    from rlvr_core.storage import Store

log = logging.getLogger(__name__)

CALC_MODEL_NAME = "tiny:arith-calc"
Row = tuple[list[int], list[int]]


@dataclass(frozen=True)
class CalcRecipe:
    """Everything that determines the built start point; its hash names the cache folder.

    Measured on 2 cores (seed 0, batch 32, learning rate 6e-3): copying set in
    between steps 100 and 225 in one run and 260 and 500 in another (training
    problems drawn differently), ~0.3-0.5 s a step; hence the budget of 800.
    """

    base: TinyRecipe = field(default_factory=TinyRecipe)
    seed: int = 0
    batch_size: int = 32
    learning_rate: float = 6e-3
    lr_warmup_steps: int = 30
    target: float = 0.9  # stage 1 ends when this fraction of selection episodes is reproduced exactly
    check_every: int = 10
    max_tool_steps: int = 800  # stage 1 budget; the record says when it ran out
    selection_problems: int = 64
    tool_fraction: float = 0.3  # stage 2: the share of examples that call the tool
    rate_steps: int = 50
    version: int = 2

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


def calc_recipe_for(name: str) -> CalcRecipe:
    """The recipe `tiny:arith-calc` or `tiny:arith-calc@<seed>` names (the seed is the tool stage's, the base is
    `tiny:arith`); ValueError naming the accepted forms otherwise."""
    base, at, seed = name.partition("@")
    if base != CALC_MODEL_NAME or (at and not seed.isdigit()):
        raise ValueError(f"model.name_or_path={name!r}: the built-in tool-using model is {CALC_MODEL_NAME!r}, "
                         f"optionally with a build seed, e.g. '{CALC_MODEL_NAME}@1'")
    return CalcRecipe(seed=int(seed)) if seed else CalcRecipe()


def episode_row(tokenizer: "PreTrainedTokenizerBase", problem: "Problem", *, use_tool: bool) -> Row:
    """(ids, labels) of a correct `arith-calc` episode, with the loss on the model's text and closing eos only."""
    from rlvr_core.envs.calc import transcript

    ids: list[int] = []
    labels: list[int] = []
    for text, trained in transcript(problem, use_tool=use_tool):
        piece = tokenizer(text, add_special_tokens=False)["input_ids"]
        ids += piece
        labels += piece if trained else [-100] * len(piece)
    return ids + [tokenizer.eos_token_id], labels + [tokenizer.eos_token_id]


def reproduced(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", rows: list[Row]) -> float:
    """Fraction of rows whose every trained token after the first is the model's argmax given the gold prefix
    (teacher forcing): for a tool episode, exactly the problems on which greedy decoding, once it opens a call,
    plays it right. The first token (call or answer directly) is left out: stage 2 makes answering the argmax."""
    import torch

    from rlvr_core.models.warmup import _pad_batch

    batch = _pad_batch(tokenizer, rows)
    model.eval()
    with torch.no_grad():
        predicted = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.argmax(-1)
    labels = batch["labels"][:, 1:]                                     # [B, T-1]
    trained = labels != -100                                            # [B, T-1]
    first = trained.int().argmax(dim=1)                                 # [B] position of the first trained token
    trained[torch.arange(len(rows)), first] = False
    wrong = (predicted[:, :-1] != labels) & trained                     # [B, T-1]
    return float((~wrong.any(dim=1)).float().mean())


def call_probability(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", problems: list["Problem"]) -> float:
    """Mean probability that the model's first token opens a `<calc>` call: about the rate sampling calls."""
    import torch

    from rlvr_core.models.warmup import _pad_batch

    opener = tokenizer("<calc>", add_special_tokens=False)["input_ids"][0]
    prompts = [episode_row(tokenizer, p, use_tool=True) for p in problems]
    prompt_rows = [(ids[:labels.index(opener)], labels[:labels.index(opener)]) for ids, labels in prompts]
    batch = _pad_batch(tokenizer, prompt_rows)
    model.eval()
    with torch.no_grad():
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, -1]  # [B, V]
    return float(logits.softmax(-1)[:, opener].mean())


def teach_tool_use(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", recipe: CalcRecipe,
                   problems: list["Problem"], selection: list["Problem"]) -> dict[str, Any]:
    """Train `model` in place through the two stages of the module docstring; return what was measured."""
    import torch

    from rlvr_core.models.warmup import _pad_batch

    torch.manual_seed(recipe.seed)
    rng = random.Random(recipe.seed)
    checks = [episode_row(tokenizer, p, use_tool=True) for p in selection]
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate, betas=(0.9, 0.98), weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / recipe.lr_warmup_steps))

    def step(tool_fraction: float) -> None:
        model.train()
        rows = [episode_row(tokenizer, p, use_tool=rng.random() < tool_fraction)
                for p in rng.choices(problems, k=recipe.batch_size)]
        loss = model(**_pad_batch(tokenizer, rows)).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()

    history: list[tuple[int, float]] = []
    tool_steps = 0
    while tool_steps < recipe.max_tool_steps:
        step(1.0)
        tool_steps += 1
        if tool_steps % recipe.check_every == 0:
            history.append((tool_steps, reproduced(model, tokenizer, checks)))
            if history[-1][1] >= recipe.target:
                break
    for _ in range(recipe.rate_steps):
        step(recipe.tool_fraction)
    return {"tool_steps": tool_steps, "reached_target": bool(history) and history[-1][1] >= recipe.target,
            "history": history, "reproduced": reproduced(model, tokenizer, checks),
            "call_probability": call_probability(model, tokenizer, selection)}


def build_calc_model(output_dir: Path, base_dir: Path, recipe: CalcRecipe = CalcRecipe(),
                     problems: list["Problem"] | None = None) -> dict[str, Any]:
    """Teach the model in `base_dir` to use the calculator and save it to `output_dir`; return its record
    (written last). `problems`: the training problems (default: the `arith-calc` train split less the
    selection set, which is always the split's last `recipe.selection_problems`)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.envs.calc import generate

    pool = generate("train")
    selection = pool[-recipe.selection_problems:]
    tokenizer = AutoTokenizer.from_pretrained(base_dir)
    model = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    result = teach_tool_use(model, tokenizer, recipe, problems or pool[:-recipe.selection_problems], selection)
    if not result["reached_target"]:
        log.warning("tool warm-up: %.0f%% of selection episodes reproduced after %d steps (target %.0f%%); "
                    "carrying on, GRPO gains may be smaller", 100 * result["reproduced"], result["tool_steps"],
                    100 * recipe.target)
    output_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    record = {**result, "recipe": asdict(recipe), "recipe_hash": recipe.digest(), "files": hash_files(output_dir)}
    (output_dir / RECORD).write_text(json.dumps(record, indent=2))
    return record


def ensure_calc_model(store: "Store", local_cache: Path | None = None, recipe: CalcRecipe = CalcRecipe()) -> Path:
    """A local folder holding `tiny:arith-calc` for `recipe` (its base built first if needed), built only when the
    store lacks it; every file is checked against the stored record's hashes (see `tiny.ensure_built`)."""
    def build(folder: Path) -> dict[str, Any]:
        base = ensure_tiny_model(store, local_cache, recipe.base)
        log.info("building %s (recipe %s): teaching the tiny model the calculator", CALC_MODEL_NAME, recipe.digest())
        record = build_calc_model(folder, base, recipe)
        log.info("built %s: %d tool steps, %.0f%% of selection episodes reproduced, first-token call probability "
                 "%.2f", CALC_MODEL_NAME, record["tool_steps"], 100 * record["reproduced"], record["call_probability"])
        return record

    return ensure_built(store, f"models/tiny-arith-calc/{recipe.digest()}", build, local_cache)
