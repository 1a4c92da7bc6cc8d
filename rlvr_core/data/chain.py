"""`arith-chain`: sums of 7 to 9 one-digit numbers, answered with a line-by-line running sum (long completions).

"What is 7 + 3 + 1 + 2 + 9 + 6 + 1 + 4?" has the gold answer "33"; the
worked answer the start model `tiny:arith-chain` learns writes one line per
addition and then the GSM8K-style answer:

    7 + 3 = 10
    1 + 10 = 11
    11 + 2 = 13
    ...
    #### 33

so a completion is 75-105 tokens of the character-level tokenizer. The two
terms of every line come in either order (a coin flip per line in the
warm-up data), so the samples of one prompt differ from their first token on,
as the chains of thought of a real model do, and rarely repeat one another:
this is the benchmark's long, diverse workload (`benchmarks/grpo_vs_trl.py
--workload long`), where a fixed answer format cannot be shared. The math
verifier reads only the final `#### N`.

Problems are drawn from a seeded stream and assigned to `train` or `test` by
a fixed hash of the numbers, so the splits never share a problem.
"""

from __future__ import annotations

import hashlib
import random

from rlvr_core.problem import Problem

SOURCE = "arith-chain"
SPLIT_SIZES = {"train": 20_000, "test": 1_000}
TERMS = (7, 9)           # how many numbers a problem adds, inclusive
DIGITS = (1, 9)          # each number's range, inclusive
TEST_FRACTION_MOD = 10   # one problem in ten belongs to test


def split_of(numbers: tuple[int, ...]) -> str:
    digest = hashlib.sha256("+".join(map(str, numbers)).encode()).digest()
    return "test" if digest[0] % TEST_FRACTION_MOD == 0 else "train"


def generate_chain(split: str, n: int | None = None) -> list[Problem]:
    """The first `n` problems of `split` (all `SPLIT_SIZES[split]` when None), always in the same order.

    Raises ValueError for an unknown split or an `n` outside 1..split size.
    """
    if split not in SPLIT_SIZES:
        raise ValueError(f"{SOURCE}: unknown split {split!r}; choose one of {tuple(SPLIT_SIZES)}")
    size = SPLIT_SIZES[split]
    n = size if n is None else n
    if not 0 < n <= size:
        raise ValueError(f"{SOURCE}: n={n} must be between 1 and {size} for split {split!r}")
    rng = random.Random(f"{SOURCE}-{split}")
    seen: set[tuple[int, ...]] = set()
    problems = []
    while len(problems) < n:
        numbers = tuple(rng.randint(*DIGITS) for _ in range(rng.randint(*TERMS)))
        if numbers in seen or split_of(numbers) != split:
            continue
        seen.add(numbers)
        problems.append(Problem(
            id=f"{SOURCE}-{split}-{'+'.join(map(str, numbers))}", source=SOURCE,
            prompt=f"What is {' + '.join(map(str, numbers))}?", answer=str(sum(numbers)), verifier="math",
            category="running-sum", difficulty=f"{len(numbers)} terms"))
    return problems


def numbers_of(problem: Problem) -> list[int]:
    """The numbers a problem adds, read back from its prompt."""
    return [int(term) for term in problem.prompt.removeprefix("What is ").removesuffix("?").split(" + ")]


def worked_answer(numbers: list[int], rng: random.Random) -> str:
    """The running-sum working (each line's two terms in an order `rng` picks), then `#### total`."""
    total, lines = numbers[0], []
    for number in numbers[1:]:
        first, second = (total, number) if rng.random() < 0.5 else (number, total)
        total += number
        lines.append(f"{first} + {second} = {total}")
    return "\n".join([*lines, f"#### {total}"])
