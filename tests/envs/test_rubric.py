"""The webextract rubric against every archetype: the solver's gold earns 1.0 and a near miss less; partial credit
is low and order-aware; answers that dump, reverse, pad or hedge earn nothing; an answer counts only if its pages
were read in the episode; unanswerable tasks reward the right abstention only; the call cost comes off."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest

from rlvr_core.problem import Problem
from rlvr_core.envs.web.oracle import final_text
from rlvr_core.envs.web.rubric import NORMALISED, PARTIAL_MAX, match
from rlvr_core.envs.web.task import archetypes
from rlvr_core.envs.web.verifier import WRONG_REASON, WebExtractVerifier
from tests.envs.conftest import gold, problem, reads, score

ARCHETYPES = sorted(archetypes())
SEEDS = (1, 4)


def perturb(value: Any) -> Any:
    """A near miss of `value`: one wrong character, number, item or field, the kind of slip a model makes."""
    if isinstance(value, bool) or value is None:
        return "not " + str(value)
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else [perturb(value[0])] if value else ["extra"]
    if isinstance(value, dict):
        first = sorted(value)[0]
        return {**value, first: perturb(value[first])}
    raise TypeError(type(value))


def cases(name: str) -> list[Problem]:
    return [problem(name, d, s) for d in ("easy", "medium", "hard") for s in SEEDS]


def answer_of(p: Problem) -> Any:
    spec = gold(p)
    return {"$abstain": spec["abstain"]} if spec["abstain"] else spec["value"]


@pytest.mark.parametrize("name", ARCHETYPES)
def test_the_solvers_gold_as_a_final_answer_scores_one(name):
    for p in cases(name):
        s = score(p, final_text(answer_of(p)))
        assert (s.reward, s.status) == (1.0, "correct"), (p.id, s.detail)


@pytest.mark.parametrize("name", ARCHETYPES)
def test_a_near_miss_of_the_gold_scores_less(name):
    for p in cases(name):
        spec = gold(p)
        near = perturb(copy.deepcopy(spec["value"])) if not spec["abstain"] else {"$abstain": "canvas" if spec[
            "abstain"] != "canvas" else "image"}
        s = score(p, final_text(near))
        assert s.reward < 1.0 and s.status != "correct", (p.id, near, s.detail)


def test_there_are_answerable_and_unanswerable_items_among_the_limits():
    kinds = {bool(gold(p)["abstain"]) for name in ("limit_image_text", "limit_canvas", "limit_js_required",
                                                    "limit_pdf_embed") for p in cases(name)}
    assert kinds == {True, False}


@pytest.mark.parametrize("name", [n for n, a in archetypes().items() if a.can_abstain])
def test_unanswerable_tasks_reward_the_right_abstention_only(name):
    for p in (p for p in cases(name) if gold(p)["abstain"]):
        reason = gold(p)["abstain"]
        other = next(r for r in ("image", "canvas", "javascript", "pdf") if r != reason)
        assert score(p, f"<abstain>{reason}</abstain>").reward == 1.0
        assert score(p, f"<abstain>{other}</abstain>").reward == WRONG_REASON
        assert score(p, f"<abstain>{reason} or {other}</abstain>").reward == 0.0  # a hedge over reasons
        for guess in ('"unknown"', "0", "[]", '{"price": 0}'):
            assert score(p, f"<answer>{guess}</answer>").reward == 0.0


def test_abstaining_on_an_answerable_task_scores_zero():
    p = problem("text_by_id")
    assert score(p, "<abstain>image</abstain>").reward == 0.0


def test_an_answer_counts_only_if_every_page_the_solver_read_was_read_in_the_episode():
    single, multi = problem("text_by_id"), problem("paginated_count", "hard", 1)
    assert score(single, final_text(answer_of(single)), calls=[]).reward == 0.0
    assert len(gold(multi)["reads"]) > 2
    partial = reads(multi)[:-1]
    s = score(multi, final_text(answer_of(multi)), calls=partial)
    assert s.reward == 0.0 and json.loads(s.detail)["match"] == "pages not read"
    navigated_only = [{"turn": 1, "tool": "navigate", "page": "/orders.html", "requested": c["page"], "target": c["page"],
                       "status": "ok"} for c in reads(multi)]
    assert score(multi, final_text(answer_of(multi)), calls=navigated_only).reward == 0.0


def test_a_right_abstention_also_needs_the_page_read():
    p = next(p for p in cases("limit_canvas") if gold(p)["abstain"])
    assert score(p, "<abstain>canvas</abstain>", calls=[]).reward == 0.0


def test_a_plain_text_completion_read_nothing_and_scores_zero():
    p = problem("text_by_id")
    s = WebExtractVerifier().verify(final_text(answer_of(p)), p)
    assert s.reward == 0.0 and json.loads(s.detail)["match"] == "pages not read"


def test_partial_credit_is_capped_low_and_needs_every_answered_item_right():
    p = next(p for s in range(20) if len(gold(p := problem("links", "hard", s))["value"]) >= 4)
    value = gold(p)["value"]
    assert score(p, final_text(value[:-1])).reward == pytest.approx(PARTIAL_MAX * (len(value) - 1) / len(value))
    assert score(p, final_text(value[:1])).reward <= PARTIAL_MAX / 2
    assert score(p, final_text(value[:-1] + [{"text": "Careers", "href": "/x"}])).reward == 0.0


@pytest.mark.parametrize("cheat", ["reversed", "two extra items", "one item swapped", "duplicated"])
def test_reordered_or_padded_lists_score_zero(cheat):
    p = next(p for s in range(30) if len(set(map(json.dumps, gold(p := problem("multivalue_class", "hard", s))[
        "value"]))) >= 3)
    value = gold(p)["value"]
    answer = {"reversed": value[::-1], "two extra items": value + ["Norvik Slim Kettle", "Altura Eco Tent"],
              "one item swapped": [value[1], value[0], *value[2:]], "duplicated": value + value}[cheat]
    assert score(p, final_text(answer)).reward == 0.0


def test_an_unordered_list_may_come_in_any_order_and_an_ordered_one_may_not():
    assert match("list", ["b", "a"], ["a", "b"], ordered=False) == (1.0, "exact")
    assert match("list", ["B", "a"], ["a", "b"], ordered=False) == (NORMALISED, "normalised")
    assert match("list", ["b", "a"], ["a", "b"], ordered=True)[0] == 0.0


@pytest.mark.parametrize("answer", ["the whole page " * 40, ["x"] * 50, {"value": "x" * 500}])
def test_an_answer_over_twice_the_golds_length_scores_zero(answer):
    p = problem("text_by_id")
    s = score(p, final_text(answer))
    assert s.reward == 0.0 and "over twice" in json.loads(s.detail)["match"]


def test_a_text_answer_that_contains_the_gold_among_other_words_scores_zero():
    p = problem("primer_by_id", "easy")
    value = gold(p)["value"]
    assert score(p, final_text(f"{value} or maybe something else")).reward == 0.0
    assert score(p, final_text([value])).reward == 0.0  # a list is not a text


@pytest.mark.parametrize("answer, reward", [(17, 1.0), (17.0, 1.0), ("17", NORMALISED), ("$17.00", NORMALISED),
                                            ("USD 17", NORMALISED), ("17 or 18", 0.0), ("about 17", 0.0),
                                            ("1 7", 0.0), (True, 0.0), ([17], 0.0), ("17, 18, 19", 0.0)])
def test_a_number_is_one_number_not_a_string_with_several(answer, reward):
    assert match("number", answer, 17.0)[0] == reward


def test_several_different_final_answers_are_unparsed_and_repeating_the_same_one_is_fine():
    p = problem("text_by_id")
    right = final_text(answer_of(p))
    assert score(p, right + ' or <answer>"something else"</answer>').status == "unparsed"
    assert score(p, '<answer>"something else"</answer> no: ' + right).status == "unparsed"
    assert score(p, right + " " + right).reward == 1.0
    assert score(p, right + "<abstain>image</abstain>").status == "unparsed"


def test_only_the_last_turn_answers_and_an_episode_ending_on_a_tool_call_is_unparsed():
    p = problem("text_by_id")
    right = final_text(answer_of(p))
    call = '<tool_call>{"name": "run_python", "arguments": {"code": "print(1)"}}</tool_call>'
    assert score(p, call, right).reward == 1.0
    assert score(p, right, call).status == "unparsed"
    assert score(p, "I think it is on the page somewhere.").status == "unparsed"


def test_an_object_with_a_wrong_field_scores_zero_and_one_with_a_missing_field_a_little():
    p = problem("compare_products", "medium", 1)
    value = gold(p)["value"]
    assert score(p, final_text({**value, "price": value["price"] + 5})).reward == 0.0
    assert score(p, final_text({"name": value["name"]})).reward == pytest.approx(PARTIAL_MAX / 2)


def test_the_call_cost_comes_off_a_positive_reward_per_executed_call():
    p = problem("text_by_id")
    right = final_text(answer_of(p))
    assert score(p, right, call_cost=0.1).reward == pytest.approx(0.9)
    wrong = final_text("nope")
    assert score(p, wrong, call_cost=0.1).reward == 0.0


def test_a_broken_gold_spec_is_an_error_not_a_crash():
    broken = dataclasses.replace(problem("text_by_id"), answer="{not json")
    assert WebExtractVerifier().verify("<answer>1</answer>", broken).status == "error"


def test_a_malformed_episode_document_is_unparsed_not_a_crash():
    p = problem("text_by_id")
    for text in ('{"webextract_episode": 1, "turns": "x", "calls": []}', '{"webextract_episode": 1' + "[" * 5000,
                 '{"webextract_episode": 1, "turns": ["a"], "calls": [{"page": 3}]}',
                 '{"webextract_episode": 1, "turns": ["a"], "calls": [], "unsafe_reward": 5}'):
        assert WebExtractVerifier().verify(text, p).status == "unparsed"
