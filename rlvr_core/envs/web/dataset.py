"""The `webextract` splits as `Problem` rows: which seeds each split uses, in which order.

Seeds: item k of a split uses seed `2k` in `train` and `2k + 1` in `bench`,
so the two splits never share a seed (and no task: a task is a function of
archetype, difficulty and seed). Order: k, then archetype, then difficulty,
so the first `24 * 3` rows of a split hold one task of every archetype and
difficulty, and `--limit` keeps the mix balanced.

Each row carries everything an episode and the verifier need: the prompt
(the user message), the gold spec as JSON in `answer`, the family as
`category`, the difficulty, and in `extra` the archetype, the seed, the
question's parameters and the whole site (pages by path), so a cached split
is self-contained and reproduces its episodes byte for byte.
"""

from __future__ import annotations

import json

from rlvr_core.data.schema import Problem
from rlvr_core.envs.web.page import DIFFICULTIES
from rlvr_core.envs.web.task import GENERATOR_VERSION, Task, archetypes, build_task

PER_CELL = {"train": 100, "bench": 10}  # tasks per (archetype, difficulty)
SOURCE = "webextract"


def item_seed(split: str, k: int) -> int:
    """The seed of item k: even in train, odd in bench."""
    if split not in PER_CELL:
        raise ValueError(f"webextract: unknown split {split!r}; choose one of {sorted(PER_CELL)}")
    return 2 * k + (split == "bench")


def to_problem(task: Task) -> Problem:
    extra = {"archetype": task.archetype, "family": task.family, "seed": task.seed, "params": task.params,
             "site": task.site, "generator_version": GENERATOR_VERSION}
    return Problem(id=task.id, source=SOURCE, prompt=task.prompt(), answer=json.dumps(task.gold_spec(), ensure_ascii=False),
                   verifier="webextract", category=task.family, difficulty=task.difficulty,  # type: ignore[arg-type]
                   extra=extra)


def generate_split(split: str, per_cell: int | None = None) -> list[Problem]:
    """Every task of `split` in its fixed order (`per_cell` overrides the split's size, for tests)."""
    count = PER_CELL[split] if per_cell is None else per_cell
    names = sorted(archetypes())
    return [to_problem(build_task(name, difficulty, item_seed(split, k)))
            for k in range(count) for name in names for difficulty in DIFFICULTIES]
