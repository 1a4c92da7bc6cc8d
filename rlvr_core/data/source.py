"""What a dataset source is: a hub dataset plus a row normaliser, or an offline generator.

Each source family lives in its own file under `sources/` and exports
`Source` objects; `registry.py` collects them. A normaliser turns one raw row
into a `Problem` or raises `SkipRow` with a short reason; the loader counts
the reasons instead of crashing, so one malformed row never sinks a dataset.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlvr_core.problem import Problem, VerifierName

Row = Mapping[str, Any]
Normaliser = Callable[[Row, "RowContext"], Problem]
Generator = Callable[[str], list[Problem]]


@dataclass(frozen=True)
class Derivation:
    """Data computed once from a split's problems and cached with them (MBPP: hidden tests run through the
    reference solution). `version()` describes what the current code would derive; a cache whose manifest
    records another (under `key`) is derived again from its own rows, without the hub. `apply` returns the
    new problems and a summary for the manifest."""

    key: str
    version: Callable[[], dict[str, Any]]
    apply: Callable[[list[Problem]], tuple[list[Problem], dict[str, Any]]]


def code_digest(*modules: str) -> str:
    """A short sha256 of the Python files of `modules` (a package: every file under it), found without importing
    them: an offline generator's `Source.version` when it declares no version of its own."""
    digest = hashlib.sha256()
    for module in modules:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise ValueError(f"code_digest: no module {module!r}; name a module of this checkout")
        origin = Path(spec.origin)
        files = sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]
        for path in files:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


class SkipRow(ValueError):
    """A row that cannot become a `Problem`; the message is the reason counted in the stats."""


@dataclass(frozen=True)
class RowContext:
    """Where a row came from: ids built from it stay stable whatever rows get skipped."""

    source: str
    config: str | None
    split: str
    index: int


@dataclass(frozen=True)
class Source:
    """One registered dataset.

    `name` is the registry key and cache folder (the hub id for hub sources).
    Hub sources set `normalise` and load every config in `configs` (None is
    the hub's default config) and concatenate them; a name like
    ``"EleutherAI/hendrycks_math:algebra"`` selects one config. Offline
    sources set `generate` instead and never touch the network, and
    `version`: what the current generator would produce (its declared
    version and a digest of its code), recorded in the cache manifest; a
    cache written by another version is generated again.

    What a rollout of one of its problems needs besides the template:
    `prompt_text` renders the text that fills a prompt template's `{prompt}`
    (None: `problem.prompt`; MBPP adds its assert lines, which name the
    function to write), and `stop` are the strings a completion ends at in
    this dataset's answer format (MBPP's `[DONE]`), whatever the template.
    """

    name: str
    verifier: VerifierName
    normalise: Normaliser | None = None
    configs: tuple[str | None, ...] = (None,)
    splits: tuple[str, ...] = ("train", "test")
    generate: Generator | None = None
    prompt_text: Callable[[Problem], str] | None = None
    stop: tuple[str, ...] = ()
    derive: Derivation | None = None
    version: Callable[[], str] | None = None

    def __post_init__(self) -> None:
        if (self.normalise is None) == (self.generate is None):
            raise ValueError(f"source {self.name!r}: set exactly one of `normalise` (hub) or `generate` (offline)")
        if self.version is not None and self.generate is None:
            raise ValueError(f"source {self.name!r}: `version` describes a generator; a hub source has none")

    @property
    def offline(self) -> bool:
        return self.generate is not None


def text_field(row: Row, key: str, *, strip: bool = True) -> str:
    """The non-empty string `row[key]` (stripped unless `strip=False`), or `SkipRow` naming the field."""
    value = row.get(key)
    if value is None or not isinstance(value, str) or not value.strip():
        raise SkipRow(f"missing or empty {key!r}")
    return value.strip() if strip else value


def list_field(row: Row, key: str) -> list[Any]:
    """The non-empty list `row[key]`, or `SkipRow` naming the field."""
    value = row.get(key)
    if value is None or isinstance(value, (str, bytes)) or len(value) == 0:
        raise SkipRow(f"missing or empty {key!r}")
    return list(value)


def user_prompt(row: Row, key: str = "messages") -> str:
    """The content of the first user message of a chat-format row."""
    messages = row.get(key)
    if not messages:
        raise SkipRow(f"missing or empty {key!r}")
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str) and content.strip():
                return content.strip()
    raise SkipRow(f"no user message with content in {key!r}")
