"""The webextract generators: the seed's breadth, determinism, disjoint splits with content hashes, realistic and
varied pages, golds the solver reproduces from the HTML, and decoys that defeat a lazy reading."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from rlvr_core.data.registry import resolve
from rlvr_core.envs.web import chrome, dataset, solvers
from rlvr_core.envs.web.dataset import PER_CELL, SPLITS, generate_split, item_seed
from rlvr_core.envs.web.page import DIFFICULTIES
from rlvr_core.envs.web.solvers.common import PICKS
from rlvr_core.envs.web.task import GENERATOR_VERSION, REJECTED_PICKS, Draft, archetypes, build_task, lazy_score

FAMILIES = {"primer", "extraction", "tables", "gotchas", "traversal", "forms", "structured", "parsers", "languages",
            "reasoning", "navigation", "limits", "safety"}
ARCHETYPES = sorted(archetypes())
SEED_TASK_TYPES = {  # the seed's task types this environment covers, by its own names
    "text_by_id", "text_by_class", "attribute", "links", "images", "table_column", "table_records", "table_grid",
    "multivalue_class", "reserved_class", "string_none", "missing_fields", "whitespace_sibling", "text_parent",
    "script_free_text", "direct_children", "descendants_filter", "label_value", "form_fields", "select_options",
    "form_action_method", "label_input_mapping", "credential_fields", "form_honeypot", "json_ld_product",
    "json_ld_by_type", "parser_differences", "multilingual", "rtl", "emoji_text", "multi_hop_filter",
    "aggregate_min_max", "count_matching", "link_chain", "compare_products", "search_then_detail", "paginated_count",
    "limit_image_text", "limit_canvas", "limit_js_required", "limit_pdf_embed", "svg_chart", "primer_by_id",
    "primer_by_class", "primer_by_tag", "primer_attribute", "primer_count"}


def test_there_are_at_least_45_archetypes_covering_the_seeds_families():
    assert len(ARCHETYPES) >= 45
    assert {a.family for a in archetypes().values()} == FAMILIES
    assert SEED_TASK_TYPES <= set(ARCHETYPES)


@pytest.mark.parametrize("name", ARCHETYPES)
def test_every_archetype_builds_at_every_difficulty_and_its_gold_is_json(name):
    for difficulty in DIFFICULTIES:
        for seed in range(3):
            task = build_task(name, difficulty, seed)
            assert (task.gold is None) == (task.abstain is not None)
            assert json.loads(json.dumps(task.gold_spec())) == task.gold_spec()
            assert task.reads and task.reads[0] == task.site["start"]


@pytest.mark.parametrize("name", ARCHETYPES)
def test_a_task_is_a_function_of_archetype_difficulty_and_seed(name):
    first, again = build_task(name, "hard", 7), build_task(name, "hard", 7)
    assert first == again
    assert build_task(name, "hard", 9).site != first.site


@pytest.mark.parametrize("name", ARCHETYPES)
def test_the_solver_reads_only_the_html(name):
    """Re-solving from the stored pages (not the generator) gives the stored gold."""
    for difficulty in DIFFICULTIES:
        task = build_task(name, difficulty, 11)
        answer = solvers.solve(name, task.site["pages"].get, task.site["start"], task.params)
        assert answer == (task.gold if task.abstain is None else {solvers.ABSTAIN: task.abstain})


@pytest.fixture(scope="module")
def position_picks() -> list[tuple[str, dict[str, float]]]:
    """(item id, {pick: score}) of every fixed-position lazy reading (`PICKS`) on two medium and two hard items of
    every archetype (204 items): what the rubric pays a reader that takes the candidate at that position without
    filtering (on an unanswerable item, 1 when it abstains with the right reason). Each item is read right after
    it is built, while its parsed pages are still cached."""
    out = []
    for name in ARCHETYPES:
        for difficulty in ("medium", "hard"):
            for seed in (3, 8):
                task = build_task(name, difficulty, seed)
                draft = Draft(task.site, task.query, task.params, task.answer_type, task.gold, task.fields,
                              task.safety, task.ordered)
                answer = {solvers.ABSTAIN: task.abstain} if task.abstain else task.gold
                out.append((task.id, {pick: lazy_score(draft, name, answer, pick) for pick in PICKS}))
    return out


@pytest.mark.slow  # the fixture builds and reads 204 items
def test_from_medium_up_no_item_pays_the_first_second_middle_second_to_last_or_last_candidate(position_picks):
    assert [(ident, pick) for ident, scores in position_picks for pick in REJECTED_PICKS if scores[pick] > 0] == []


@pytest.mark.slow
def test_from_medium_up_every_fixed_position_reading_earns_at_most_0_15_on_average(position_picks):
    """The red team's middle-candidate reader was paid on many medium and hard items; every position of `PICKS`
    (the first to fifth from either end, and both middles) is held to 0.15 over these 204 items."""
    means = {pick: sum(scores[pick] for _, scores in position_picks) / len(position_picks) for pick in PICKS}
    assert len(position_picks) == len(ARCHETYPES) * 4
    assert max(means.values()) <= 0.15, means


def test_no_gold_is_empty_so_an_empty_answer_never_wins(one_of_each):
    for p in one_of_each:
        value = json.loads(p.answer)["value"]
        assert value not in ("", [], {}, 0) or json.loads(p.answer)["abstain"], p.id


@pytest.mark.slow
def test_splits_never_share_a_seed_an_item_or_a_page():
    seeds = {split: {item_seed(split, k) for k in range(PER_CELL[split])} for split in SPLITS}
    assert not seeds["train"] & seeds["eval"] and not seeds["train"] & seeds["bench"] and not seeds["eval"] & seeds["bench"]
    rows = {split: generate_split(split, per_cell=1) for split in SPLITS}
    for a, b in (("train", "eval"), ("train", "bench"), ("eval", "bench")):
        assert not {p.id for p in rows[a]} & {p.id for p in rows[b]}
        assert not {p.extra["content_hash"] for p in rows[a]} & {p.extra["content_hash"] for p in rows[b]}
        pages_b = {html for p in rows[b] for html in p.extra["site"]["pages"].values()}
        assert not any(html in pages_b for p in rows[a] for html in p.extra["site"]["pages"].values())


def test_items_carry_a_stable_content_hash_and_the_generator_version(one_of_each):
    again = generate_split("bench", per_cell=1)
    assert [p.extra["content_hash"] for p in again] == [p.extra["content_hash"] for p in one_of_each]
    assert len({p.extra["content_hash"] for p in one_of_each}) == len(one_of_each)
    assert {p.extra["generator_version"] for p in one_of_each} == {GENERATOR_VERSION}


def test_the_first_rows_hold_every_archetype_at_every_difficulty(one_of_each):
    assert len(one_of_each) == len(ARCHETYPES) * 3
    assert {(p.extra["archetype"], p.difficulty) for p in one_of_each} == {(a, d) for a in ARCHETYPES for d in DIFFICULTIES}


def test_webextract_is_a_registered_offline_dataset_with_train_eval_and_bench():
    source = resolve("webextract").source
    assert source.offline and source.splits == ("train", "eval", "bench") and source.verifier == "webextract"


@pytest.mark.parametrize("name", ARCHETYPES)
def test_pages_are_full_documents_with_nested_layout(name):
    task = build_task(name, "hard", 2)
    for html in task.site["pages"].values():
        soup = BeautifulSoup(html, "html.parser")
        assert soup.find("html") and soup.find("head") and soup.find("body") and soup.title
        assert soup.find("header") and soup.find("footer") and soup.find("main")
        assert max(len(list(t.parents)) for t in soup.find_all(True)) >= 8


def test_pages_range_from_small_to_about_100_kb_and_grow_with_difficulty(one_of_each):
    sizes = {d: [max(len(h) for h in p.extra["site"]["pages"].values()) for p in one_of_each if p.difficulty == d]
             for d in DIFFICULTIES}
    assert max(sizes["easy"]) < 8_000 and min(sizes["easy"]) >= 500
    assert sum(sizes["easy"]) < sum(sizes["medium"]) < sum(sizes["hard"])
    assert max(sizes["hard"]) >= 60_000 and max(sizes["hard"]) <= 120_000


def test_pages_come_from_several_templates_with_framework_class_names_and_tag_soup(one_of_each):
    html = [h for p in one_of_each for h in p.extra["site"]["pages"].values()]
    joined = "\n".join(html)
    styles = Counter()
    for pattern, style in ((r'class="[a-z-]+__[a-z-]+', "bem"), (r"items-center|md:px-6|lg:grid-cols-3", "utility"),
                           (r"col-md-6|d-flex|align-items-center", "bootstrap"), (r"_[a-z-]+__[A-Za-z0-9]{5}\b", "modules"),
                           (r'class="sc-[A-Za-z0-9]{6} ', "styled")):
        styles[style] = len(re.findall(pattern, joined))
    assert all(styles[s] > 0 for s in chrome.STYLES), styles
    assert re.search(r" data-v-[0-9a-f]{8}", joined) and re.search(r" _ngcontent-ng-c\d+", joined)
    assert 'id="__next"' in joined or 'id="root"' in joined or 'id="app"' in joined  # single-page-app shells
    assert all(marker in joined for marker in ("<LI CLASS=", "<P CLASS=", "&amp ", "</span></b>"))  # tag soup


def test_limit_archetypes_mix_answerable_and_unanswerable_items_at_every_difficulty():
    for name in ("limit_image_text", "limit_canvas", "limit_js_required", "limit_pdf_embed"):
        for difficulty in DIFFICULTIES:
            kinds = {build_task(name, difficulty, s).abstain is None for s in range(16)}
            assert kinds == {True, False}, (name, difficulty)


def test_safety_archetypes_carry_their_traps():
    assert build_task("honeypot_instruction", "easy", 1).safety.canaries
    assert build_task("honeypot_instruction", "hard", 1).safety.forbidden_paths
    assert build_task("injection_navigate", "medium", 1).safety.forbidden_paths
    assert len(build_task("injection_navigate", "hard", 1).safety.forbidden_code) == 2
    trap = build_task("hidden_trap", "medium", 1)
    assert trap.safety.canaries[0] in trap.site["pages"]["/index.html"] and trap.safety.canaries[0] != trap.gold
    login = build_task("credential_fields", "medium", 1)
    assert all(value in login.site["pages"]["/index.html"] for value in login.safety.canaries)


def test_parser_differences_need_the_browsers_parser():
    task = build_task("parser_differences", "medium", 1)
    html = task.site["pages"]["/index.html"]
    box = lambda parser: BeautifulSoup(html, parser).find(id=task.params["id"])  # noqa: E731
    as_html_parser = [" ".join(p.get_text(" ").split()) for p in box("html.parser").find_all("p")]
    as_browser = [" ".join(p.get_text(" ").split()) for p in box("html5lib").find_all("p")]
    assert as_browser == task.gold != as_html_parser


def test_the_cached_datasets_generator_version_covers_every_module_an_item_is_built_from():
    """`generator_version()` (what the dataset cache checks) digests GENERATOR_CODE: every module of the package
    that building and solving an item imports must be in it, or a change there would serve stale cached rows."""
    script = ("import sys; from rlvr_core.envs.web.task import build_task; build_task('injection_navigate', 'hard', 0); "
              "print('\\n'.join(m.__file__ for n, m in sys.modules.items() if n.startswith('rlvr_core.envs.web')))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    root = Path(dataset.__file__).parent
    covered = {p for name in dataset.GENERATOR_CODE
               for p in ((root / name).rglob("*.py") if (root / name).is_dir() else [root / name])}
    used = {Path(f) for f in out.stdout.split()} - {root / "__init__.py"}
    assert used and used <= covered, sorted(str(p.relative_to(root)) for p in used - covered)
    assert dataset.generator_version().startswith(f"{GENERATOR_VERSION}+")


def test_real_tier_pages_are_the_size_and_depth_of_crawled_pages_and_only_some_hard_items_have_them():
    """Crawled pages (the seed's) run to hundreds of KB and nest about 25 deep; standard hard pages are far smaller."""
    task = build_task("string_none", "hard", 1, "real")
    [html] = task.site["pages"].values()
    soup = BeautifulSoup(html, "html.parser")
    assert 100_000 <= len(html) <= 420_000 and task.id == "string_none/hard/1/real"
    assert max(len(list(t.parents)) for t in soup.find_all(True)) >= 25 and len(soup.find_all("script")) >= 8
    assert build_task("string_none", "hard", 1).site != task.site
    with pytest.raises(ValueError, match="the real page tier is for hard items"):
        build_task("string_none", "medium", 1, "real")
    tiers = {(d, k): dataset.page_tier(d, k) for d in DIFFICULTIES for k in range(PER_CELL["train"])}
    assert {key for key, tier in tiers.items() if tier == "real"} == {("hard", k) for k in range(1, 50, 8)}
