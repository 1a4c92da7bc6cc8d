"""Load a dataset split as `Problem`s: store cache first, then the hub (or a local copy), then cache it.

`load_problems` is what training and evaluation call; `cache_dataset` is what
the pipeline's dataset-cache step calls so later steps (possibly on other
machines sharing an S3 store) read the same bytes. Rows a source cannot
normalise are skipped and counted per reason, never fatal.

Offline use: with HF_HUB_OFFLINE=1 a split that is neither in the store nor
in the local Hugging Face cache raises `DatasetUnavailableError` saying how
to get it (run once with network, or pass `hub_path` to a local copy).
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_core.data import cache
from rlvr_core.data.registry import Resolved, resolve
from rlvr_core.problem import Problem
from rlvr_core.data.source import RowContext, SkipRow, Source
from rlvr_core.storage import Store

log = logging.getLogger(__name__)


class DatasetUnavailableError(RuntimeError):
    """A split is neither cached nor loadable; the message says what to do."""


@dataclass(frozen=True)
class LoadStats:
    """How many source rows were read, kept and skipped (with the reasons)."""

    rows_read: int
    kept: int
    skipped: int
    skip_reasons: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadResult:
    problems: list[Problem]
    stats: LoadStats
    manifest: dict[str, Any]
    from_cache: bool


def load_problems(
    name: str,
    split: str,
    *,
    store: Store,
    limit: int | None = None,
    hub_path: str | None = None,
    revision: str | None = None,
) -> list[Problem]:
    """The split's problems (the first `limit` of them), cached in `store` after the first load."""
    return load_problems_with_stats(
        name, split, store=store, limit=limit, hub_path=hub_path, revision=revision
    ).problems


def load_problems_with_stats(
    name: str,
    split: str,
    *,
    store: Store,
    limit: int | None = None,
    hub_path: str | None = None,
    revision: str | None = None,
) -> LoadResult:
    """`load_problems` plus skip statistics, the cache manifest and whether the cache served it.

    The whole split is cached even when `limit` is set, so a later call with
    another limit reuses it.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit={limit} must be a positive number of problems, or None for all")
    resolved = resolve(name)
    version = resolved.source.version() if resolved.source.version is not None else None
    cached = cache.read_cache(store, name, split, revision=revision, generator_version=version)
    if cached is not None:
        m = cached.manifest
        stats = LoadStats(m["row_count"] + m["skipped"], m["row_count"], m["skipped"], dict(m["skip_reasons"]))
        derive = resolved.source.derive
        stale = derive is not None and m.get(derive.key, {}).get("version") != derive.version()
        if not stale and m["format_version"] == cache.FORMAT_VERSION:
            return LoadResult(cached.problems[:limit], stats, m, from_cache=True)
        # A stale derivation is derived again; a manifest of the older format gets its item hashes. Neither needs
        # the hub: the rows are the cached ones.
        problems, derived = cached.problems, {derive.key: m[derive.key]} if derive and derive.key in m else {}
        if stale:
            assert derive is not None
            log.info("deriving %s for the cached %s/%s (%s)", derive.key, name, split, derive.version())
            problems, derived = _derive(resolved, cached.problems)
        m = cache.write_cache(store, name, split, problems, source=m["source"], revision=m["revision"],
                              skipped=m["skipped"], skip_reasons=m["skip_reasons"], derived=derived,
                              generator_version=m.get("generator_version"))
        return LoadResult(problems[:limit], stats, m, from_cache=True)
    problems, stats, origin = _build(resolved, name, split, store=store, hub_path=hub_path, revision=revision)
    problems, derived = _derive(resolved, problems)
    manifest = cache.write_cache(
        store,
        name,
        split,
        problems,
        source=origin,
        revision=revision,
        skipped=stats.skipped,
        skip_reasons=stats.skip_reasons,
        derived=derived,
        generator_version=version,
    )
    log.info(
        "cached %s/%s at %s: %d problems, %d rows skipped %s",
        name,
        split,
        store.uri(cache.cache_path(name, split)),
        stats.kept,
        stats.skipped,
        stats.skip_reasons or "",
    )
    return LoadResult(problems[:limit], stats, manifest, from_cache=False)


def cache_dataset(
    name: str,
    split: str,
    store: Store,
    *,
    hub_path: str | None = None,
    revision: str | None = None,
) -> dict[str, Any]:
    """Make sure the split is cached (building it if absent or invalid); returns its manifest."""
    return load_problems_with_stats(name, split, store=store, hub_path=hub_path, revision=revision).manifest


def _derive(resolved: Resolved, problems: list[Problem]) -> tuple[list[Problem], dict[str, Any]]:
    """The problems with the source's derived data (`Source.derive`), and the manifest fields recording it."""
    derive = resolved.source.derive
    if derive is None:
        return problems, {}
    problems, summary = derive.apply(problems)
    return problems, {derive.key: {"version": derive.version(), **summary}}


def _build(
    resolved: Resolved, name: str, split: str, *, store: Store, hub_path: str | None, revision: str | None
) -> tuple[list[Problem], LoadStats, str]:
    """Problems from the generator or the hub/local copy, with duplicates and bad rows skipped."""
    source = resolved.source
    if source.offline:
        assert source.generate is not None
        problems = source.generate(split)
        return problems, LoadStats(len(problems), len(problems), 0, {}), f"offline:{source.name}"
    assert source.normalise is not None
    reasons: Counter[str] = Counter()
    problems: list[Problem] = []
    seen: set[str] = set()
    rows_read = 0
    for config in resolved.configs:
        rows = _load_rows(name, source, config, split, store=store, hub_path=hub_path, revision=revision)
        for index, row in enumerate(rows):
            rows_read += 1
            try:
                problem = source.normalise(row, RowContext(source.name, config, split, index))
            except SkipRow as exc:
                reasons[str(exc)] += 1
                continue
            if problem.id in seen:
                reasons["duplicate id"] += 1
                continue
            seen.add(problem.id)
            problems.append(problem)
    origin = f"local:{Path(hub_path).resolve()}" if hub_path else f"hub:{source.name}"
    skipped = sum(reasons.values())
    return problems, LoadStats(rows_read, len(problems), skipped, dict(reasons)), origin


def _load_rows(
    name: str,
    source: Source,
    config: str | None,
    split: str,
    *,
    store: Store,
    hub_path: str | None,
    revision: str | None,
) -> Any:
    """One config's split via `datasets.load_dataset` (hub id or local dataset repo folder)."""
    import datasets

    path = hub_path or source.name
    if hub_path is not None and not Path(hub_path).is_dir():
        raise DatasetUnavailableError(
            f"hub_path {hub_path!r} for {name!r} is not a folder. Fix: point it at a local copy of the dataset repo."
        )
    try:
        return datasets.load_dataset(path, config, split=split, revision=None if hub_path else revision)
    except Exception as exc:  # datasets raises many types (ConnectionError, ValueError, FileNotFoundError...)
        where = store.uri(cache.cache_path(name, split))
        if hub_path is None and _hub_offline():
            raise DatasetUnavailableError(
                f"dataset {name!r} split {split!r} is not in the store cache ({where}) and HF_HUB_OFFLINE=1 "
                f"prevents downloading {source.name!r}. Fix: run the dataset cache step once with network access "
                f"(unset HF_HUB_OFFLINE), or pass hub_path=<local copy of the dataset repo>."
            ) from exc
        config_text = f" config {config!r}" if config else ""
        raise DatasetUnavailableError(
            f"could not load {path!r}{config_text} split {split!r}: {type(exc).__name__}: {exc}. "
            f"Fix: check the split (known: {', '.join(source.splits)}) and network access, "
            f"or pass hub_path=<local copy of the dataset repo>."
        ) from exc


def _hub_offline() -> bool:
    """Whether Hugging Face downloads are disabled (env var or the already-imported constant)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)
