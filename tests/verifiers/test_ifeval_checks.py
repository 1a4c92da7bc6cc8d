"""IFEval plumbing: the 25 ids, loose transforms, accuracy helpers, ground-truth formats."""

from __future__ import annotations

import json

import pytest

from rlvr_core.verifiers.ifeval import (
    INSTRUCTIONS,
    check_all,
    instruction_level_accuracy,
    loose_variants,
    parse_ground_truth,
    prompt_level_accuracy,
)

IFEVAL_IDS = {
    "keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency",
    "language:response_language", "length_constraints:number_sentences", "length_constraints:number_paragraphs",
    "length_constraints:number_words", "length_constraints:nth_paragraph_first_word",
    "detectable_content:number_placeholders", "detectable_content:postscript",
    "detectable_format:number_bullet_lists", "detectable_format:constrained_response",
    "detectable_format:number_highlighted_sections", "detectable_format:multiple_sections",
    "detectable_format:json_format", "detectable_format:title", "combination:two_responses",
    "combination:repeat_prompt", "startend:end_checker", "startend:quotation",
    "change_case:capital_word_frequency", "change_case:english_capital", "change_case:english_lowercase",
    "punctuation:no_comma",
}


def test_all_25_ifeval_instruction_types_are_registered() -> None:
    assert set(INSTRUCTIONS) == IFEVAL_IDS


def test_loose_accepts_what_strict_rejects_after_dropping_a_preamble_line() -> None:
    text = 'Sure, here it is:\n"all quoted"'
    constraints = [("startend:quotation", {})]
    assert check_all(text, constraints, INSTRUCTIONS) == [False]
    assert check_all(text, constraints, INSTRUCTIONS, loose=True) == [True]


def test_loose_variants_strip_markdown_stars_and_edge_lines() -> None:
    variants = loose_variants("first\n**middle**\nlast")
    assert "**middle**" in variants and "middle" in variants and "first\nmiddle\nlast" in variants
    assert len(variants) == 8


def test_prompt_and_instruction_level_accuracy() -> None:
    results = [[True, True], [True, False], [False]]
    assert prompt_level_accuracy(results) == pytest.approx(1 / 3)
    assert instruction_level_accuracy(results) == pytest.approx(3 / 5)
    assert prompt_level_accuracy([]) == 0.0


def test_both_ground_truth_formats_parse_to_the_same_constraint() -> None:
    rlvr = json.dumps({"func_name": "verify_keywords", "keyword_list": ["fox"], "N": None, "quantifier": None})
    multi = json.dumps([{"instruction_id": ["keywords:existence"], "kwargs": [{"keywords": ["fox"]}]}])
    assert parse_ground_truth(rlvr) == parse_ground_truth(multi) == [("keywords:existence", {"keywords": ["fox"]})]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ('{"func_name": "nope"}', "unknown RLVR-IFeval func_name"),
        ('{"foo": 1}', "func_name.*instruction_id"),
        ('{"instruction_id": ["a", "b"], "kwargs": [{}]}', "2 instruction ids but 1 kwargs"),
        ("[]", "no constraints"),
    ],
)
def test_malformed_ground_truth_names_the_problem(answer: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_ground_truth(answer)


def test_language_detection_is_deterministic() -> None:
    from rlvr_core.verifiers.ifeval.language import detect_language

    detect_language.cache_clear()
    text = "Ciao, come stai? Tutto bene qui."
    first = detect_language(text)
    detect_language.cache_clear()
    assert detect_language(text) == first


def test_mixed_language_text_is_what_langdetect_says_not_english_by_its_function_words() -> None:
    """issue 28: a quick English test called this German text English (half its words are English function words)."""
    from rlvr_core.verifiers.ifeval import INSTRUCTIONS

    text = "Ich habe in the Garten gesehen and it was so schoen, aber die Kinder are not here."
    assert INSTRUCTIONS["language:response_language"](text, language="de")
    assert not INSTRUCTIONS["language:response_language"](text, language="en")


def test_text_langdetect_cannot_read_follows_no_language_instruction() -> None:
    """The documented safer rule: the reference passes digits-only text as any language; we fail it."""
    from rlvr_core.verifiers.ifeval import INSTRUCTIONS

    assert not INSTRUCTIONS["language:response_language"]("12345 !!!", language="fr")


def test_check_each_keeps_ground_truth_faults_apart_from_failures() -> None:
    from rlvr_core.verifiers.ifeval import check_each

    outcomes = check_each(
        "some text",
        [
            ("nonexistent:thing", {}),
            ("keywords:existence", {"wrong_arg": 1}),
            ("length_constraints:number_words", {"num_words": 3, "relation": "roughly"}),
            ("length_constraints:number_words", {"num_words": "many", "relation": "at least"}),
            ("punctuation:no_comma", {}),
        ],
        INSTRUCTIONS,
    )
    assert [o.met for o in outcomes] == [False, False, False, False, True]
    assert "unknown instruction id 'nonexistent:thing'" in outcomes[0].fault
    assert "bad kwargs" in outcomes[1].fault
    assert "unknown relation 'roughly'" in outcomes[2].fault
    assert "num_words='many' is not a whole number" in outcomes[3].fault
    assert not outcomes[4].fault and not any(o.crash for o in outcomes)


def test_check_all_still_raises_on_bad_ground_truth() -> None:
    with pytest.raises(KeyError, match="nonexistent:thing"):
        check_all("text", [("nonexistent:thing", {})], INSTRUCTIONS)
    with pytest.raises(ValueError, match="unknown relation 'roughly'"):
        check_all("text", [("length_constraints:number_words", {"num_words": 3, "relation": "roughly"})], INSTRUCTIONS)
