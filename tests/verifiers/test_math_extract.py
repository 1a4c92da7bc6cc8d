"""Math extraction order and think handling (the golden set covers comparison)."""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.math_extract import extract_answer, last_boxed


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("\\boxed{3}\n#### 4", ("4", "####")),
        ("The answer is 2. \\boxed{3}", ("3", "boxed")),
        ("Final Answer: The final answer is $5$. I hope it is correct.", ("$5$", "final-answer")),
        ("So the answer is 6.", ("6", "answer-is")),
        ("we get 7 and then 8", ("8", "last-number")),
        ("no numbers", None),
        ("<think>\\boxed{1}", None),
    ],
)
def test_rules_apply_in_the_documented_order(completion: str, expected) -> None:
    assert extract_answer(completion) == expected


def test_boxed_is_brace_matched() -> None:
    assert last_boxed("x \\boxed{\\frac{a}{b^{2}}} y") == "\\frac{a}{b^{2}}"
