"""IFEval-style RLVR sets from AllenAI: `allenai/RLVR-IFeval` and `allenai/IF_multi_constraints_upto5`.

Both are chat rows (`messages`) with a `ground_truth` string that the ifeval
verifier parses; it is kept unchanged. Only a "train" split exists.
"""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Row, RowContext, Source, text_field, user_prompt


def normalise(row: Row, ctx: RowContext) -> Problem:
    ground_truth = text_field(row, "ground_truth", strip=False)  # the verifier parses it as-is
    key = row.get("key")
    extra = {k: row[k] for k in ("constraint_type", "constraint") if row.get(k)}
    return Problem(
        id=str(key) if key not in (None, "") else f"{ctx.split}-{ctx.index}",
        source=ctx.source,
        prompt=user_prompt(row),
        answer=ground_truth,
        verifier="ifeval",
        category=row.get("constraint_type") or None,
        extra=extra,
    )


RLVR_IFEVAL = Source(name="allenai/RLVR-IFeval", verifier="ifeval", normalise=normalise, splits=("train",))
IF_MULTI = Source(name="allenai/IF_multi_constraints_upto5", verifier="ifeval", normalise=normalise, splits=("train",))
