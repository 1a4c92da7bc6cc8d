"""pass@k on the real tiny model: shards cover the items once, resume without redoing work, merge consistently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.evaluation.jsonl import read_records
from rlvr_core.evaluation.pass_at_k import launch_shards, merge_pass_at_k, pass_at_k, run_pass_at_k
from rlvr_core.storage import open_store

pytestmark = pytest.mark.slow
N, LIMIT = 4, 6


@pytest.fixture(scope="module")
def sampled(trained_tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("passk")
    store = open_store(str(out / "store"))
    for shard in (0, 1):
        run_pass_at_k(str(trained_tiny_model_dir), "arith", output_dir=out, n=N, temperature=1.0, top_p=1.0,
                      shard=shard, shards=2, limit=LIMIT, device="cpu", store=store, progress=False,
                      verifier_workers=1)
    return out, merge_pass_at_k(out)


def test_shards_split_items_by_index_and_cover_each_once(sampled):
    out, _ = sampled
    indices = {s: [r["index"] for r in read_records(out / "shards" / f"shard-{s}-of-2" / "samples.jsonl")]
               for s in (0, 1)}
    assert indices == {0: [0, 2, 4], 1: [1, 3, 5]}


def test_merged_estimates_follow_from_the_samples(sampled):
    out, result = sampled
    records = [r for s in (0, 1) for r in read_records(out / "shards" / f"shard-{s}-of-2" / "samples.jsonl")]
    counts = [sum(x >= 1.0 for x in r["rewards"]) for r in records]
    assert all(len(r["completions"]) == len(r["rewards"]) == len(r["answers"]) == N for r in records)
    assert result["n_items"] == LIMIT and result["samples_per_item"] == N
    for k in (1, 2, 4):
        assert result["pass_at_k"][str(k)] == pytest.approx(sum(pass_at_k(N, c, k) for c in counts) / LIMIT)
    assert result["pass_at_k"]["1"] <= result["pass_at_k"]["2"] <= result["pass_at_k"]["4"]
    assert json.loads((out / "pass_at_k.json").read_text()) == result


def test_a_finished_shard_is_not_resampled(sampled, trained_tiny_model_dir):
    out, _ = sampled
    samples = out / "shards" / "shard-0-of-2" / "samples.jsonl"
    before = samples.read_bytes()
    run_pass_at_k(str(trained_tiny_model_dir), "arith", output_dir=out, n=N, temperature=1.0, top_p=1.0, shard=0,
                  shards=2, limit=LIMIT, device="cpu", store=str(out / "store"), progress=False)
    assert samples.read_bytes() == before


def test_merge_refuses_a_missing_shard(tmp_path: Path, sampled):
    out, _ = sampled
    partial = tmp_path / "partial" / "shards"
    partial.mkdir(parents=True)
    (partial / "shard-0-of-2").symlink_to(out / "shards" / "shard-0-of-2", target_is_directory=True)
    with pytest.raises(ValueError, match="expected"):
        merge_pass_at_k(partial.parent)


def test_launcher_runs_shards_as_processes_and_merges(trained_tiny_model_dir: Path, tmp_path: Path):
    result = launch_shards(str(trained_tiny_model_dir), "arith", output_dir=tmp_path, shards=2, gpus=[],
                           extra_args=["-n", "2", "--limit", "4", "--device", "cpu", "--store", str(tmp_path / "s")])
    assert result["n_items"] == 4 and set(result["pass_at_k"]) == {"1", "2"}
