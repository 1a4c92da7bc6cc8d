"""pass@k as Prefect tasks: one sampling shard per GPU (placed like evaluations), then a merge.

Shards are resumable (`run_pass_at_k` appends per batch), so a retried shard
continues where it stopped; the merge refuses unfinished or inconsistent shards.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import INPUTS
from prefect.logging import get_run_logger

from orchestration.ray_placement import run_placed
from orchestration.retry import retry_transient


@task(name="pass-at-k-shard", task_run_name="pass-at-k-{benchmark}-shard-{shard}", retries=1, retry_delay_seconds=20,
      retry_condition_fn=retry_transient, persist_result=True, cache_policy=INPUTS)
def pass_at_k_shard(model: str, benchmark: str, output_dir: str, shard: int, shards: int, n: int,
                    temperature: float, limit: int | None, backend: str, store_root: str | None,
                    store_endpoint_url: str | None = None) -> str:
    from rlvr_core.evaluation.pass_at_k import run_pass_at_k

    folder = run_pass_at_k(model, benchmark, output_dir=output_dir, n=n, temperature=temperature, shard=shard,
                           shards=shards, limit=limit, backend=backend, store=store_root,
                           store_endpoint_url=store_endpoint_url, progress=False)
    return str(folder)


@task(name="merge-pass-at-k", task_run_name="merge-pass-at-k-{output_dir}")
def merge_pass_at_k(output_dir: str) -> dict[str, Any]:
    from rlvr_core.evaluation.pass_at_k import merge_pass_at_k as merge

    result = merge(output_dir)
    get_run_logger().info("%s pass@k %s maj@k %s", result["benchmark"], result["pass_at_k"], result["maj_at_k"])
    return result


def compute_pass_at_k(model: str, benchmark: str, output_dir: str, *, shards: int = 1, n: int = 16,
                      temperature: float = 0.8, limit: int | None = None, backend: str = "hf",
                      store_root: str | None = None, store_endpoint_url: str | None = None) -> dict[str, Any]:
    """Sample all shards (one GPU each, across the Ray cluster when configured) and merge them; `store_root` and
    `store_endpoint_url` are the config's `storage.root` and `storage.endpoint_url`."""
    calls = [dict(model=model, benchmark=benchmark, output_dir=output_dir, shard=i, shards=shards, n=n,
                  temperature=temperature, limit=limit, backend=backend, store_root=store_root,
                  store_endpoint_url=store_endpoint_url)
             for i in range(shards)]
    run_placed(pass_at_k_shard, calls)
    return merge_pass_at_k(output_dir)
