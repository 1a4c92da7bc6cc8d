"""Loading splits: local hub-repo fallback, store cache (local and S3), skip counts, invalid caches, offline errors."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import shutil
import sys

import pytest

from rlvr_core.data import cache
from rlvr_core.data.loader import DatasetUnavailableError, cache_dataset, load_problems, load_problems_with_stats
from rlvr_core.data.sources.math import SUBJECTS
from rlvr_core.storage import Store

GSM8K_TEST_ROWS = [
    {"question": "Tom has 2 apples and buys 3. How many?", "answer": "2 + 3 = 5\n#### 5"},
    {"question": "A farm sells 1,200 eggs twice. How many?", "answer": "1,200 * 2 = 2,400\n#### 2,400"},
    {"question": None, "answer": "#### 1"},
    {"question": "What is 7 - 7?", "answer": ""},
    {"question": "No final marker here?", "answer": "it is 4"},
    {"question": "Half of 10?", "answer": "10 / 2 = 5\n#### 5"},
]


@pytest.fixture
def gsm8k_repo(make_hub_repo):
    return make_hub_repo("gsm8k", {"main": {"test": GSM8K_TEST_ROWS, "train": GSM8K_TEST_ROWS[:2]}})


def test_first_load_reads_the_local_repo_then_the_store_cache(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    first = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo))
    assert not first.from_cache
    assert [(p.id, p.answer) for p in first.problems] == [("test-0", "5"), ("test-1", "2400"), ("test-5", "5")]
    shutil.rmtree(gsm8k_repo)  # the second load must not touch the repo
    second = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo))
    assert second.from_cache and second.problems == first.problems


def test_bad_rows_are_skipped_and_counted_in_stats_and_manifest(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    result = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo))
    expected_reasons = {
        "missing or empty 'question'": 1,
        "missing or empty 'answer'": 1,
        "no '#### ' final answer in 'answer'": 1,
    }
    assert (result.stats.rows_read, result.stats.kept, result.stats.skipped) == (6, 3, 3)
    assert result.stats.skip_reasons == expected_reasons
    manifest = store.read_json("datasets/openai/gsm8k/test/manifest.json")
    assert manifest["skipped"] == 3 and manifest["skip_reasons"] == expected_reasons
    assert manifest["row_count"] == 3 and manifest["split"] == "test"
    assert manifest["source"] == f"local:{gsm8k_repo}"
    data = store.read_bytes("datasets/openai/gsm8k/test/data.parquet")
    assert manifest["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["created_at"]


def test_limit_cuts_the_result_but_the_whole_split_is_cached(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    assert len(load_problems("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo), limit=2)) == 2
    assert len(load_problems("openai/gsm8k", "test", store=store)) == 3
    with pytest.raises(ValueError, match="limit=0"):
        load_problems("openai/gsm8k", "test", store=store, limit=0)


def test_cache_whose_hash_does_not_match_is_rebuilt(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    manifest = cache_dataset("openai/gsm8k", "test", store, hub_path=str(gsm8k_repo))
    impostor = load_problems("openai/gsm8k", "train", store=store, hub_path=str(gsm8k_repo))
    store.write_bytes("datasets/openai/gsm8k/test/data.parquet", cache.problems_to_parquet(impostor))
    result = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo))
    assert not result.from_cache and len(result.problems) == 3
    assert result.manifest["sha256"] == manifest["sha256"]
    assert load_problems_with_stats("openai/gsm8k", "test", store=store).from_cache


def test_cache_from_another_revision_is_not_trusted(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    cache_dataset("openai/gsm8k", "test", store, hub_path=str(gsm8k_repo), revision="aaa111")
    assert load_problems_with_stats("openai/gsm8k", "test", store=store, revision="aaa111").from_cache
    rebuilt = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo), revision="bbb222")
    assert not rebuilt.from_cache and rebuilt.manifest["revision"] == "bbb222"


def test_math_loads_every_subject_config_with_category_and_level(tmp_path, make_hub_repo) -> None:
    def row(level: int, answer: str) -> dict:
        return {
            "problem": f"Level {level} problem",
            "level": f"Level {level}",
            "type": "x",
            "solution": f"so \\boxed{{{answer}}}",
        }

    subjects = {subject: {"test": [row(3, "0")]} for subject in SUBJECTS}
    subjects["algebra"] = {"test": [row(1, "3"), row(5, "x+1")]}
    subjects["geometry"] = {
        "test": [row(2, "\\pi"), {"problem": "p", "level": "Level 1", "type": "x", "solution": "no box"}]
    }
    repo = make_hub_repo("math", subjects)
    store = Store(str(tmp_path / "store"))
    result = load_problems_with_stats("EleutherAI/hendrycks_math", "test", store=store, hub_path=str(repo))
    assert [(p.category, p.difficulty, p.answer) for p in result.problems if p.answer != "0"] == [
        ("algebra", "Level 1", "3"),
        ("algebra", "Level 5", "x+1"),
        ("geometry", "Level 2", "\\pi"),
    ]
    assert {p.category for p in result.problems} == set(SUBJECTS)
    assert result.stats.skipped == 1
    one = load_problems("EleutherAI/hendrycks_math:geometry", "test", store=store, hub_path=str(repo))
    assert [p.answer for p in one] == ["\\pi"]
    assert store.exists("datasets/EleutherAI/hendrycks_math@geometry/test/manifest.json")


def test_ifbench_kwargs_survive_the_hub_struct_schema(tmp_path, make_hub_repo) -> None:
    rows = [
        {"key": 1, "prompt": "Write.", "instruction_id_list": ["count:words"], "kwargs": [{"N": 3, "word": None}]},
        {"key": 2, "prompt": "Say.", "instruction_id_list": ["words:only"], "kwargs": [{"N": None, "word": "hi"}]},
        {"key": 3, "prompt": "", "instruction_id_list": ["words:only"], "kwargs": [{"N": None, "word": "hi"}]},
    ]
    repo = make_hub_repo("ifbench", {None: {"train": rows}})
    problems = load_problems("allenai/IFBench_test", "train", store=Store(str(tmp_path / "s")), hub_path=str(repo))
    assert [json.loads(p.answer) for p in problems] == [
        [{"instruction_id": "count:words", "kwargs": {"N": 3}}],
        [{"instruction_id": "words:only", "kwargs": {"word": "hi"}}],
    ]


def test_cache_round_trips_through_an_s3_store(s3_endpoint, s3_bucket) -> None:
    store = Store(f"s3://{s3_bucket}/rlvr", endpoint_url=s3_endpoint)
    first = load_problems_with_stats("arith", "test", store=store)
    second = load_problems_with_stats("arith", "test", store=store)
    assert not first.from_cache and second.from_cache
    assert second.problems == first.problems
    assert store.list("datasets/arith") == ["datasets/arith/test/data.parquet", "datasets/arith/test/manifest.json"]


def test_arith_is_an_offline_source_with_unique_ids(tmp_path) -> None:
    problems = load_problems("arith", "test", store=Store(str(tmp_path)))
    assert len(problems) > 500 and len({p.id for p in problems}) == len(problems)
    assert {p.verifier for p in problems} == {"math"}


def test_offline_without_cache_says_what_to_do(tmp_path, monkeypatch) -> None:
    import datasets
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "empty-hf-cache")
    store = Store(str(tmp_path / "store"))
    with pytest.raises(
        DatasetUnavailableError, match="HF_HUB_OFFLINE=1.*run the dataset cache step once with network.*hub_path"
    ):
        load_problems("allenai/IFBench_test", "train", store=store)
    assert store.list() == []


def test_missing_hub_path_folder_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(DatasetUnavailableError, match="is not a folder"):
        load_problems("openai/gsm8k", "test", store=Store(str(tmp_path)), hub_path=str(tmp_path / "nope"))


def test_unknown_split_names_the_problem(tmp_path, gsm8k_repo) -> None:
    with pytest.raises(DatasetUnavailableError, match=r"split 'validation'.*known: train, test"):
        load_problems("openai/gsm8k", "validation", store=Store(str(tmp_path / "s")), hub_path=str(gsm8k_repo))


@pytest.fixture
def generated_source(tmp_path, monkeypatch):
    """A generated dataset whose generator is a real module in `tmp_path` (its code is its version): each row's
    answer is the module's ANSWER, and the prompts stay the same whatever the generator produces. Yields the
    module's path."""
    from rlvr_core.data.registry import register_source, unregister_source
    from rlvr_core.data.source import Source, code_digest
    from rlvr_core.problem import Problem

    module = tmp_path / "gen_fixture_module.py"
    module.write_text("ANSWER = '1'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # a rewrite within the same second must be read again

    def generate(split: str) -> list[Problem]:
        spec = importlib.util.spec_from_file_location("gen_fixture_module", module)
        code = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(code)
        return [Problem(id=f"{split}-{i}", source="generated-fixture", prompt=f"What is item {i}?",
                        answer=code.ANSWER, verifier="math") for i in range(3)]

    register_source(Source(name="generated-fixture", verifier="math", generate=generate,
                           version=lambda: code_digest("gen_fixture_module")), replace=True)
    yield module
    unregister_source("generated-fixture")


def test_a_generator_change_is_not_served_the_rows_cached_by_the_old_generator(tmp_path, generated_source) -> None:
    store = Store(str(tmp_path / "store"))
    first = load_problems_with_stats("generated-fixture", "test", store=store)
    assert not first.from_cache and {p.answer for p in first.problems} == {"1"}
    assert first.manifest["generator_version"] and len(first.manifest["item_hashes"]) == 3
    assert load_problems_with_stats("generated-fixture", "test", store=store).from_cache
    generated_source.write_text("ANSWER = '2'\n")  # the generator changes; every prompt stays the same
    second = load_problems_with_stats("generated-fixture", "test", store=store)
    assert not second.from_cache and {p.answer for p in second.problems} == {"2"}
    assert second.manifest["generator_version"] != first.manifest["generator_version"]
    assert second.manifest["items_sha256"] != first.manifest["items_sha256"]


def test_the_manifest_lists_every_items_content_hash_and_rows_that_differ_from_them_are_rebuilt(
        tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    manifest = cache_dataset("openai/gsm8k", "test", store, hub_path=str(gsm8k_repo))
    problems = load_problems("openai/gsm8k", "test", store=store)
    assert manifest["item_hashes"] == [cache.item_hash(p) for p in problems]
    assert manifest["items_sha256"] == cache.items_digest(manifest["item_hashes"])
    # Rows rewritten with a matching sha256 (a writer that recomputed it) but other content are not trusted.
    edited = [dataclasses.replace(p, answer="0") for p in problems]
    data = cache.problems_to_parquet(edited)
    store.write_bytes("datasets/openai/gsm8k/test/data.parquet", data)
    store.write_json("datasets/openai/gsm8k/test/manifest.json", {**manifest, "sha256": hashlib.sha256(data).hexdigest()})
    result = load_problems_with_stats("openai/gsm8k", "test", store=store, hub_path=str(gsm8k_repo))
    assert not result.from_cache and [p.answer for p in result.problems] == [p.answer for p in problems]


def test_a_cache_of_the_older_manifest_format_gets_its_item_hashes_without_the_hub(tmp_path, gsm8k_repo) -> None:
    store = Store(str(tmp_path / "store"))
    manifest = cache_dataset("openai/gsm8k", "test", store, hub_path=str(gsm8k_repo))
    older = {k: v for k, v in manifest.items() if k not in ("item_hashes", "items_sha256", "generator_version")}
    store.write_json("datasets/openai/gsm8k/test/manifest.json", {**older, "format_version": 1})
    shutil.rmtree(gsm8k_repo)  # the upgrade must not need the hub
    result = load_problems_with_stats("openai/gsm8k", "test", store=store)
    assert result.from_cache and result.manifest["format_version"] == cache.FORMAT_VERSION
    assert result.manifest["item_hashes"] == manifest["item_hashes"]
