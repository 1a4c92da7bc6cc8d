"""Dataset sources only evaluation needs: `google/IFEval` (541 prompts) and `HuggingFaceH4/MATH-500`.

They plug into the data package's registry (`register_source`) so they are
cached and loaded exactly like the training sets. Registered only when the
data package does not already provide a source of the same name.
"""

from __future__ import annotations

from dataclasses import replace

from rlvr_core.data.registry import register_source, source_names
from rlvr_core.problem import Problem
from rlvr_core.data.source import Row, RowContext, SkipRow, Source, text_field
from rlvr_core.data.sources import ifbench


def normalise_ifeval(row: Row, ctx: RowContext) -> Problem:
    """IFEval rows have IFBench's shape (key, prompt, instruction_id_list, kwargs); only the verifier differs."""
    return replace(ifbench.normalise(row, ctx), verifier="ifeval")


def normalise_math500(row: Row, ctx: RowContext) -> Problem:
    """MATH-500 carries the gold answer, subject and level as columns (no `\\boxed{}` parsing needed)."""
    answer = text_field(row, "answer")
    subject = str(row.get("subject") or "").strip().lower().replace(" ", "_").replace("&", "and") or None
    level = row.get("level")
    if level in (None, ""):
        raise SkipRow("missing 'level'")
    return Problem(
        id=str(row.get("unique_id") or f"{ctx.split}-{ctx.index}"),
        source=ctx.source,
        prompt=text_field(row, "problem"),
        answer=answer,
        verifier="math",
        category=subject,
        difficulty=f"Level {level}",
    )


IFEVAL = Source(name="google/IFEval", verifier="ifeval", normalise=normalise_ifeval, splits=("train",))
MATH500 = Source(name="HuggingFaceH4/MATH-500", verifier="math", normalise=normalise_math500, splits=("test",))

for _source in (IFEVAL, MATH500):
    if _source.name not in source_names():
        register_source(_source)
