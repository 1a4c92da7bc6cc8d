"""Turn a config's `model.name_or_path` into something `from_pretrained` loads.

- `tiny:arith` (or `tiny:arith@<seed>`) -> the built-in tiny model, built (or
  fetched from the store) on first use; `tiny:arith-calc` (or `@<seed>`) -> the
  tiny model taught the `arith-calc` calculator, likewise; `tiny:arith-chain`
  (or `@<seed>`) -> the tiny model warmed up on `arith-chain`'s long working;
- a store key or URI (`s3://...`, or a path under the store) -> a local copy;
- a local folder or a hub id -> unchanged (the hub is only reached when the
  caller's environment allows it).
"""

from __future__ import annotations

from pathlib import Path

from rlvr_core.models.tiny import DEFAULT_LOCAL_CACHE, ensure_tiny_model, recipe_for
from rlvr_core.models.tiny_calc import CALC_MODEL_NAME, calc_recipe_for, ensure_calc_model
from rlvr_core.models.tiny_chain import CHAIN_MODEL_NAME, chain_recipe_for


def resolve_model_path(name_or_path: str, store, local_cache: Path | None = None) -> str:
    """A local folder path or hub id for `name_or_path`; builds the tiny model if asked for."""
    if name_or_path.partition("@")[0] == CALC_MODEL_NAME:
        return str(ensure_calc_model(store, local_cache, calc_recipe_for(name_or_path)))
    if name_or_path.partition("@")[0] == CHAIN_MODEL_NAME:
        return str(ensure_tiny_model(store, local_cache, chain_recipe_for(name_or_path)))
    if name_or_path.startswith("tiny:"):
        return str(ensure_tiny_model(store, local_cache, recipe_for(name_or_path)))
    if "://" in name_or_path and not name_or_path.startswith("file://"):
        from rlvr_core.storage import open_store

        remote = open_store(name_or_path, getattr(store, "endpoint_url", None))  # the config's S3 endpoint
        target = (local_cache or DEFAULT_LOCAL_CACHE).resolve() / name_or_path.split("://", 1)[1].replace("/", "_")
        return str(remote.get_dir("", target))
    return name_or_path.removeprefix("file://")
