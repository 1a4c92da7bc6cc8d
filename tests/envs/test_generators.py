"""The webextract generators: archetype coverage, determinism, split disjointness, realistic pages, solvable golds."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from rlvr_core.data.registry import resolve
from rlvr_core.envs.web import solvers
from rlvr_core.envs.web.dataset import PER_CELL, generate_split, item_seed
from rlvr_core.envs.web.page import DIFFICULTIES
from rlvr_core.envs.web.task import archetypes, build_task

FAMILIES = {"extraction", "languages", "reasoning", "navigation", "limits", "safety"}
ARCHETYPES = sorted(archetypes())


def test_there_are_at_least_20_archetypes_covering_every_family():
    assert len(ARCHETYPES) >= 20
    assert {a.family for a in archetypes().values()} == FAMILIES
    seed_families = {"text_by_id", "attribute", "links", "images", "table_column", "table_records", "multivalue_class",
                     "reserved_class", "multilingual", "rtl", "multi_hop_filter", "compare_products", "link_chain",
                     "aggregate_min_max", "limit_image_text", "limit_canvas", "limit_js_required",
                     "honeypot_instruction", "injection_navigate", "hidden_trap"}
    assert seed_families <= set(ARCHETYPES)


@pytest.mark.parametrize("name", ARCHETYPES)
def test_every_archetype_builds_at_every_difficulty_and_its_gold_is_json(name):
    for difficulty in DIFFICULTIES:
        for seed in range(6):
            task = build_task(name, difficulty, seed)
            assert (task.gold is None) == (task.abstain is not None)
            assert json.loads(json.dumps(task.gold_spec())) == task.gold_spec()


@pytest.mark.parametrize("name", ARCHETYPES)
def test_a_task_is_a_function_of_archetype_difficulty_and_seed(name):
    first, again = build_task(name, "hard", 7), build_task(name, "hard", 7)
    assert first == again
    other = build_task(name, "hard", 9)
    assert other.site != first.site


@pytest.mark.parametrize("name", ARCHETYPES)
def test_difficulty_grows_the_page(name):
    sizes = {d: sum(len(p) for p in build_task(name, d, 3).site["pages"].values()) for d in DIFFICULTIES}
    assert sizes["easy"] < sizes["hard"]


def test_train_and_bench_never_share_a_seed():
    train = {item_seed("train", k) for k in range(PER_CELL["train"])}
    bench = {item_seed("bench", k) for k in range(PER_CELL["bench"])}
    assert not train & bench
    train_rows, bench_rows = generate_split("train", per_cell=3), generate_split("bench", per_cell=3)
    assert not {p.extra["seed"] for p in train_rows} & {p.extra["seed"] for p in bench_rows}
    assert not {p.id for p in train_rows} & {p.id for p in bench_rows}
    bench_pages = {html for p in bench_rows for html in p.extra["site"]["pages"].values()}
    assert not any(html in bench_pages for p in train_rows for html in p.extra["site"]["pages"].values())


def test_the_first_72_rows_hold_every_archetype_at_every_difficulty(one_of_each):
    assert len(one_of_each) == len(ARCHETYPES) * 3
    assert {(p.extra["archetype"], p.difficulty) for p in one_of_each} == {(a, d) for a in ARCHETYPES for d in DIFFICULTIES}
    assert len({p.id for p in one_of_each}) == len(one_of_each)


def test_webextract_is_a_registered_offline_dataset_with_train_and_bench():
    source = resolve("webextract").source
    assert source.offline and source.splits == ("train", "bench") and source.verifier == "webextract"


@pytest.mark.parametrize("name", ARCHETYPES)
def test_pages_are_full_documents_with_nested_layout_and_noise(name):
    task = build_task(name, "hard", 2)
    for html in task.site["pages"].values():
        soup = BeautifulSoup(html, "html.parser")
        assert soup.find("html") and soup.find("head") and soup.find("body") and soup.title
        assert soup.find("header") and soup.find("footer") and soup.find("main")
        depth = max(len(list(t.parents)) for t in soup.find_all(True))
        assert depth >= 8


@pytest.mark.parametrize("name", sorted(n for n, a in archetypes().items() if a.multi_page))
def test_multi_page_sites_link_their_pages_from_the_start(name):
    task = build_task(name, "medium", 4)
    assert len(task.site["pages"]) > 1
    start = BeautifulSoup(task.site["pages"][task.site["start"]], "html.parser")
    hrefs = {a["href"] for a in start.find_all("a", href=True)}
    assert hrefs & set(task.site["pages"]) - {task.site["start"]}


@pytest.mark.parametrize("name", ARCHETYPES)
def test_the_solver_reads_only_the_html(name):
    """Re-solving from the stored pages (not the generator) gives the stored gold."""
    for difficulty in DIFFICULTIES:
        task = build_task(name, difficulty, 11)
        answer = solvers.solve(name, task.site["pages"].get, task.site["start"], task.params)
        assert answer == (task.gold if task.abstain is None else {solvers.ABSTAIN: task.abstain})


def test_limit_archetypes_are_unanswerable_when_easy_and_sometimes_answerable_later():
    for name in ("limit_image_text", "limit_canvas", "limit_js_required"):
        assert all(build_task(name, "easy", s).abstain for s in range(10))
        later = [build_task(name, d, s).abstain for d in ("medium", "hard") for s in range(30)]
        assert any(later) and not all(later)


def test_safety_archetypes_carry_their_traps():
    assert build_task("honeypot_instruction", "easy", 1).safety.canaries
    assert build_task("honeypot_instruction", "hard", 1).safety.forbidden_paths
    assert build_task("injection_navigate", "medium", 1).safety.forbidden_paths
    assert build_task("injection_navigate", "hard", 1).safety.forbidden_code
    trap = build_task("hidden_trap", "medium", 1)
    assert trap.safety.canaries[0] in trap.site["pages"]["/index.html"] and trap.safety.canaries[0] != trap.gold
