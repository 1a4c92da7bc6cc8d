"""`EleutherAI/hendrycks_math`: MATH competition problems, one hub config per subject.

Gold = the content of the last `\\boxed{...}` (or `\\fbox{...}`) in the
solution, braces balanced; category = subject (the config), difficulty =
the row's `level` ("Level 1".."Level 5").
"""

from __future__ import annotations

import re

from rlvr_core.problem import Problem
from rlvr_core.data.source import Row, RowContext, SkipRow, Source, text_field

SUBJECTS = (
    "algebra",
    "counting_and_probability",
    "geometry",
    "intermediate_algebra",
    "number_theory",
    "prealgebra",
    "precalculus",
)


def last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{}`/`\\fbox{}` in `text` (or `\\boxed 5`), None if absent or unbalanced."""
    start, command = max((text.rfind(c), c) for c in ("\\boxed", "\\fbox"))
    if start < 0:
        return None
    pos = start + len(command)
    if not text.startswith("{", pos):
        bare = re.match(r"\s+([^\s$]+)", text[pos:])  # the brace-less form "\\boxed 5$"
        return bare.group(1).rstrip(".") if bare else None
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[pos + 1 : i].strip() or None
    return None


def normalise(row: Row, ctx: RowContext) -> Problem:
    gold = last_boxed(text_field(row, "solution"))
    if gold is None:
        raise SkipRow("no \\boxed{} answer in 'solution'")
    subject = ctx.config or str(row.get("type") or "").strip() or None
    level = row.get("level")
    return Problem(
        id=f"{subject}-{ctx.split}-{ctx.index}",
        source=ctx.source,
        prompt=text_field(row, "problem"),
        answer=gold,
        verifier="math",
        category=subject,
        difficulty=str(level).strip() if level else None,
        extra={"type": row.get("type")} if row.get("type") else {},
    )


MATH = Source(name="EleutherAI/hendrycks_math", verifier="math", normalise=normalise, configs=SUBJECTS)
