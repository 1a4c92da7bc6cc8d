"""Dataset caching as a Prefect task.

Retries: reading the hub or an S3 store can fail transiently (retried with
backoff); an unknown dataset name or a split missing offline fails the same
way every time (not retried). Cache: keyed on the inputs and the flow run,
so a retried flow run skips splits it already cached, while a new run checks
the store again (cheap: the manifest is read and verified).
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import DEFAULT
from prefect.logging import get_run_logger
from prefect.tasks import exponential_backoff

from orchestration.retry import retry_transient


@task(name="cache-dataset", task_run_name="cache-{name}-{split}", retries=3,
      retry_delay_seconds=exponential_backoff(backoff_factor=10), retry_jitter_factor=0.5,
      retry_condition_fn=retry_transient, persist_result=True, cache_policy=DEFAULT)
def cache_dataset(name: str, split: str, store_root: str, endpoint_url: str | None = None) -> dict[str, Any]:
    """Make sure one dataset split is in the store; returns its manifest (row count, hash, source)."""
    from rlvr_core.data.loader import cache_dataset as cache_split
    from rlvr_core.evaluation import sources  # noqa: F401  (registers the benchmark-only datasets)
    from rlvr_core.storage import open_store

    manifest = cache_split(name, split, open_store(store_root, endpoint_url))
    get_run_logger().info("%s/%s: %s rows (sha256 %s…) from %s in %s", name, split, manifest["row_count"],
                          str(manifest["sha256"])[:12], manifest["source"], store_root)
    return manifest


def required_datasets(config: Any, benchmarks: list[str] | None = None) -> list[tuple[str, str]]:
    """(name, split) of every dataset a run reads: training data, the in-loop held-out set, benchmark test sets."""
    from rlvr_core.evaluation.benchmarks import get_benchmark

    pairs = [(spec.name, spec.split) for spec in config.data.train]
    if config.training.eval_every:
        pairs.append((config.training.eval_dataset or config.data.train[0].name, config.training.eval_split))
    for name in benchmarks if benchmarks is not None else config.evaluation.benchmarks:
        bench = get_benchmark(name)
        pairs.append((bench.dataset, bench.split))
    return list(dict.fromkeys(pairs))
