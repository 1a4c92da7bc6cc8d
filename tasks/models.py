"""Model preparation as a Prefect task: resolve `model.name_or_path` to a loadable folder.

For `tiny:arith` this builds the tiny model once (cached in the store); for
a store URI it copies the model locally; hub ids pass through. Retried only
on transient errors (a store or hub hiccup); a build that fails for a
deterministic reason is reported at once.
"""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import DEFAULT
from prefect.logging import get_run_logger

from orchestration.retry import retry_transient


@task(name="prepare-model", task_run_name="prepare-model-{name_or_path}", retries=2, retry_delay_seconds=30,
      retry_condition_fn=retry_transient, persist_result=True, cache_policy=DEFAULT)
def prepare_model(name_or_path: str, store_root: str, endpoint_url: str | None = None) -> str:
    """A local folder (or hub id) from which the model loads."""
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    path = resolve_model_path(name_or_path, open_store(store_root, endpoint_url))
    get_run_logger().info("model %s -> %s", name_or_path, path)
    return path
