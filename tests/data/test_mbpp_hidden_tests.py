"""MBPP's hidden tests are stored with the cached dataset: generated once, hashed with it, versioned, re-derived
from the cached rows (no hub) when the generator or the count changes."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from rlvr_core.data import cache
from rlvr_core.data.sources import mbpp
from rlvr_core.data.sources.mbpp_known_correct import KNOWN_CORRECT, known_correct_digest
from rlvr_core.data.loader import load_problems_with_stats
from rlvr_core.evaluation.benchmarks import get_benchmark, load_benchmark_problems
from rlvr_core.storage import Store
from rlvr_core.verifiers.code import hidden
from tests.sandbox import mbpp_offline

MBPP = "google-research-datasets/mbpp"


@pytest.fixture
def mbpp_repo(make_hub_repo):
    return make_hub_repo("mbpp", {"full": {"test": mbpp_offline.rows()}})


def hidden_tests(problems) -> dict[str, list[str]]:
    return {p.id: json.loads(p.answer).get("hidden", []) for p in problems}


def test_the_first_load_generates_hidden_tests_and_caches_them_with_the_rows(tmp_path, mbpp_repo) -> None:
    store = Store(str(tmp_path / "store"))
    first = load_problems_with_stats(MBPP, "test", store=store, hub_path=str(mbpp_repo))
    assert {k: len(v) for k, v in hidden_tests(first.problems).items()} == {"2": 10, "3": 10, "4": 10, "126": 10}
    record = first.manifest["hidden_tests"]
    assert record["version"] == {"generator": hidden.HIDDEN_TESTS_VERSION, "per_problem": 10,
                                 "known_correct": known_correct_digest()}
    assert record["tests"] == 40 and record["reference_fails_own_tests"] == [] and record["fewer_than_asked"] == {}
    data = store.read_bytes(cache.cache_path(MBPP, "test", cache.DATA_FILE))
    assert first.manifest["sha256"] == hashlib.sha256(data).hexdigest()  # the hash covers the hidden tests
    shutil.rmtree(mbpp_repo)
    second = load_problems_with_stats(MBPP, "test", store=store, hub_path=str(mbpp_repo))
    assert second.from_cache and hidden_tests(second.problems) == hidden_tests(first.problems)


def test_a_new_count_is_derived_again_from_the_cached_rows_without_the_hub(tmp_path, mbpp_repo, monkeypatch) -> None:
    store = Store(str(tmp_path / "store"))
    load_problems_with_stats(MBPP, "test", store=store, hub_path=str(mbpp_repo))
    shutil.rmtree(mbpp_repo)
    monkeypatch.setenv(hidden.COUNT_ENV, "3")
    again = load_problems_with_stats(MBPP, "test", store=store, hub_path=str(mbpp_repo))
    assert again.manifest["hidden_tests"]["version"]["per_problem"] == 3
    assert {len(v) for v in hidden_tests(again.problems).values()} == {3}
    assert cache.read_cache(store, MBPP, "test").manifest["hidden_tests"]["tests"] == 12  # written back


def test_the_benchmark_reports_the_official_and_the_extended_tests_apart(tmp_path, mbpp_repo) -> None:
    store = Store(str(tmp_path / "store"))
    load_problems_with_stats(MBPP, "test", store=store, hub_path=str(mbpp_repo))
    official = load_benchmark_problems(get_benchmark("mbpp"), store=store)
    extended = load_benchmark_problems(get_benchmark("mbpp_extended"), store=store)
    assert [json.loads(p.answer).get("grade_on") for p in official] == ["official"] * 4
    assert all("grade_on" not in json.loads(p.answer) and json.loads(p.answer)["hidden"] for p in extended)


def test_a_new_known_correct_program_changes_the_derivation_version(monkeypatch) -> None:
    """Cached hidden tests were vetted by the table as it was: a changed table derives them again."""
    before = mbpp._hidden_version()
    monkeypatch.setitem(KNOWN_CORRECT, "2", ("def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b)))\n",))
    assert mbpp._hidden_version() != before and mbpp._hidden_version()["generator"] == hidden.HIDDEN_TESTS_VERSION


def test_a_training_prompt_shows_one_official_assert_and_the_benchmark_prompt_three() -> None:
    problem = mbpp_offline.problems()[3]
    tests = json.loads(problem.answer)["tests"]
    assert tests[0] in mbpp.prompt_text(problem) and not any(t in mbpp.prompt_text(problem) for t in tests[1:])
    assert all(t in mbpp.benchmark_prompt_text(problem) for t in tests)
    assert mbpp.benchmark_prompt_text(problem) in get_benchmark("mbpp").prompt(problem)
