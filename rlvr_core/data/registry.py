"""Name -> `Source` lookup, with "name:config" to pick one hub config.

The built-in sources are registered at import; tests and experiments add
their own with `register_source`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlvr_core.data.source import Source
from rlvr_core.data.sources import BUILTIN
from rlvr_core.data.sources.arith_calc import ARITH_CALC
from rlvr_core.data.sources.webextract import WEBEXTRACT

_REGISTRY: dict[str, Source] = {}


@dataclass(frozen=True)
class Resolved:
    """A source and the hub configs a dataset name selects."""

    source: Source
    configs: tuple[str | None, ...]


def register_source(source: Source, *, replace: bool = False) -> None:
    """Add `source` under `source.name`; re-registering a name needs `replace=True`."""
    if ":" in source.name:
        raise ValueError(f"source name {source.name!r} must not contain ':' (it selects a config)")
    if source.name in _REGISTRY and not replace:
        raise ValueError(f"source {source.name!r} is already registered; pass replace=True to override it")
    _REGISTRY[source.name] = source


def unregister_source(name: str) -> None:
    """Remove a source (tests use this to clean up their fixture sources)."""
    _REGISTRY.pop(name, None)


def source_names() -> list[str]:
    return sorted(_REGISTRY)


def resolve(name: str) -> Resolved:
    """The source behind `name` ("openai/gsm8k" or "EleutherAI/hendrycks_math:algebra")."""
    base, _, config = name.partition(":")
    source = _REGISTRY.get(base)
    if source is None:
        raise ValueError(f"unknown dataset {name!r}. Fix: use one of {source_names()} (optionally 'name:config').")
    if not config:
        return Resolved(source, source.configs)
    if source.offline:
        raise ValueError(f"dataset {base!r} is generated offline and has no configs; drop ':{config}'")
    known = [c for c in source.configs if c]
    # A config outside the default list is allowed when the source has a fixed
    # default (e.g. mbpp "sanitized"), but a subject-per-config source must match.
    if len(source.configs) > 1 and config not in known:
        raise ValueError(f"dataset {base!r} has no config {config!r}. Fix: use one of {known}.")
    return Resolved(source, (config,))


for _source in (*BUILTIN, WEBEXTRACT, ARITH_CALC):
    register_source(_source)
