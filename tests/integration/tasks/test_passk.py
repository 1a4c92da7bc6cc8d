"""pass@k through the Prefect tasks: shards sampled (one placement slot each) and merged into one result."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect import flow

from tasks.passk import compute_pass_at_k

pytestmark = pytest.mark.slow


def test_shards_are_sampled_and_merged(prefect_harness: str, tiny_model_dir: Path, tmp_path: Path) -> None:
    @flow
    def pass_at_k_flow(model: str, out: str, store: str) -> dict:
        return compute_pass_at_k(model, "arith", out, shards=2, n=4, limit=6, store_root=store)

    result = pass_at_k_flow(str(tiny_model_dir), str(tmp_path / "out"), str(tmp_path / "store"))
    assert result["n_items"] == 6 and result["samples_per_item"] == 4
    assert sorted(p.name for p in (tmp_path / "out" / "shards").iterdir()) == ["shard-0-of-2", "shard-1-of-2"]
    assert set(result["pass_at_k"]) == {"1", "2", "4"}
    assert 0.0 <= result["pass_at_k"]["1"] <= result["pass_at_k"]["4"] <= 1.0


def test_a_store_on_an_s3_endpoint_is_read_and_written_there(prefect_harness: str, tiny_model_dir: Path,
                                                             tmp_path: Path, s3_endpoint: str, s3_bucket: str) -> None:
    from rlvr_core.storage import open_store

    @flow
    def pass_at_k_flow(model: str, out: str, store: str, endpoint: str) -> dict:
        return compute_pass_at_k(model, "arith", out, n=2, limit=2, store_root=store, store_endpoint_url=endpoint)

    root = f"s3://{s3_bucket}/store"
    result = pass_at_k_flow(str(tiny_model_dir), str(tmp_path / "out"), root, s3_endpoint)
    assert result["n_items"] == 2
    assert any(key.startswith("datasets/arith/") for key in open_store(root, s3_endpoint).list(""))
