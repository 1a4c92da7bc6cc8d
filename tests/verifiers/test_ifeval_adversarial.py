"""IFEval on hostile responses: each constraint is isolated, nothing raises, time stays bounded.

One adversarial property per test. The texts are 100,000 characters of what
breaks regexes and tokenizers (runs of brackets, quotes, dots, newlines,
combining marks, lone surrogates, JSON nested past the recursion limit).
"""

from __future__ import annotations

import json
import time

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers.base import verify
from rlvr_core.verifiers.ifeval import INSTRUCTIONS, check_each
from rlvr_core.verifiers.ifeval.splitting import MAX_BREAK_CANDIDATES

N = 100_000
# One constraint of every IFEval type, with kwargs as google/IFEval writes them.
EVERY_TYPE = [
    ("keywords:existence", {"keywords": ["fox"]}),
    ("keywords:frequency", {"keyword": "a", "frequency": 3, "relation": "at least"}),
    ("keywords:forbidden_words", {"forbidden_words": ["x"]}),
    ("keywords:letter_frequency", {"letter": "a", "let_frequency": 3, "let_relation": "less than"}),
    ("language:response_language", {"language": "en"}),
    ("length_constraints:number_sentences", {"num_sentences": 100, "relation": "less than"}),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}),
    ("length_constraints:number_words", {"num_words": 300, "relation": "at least"}),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": "a"}),
    ("detectable_content:number_placeholders", {"num_placeholders": 3}),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}),
    ("detectable_format:number_bullet_lists", {"num_bullets": 3}),
    ("detectable_format:constrained_response", {}),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 3}),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 3}),
    ("detectable_format:json_format", {}),
    ("detectable_format:title", {}),
    ("combination:two_responses", {}),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Write a poem."}),
    ("startend:end_checker", {"end_phrase": "Any other questions?"}),
    ("startend:quotation", {}),
    ("change_case:capital_word_frequency", {"capital_frequency": 10, "capital_relation": "less than"}),
    ("change_case:english_capital", {}),
    ("change_case:english_lowercase", {}),
    ("punctuation:no_comma", {}),
]
HOSTILE = {
    "spaces": " " * N,
    "newlines": "\n" * N,
    "dots": "." * N,
    "initials": "A. " * (N // 3),
    "prose": "Hello world. " * (N // 13),
    "quotes": '"' * N,
    "brackets": "[" * N,
    "angles": "<<>>>" + "<" * N,
    "stars": "*" * N,
    "blank-lines-then-bullet": "\n \n" * (N // 3) + "* x",
    "spaces-then-p": " " * N + "p",
    "devanagari": "\u0928\u093f" * (N // 2),
    "emoji": "\U0001f600" * N,
    "zero-width": "\u200b" * N,
    "right-to-left": "\u202e" * N,
    "nul": "\x00" * N,
    "combining": "a" + "\u0301" * N,
    "lone-surrogates": "\ud800" * N,
    "deep-json-array": "[" * N + "]" * N,
    "deep-json-object": '{"a":' * (N // 5) + "1" + "}" * (N // 5),
    "ellipses": "... " * (N // 4),
    "capitals": "WELL-KNOWN U.S.A. IS BIG. " * (N // 26),
    "contractions": "CANnot DOn't " * (N // 13),
    "empty": "",
    "blank": " \n\t ",
}
ANSWER = json.dumps({"instruction_id": [i for i, _ in EVERY_TYPE], "kwargs": [k for _, k in EVERY_TYPE]})


def _problem(answer: str = ANSWER) -> Problem:
    return Problem("hostile", "test", "", answer, "ifeval")


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Load NLTK and langdetect once, so the timings below measure checking, not imports."""
    verify("Warm up. THE END.", _problem())
    verify("Warm up. THE END.", _problem(), strict=True)
    verify("Ceci est une phrase en français pour charger les profils.", _problem())


@pytest.mark.slow
@pytest.mark.parametrize("strict", [False, True], ids=["reference", "strict"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_text_gets_all_25_verdicts_without_error_in_bounded_time(name: str, strict: bool) -> None:
    """No check raises or reports a fault, and all 25 finish well inside the pool's 10 s per-item timeout, in both
    modes (strict mode also normalises the text and runs each check on what a reader sees).

    The time is this thread's CPU time, so a busy machine cannot fail the test; a blowup (a quadratic scan of a
    100k-character text) costs far more than the bound.
    """
    start = time.thread_time()
    score = verify(HOSTILE[name], _problem(), strict=strict)
    elapsed = time.thread_time() - start
    assert score.status in ("correct", "wrong"), score  # "error" would mean a fault or an escaped exception
    assert "/25 met" in score.detail, score
    assert elapsed < 5.0, f"{name}: {elapsed:.1f}s"


def test_json_nested_past_the_recursion_limit_fails_only_json_format() -> None:
    answer = json.dumps({"instruction_id": ["detectable_format:json_format", "punctuation:no_comma"], "kwargs": [{}, {}]})
    score = verify("[" * 5000 + "]" * 5000, _problem(answer))
    assert (score.reward, score.status) == (0.5, "wrong")
    assert "json_format (RecursionError" in score.detail


def test_a_check_that_crashes_fails_its_constraint_and_no_other() -> None:
    def explodes(text: str) -> bool:
        raise MemoryError("boom")

    registry = {**INSTRUCTIONS, "test:explodes": explodes}
    constraints = [("punctuation:no_comma", {}), ("test:explodes", {}), ("startend:quotation", {})]
    outcomes = check_each('"no commas here"', constraints, registry)
    assert [o.met for o in outcomes] == [True, False, True]
    assert outcomes[1].crash == "MemoryError: boom" and not outcomes[1].fault
    loose = check_each('"no commas here"', constraints, registry, loose=True)
    assert [o.met for o in loose] == [True, False, True]


def test_too_many_sentence_ends_fail_the_sentence_count_only() -> None:
    answer = json.dumps({
        "instruction_id": ["length_constraints:number_sentences", "punctuation:no_comma"],
        "kwargs": [{"num_sentences": 5, "relation": "at least"}, {}],
    })
    score = verify("A. " * (MAX_BREAK_CANDIDATES + 2), _problem(answer))
    assert (score.reward, score.status) == (0.5, "wrong")
    assert "TooManyBreaks" in score.detail


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t"])
def test_blank_responses_follow_no_instruction(text: str) -> None:
    outcomes = check_each(text, EVERY_TYPE, INSTRUCTIONS, loose=True)
    assert not any(o.met for o in outcomes) and not any(o.fault or o.crash for o in outcomes)
