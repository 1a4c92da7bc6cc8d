"""The strict training mode closes the loopholes the reference instruction checks accept; evaluation stays reference-exact.

Each loophole (issue 28: "loopholes both the project and the reference
accept") is a response a policy under RL will find: it satisfies the
reference check without doing what the instruction asks. For each one:
the reference mode (evaluation) scores it as the reference implementation
does, the strict mode (training) scores it 0, and an honest response to the
same instruction still passes in strict mode.
"""

from __future__ import annotations

import json

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import VerifierPool, verify
from rlvr_core.verifiers.ifeval.strict import COMMAS

NUMBERS_0_TO_299 = " ".join(str(i) for i in range(300))

# (verifier, instruction id, kwargs, loophole response, honest response), each from issue 28 unless marked invented
LOOPHOLES = [
    ("ifeval", "keywords:existence", {"keywords": ["cat"]}, "We concatenate strings.", "The cat sat."),
    ("ifeval", "keywords:frequency", {"keyword": "cat", "frequency": 2, "relation": "at least"},
     "Concatenate the catalog.", "A cat met another cat."),  # invented: the frequency form of the same loophole
    ("ifeval", "length_constraints:number_words", {"num_words": 300, "relation": "at least"},
     NUMBERS_0_TO_299, "word " * 300),
    ("ifeval", "detectable_format:json_format", {}, "5", '{"answer": 5}'),
    ("ifeval", "detectable_format:json_format", {}, "null", '```json\n["one", "two"]\n```'),
    ("ifeval", "detectable_format:json_format", {}, "NaN", '{"a": [true, null]}'),
    ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 3}, "-\n-\n-", "- one\n- two\n- three"),
    ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 2}, "* \n* **", "* one\n* two"),  # invented
    ("ifeval", "detectable_format:constrained_response", {},
     "My answer is yes. My answer is no. My answer is maybe.", "My answer is yes."),
    ("ifeval", "punctuation:no_comma", {}, "Apples\uff0c pears", "Apples and pears"),  # fullwidth comma
    ("ifeval", "punctuation:no_comma", {}, "Apples\u060c pears", "Apples and pears"),  # Arabic comma
    ("ifeval", "punctuation:no_comma", {}, "Apples\u3001pears", "Apples and pears"),  # invented: ideographic comma
    ("ifeval", "combination:two_responses", {}, "First answer.\n******\nSecond answer.\n******",
     "First answer.\n******\nSecond answer."),
    ("ifeval", "combination:two_responses", {}, "******\nFirst answer.\n******\nSecond answer.",
     "First answer.\n******\nSecond answer."),  # invented: the leading form
    ("ifeval", "length_constraints:number_paragraphs", {"num_paragraphs": 2}, "One.\n***\nTwo.\n***",
     "One.\n***\nTwo."),  # invented: the same separator loophole for paragraphs
    ("ifbench", "count:word_count_range", {"min_words": 300, "max_words": 310}, NUMBERS_0_TO_299, "word " * 305),
    ("ifbench", "count:unique_word_count", {"N": 300}, NUMBERS_0_TO_299,
     " ".join(f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300))),  # invented: numbers as unique words
]


def _problem(verifier: str, instruction_id: str, kwargs: dict) -> Problem:
    answer = json.dumps({"instruction_id": [instruction_id], "kwargs": [kwargs]})
    return Problem("loophole", "strict-mode", "", answer, verifier)


def _ids(case: tuple) -> str:
    return f"{case[1]}:{case[3][:20]!r}"


@pytest.mark.parametrize("case", LOOPHOLES, ids=_ids)
def test_the_reference_mode_accepts_the_loophole_as_the_reference_does(case: tuple) -> None:
    verifier, instruction_id, kwargs, loophole, _ = case
    assert verify(loophole, _problem(verifier, instruction_id, kwargs)).reward == 1.0


@pytest.mark.parametrize("case", LOOPHOLES, ids=_ids)
def test_the_strict_mode_scores_the_loophole_zero(case: tuple) -> None:
    verifier, instruction_id, kwargs, loophole, _ = case
    score = verify(loophole, _problem(verifier, instruction_id, kwargs), strict=True)
    assert score.reward == 0.0 and score.status == "wrong", score


@pytest.mark.parametrize("case", LOOPHOLES, ids=_ids)
def test_the_strict_mode_still_rewards_an_honest_response(case: tuple) -> None:
    verifier, instruction_id, kwargs, _, honest = case
    assert verify(honest, _problem(verifier, instruction_id, kwargs), strict=True).reward == 1.0


def test_every_comma_of_the_strict_no_comma_check_is_a_comma_or_drawn_like_one() -> None:
    import unicodedata

    look_alikes = {"\u201a", "\u201e", "\u00b8", "\u066b", "\u066c", "\u0375", "\u02cf", "\u02ce"}
    assert all("COMMA" in unicodedata.name(c) or c in look_alikes for c in COMMAS)
    assert {",", "\uff0c", "\u060c", "\u3001", "\uff64"} | look_alikes <= COMMAS


def test_a_pool_scores_in_the_mode_it_was_started_in() -> None:
    """The mode reaches the worker processes: the same pair, two pools, two verdicts."""
    pair = ("We concatenate strings.", _problem("ifeval", "keywords:existence", {"keywords": ["cat"]}))
    with VerifierPool(workers=1) as reference, VerifierPool(workers=1, strict=True) as strict:
        assert reference.verify_batch([pair])[0].reward == 1.0
        assert strict.verify_batch([pair])[0].reward == 0.0


def test_math_scores_alike_in_both_modes() -> None:
    problem = Problem("m", "strict-mode", "", "5", "math")
    for completion in ("\\boxed{5}", "$-\\boxed{5}$", "The answer is 5 or maybe 7."):
        assert verify(completion, problem) == verify(completion, problem, strict=True)
