"""`allenai/IFBench_test`: out-of-distribution instruction-following checks.

Rows carry `key`, `prompt`, `instruction_id_list` and a parallel `kwargs`
list. The hub stores kwargs as one struct type shared by all instructions, so
every dict holds every argument name with None for the unused ones; those
Nones are dropped (as the IFBench evaluation does) before the answer JSON
[{"instruction_id": ..., "kwargs": {...}}, ...] is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from rlvr_core.problem import Problem
from rlvr_core.data.source import Row, RowContext, SkipRow, Source, list_field, text_field


def normalise(row: Row, ctx: RowContext) -> Problem:
    ids = list_field(row, "instruction_id_list")
    kwargs = row.get("kwargs")
    kwargs = list(kwargs) if kwargs is not None else [{} for _ in ids]
    if len(kwargs) != len(ids):
        raise SkipRow("'kwargs' and 'instruction_id_list' differ in length")
    checks = []
    for instruction_id, args in zip(ids, kwargs, strict=True):
        if not isinstance(instruction_id, str) or not instruction_id:
            raise SkipRow("empty id in 'instruction_id_list'")
        if isinstance(args, str):  # some exports store each kwargs dict as JSON text
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError:
                raise SkipRow("'kwargs' entry is not valid JSON") from None
        args = {k: v for k, v in (args or {}).items() if v is not None} if isinstance(args, Mapping) else {}
        checks.append({"instruction_id": instruction_id, "kwargs": args})
    key = row.get("key")
    return Problem(
        id=str(key) if key not in (None, "") else f"{ctx.split}-{ctx.index}",
        source=ctx.source,
        prompt=text_field(row, "prompt"),
        answer=json.dumps(checks, sort_keys=True),
        verifier="ifbench",
    )


IFBENCH_TEST = Source(name="allenai/IFBench_test", verifier="ifbench", normalise=normalise, splits=("train",))
