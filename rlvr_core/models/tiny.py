"""The built-in tiny model: a Qwen3-architecture LM warmed up on `arith`.

Built deterministically and offline so the demo and the tests have a real
model to train and evaluate without a hub. The recipe (architecture, tokenizer,
warm-up) is hashed; the built folder is cached in the store under
`models/tiny-arith/<recipe-hash>/` and rebuilt only when the recipe changes.

Why a warm-up that stops on measured accuracy: supervised training on this
task has a cliff (held-out accuracy goes ~15% -> ~70% within a handful of
steps once carrying is learned). GRPO needs a policy that is sometimes right
(a group of all-zero rewards carries no signal) but far from solved, so the
warm-up checks held-out greedy accuracy every step near the cliff and stops
inside `target_band`, stepping back with a smaller learning rate on overshoot.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
import string
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rlvr_core.data.arith import generate_arith

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerFast

log = logging.getLogger(__name__)

TINY_MODEL_NAME = "tiny:arith"
PROMPT_TEMPLATE = "{prompt}\n"
SPECIAL_TOKENS = {"pad": "<pad>", "eos": "<eos>", "unk": "<unk>"}
_ANSWER = re.compile(r"####\s*(-?\d+)")


@dataclass(frozen=True)
class TinyRecipe:
    """Everything that determines the built model; its hash names the cache folder."""

    layers: int = 3
    hidden: int = 128
    heads: int = 4
    intermediate: int = 512
    max_positions: int = 512
    seed: int = 0
    learning_rate: float = 3e-3
    batch_size: int = 128
    max_warmup_steps: int = 600
    target_band: tuple[float, float] = (0.15, 0.40)
    stop_at: float = 0.18
    check_every_step_above: float = 0.08
    eval_problems: int = 300
    max_new_tokens: int = 8
    version: int = 2

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


def build_tokenizer() -> "PreTrainedTokenizerFast":
    """A character-level tokenizer over printable ASCII, built offline.

    Every printable character is one token, so any prompt tokenises (unknown
    characters map to `<unk>`); `padding_side="left"` is passed to the
    constructor because only then is it saved with the tokenizer.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = sorted(set(string.printable) - set("\r\x0b\x0c"))
    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS.values())}
    for char in chars:
        vocab.setdefault(char, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL_TOKENS["unk"]))
    core.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token=SPECIAL_TOKENS["pad"],
        eos_token=SPECIAL_TOKENS["eos"],
        unk_token=SPECIAL_TOKENS["unk"],
        padding_side="left",
    )


def build_untrained_model(recipe: TinyRecipe, vocab_size: int, eos_id: int, pad_id: int) -> "PreTrainedModel":
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(recipe.seed)
    config = Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=recipe.hidden,
        intermediate_size=recipe.intermediate,
        num_hidden_layers=recipe.layers,
        num_attention_heads=recipe.heads,
        num_key_value_heads=recipe.heads,
        head_dim=recipe.hidden // recipe.heads,
        max_position_embeddings=recipe.max_positions,
        tie_word_embeddings=True,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        bos_token_id=None,
    )
    return Qwen3ForCausalLM(config)


def greedy_accuracy(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerFast", problems: list, max_new_tokens: int) -> float:
    """Fraction of problems whose greedy completion states the right `#### N`."""
    import torch

    prompts = [PROMPT_TEMPLATE.format(prompt=p.prompt) for p in problems]
    batch = tokenizer(prompts, return_tensors="pt", padding=True)
    model.eval()
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    texts = tokenizer.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
    correct = sum(1 for text, p in zip(texts, problems) if (m := _ANSWER.search(text)) and m.group(1) == p.answer)
    return correct / len(problems)


def _supervised_batch(tokenizer: "PreTrainedTokenizerFast", problems: list) -> dict[str, "torch.Tensor"]:
    """Token ids with labels only on the completion (`#### N<eos>`), prompts masked with -100."""
    import torch

    rows = []
    for p in problems:
        prompt_ids = tokenizer(PROMPT_TEMPLATE.format(prompt=p.prompt))["input_ids"]
        answer_ids = tokenizer(f"#### {p.answer}")["input_ids"] + [tokenizer.eos_token_id]
        rows.append((prompt_ids + answer_ids, [-100] * len(prompt_ids) + answer_ids))
    width = max(len(ids) for ids, _ in rows)
    pad = tokenizer.pad_token_id
    input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids, _ in rows])          # [B, T]
    labels = torch.tensor([[-100] * (width - len(lab)) + lab for _, lab in rows])             # [B, T]
    attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids, _ in rows])  # [B, T]
    return {"input_ids": input_ids, "labels": labels, "attention_mask": attention}


def warm_up(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerFast", recipe: TinyRecipe) -> dict:
    """Supervised warm-up until held-out greedy accuracy lands in `recipe.target_band`.

    Returns the warm-up record (steps, accuracy history, final accuracy).
    Raises RuntimeError if the band is never reached within `max_warmup_steps`.
    """
    import copy
    import random

    import torch

    torch.manual_seed(recipe.seed)
    train = generate_arith("train", 6000, seed=recipe.seed)
    held_out = generate_arith("test", recipe.eval_problems, seed=recipe.seed + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate)
    rng = random.Random(recipe.seed)
    low, high = recipe.target_band
    history: list[tuple[int, float]] = []
    snapshot = None
    lr = recipe.learning_rate
    for step in range(1, recipe.max_warmup_steps + 1):
        model.train()
        batch = _supervised_batch(tokenizer, rng.sample(train, recipe.batch_size))
        loss = model(**batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # Held-out checks cost as much as a training step: every 10 steps while
        # accuracy is far from the band, every step once it approaches it.
        near_band = bool(history) and history[-1][1] >= recipe.check_every_step_above
        if step % 10 and not near_band:
            continue
        accuracy = greedy_accuracy(model, tokenizer, held_out, recipe.max_new_tokens)
        history.append((step, accuracy))
        log.info("tiny warm-up step %d loss %.3f held-out accuracy %.3f", step, loss.item(), accuracy)
        if accuracy > high and snapshot is not None:
            # Overshot the band: step back and cross the cliff more slowly.
            model.load_state_dict(snapshot["model"])
            optimizer.load_state_dict(snapshot["optimizer"])
            lr /= 2
            for group in optimizer.param_groups:
                group["lr"] = lr
            continue
        if low <= accuracy <= high and accuracy >= recipe.stop_at:
            return {"steps": step, "accuracy": accuracy, "held_out": len(held_out), "history": history}
        snapshot = {"model": copy.deepcopy(model.state_dict()), "optimizer": copy.deepcopy(optimizer.state_dict())}
    raise RuntimeError(f"tiny warm-up never reached accuracy in {recipe.target_band} within {recipe.max_warmup_steps} "
                       f"steps (history {history[-5:]}); change TinyRecipe.seed or learning_rate")


def build_tiny_model(output_dir: Path, recipe: TinyRecipe = TinyRecipe()) -> dict:
    """Build, warm up and save the tiny model as a Hugging Face folder; return its record."""
    import torch

    torch.set_num_threads(max(1, torch.get_num_threads()))
    tokenizer = build_tokenizer()
    model = build_untrained_model(recipe, len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    record = warm_up(model, tokenizer, recipe)
    record.update(recipe=asdict(recipe), recipe_hash=recipe.digest(),
                  parameters=sum(p.numel() for p in model.parameters()))
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    output_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    (output_dir / "tiny_model.json").write_text(json.dumps(record, indent=2))
    return record


def ensure_tiny_model(store, local_cache: Path | None = None, recipe: TinyRecipe = TinyRecipe()) -> Path:
    """Return a local folder holding the tiny model, building it only when the store lacks this recipe.

    The store copy is the source of truth (so an S3 store shares it between
    nodes); `local_cache` is where a local copy is materialised for loading.
    """
    key = f"models/tiny-arith/{recipe.digest()}"
    local_root = local_cache or Path(tempfile.gettempdir()) / "rlvr-models"
    local_dir = local_root / "tiny-arith" / recipe.digest()
    if (local_dir / "tiny_model.json").exists():
        return local_dir
    if store.exists(f"{key}/tiny_model.json"):
        return store.get_dir(key, local_dir)
    build_dir = Path(tempfile.mkdtemp(prefix="tiny-build-"))
    try:
        record = build_tiny_model(build_dir, recipe)
        log.info("built tiny model: %d parameters, warm-up %d steps, held-out accuracy %.3f",
                 record["parameters"], record["steps"], record["accuracy"])
        store.put_dir(build_dir, key)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    return store.get_dir(key, local_dir)
