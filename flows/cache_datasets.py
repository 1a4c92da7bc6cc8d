"""`cache-datasets`: put every dataset a config reads (training data and benchmark sets) into the store."""

from __future__ import annotations

from typing import Any

from prefect import flow

from orchestration.artifacts import artifact_key
from orchestration.bad_input import fails_cleanly
from tasks.data import cache_dataset, required_datasets


@flow(name="cache-datasets", log_prints=True)
@fails_cleanly
def cache_datasets(config: str = "tiny-arith", overrides: list[str] | None = None,
                   benchmarks: list[str] | None = None) -> list[dict[str, Any]]:
    """Cache the config's datasets in its store (a local folder or s3://); returns their manifests."""
    from rlvr_core.config import load_config

    return cache_config_datasets(load_config(config, overrides or []), benchmarks)


def cache_config_datasets(cfg: Any, benchmarks: list[str] | None = None) -> list[dict[str, Any]]:
    """One `cache-dataset` task per split `cfg` reads, run concurrently, and a table artifact of their manifests.

    `train-and-eval` calls this inside its own flow run (tasks, not a subflow: a subflow's start and finish
    are on the path to training's start).
    """
    from prefect.artifacts import create_table_artifact

    futures = [cache_dataset.submit(name, split, cfg.storage.root, cfg.storage.endpoint_url)
               for name, split in required_datasets(cfg, benchmarks)]
    manifests = [future.result() for future in futures]
    create_table_artifact(
        [{k: m.get(k) for k in ("name", "split", "row_count", "skipped", "source", "sha256")} for m in manifests],
        key=artifact_key(cfg.run.name, "datasets"), description=f"Datasets cached in {cfg.storage.root}")
    return manifests
