"""The built-in tiny model: a Qwen3-architecture LM warmed up on `arith`.

Built deterministically and offline so the demo and the tests have a real
model to train and evaluate without a hub. The recipe (architecture,
tokenizer, warm-up) is hashed; the built folder is cached in the store under
`models/tiny-arith/<recipe-hash>/` and rebuilt only when the recipe changes.

GRPO needs a base that is sometimes right (a group of all-zero rewards
carries no signal) but far from solved, so the warm-up stops near a target
held-out accuracy; `rlvr_core/models/warmup.py` says how it gets there on any
host. The stored record lists the sha256 of every file; a local copy is used
only if it matches the store's record, so a folder planted in a shared cache
is never loaded.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import re
import shutil
import string
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rlvr_core.data.arith import generate_arith, split_size
from rlvr_core.filehash import hash_files
from rlvr_core.models.warmup import Row, WarmupSettings, WarmupTask, warm_up

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerFast

    from rlvr_core.problem import Problem
    from rlvr_core.storage import Store

log = logging.getLogger(__name__)

TINY_MODEL_NAME = "tiny:arith"
PROMPT_TEMPLATE = "{prompt}\n"
SPECIAL_TOKENS = {"pad": "<pad>", "eos": "<eos>", "unk": "<unk>"}
RECORD = "tiny_model.json"
DEFAULT_LOCAL_CACHE = Path(".rlvr/cache/models")
_ANSWER = re.compile(r"####\s*(-?\d+)")


@dataclass(frozen=True)
class TinyRecipe(WarmupSettings):
    """Everything that determines the built model (architecture, warm-up data, and the warm-up's
    `WarmupSettings`); its hash names the cache folder."""

    layers: int = 3
    hidden: int = 128
    heads: int = 4
    intermediate: int = 512
    max_positions: int = 512
    train_problems: int = 6000
    eval_problems: int = 300
    max_new_tokens: int = 8
    version: int = 3

    name: ClassVar[str] = TINY_MODEL_NAME     # the model name it builds (class constants, not hashed)
    folder: ClassVar[str] = "tiny-arith"      # its store folder: models/<folder>/<digest>

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]

    def warmup_task(self, tokenizer: "PreTrainedTokenizerFast") -> WarmupTask:
        """What the warm-up trains on and stops by: `arith` answers (`arith_task`)."""
        return arith_task(tokenizer, self)


def recipe_for(name: str) -> TinyRecipe:
    """The recipe that `tiny:arith` or `tiny:arith@<seed>` names; ValueError naming the accepted forms otherwise.

    The seed form exists so a user can check that the demo does not hinge on
    one lucky build (`model.name_or_path=tiny:arith@1`).
    """
    base, at, seed = name.partition("@")
    if base != TINY_MODEL_NAME or (at and not seed.isdigit()):
        raise ValueError(f"model.name_or_path={name!r}: the built-in model is {TINY_MODEL_NAME!r}, "
                         f"optionally with a build seed, e.g. '{TINY_MODEL_NAME}@1'")
    return TinyRecipe(seed=int(seed)) if seed else TinyRecipe()


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




def warmup_data(recipe: "TinyRecipe") -> tuple[list["Problem"], list["Problem"]]:
    """(training problems, selection problems): disjoint slices of the arith train split.

    Selecting on the test split would bias the base model's reported accuracy
    on that same split, so the selection set comes from train pairs the warm-up
    never trains on.
    """
    pool = generate_arith("train", split_size("train"), seed=recipe.seed)
    return pool[: recipe.train_problems], pool[recipe.train_problems : recipe.train_problems + recipe.eval_problems]


def arith_task(tokenizer: "PreTrainedTokenizerFast", recipe: "TinyRecipe") -> WarmupTask:
    """`tiny:arith`'s task: complete `#### N` after the prompt; greedy accuracy on the selection set."""
    train, selection = warmup_data(recipe)
    return WarmupTask(rows=[_supervised_row(tokenizer, p) for p in train], selection_problems=len(selection),
                      accuracy=lambda model: greedy_accuracy(model, tokenizer, selection, recipe.max_new_tokens))


def _supervised_row(tokenizer: "PreTrainedTokenizerFast", problem: "Problem") -> Row:
    """(token ids, labels): the loss falls only on the completion `#### N<eos>`; prompt positions are -100."""
    prompt_ids = tokenizer(PROMPT_TEMPLATE.format(prompt=problem.prompt))["input_ids"]
    answer_ids = tokenizer(f"#### {problem.answer}")["input_ids"] + [tokenizer.eos_token_id]
    return prompt_ids + answer_ids, [-100] * len(prompt_ids) + answer_ids


def build_tiny_model(output_dir: Path, recipe: TinyRecipe = TinyRecipe()) -> dict:
    """Build, warm up on `recipe.warmup_task` and save the tiny model as a Hugging Face folder; return its record
    (written last)."""
    tokenizer = build_tokenizer()
    model = build_untrained_model(recipe, len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id)
    result = warm_up(model, tokenizer, recipe, recipe.warmup_task(tokenizer))
    if not result.in_band:
        log.warning("%s warm-up: held-out accuracy %.3f is outside the target band %s after %d steps; "
                    "carrying on with the closest snapshot (step %s); GRPO gains may be smaller", recipe.name,
                    result.accuracy, recipe.target_band, result.steps, result.chosen_step)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    output_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    record = {**result.as_record(), "recipe": asdict(recipe), "recipe_hash": recipe.digest(),
              "parameters": sum(p.numel() for p in model.parameters()), "files": hash_files(output_dir)}
    (output_dir / RECORD).write_text(json.dumps(record, indent=2))
    return record


def ensure_tiny_model(store: "Store", local_cache: Path | None = None, recipe: TinyRecipe = TinyRecipe()) -> Path:
    """A local folder holding the tiny model for `recipe` (`tiny:arith`, or a subclass's model such as
    `tiny:arith-chain`), built only when the store lacks it (see `ensure_built`)."""
    def build(folder: Path) -> dict:
        log.info("building %s (recipe %s): supervised warm-up to ~%.0f%% held-out accuracy",
                 recipe.name, recipe.digest(), 100 * recipe.target)
        record = build_tiny_model(folder, recipe)
        log.info("built %s: %d parameters, %d warm-up steps, held-out accuracy %.3f (%s, step %s)", recipe.name,
                 record["parameters"], record["steps"], record["accuracy"], record["how"], record["chosen_step"])
        return record

    return ensure_built(store, f"models/{recipe.folder}/{recipe.digest()}", build, local_cache)


def ensure_built(store: "Store", key: str, build: Callable[[Path], dict], local_cache: Path | None = None) -> Path:
    """A local folder holding the model stored under `key` (`models/<name>/<recipe-hash>`), built by `build`
    (which fills a folder and writes its record, file hashes included) only when the store lacks it.

    The store's record is the source of truth (an S3 store shares one build
    between nodes). A local store's folder is used in place; otherwise the
    model is copied to `local_cache` (default `.rlvr/cache/models`). Either
    way every file is checked against the record's sha256 before the folder
    is returned, and a local copy that does not match is replaced.
    """
    if not store.exists(f"{key}/{RECORD}"):
        with _building(store, key, local_cache):
            if not store.exists(f"{key}/{RECORD}"):  # another process may have built it while this one waited
                _build_into_store(store, key, build)
    expected = json.loads(store.read_text(f"{key}/{RECORD}"))["files"]
    if not store.is_s3 and local_cache is None:
        folder = Path(store.uri(key))
        if _matches(folder, expected):
            return folder
        raise RuntimeError(f"{folder} does not match its record {RECORD} (edited or corrupted). "
                           f"Fix: delete {folder} and it is rebuilt on next use.")
    folder = (local_cache or DEFAULT_LOCAL_CACHE).resolve() / key.removeprefix("models/")
    if not _matches(folder, expected):
        fresh = folder.with_name(f".{folder.name}-{uuid.uuid4().hex}")
        store.get_dir(key, fresh)
        if not _matches(fresh, expected):
            shutil.rmtree(fresh, ignore_errors=True)
            raise RuntimeError(f"the model in {store.uri(key)} does not match its record {RECORD}. "
                               f"Fix: delete it from the store and it is rebuilt on next use.")
        shutil.rmtree(folder, ignore_errors=True)
        fresh.rename(folder)
    return folder


@contextlib.contextmanager
def _building(store: "Store", key: str, local_cache: Path | None) -> Iterator[None]:
    """Holds the build lock of `key` on this machine, so two processes that both find the model missing (two
    evaluations, two test workers) build it once: the second waits, then finds the first one's record.

    A local store's lock sits beside the model's folder, so every process using that store shares it; an S3
    store's sits in the local cache (builders on other machines are not serialized: they write the same files).
    """
    if store.is_s3:
        lock = (local_cache or DEFAULT_LOCAL_CACHE).resolve() / f".{key.replace('/', '--')}.lock"
    else:
        folder = Path(store.uri(key))
        lock = folder.with_name(f".{folder.name}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released by the kernel if this process dies while building
        yield


def _build_into_store(store: "Store", key: str, build: Callable[[Path], dict]) -> None:
    build_dir = Path(tempfile.mkdtemp(prefix="tiny-build-"))
    try:
        build(build_dir)
        store.put_dir(build_dir, key)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)


def _matches(folder: Path, expected: dict[str, str]) -> bool:
    """True if `folder` holds exactly the files in `expected` (besides the record) with those hashes."""
    if not folder.is_dir():
        return False
    return {rel: sha for rel, sha in hash_files(folder).items() if rel != RECORD} == expected
