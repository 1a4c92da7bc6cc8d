"""Issue 41's values, wrong twins of `test_reference_programs.py`'s rows: each wrong program scores 0.

Classes as values (MBPP 533), generators read lazily, all()/any() over large
ranges read to a bound and a range too large to expand: what a wrong program
can now try with each, and that it gains nothing. What crosses the boundary
runs in every mode; how far the grader reads (a thousand requests a test) is
the grader's alone and runs in one. docs/SECURITY.md maps each class to its
tests.
"""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.code import eager
from rlvr_core.verifiers.code.grader import grade, plan_tests, run_tests

TESTS_533 = ("assert remove_datatype((4, 5, 4, 7.7, 1.2), int) == [7.7, 1.2]",
             "assert remove_datatype((7, 8, 9, 'SR'), str) == [7, 8, 9]",
             "assert remove_datatype((7, 1.1, 2, 2.2), float) == [7, 2]")


def verdict(sandbox, program: str, tests, entry):
    return grade(sandbox, program, plan_tests(tuple(tests), "", entry), timeout_s=10)


@pytest.mark.parametrize("program", [
    "def remove_datatype(t, kind):\n    return [x for x in t if not isinstance(x, int)]\n",  # ignores the class it gets
    "def remove_datatype(t, kind):\n    return [x for x in t if type(x).__name__ != kind.__name__[:2]]\n",  # guesses by name
    "def remove_datatype(t, kind):\n    return [x for x in t if isinstance(x, kind)]\n",  # keeps instead of removes
], ids=["ignores-the-class", "guesses-by-name", "keeps-instead"])
def test_a_wrong_filter_by_class_fails_mbpp_533(sandbox, program: str) -> None:
    assert verdict(sandbox, program, TESTS_533, "remove_datatype").status == "failed"


def test_a_class_of_the_programs_posing_as_a_standard_one_is_not_plain_data(sandbox) -> None:
    program = ("class Fake:\n    def __eq__(self, other):\n        return True\n"
               "Fake.__module__, Fake.__qualname__ = 'builtins', 'int'\ndef kind(x):\n    return Fake\n")
    graded = verdict(sandbox, program, ("assert kind(1) == int",), "kind")
    assert graded.status == "failed" and "not plain data" in graded.detail, graded


@pytest.mark.parametrize(("program", "test"), [
    ("def evens():\n    yield from (0, 2, 4, 99)\n", "import itertools\nassert list(itertools.islice(evens(), 4)) == [0, 2, 4, 6]"),
    ("import itertools\ndef evens():\n    return itertools.count(0, 2)\n", "assert list(evens()) == [0, 2, 4]"),
    ("def evens():\n    yield 0\n    raise ValueError\n", "assert list(evens()) == [0]"),
    ("import itertools\ndef evens():\n    return itertools.count(1)\n", "assert 0 in evens()"),
], ids=["wrong-item-after-a-right-prefix", "endless-where-the-test-reads-all", "raises-where-the-test-reads-on",
        "never-yields-the-member"])
def test_a_wrong_generator_fails_however_far_the_test_reads(one_sandbox, program: str, test: str) -> None:
    """An endless one fails as too large once the test has read CALLS_CAP items, not by a timeout."""
    graded = verdict(one_sandbox, program, (test,), "evens")
    assert graded.status == "failed", graded


IS_PRIME = "def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))\n"


@pytest.mark.parametrize(("program", "tests", "entry"), [
    (IS_PRIME, ("assert any(is_prime(i) for i in range(100000))", "assert not all(is_prime(i) for i in range(100000))",
                "assert any(i > 5 for i in range(100000))"), "is_prime"),
    ("import itertools\ndef naturals():\n    return itertools.count()\n", ("assert 7 in naturals()",
                                                                         "assert any(n > 3 for n in naturals())"), "naturals"),
], ids=["any-over-a-large-range", "member-of-an-endless-generator"])
def test_a_correct_program_passes_where_python_decides_early(one_sandbox, program: str, tests, entry: str) -> None:
    """The issue's eager any() over range(100000) timed out; it now reads to the bound and keeps Python's answer."""
    assert verdict(one_sandbox, program, tests, entry).status == "passed"


@pytest.mark.parametrize("answer", ["False", "n == 99_999"], ids=["never", "decides-past-the-bound"])
def test_a_wrong_answer_inside_a_large_any_fails(one_sandbox, answer: str) -> None:
    """Decided past the bound (the last row, which Python would pass) fails as too large: the bound is the
    price of reading as far whatever the answers; the correct program decides at item 2."""
    program = f"def is_prime(n):\n    return {answer}\n"
    assert verdict(one_sandbox, program, ("assert any(is_prime(i) for i in range(100000))",), "is_prime").status == "failed"


def test_the_calls_a_large_any_asks_are_the_same_whatever_the_program_answers(one_sandbox) -> None:
    """How far it reads says nothing about the answers: a program printing each call sees the same calls."""
    plan = plan_tests(("assert any(f(i) for i in range(100000))",), "", "f")
    seen = []
    for body in ("i == 2", "False", "i % 7 == 3"):
        with one_sandbox.serve(f"def f(i):\n    print(i)\n    return {body}\n", timeout_s=10) as session:
            run_tests(session, plan)
        seen.append(session.result.stdout)
    assert seen[0] == seen[1] == seen[2] and seen[0].split() == [str(i) for i in range(eager.CALLS_CAP + 1)]


def test_a_range_too_large_to_expand_fails_without_growing_the_grader(sandbox) -> None:
    """The issue's memory bomb: `set(f())` over a returned range(0, 10**12) reached 3 GB in 10 s."""
    graded = verdict(sandbox, "def f():\n    return range(0, 10**12)\n", ("assert len(set(f())) > 0",), "f")
    assert graded.status == "failed" and "too large" in graded.detail, graded
