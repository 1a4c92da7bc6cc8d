"""The one row schema every dataset is normalised to.

Every loader turns its source's rows into `Problem`s; every verifier and
benchmark consumes them. Verifier-specific ground truth travels as a string in
`answer` so the schema stays flat enough for parquet:

- ``math``: the gold final answer as a human would write it ("72", "\\frac{1}{2}").
- ``code``: JSON ``{"tests": [assert lines], "setup": "test_setup_code", "entry": "function name or null"}``.
- ``ifeval`` / ``ifbench``: the source's ground-truth string, unchanged (either
  RLVR-IFeval ``func_name`` JSON or a JSON list of ``{"instruction_id", "kwargs"}``);
  the verifier parses both.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

VerifierName = Literal["math", "code", "ifeval", "ifbench"]
VERIFIER_NAMES: tuple[str, ...] = get_args(VerifierName)

COLUMNS: tuple[str, ...] = ("id", "source", "prompt", "answer", "verifier", "category", "difficulty", "extra")


@dataclass(frozen=True)
class Problem:
    """One verifiable prompt.

    `id` is unique within `source`; `category` and `difficulty` carry the
    breakdown keys reports group by (MATH subject, level, archetype);
    `extra` keeps source fields a verifier or prompt template may need.
    """

    id: str
    source: str
    prompt: str
    answer: str
    verifier: VerifierName
    category: str | None = None
    difficulty: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        """A flat dict for parquet: `extra` is stored as a JSON string."""
        row = asdict(self)
        row["extra"] = json.dumps(self.extra, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Problem":
        """Inverse of `to_row`; tolerates a missing or null `extra`."""
        extra = row.get("extra") or "{}"
        return cls(
            id=str(row["id"]),
            source=str(row["source"]),
            prompt=str(row["prompt"]),
            answer=str(row["answer"]),
            verifier=row["verifier"],
            category=row.get("category"),
            difficulty=row.get("difficulty"),
            extra=json.loads(extra) if isinstance(extra, str) else dict(extra),
        )
