"""The `webextract` splits as `Problem` rows: which seeds each split uses, in which order, and each item's identity.

Seeds: item k of a split uses seed `3k` in `train`, `3k + 1` in `eval` and
`3k + 2` in `bench`, so no two splits share a seed (and no task: a task is
a function of archetype, difficulty, seed and page tier). Hard items with
k % `REAL_EVERY` == 1 have pages of the "real" tier (100-400 KB, 25
wrappers deep, script bundles: the size of crawled pages), one hard item in
eight; the first rows (k = 0) never do. `eval` is the held-out split
training selects checkpoints on; `bench` is for final numbers only. Order:
k, then archetype, then difficulty, so the first `archetypes * 3` rows of a
split hold one task of every archetype and difficulty, and `--limit` keeps
the mix balanced.

Each row carries everything an episode and the verifier need: the prompt
(the user message), the gold spec as JSON in `answer`, the family as
`category`, the difficulty, and in `extra` the archetype, the seed, the
question's parameters, the whole site (pages by path), the generator
version and `content_hash`: a digest of everything that makes the item what
it is (prompt, gold spec, pages, archetype, difficulty), which reports
compare instead of the id, so a generator change that keeps ids is not
mistaken for the same items.

`generator_version()` is what the dataset cache records and checks
(`Source.version`): the declared `GENERATOR_VERSION` and a digest of the
code that generates and solves items, so any change to that code rebuilds a
cached split rather than serving the old rows under the new code.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rlvr_core.problem import Problem
from rlvr_core.envs.web.page import DIFFICULTIES
from rlvr_core.envs.web.task import GENERATOR_VERSION, Task, archetypes, build_task

SPLITS = ("train", "eval", "bench")
REAL_EVERY = 8  # hard item k of a cell has real-sized pages when k % REAL_EVERY == 1
PER_CELL = {"train": 50, "eval": 2, "bench": 4}  # tasks per (archetype, difficulty)
SOURCE = "webextract"
# The code an item depends on (generation, solving, the decoy check's rubric), relative to rlvr_core/envs/web/.
GENERATOR_CODE = ("task.py", "dataset.py", "page.py", "chrome.py", "vocab.py", "rubric.py", "archetypes", "solvers")


def generator_version() -> str:
    """`GENERATOR_VERSION` and a digest of `GENERATOR_CODE`'s Python files: e.g. "3+1f0c9a2b4d6e"."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in GENERATOR_CODE:
        for path in sorted((root / name).rglob("*.py")) if (root / name).is_dir() else [root / name]:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{GENERATOR_VERSION}+{digest.hexdigest()[:12]}"


def item_seed(split: str, k: int) -> int:
    """The seed of item k of `split`: 3k in train, 3k + 1 in eval, 3k + 2 in bench."""
    if split not in SPLITS:
        raise ValueError(f"webextract: unknown split {split!r}; choose one of {list(SPLITS)}")
    return 3 * k + SPLITS.index(split)


def content_hash(problem_fields: dict) -> str:
    """A short stable digest of an item's defining content (see the module docstring)."""
    payload = json.dumps(problem_fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


def to_problem(task: Task) -> Problem:
    answer = json.dumps(task.gold_spec(), ensure_ascii=False)
    prompt = task.prompt()
    digest = content_hash({"prompt": prompt, "answer": answer, "site": task.site, "archetype": task.archetype,
                           "difficulty": task.difficulty, "generator_version": GENERATOR_VERSION})
    extra = {"archetype": task.archetype, "family": task.family, "seed": task.seed, "params": task.params,
             "site": task.site, "page_tier": task.tier, "generator_version": GENERATOR_VERSION,
             "content_hash": digest}
    return Problem(id=task.id, source=SOURCE, prompt=prompt, answer=answer, verifier="webextract",
                   category=task.family, difficulty=task.difficulty,  # type: ignore[arg-type]
                   extra=extra)


def generate_split(split: str, per_cell: int | None = None) -> list[Problem]:
    """Every task of `split` in its fixed order (`per_cell` overrides the split's size, for tests)."""
    count = PER_CELL[split] if per_cell is None else per_cell
    names = sorted(archetypes())
    return [to_problem(build_task(name, difficulty, item_seed(split, k), page_tier(difficulty, k)))
            for k in range(count) for name in names for difficulty in DIFFICULTIES]


def page_tier(difficulty: str, k: int) -> str:
    """The page tier of item k of a cell (see the module docstring)."""
    return "real" if difficulty == "hard" and k % REAL_EVERY == 1 else "standard"
