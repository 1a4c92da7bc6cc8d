"""Curriculum order files: a list of prompt ids, read from any store URI, that reorders problems.

Format: a JSON list of ids (`["train-3", "train-1"]`) or a text file with one
id per line (blank lines and `#` comments ignored). An id is a problem's `id`
or, to disambiguate mixed sources, `"<source>::<id>"`. Listed problems come
first in file order (all copies of a problem a mix repeated go together);
unlisted ones follow in their original order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rlvr_core.problem import Problem
from rlvr_core.storage import open_store, split_uri


def read_order_file(uri: str, *, endpoint_url: str | None = None) -> list[str]:
    """The ids in the order file at `uri` (local path or s3://bucket/key)."""
    parent, name = split_uri(uri)
    text = open_store(parent, endpoint_url=endpoint_url).read_text(name)
    if name.endswith(".json") or text.lstrip().startswith("["):
        try:
            ids = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"curriculum file {uri} is not valid JSON ({exc}). Fix: write a JSON list of ids."
            ) from None
        if not isinstance(ids, list) or not all(isinstance(i, (str, int)) for i in ids):
            raise ValueError(f"curriculum file {uri} must hold a JSON list of ids (strings).")
        return [str(i) for i in ids]
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def apply_curriculum(problems: Sequence[Problem], order: Sequence[str], *, origin: str = "order") -> list[Problem]:
    """`problems` reordered by `order` (see module docstring).

    Raises ValueError naming the ids that match no problem (or match several
    sources), since a silently ignored curriculum entry is a wrong experiment.
    """
    by_key: dict[str, list[int]] = {}
    for pos, p in enumerate(problems):
        by_key.setdefault(f"{p.source}::{p.id}", []).append(pos)
        by_key.setdefault(p.id, []).append(pos)
    missing = [i for i in order if i not in by_key]
    ambiguous = [i for i in order if len({problems[pos].source for pos in by_key.get(i, ())}) > 1]
    if missing or ambiguous:
        parts = []
        if missing:
            parts.append(f"{len(missing)} id(s) not found: {_preview(missing)}")
        if ambiguous:
            parts.append(f"{len(ambiguous)} id(s) match several sources: {_preview(ambiguous)} (use '<source>::<id>')")
        raise ValueError(
            f"curriculum {origin}: " + "; ".join(parts) + ". Fix: regenerate the order file for these datasets."
        )
    placed: set[int] = set()
    out = []
    for key in order:
        for pos in by_key[key]:  # several positions only when a mix repeated the problem
            if pos not in placed:
                placed.add(pos)
                out.append(problems[pos])
    out.extend(p for pos, p in enumerate(problems) if pos not in placed)
    return out


def _preview(ids: list[str], shown: int = 10) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(repr(i) for i in ids[:shown]) + more
