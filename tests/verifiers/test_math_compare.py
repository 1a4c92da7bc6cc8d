"""Step 2, comparison: exact, shape-aware, fail closed. One policy per test, gold first."""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.math.compare import as_number, judge, terminates
from rlvr_core.verifiers.math.normalize import normalize
from rlvr_core.verifiers.math.parse import Assign, Bracketed, Collection, Group, Leaf, Relation, parse


def _status(gold: str, pred: str) -> str:
    return judge(gold, pred).status


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("1000000", "1000001", "wrong"),  # no relative tolerance between integers
        ("123456789012345678901234567890", "123456789012345678901234567891", "wrong"),
        ("12", "12.0", "correct"),
        ("18.90", "18.9", "correct"),  # trailing zeros change nothing
        ("\\frac{1}{2}", "0.5", "correct"),  # a terminating decimal is exactly its fraction
        ("\\frac{3}{2}", "1.50", "correct"),
        ("\\frac{2}{3}", "0.67", "wrong"),  # a rounding is not the value
        ("\\frac{1}{3}", "0.333333", "wrong"),
        ("\\pi", "3.14159", "wrong"),
        ("1000", "1e3", "correct"),  # scientific notation is exact
        ("0", "1e-300", "wrong"),
    ],
)
def test_numbers_are_exact(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("\\frac{1}{12}", "0.0833333333333333", "correct"),  # 15 significant digits, each right
        ("\\frac{1}{12}", "0.08333333333", "correct"),  # 10 significant digits, truncated
        ("\\frac{1}{12}", "0.083333333", "wrong"),  # 9 significant digits: too few
        ("\\frac{1}{12}", "0.08333333353", "wrong"),  # 10 digits, the last one off by more than one unit
        ("4.123105625617661", "\\sqrt{17}", "correct"),  # a long decimal gold for an irrational answer
        ("\\sqrt{2}", "1.414213562", "correct"),
        ("5", "4.999999999999", "wrong"),  # a terminating gold needs its exact decimal
        ("\\frac{1}{4}", "0.2500000000001", "wrong"),
    ],
)
def test_a_long_decimal_may_state_a_value_no_decimal_can_write(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize("literal", ["1e999", "-1e400", "1e309", "1E+400", "9.9e308", "1e-999"])
@pytest.mark.parametrize("gold", ["5", "0", "\\infty", "-\\infty", "\\frac{1}{2}", "x"])
def test_literals_beyond_the_float_range_equal_nothing(literal: str, gold: str) -> None:
    assert _status(gold, literal) == "wrong"


@pytest.mark.parametrize("pred", ["\\frac{0}{0}", "0/0", "\\infty - \\infty", "0 \\cdot \\infty", "\\frac{5}{0}", "\\infty + 1", "1:00"])
@pytest.mark.parametrize("gold", ["0", "5", "\\infty", "12:00"])
def test_nan_zoo_and_infinity_equal_nothing(pred: str, gold: str) -> None:
    assert _status(gold, pred) == "wrong"


def test_infinity_as_text_and_interval_end() -> None:
    assert _status("\\infty", "+\\infty") == "correct"
    assert _status("\\infty", "-\\infty") == "wrong"
    assert _status("[2, \\infty)", "[2,\\infty)") == "correct"


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("32349", "32,349", "correct"),
        ("32349", "32,\\! 349", "correct"),
        ("14916", "14{,}916", "correct"),
        ("1000", "1 000", "correct"),
        ("32349", "32, 349", "wrong"),  # a comma and a space: a list of two numbers
        ("1000.99", "1000,99", "correct"),  # a decimal comma, read only against a single-number gold
        ("2.74", "2,74", "correct"),
        ("1,22", "1.22", "correct"),  # a gold with a decimal comma against a decimal point (Math-Verify test_all.py)
        ("1, 22", "1.22", "wrong"),  # a comma and a space in a gold: a list
        ("56", "5 6", "unparsed"),  # digits separated by a space: neither 56 nor a list
    ],
)
def test_separators(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("3, 5", "5, 3", "correct"),  # bare lists are unordered
        ("\\{1,2,3\\}", "\\{3, 1, 2\\}", "correct"),
        ("-2,1", "1 \\text{ and } -2", "correct"),
        ("(2,1),(1,2)", "(1, 2), (2, 1), (1, 2)", "correct"),  # duplicates are ignored
        ("3, 5", "3, 5, 7", "wrong"),
        ("5", "5, 6", "wrong"),  # a list never equals one value
        ("5", "5 \\text{ or } 6", "wrong"),
        ("5", "5, 5", "correct"),  # ... unless it repeats that value
        ("(3, -1)", "(-1, 3)", "wrong"),  # tuples are ordered
        ("(1, 3)", "1, 3", "correct"),  # a tuple gold accepts the same bare list in order
        ("(3, 1)", "1, 3", "wrong"),
        ("(1, 2]", "(1, 2)", "wrong"),  # brackets matter
        ("\\pm 3", "3, -3", "correct"),
        ("\\pm 3", "3", "wrong"),
        ("p=5,q=2;p=7,q=2", "(5,2),(7,2)", "correct"),  # a group of assignments is a tuple in order
        ("a_3 = 2, a_{37} = 19", "a_{37} = 19, a_3 = 2", "correct"),  # ... and compares by name with a group
        ("x=1, y=2", "1, 2", "correct"),  # named values against a bare list: in the order written
        ("x=1, y=2", "2, 1", "wrong"),
        ("(1,2)\\cup(3,4)", "(3,4) \\cup (1,2)", "correct"),  # a union's parts in any order
        ("(1,2)\\cup(3,4)", "(1,2), (3,4)", "wrong"),  # ... but a list of pairs is not a union
    ],
)
def test_lists_sets_and_tuples(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("y=2", "x=2", "wrong"),  # equations compare as equations: the variable matters
        ("y = 2x + 3", "x = 2x+3", "wrong"),
        ("5", "x = 5", "correct"),  # a leading `x =` is dropped against a bare gold
        ("y=2", "2", "correct"),  # a gold assignment accepts its bare value
        ("a+3z=0", "0", "wrong"),  # a gold equation that is not an assignment needs an equation
        ("7 = 11a+c", "11a+c", "wrong"),
        ("y=2x+3", "y = 3 + 2x", "correct"),
        ("2x+4y-3=0", "y=-\\frac{1}{2}x+\\frac{3}{4}", "correct"),  # a non-zero multiple
        ("x = 5", "x = x", "wrong"),
        ("x+y=1", "0 = 0", "wrong"),
        ("x = 3", "x^2 = 9", "wrong"),
        ("x = 11", "x = 5+5+1 = 11", "correct"),  # a true chain assigns its last side
        ("x = 11", "x = 5+5+1 = 7 = 11", "wrong"),  # a false chain is wrong, whatever its last side (issue 28)
        ("\\frac{1}{3}", "x=\\frac{1}{3}\\approx0.33", "correct"),  # the approximation is dropped
        ("10", "2 \\cdot 5 = 10", "correct"),  # a computation without variables: its result
        ("x + 3 = 5", "5", "wrong"),
        ("f(x) = 2x", "g(x) = 2x", "wrong"),
        ("(p,q)=(3,2)", "(3,2)", "correct"),
    ],
)
def test_equations(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("x \\le 5", "5 \\ge x", "correct"),
        ("x < 1", "-x > -1", "correct"),  # a positive multiple after flipping
        ("x < 1", "x > -1", "wrong"),
        ("x > 2", "x \\ge 2", "wrong"),  # strictness matters
        ("x \\ne 3", "3 \\neq x", "correct"),
        ("x > 2", "(2, \\infty)", "correct"),  # a gold inequality in one variable equals its interval
        ("-2 \\le x \\le 7", "x \\in [-2,7]", "correct"),
        ("0<f(x)<1", "(0,1)", "correct"),
        ("x \\in [-2,7]", "-2 \\le x \\le 7", "wrong"),  # a gold interval needs an interval (math-verify's default)
        ("x > 2", "[2, \\infty)", "wrong"),
        ("5", "x \\geq 5", "wrong"),
    ],
)
def test_inequalities(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("\\text{Evelyn}", "evelyn", "correct"),  # words as words, case aside
        ("odd", "\\text{even}", "wrong"),
        ("\\text{(B)}", "B", "correct"),  # choice letters
        ("\\text{(B)}", "(C)", "wrong"),
        ("B", "b", "wrong"),  # single letters are symbols, case-sensitive
        ("2x", "x", "wrong"),
        ("x+1", "x", "wrong"),
        ("i", "\\sqrt{-1}", "correct"),  # i is the imaginary unit
        ("-1", "e^{i\\pi}", "correct"),  # e is Euler's number
        ("(x+1)^2", "x^2+2x+1", "correct"),
        ("5", "\\text{5 or 6}", "wrong"),
        ("50", "50\\%", "correct"),  # a percent sign is dropped
        ("90", "90^\\circ", "correct"),
        ("10", "10 \\text{ cm}^2", "correct"),
    ],
)
def test_words_symbols_and_units(gold: str, pred: str, expected: str) -> None:
    assert _status(gold, pred) == expected


@pytest.mark.parametrize(
    "pred",
    ["2^{2^{100}}", "10^{10^{10}}", "(10^{10})!", "\\binom{10^{9}}{10^{5}}", "(2^{9000})^{9000}", "\\sum_{k=1}^{10^{9}} k",
     "\\int_0^1 x dx", "\\lim_{x \\to 0} x", "\\sqrt{" * 20 + "2" + "}" * 20],
)
def test_inputs_that_could_hang_sympy_are_refused_quickly(pred: str) -> None:
    verdict = judge("10", pred, time_limit_s=3)
    assert verdict.status == "wrong", verdict


def test_unreadable_predictions_are_unparsed_not_wrong() -> None:
    assert judge("5", "\u0665").status == "unparsed"  # a non-ASCII digit is not a digit
    assert judge("5", "").status == "unparsed"
    assert judge("5", "1" * 3000).status == "unparsed"  # longer than any final answer


def test_as_number_and_terminates() -> None:
    from fractions import Fraction

    assert as_number("3\\frac{1}{2}") == Fraction(7, 2)  # a mixed number
    assert as_number("-\\frac{1}{3}") == Fraction(-1, 3)
    assert as_number("\\frac{1}{0}") is None
    assert as_number("\u0665") is None
    assert terminates(Fraction(3, 40)) and not terminates(Fraction(1, 12))


def test_shapes() -> None:
    assert parse(normalize("x = 5+5+1 = 11")) == Assign("x", Leaf("11"))
    assert parse(normalize("(1, 2]")) == Bracketed("(", (Leaf("1"), Leaf("2")), "]")
    assert parse(normalize("6 \\text{ and } 8")) == Collection((Leaf("6"), Leaf("8")), braces=False)
    assert parse(normalize("p=5,q=2")) == Group((Assign("p", Leaf("5")), Assign("q", Leaf("2"))))
    assert parse(normalize("2x+4y=3")) == Relation(("2x+4y", "3"), ("=",))
    assert parse(normalize("(a+5)(b+2)")) == Leaf("(a+5)(b+2)")  # not one bracket around everything
