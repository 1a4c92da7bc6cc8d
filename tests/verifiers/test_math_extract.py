"""Step 1, extraction: which final answer a completion commits to (the golden sets cover comparison)."""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.math.extract import extract_answer, last_boxed
from rlvr_core.verifiers.math.scan import find_boxes, math_spans


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        # the later of ####, box and "Final Answer:" wins
        ("\\boxed{3}\n#### 4", ("4", "####")),
        ("The answer is 2. \\boxed{3}", ("3", "boxed")),
        ("Final Answer: The final answer is $5$. I hope it is correct.", ("5", "final-answer")),
        ("So the answer is 6.", ("6", "answer-is")),
        ("we get 7 and then 8", ("8", "prose")),
        ("no numbers", None),
        ("<think>\\boxed{1}", None),
        # Math-Verify test_all.py::test_math_extraction_additional_cases: intermediate boxes, then the final answer
        ("so $0.04 \\cdot 10,000 = \\boxed{200}$ and $\\boxed{255}$. Final Answer: The final answer is $10,455$. I hope it is correct.",
         ("10,455", "final-answer")),
        # Minerva sentences that are not "The final answer is X"
        ("Final Answer: The largest $n$ is 34.", ("34", "final-answer")),
        ("Final Answer: Jane started growing Sphere 3 hours ago. I hope it is correct.", ("3 hours", "final-answer")),  # the unit is kept
        ("Final Answer: The final answer is 7.78.", ("7.78", "final-answer")),
        # "the answer is" after a box is a check, not a new answer; before any box it counts
        ("\\boxed{3}\n\nLet me double-check the answer: 3^2 = 9.", ("3", "boxed")),
        ("The answer is 12 apples, because 3*4 = 12.", ("12", "answer-is")),
        ("I think the answer is 7; the answer is 8", ("8", "answer-is")),
        ("To answer this, note that 5 + 1 = 6", ("6", "prose")),  # "answer" not followed by is/:/=/math
        ("I believe the answer is correct.", None),  # a lowercase word is not an answer
        ("Answer $ 9 $", ("9", "answer-is")),
        ("The answer is not 5.", None),
    ],
)
def test_candidates_and_their_order(completion: str, expected) -> None:
    assert extract_answer(completion) == expected


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        # Math-Verify test_all.py: several boxes are one answer when only connectors separate them
        ("\\[ \\boxed{-2} \\quad \\text{and} \\quad \\boxed{1}. \\]", "-2, 1"),
        ("solutions are:\n\\[\n\\boxed{(1, 2)}, \\boxed{(2, 1)}\n\\]", "(1, 2), (2, 1)"),
        ("$\\boxed{1}\\boxed{2}$", "1, 2"),
        ("\\boxed{1} papers and \\boxed{2} bins", "1, 2"),  # a short phrase ending in "and"
        ("\\($y_1 = \\boxed{-2(x-1)^2+5} \\) and \\( y_2 = \\boxed{3(x+2)^2-2} \\)", "-2(x-1)^2+5, 3(x+2)^2-2"),
        # ... and are not when prose separates them
        ("\\boxed{1} no no no no no \\boxed{2}", "2"),
        ("First guess \\boxed{3}. Wait, recheck: \\boxed{4}", "4"),
    ],
)
def test_adjacent_boxes_join_into_one_list(completion: str, expected: str) -> None:
    assert extract_answer(completion) == (expected, "boxed")


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("Therefore $x \\geq 5$ is the solution.", "x \\geq 5"),  # a math span, not the digit 5
        ("The identity matrix is $ \\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix} $.", "\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}"),
        ("The solutions are $x = -2$ and $x = 1$.", "x = -2, x = 1"),
        ("It costs $1,234 total", "1,234"),  # "$" before a digit is currency, not math
        ("Soucis : 2,74 $ a..", "2,74"),  # ... and after a number too
        ("the number is not 10 which is 1,000.99m\u00b2", "1,000.99 m\u00b2"),  # a unit glued to the number, kept for comparison
        ("so we get \\frac{1}{2} in the end", "\\frac{1}{2}"),  # a bare LaTeX fraction is read whole
        ("so x^2 = 9", "9"),  # the exponent is not a stated number
        ("After 3 hours it holds 12 liters, so it is not 15.", "12 liters"),  # a negated number is skipped
        ("Therefore, the probability is 2/3. <|im_start|>user", "2/3"),
    ],
)
def test_prose_fallback_reads_the_last_stated_item(completion: str, expected: str) -> None:
    assert extract_answer(completion) == (expected, "prose")


@pytest.mark.parametrize(
    "completion",
    [
        "AZYUK2A",  # digits glued to letters
        "the answer simplifies to 3x",
        "it is the 2nd one",
        "Answer $ \n 9 \n $",  # inline math never closes on its line: nothing after it is read
        "Answer \\( \n 9 \n \\)",
        "\\boxed{\\frac{1}{2}",  # the box never closes: no committed answer
        "The value is 5. \\boxed{6",  # ... even with a number before it
        "\\boxed{5} then \\boxed{6",
        "\\boxed{}",
    ],
)
def test_no_answer(completion: str) -> None:
    assert extract_answer(completion) is None


def test_a_choice_letter_opening_the_completion() -> None:
    assert extract_answer("A. Because B is not valid") == ("A", "choice")
    # issue 42 (Math-Verify mv-262): one choice stated as right answers with it; two are a hedge
    assert extract_answer("Because B is valid") == ("B", "choice")
    assert extract_answer("A is correct. B is also correct.") is None


def test_boxed_is_brace_matched_and_linear() -> None:
    assert last_boxed("x \\boxed{\\frac{a}{b^{2}}} y") == "\\frac{a}{b^{2}}"
    assert last_boxed("\\boxed{\\{1, 2\\}}") == "\\{1, 2\\}"  # escaped braces are characters
    assert last_boxed("\\\\boxed{4}") == "4"  # an escaped backslash (JSON output) is still a box
    assert last_boxed("\\boxed 7.") == "7"
    boxes, unclosed = find_boxes("\\boxed{1} \\boxed{\\boxed{2}} \\boxed{3")
    assert [b.content for b in boxes] == ["1", "\\boxed{2}"] and unclosed is not None


def test_math_spans_close_inline_math_on_its_line() -> None:
    spans, broken = math_spans("a $x$ b $$\ny\n$$ c \\(z\\) d $ \n e")
    assert [s.content for s in spans] == ["x", "\ny\n", "z"]
    assert broken == len("a $x$ b $$\ny\n$$ c \\(z\\) d ")


@pytest.mark.parametrize("completion", ["<think>maybe \\boxed{13}</think> The answer is \\boxed{12}.", "reasoning</think>\n#### 12"])
def test_only_text_after_think_counts(completion: str) -> None:
    assert extract_answer(completion)[0] == "12"
