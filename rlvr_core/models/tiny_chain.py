"""`tiny:arith-chain`: the tiny model warmed up on `arith-chain`'s running-sum working, the long workload's start.

The same architecture and character tokenizer as `tiny:arith`, trained from
scratch (the arith model's `#### N` habit would have to be unlearnt) with
the same robust stopping rule (`warmup.py`): supervised steps on worked
answers (`data/chain.py`: one `a + b = c` line per addition, the two terms
in random order, then `#### total`) until greedy decoding answers about a
fifth of a selection set right. There every line is usually well formed but
one of the seven or eight additions often goes wrong, so GRPO has a signal to
raise held-out accuracy on, and sampled completions are 75-105 tokens long
and differ from their first token on.

Built offline and cached in the store by recipe hash
(`models/tiny-arith-chain/<hash>/`, file hashes checked on every use), like
`tiny:arith`. Measured on 2 cores: accuracy crosses 20% after about 300
steps of 64 examples, a few minutes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rlvr_core.models.tiny import TinyRecipe

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

    from rlvr_core.models.warmup import WarmupTask

CHAIN_MODEL_NAME = "tiny:arith-chain"


@dataclass(frozen=True)
class ChainRecipe(TinyRecipe):
    """`TinyRecipe` with the chain task's settings: its hash names the cache folder.

    Half `tiny:arith`'s batch (rows are five times longer) at half its peak
    learning rate; the selection set is checked every 10 steps because one
    check decodes 200 completions of up to 128 tokens.
    """

    name: ClassVar[str] = CHAIN_MODEL_NAME
    folder: ClassVar[str] = "tiny-arith-chain"

    learning_rate: float = 3e-3
    batch_size: int = 64
    train_problems: int = 19_000
    max_warmup_steps: int = 1500
    check_every: int = 10
    target: float = 0.2
    target_band: tuple[float, float] = (0.12, 0.40)
    eval_problems: int = 200
    max_new_tokens: int = 128
    version: int = 1

    def warmup_task(self, tokenizer: "PreTrainedTokenizerFast") -> "WarmupTask":
        return chain_task(tokenizer, self)


def chain_recipe_for(name: str) -> ChainRecipe:
    """The recipe `tiny:arith-chain` or `tiny:arith-chain@<seed>` names; ValueError naming the forms otherwise."""
    base, at, seed = name.partition("@")
    if base != CHAIN_MODEL_NAME or (at and not seed.isdigit()):
        raise ValueError(f"model.name_or_path={name!r}: the built-in long-completion model is "
                         f"{CHAIN_MODEL_NAME!r}, optionally with a build seed, e.g. '{CHAIN_MODEL_NAME}@1'")
    return ChainRecipe(seed=int(seed)) if seed else ChainRecipe()


def chain_task(tokenizer: "PreTrainedTokenizerFast", recipe: ChainRecipe) -> "WarmupTask":
    """Worked answers to the first `train_problems` of the train split (term order drawn from the recipe seed),
    and greedy accuracy on the next `eval_problems` (train problems the warm-up never sees, so the test split's
    accuracy stays unbiased)."""
    from rlvr_core.data.chain import generate_chain, numbers_of, worked_answer
    from rlvr_core.models.tiny import PROMPT_TEMPLATE, greedy_accuracy
    from rlvr_core.models.warmup import WarmupTask

    pool = generate_chain("train")
    train = pool[:recipe.train_problems]
    selection = pool[recipe.train_problems:recipe.train_problems + recipe.eval_problems]
    order = random.Random(recipe.seed)
    rows = []
    for problem in train:
        prompt = tokenizer(PROMPT_TEMPLATE.format(prompt=problem.prompt))["input_ids"]
        answer = tokenizer(worked_answer(numbers_of(problem), order))["input_ids"] + [tokenizer.eos_token_id]
        rows.append((prompt + answer, [-100] * len(prompt) + answer))
    return WarmupTask(rows=rows, selection_problems=len(selection),
                      accuracy=lambda model: greedy_accuracy(model, tokenizer, selection, recipe.max_new_tokens))
