"""`openai/gsm8k` (config "main"): grade-school word problems; gold = the number after `#### `."""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Row, RowContext, SkipRow, Source, text_field


def gold_answer(solution: str) -> str:
    """The final answer after the last `#### `, with thousands separators removed ("1,000" -> "1000")."""
    if "####" not in solution:
        raise SkipRow("no '#### ' final answer in 'answer'")
    answer = solution.rsplit("####", 1)[1].strip().replace(",", "")
    if not answer:
        raise SkipRow("empty final answer after '#### '")
    return answer


def normalise(row: Row, ctx: RowContext) -> Problem:
    return Problem(
        id=f"{ctx.split}-{ctx.index}",
        source=ctx.source,
        prompt=text_field(row, "question"),
        answer=gold_answer(text_field(row, "answer")),
        verifier="math",
    )


GSM8K = Source(name="openai/gsm8k", verifier="math", normalise=normalise, configs=("main",))
