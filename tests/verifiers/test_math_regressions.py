"""Regression tables from issue 28: false negatives that cost real rewards, and the rules that replace loose ones.

Each row is commented with its source: "issue 28 (<category>)" for a case the
independent suite found, "invented" for our own case of the same rule, or the
public test file it comes from. Rows are (gold, completion, expected status).
"""

from __future__ import annotations

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import verify
from rlvr_core.verifiers.math.normalize import normalize


def _status(gold: str, completion: str, prompt: str = "") -> str:
    return verify(completion, Problem("r", "regressions", prompt, gold, "math")).status


FALSE_NEGATIVES = [
    # issue 28 (GSM8K lines with text after the number)
    ("18", "#### 18 (because 3*6=18)"),
    ("18", "#### <<9*2=18>>18"),
    # invented: the same in other spellings
    ("18", "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 18"),
    ("72", "#### 72 clips, since 48 + 24 = 72"),
    ("1250", "#### $1,250 in total"),
    # issue 28 (`a \approx b` read as b): the exact side is the answer
    ("\\pi", "\\boxed{\\pi \\approx 3.14}"),
    ("\\frac{1}{3}", "\\boxed{x = \\frac{1}{3} \\approx 0.33}"),
    # issue 28 (equations equivalent but not constant multiples): solved, with a time budget
    ("y=\\frac{x}{2x-1}", "\\boxed{\\frac1y+\\frac1x=2}"),
    ("i a = b", "\\boxed{a=\\frac{b}{i}}"),
    # invented
    ("y = \\frac{1}{x}", "\\boxed{xy = 1}"),
    # issue 28 (`|x|` vs `\sqrt{x^2}`: contest variables are real)
    ("|x|", "\\boxed{\\sqrt{x^2}}"),
    ("\\sqrt{x^2}", "\\boxed{|x|}"),
    # issue 28 (formatting macros, a zero-width space, unicode forms)
    ("5", "\\boxed{\\color{red}{5}}"),
    ("5", "\\boxed{\\color{red}5}"),
    ("7", "\\boxed{\\textcolor{blue}{7}}"),
    ("5", "\\framebox{5}"),
    ("5", "\\boxed{5\u200b}"),
    ("5", "The answer is 5\u200b."),
    ("\\frac{1}{2}", "\\boxed{\u00bd}"),
    ("\\frac{5}{2}", "\\boxed{2\u00bd}"),
    # issue 28 (repeating decimals)
    ("\\frac{1}{3}", "\\boxed{0.\\overline{3}}"),
    ("\\frac{1}{6}", "\\boxed{0.1\\overline{6}}"),
    ("\\frac{1}{3}", "\\boxed{0.333\\ldots}"),
    ("\\frac{1}{7}", "\\boxed{0.142857142857...}"),
    # issue 28 (a mixed number with a space)
    ("\\frac{5}{2}", "\\boxed{2 1/2}"),
    # issue 28 (a bare choice letter)
    ("C", "C"),
    ("C", "(C)"),
    # issue 28 (percent means /100)
    ("0.5", "\\boxed{50\\%}"),
    ("0.5", "\\boxed{50}\\%"),
    ("0.75", "\\boxed{75\\%}"),
    ("0.005", "\\boxed{0.5\\%}"),
]


@pytest.mark.parametrize(("gold", "completion"), FALSE_NEGATIVES)
def test_a_correct_answer_written_this_way_is_rewarded(gold: str, completion: str) -> None:
    assert _status(gold, completion) == "correct"


RULES = [
    # issue 42 reverses an issue 28 row (a cancelled answer was read as formatting): a struck-out answer is negated
    ("5", "\\boxed{\\cancel{5}}", "unparsed"),
    # issue 28 (percent dropped instead of divided): 0.5% is not 0.5
    ("0.5", "\\boxed{0.5\\%}", "wrong"),
    # invented: a gold percentage compares in percent; a whole percent may be its own number (Math-Verify's reading)
    ("50\\%", "\\boxed{50}", "correct"),
    ("50\\%", "\\boxed{50\\%}", "correct"),
    ("50\\%", "\\boxed{0.5}", "wrong"),
    ("50", "\\boxed{50\\%}", "correct"),
    ("12.5", "\\boxed{12.5\\%}", "wrong"),
    ("28\\%", "28 percent", "correct"),
    # issue 28 (degrees are not radians)
    ("\\pi", "\\boxed{\\pi^\\circ}", "wrong"),
    ("\\frac{\\pi}{2}", "\\boxed{90^\\circ}", "wrong"),
    ("\\frac{\\pi}{4}", "\\boxed{\\frac{\\pi}{4}\\text{ degrees}}", "wrong"),  # invented: the degree word too
    ("\\pi", "\\boxed{\\pi}^\\circ", "wrong"),  # invented: the degree sign after the box
    ("30", "30 degrees", "correct"),
    ("30", "\\boxed{30^\\circ}", "correct"),
    ("30", "\\boxed{30\u00b0}", "correct"),
    # issue 28 (`\approx` keeps the exact side, so the rounding is not the answer)
    ("3.14", "\\boxed{\\pi \\approx 3.14}", "wrong"),
    # issue 28 (an interval with an infinite end needs its brackets)
    ("(-\\infty, 5)", "\\boxed{-\\infty, 5}", "wrong"),
    ("(-\\infty, 5)", "\\boxed{(-\\infty, 5)}", "correct"),
    # issue 28 (an ellipsis after digits that do not repeat states no value)
    ("0.333", "\\boxed{0.333\\ldots}", "wrong"),
    ("\\pi", "\\boxed{3.14159\\ldots}", "unparsed"),
    # invented: 4.999... is 5, exactly
    ("5", "\\boxed{4.999\\ldots}", "correct"),
    # invented: a mixed number needs a proper fraction; two numbers with a space are neither
    ("\\frac{7}{2}", "\\boxed{3 1/2}", "correct"),
    ("5", "\\boxed{2 3/1}", "unparsed"),
    # invented: sqrt(x^2) is |x|, not x (real, never positive)
    ("x", "\\boxed{\\sqrt{x^2}}", "wrong"),
    # invented: equations with different solutions stay different
    ("y = \\frac{1}{x}", "\\boxed{xy = 2}", "wrong"),
    ("y = x^2", "\\boxed{y^2 = x^4}", "wrong"),  # y = -x^2 also solves it
]


@pytest.mark.parametrize(("gold", "completion", "expected"), RULES)
def test_comparison_rules(gold: str, completion: str, expected: str) -> None:
    assert _status(gold, completion) == expected


def test_a_bare_list_is_a_set_of_solutions_whatever_its_order() -> None:
    """A deliberate deviation: hendrycks/math modeling/math_equivalence_test.py labels these unequal (it compares
    strings), Math-Verify reads them equal, and so do we: "10, 4, -2" is how MATH writes all solutions of a
    problem. An ordered answer is written as a tuple, and a tuple's order matters."""
    assert _status("10, 4, -2", "4, 10, -2") == "correct"
    assert _status("0.1, 4, 2", "4, .1, 2") == "correct"
    assert _status("(10, 4, -2)", "(4, 10, -2)") == "wrong"


def test_a_problem_that_asks_for_a_percentage_makes_its_plain_gold_one() -> None:
    prompt = "What percent of the students are girls?"
    assert _status("25", "\\boxed{25\\%}", prompt) == "correct"
    assert _status("25", "\\boxed{25}", prompt) == "correct"
    assert _status("12.5", "\\boxed{12.5\\%}", prompt) == "correct"  # without the prompt: 0.125 != 12.5
    assert _status("25", "\\boxed{0.25}", prompt) == "wrong"


BARE = [
    # issue 28 (public strict pairs given as the whole completion, no box); hendrycks/math
    # modeling/math_equivalence_test.py and Qwen2.5-Math evaluation/grader.py `_test_math_equal` pairs
    ("\\tfrac{1}{2} +\\! \\frac1{72}", "\\\\dfrac{1}{2} +\\frac{1}{72}"),
    ("\\left(x-2\\right)\\left(x+2\\right)", "(x-2)(x+2)"),
    ("10\\sqrt{3} + \\sqrt4", "10\\sqrt3 + \\sqrt{4}"),
    ("\\frac34i", "\\frac{3}{4}i"),
    ("3s^2", "3*s**2"),
    ("2x(15x^2-4x+10)", "2*x*(15*x**2 - 4*x + 10)"),
    ("7(x+3)(x-3)", "7*(x - 3)*(x + 3)"),
    ("\\sec^2(y)", "\\tan^2(y)+1"),
    ("34x+45y-20z+100=0", "-34x-45y+20z-100=0"),
    ("b = a", "a = b"),
    ("0.1", "10%"),
    ("\\begin{pmatrix} -10 \\\\ 6 \\end{pmatrix}", "\\begin{pmatrix}-10\\\\6\\end{pmatrix}"),
    # invented: the shapes a bare answer takes
    ("x^2+2x+1", "(x+1)^2"),
    ("[-2, 7]", "x \\in [-2, 7]"),
    ("\\text{Evelyn}", "Evelyn"),
    ("y = 2x + 3", "y=2x+3"),
    ("3\\pi", "3 \\pi"),
    ("\\infty", "\\infty"),
    ("(-\\infty, 3]", "(-\\infty,3]"),
    ("\\{1, 2\\}", "\\{2,1\\}"),
    ("-3", "\u22123"),
    ("1", "\\sin^2 x + \\cos^2 x"),
    ("\\frac{\\sqrt{3}}{2}", "$\\frac{\\sqrt{3}}{2}$"),
    ("C", "C."),
]


@pytest.mark.parametrize(("gold", "completion"), BARE)
def test_a_bare_answer_is_read_as_well_as_a_boxed_one(gold: str, completion: str) -> None:
    assert _status(gold, completion) == "correct"
    assert _status(gold, "\\boxed{" + completion.strip("$") + "}") == "correct"


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("0.\\overline{3}", "\\frac{3}{9}"),
        ("0.333\\ldots", "\\frac{30}{90}"),
        ("3.14159\\ldots", "3.14159\\ldots"),  # nothing repeats: left unreadable
        ("2 1/2", "2\\frac{1}{2}"),
        ("5 6", "5 6"),
        ("\\color{red}5", "5"),
        ("28 percent", "28%"),
        ("\\pi^\\circ", "\\pi\\cdot\\frac{\\pi}{180}"),
        ("3*s**2", "3*s^2"),
        ("x\u207b\u00b9", "x^{-1}"),  # unicode superscripts and subscripts as a run
        ("a\u2081\u2082", "a_{12}"),
        ("12 m\u00b2", "12"),  # a squared unit is still a unit
        ("2pi", "2\\pi"),  # plain-text names of constants and functions
        ("sqrt(2)", "\\sqrt{2}"),
        ("10^-2", "10^{-2}"),
    ],
)
def test_normalisation_spells_a_value_one_way(raw: str, normal: str) -> None:
    assert normalize(raw) == normal
