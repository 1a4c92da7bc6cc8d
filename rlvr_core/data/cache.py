"""The store's dataset cache: `datasets/<name>/<split>/data.parquet` plus `manifest.json`.

The parquet file is written first and the manifest last, so a manifest is the
commit marker: no manifest means no cache. The manifest records the sha256
of the parquet bytes; a cache whose bytes do not match (a torn copy, a
hand-edited file, two writers racing) is reported as invalid and rebuilt by
the loader, never trusted.

It also records what the rows are: each item's content hash (`item_hash`,
over every field of the row) in order, their digest, and for a generated
dataset the generator's version (`Source.version`: its declared version and
a digest of its code). A cache written by another generator version is
invalid too, so a generator change is never served the rows of the old one;
the evaluation key (`evaluation/runner.py`) hashes the same item hashes, so
it never returns an evaluation of other items.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rlvr_core.problem import COLUMNS, Problem
from rlvr_core.storage import Store

log = logging.getLogger(__name__)

FORMAT_VERSION = 2  # 2 adds the item hashes and the generator version; 1 is read and upgraded by the loader
DATA_FILE = "data.parquet"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class CachedSplit:
    problems: list[Problem]
    manifest: dict[str, Any]


def cache_path(name: str, split: str, file: str = "") -> str:
    """Store-relative folder (or file in it) of a cached split; ':' in a name becomes '@'."""
    if not name or not split or "/" in split or ".." in name:
        raise ValueError(f"bad dataset name/split {name!r}/{split!r}")
    return "/".join(p for p in ("datasets", name.replace(":", "@"), split, file) if p)


def item_hash(problem: Problem) -> str:
    """A short sha256 of everything that makes an item what it is: every field of its row, `extra` included."""
    row = [problem.id, problem.source, problem.prompt, problem.answer, problem.verifier, problem.category,
           problem.difficulty, problem.extra]
    payload = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


def items_digest(hashes: list[str]) -> str:
    """The sha256 of item hashes in their order: one value that changes when any item, or their order, does."""
    return hashlib.sha256("\n".join(hashes).encode("ascii")).hexdigest()


def problems_to_parquet(problems: list[Problem]) -> bytes:
    """Problems as parquet bytes with an all-string schema (so empty/None columns keep their type).

    Columns are built directly rather than through `Problem.to_row`, whose
    `asdict` deep-copies every row (5x slower at 50k rows); the encoding is
    the same (`extra` as key-sorted JSON), which a test checks.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {col: [getattr(p, col) for p in problems] for col in COLUMNS if col != "extra"}
    columns["extra"] = [json.dumps(p.extra, sort_keys=True) for p in problems]
    table = pa.table({col: columns[col] for col in COLUMNS}, schema=pa.schema([(col, pa.string()) for col in COLUMNS]))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def parquet_to_problems(data: bytes) -> list[Problem]:
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(data)).to_pydict()
    return [
        Problem.from_row(dict(zip(COLUMNS, values, strict=True)))
        for values in zip(*(table[col] for col in COLUMNS), strict=True)
    ]


def write_cache(
    store: Store,
    name: str,
    split: str,
    problems: list[Problem],
    *,
    source: str,
    revision: str | None,
    skipped: int = 0,
    skip_reasons: dict[str, int] | None = None,
    derived: dict[str, Any] | None = None,
    generator_version: str | None = None,
) -> dict[str, Any]:
    """Write the split's parquet, then its manifest; returns the manifest. `derived`: what derived data the
    rows hold (`Source.derive`), recorded under its key; `generator_version`: the version of the generator
    that made the rows (`Source.version`), for a generated dataset."""
    data = problems_to_parquet(problems)
    hashes = [item_hash(p) for p in problems]
    manifest = {
        "format_version": FORMAT_VERSION,
        "name": name,
        "source": source,
        "revision": revision,
        "generator_version": generator_version,
        "split": split,
        "row_count": len(problems),
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "items_sha256": items_digest(hashes),
        "item_hashes": hashes,
        "skipped": skipped,
        "skip_reasons": dict(skip_reasons or {}),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **(derived or {}),
    }
    store.write_bytes(cache_path(name, split, DATA_FILE), data)
    store.write_json(cache_path(name, split, MANIFEST_FILE), manifest)
    return manifest


def read_cache(store: Store, name: str, split: str, *, revision: str | None = None,
               generator_version: str | None = None) -> CachedSplit | None:
    """The cached split, or None when absent or invalid (the reason is logged).

    A `revision` other than None must equal the manifest's, so asking for a
    pinned revision never returns data cached from another one; likewise a
    `generator_version` (a generated dataset's current generator) must equal
    the one that wrote the cache, and the rows must have the item hashes the
    manifest lists. A format-1 manifest (no item hashes) is returned as it is,
    for the loader to upgrade.
    """
    manifest_path = cache_path(name, split, MANIFEST_FILE)
    data_path = cache_path(name, split, DATA_FILE)
    if not store.exists(manifest_path):
        return None
    if not store.exists(data_path):
        log.warning("dataset cache %s has a manifest but no data; rebuilding", store.uri(manifest_path))
        return None
    try:
        manifest = json.loads(store.read_text(manifest_path))
    except json.JSONDecodeError:
        manifest = None
    data = store.read_bytes(data_path)
    problem = _validate(manifest, data, revision, generator_version)
    if problem:
        log.warning("dataset cache %s is invalid (%s); rebuilding", store.uri(cache_path(name, split)), problem)
        return None
    problems = parquet_to_problems(data)
    if len(problems) != manifest["row_count"]:
        log.warning("dataset cache %s row count differs from its manifest; rebuilding", store.uri(manifest_path))
        return None
    if "item_hashes" in manifest and [item_hash(p) for p in problems] != manifest["item_hashes"]:
        log.warning("dataset cache %s rows differ from the item hashes of its manifest; rebuilding",
                    store.uri(manifest_path))
        return None
    return CachedSplit(problems, manifest)


def _validate(manifest: Any, data: bytes, revision: str | None, generator_version: str | None) -> str | None:
    """Why a manifest/data pair cannot be trusted, or None."""
    if not isinstance(manifest, dict) or manifest.get("format_version") not in (1, FORMAT_VERSION):
        return "unknown manifest format"
    if manifest.get("sha256") != hashlib.sha256(data).hexdigest():
        return "sha256 of data.parquet does not match the manifest"
    if revision is not None and manifest.get("revision") != revision:
        return f"cached revision {manifest.get('revision')!r} is not the requested {revision!r}"
    if generator_version is not None and manifest.get("generator_version") != generator_version:
        return (f"cached by generator version {manifest.get('generator_version')!r}, the current generator is "
                f"{generator_version!r}")
    if manifest["format_version"] == FORMAT_VERSION and not isinstance(manifest.get("item_hashes"), list):
        return "the manifest lists no item hashes"
    return None
