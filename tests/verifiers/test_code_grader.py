"""The grader's own logic, without a sandbox: which names are the program's, and how a test is compiled."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.verifiers.code import eager
from rlvr_core.verifiers.code.calls import write_back
from rlvr_core.verifiers.code.eager import Failed, Speculation, compile_test, runtime
from rlvr_core.verifiers.code.grader import plan_tests
from rlvr_core.verifiers.code.reference import trusted_parts


@pytest.mark.parametrize(
    ("tests", "setup", "entry", "entries", "modules", "stdlib"),
    [
        (("assert add(1, 2) == 3",), "", "add", {"add"}, set(), set()),
        (("assert math.isclose(area(1), 3.14, rel_tol=0.01)",), "", "area", {"area"}, {"math"}, set()),
        (("assert set(common(a, b)) == set((4, 5))",), "a = (1, 4)\nb = (4, 5)", None, {"common"}, set(), set()),
        (("assert all(f(i) == 2 * i for i in range(3))",), "", None, {"f"}, set(), set()),  # `i` is the test's own
        (("assert max(3) == 3",), "", "max", {"max"}, set(), set()),  # a declared entry wins over a builtin
        (("assert sum(10, 15) == 6",), "", ("sum",), {"sum"}, set(), set()),
        (("assert sorted(f([2, 1])) == [1, 2]",), "", None, {"f"}, set(), set()),  # a builtin stays the real one
        (("assert heapq([3]) == [3]",), "", None, {"heapq"}, set(), set()),  # a module name used bare is the program's
        (("assert isclose(f(1), 2.0)",), "", None, {"f"}, set(), {"isclose"}),  # stdlib names never the program's
        (("assert f('aab') == Counter('aab')",), "", "f", {"f"}, set(), {"Counter"}),
        (("assert f(x) == 1",), "x = 1", ("f", "g"), {"f", "g"}, set(), set()),  # declared entries, all of them
    ],
    ids=["plain", "stdlib-module", "setup-names-are-trusted", "comprehension", "entry-shadows-builtin", "builtin-named-entry",
         "builtin", "bare-module-name", "isclose", "counter", "several-entries"],
)
def test_names_are_split_between_the_program_and_this_process(tests, setup, entry, entries, modules, stdlib) -> None:
    plan = plan_tests(tests, setup, entry)
    assert (plan.entries, plan.modules, plan.stdlib_names) == (entries, modules, stdlib)


def test_classes_of_the_prelude_and_setup_are_the_trusted_ones() -> None:
    plan = plan_tests(("assert f(Pair(1, 2)) == 1",), "class Node:\n    pass", "f", "class Pair:\n    pass")
    assert plan.trusted_classes == {"Pair", "Node"} and plan.entries == {"f"}


def test_asserts_are_compiled_to_a_check_that_python_O_cannot_drop() -> None:
    plan = plan_tests(("assert add(1, 2) == 3",), "", "add")
    assert "__rlvr_check__" in plan.codes[0].co_names


def test_a_test_that_does_not_parse_is_named() -> None:
    with pytest.raises(ValueError, match="test 2 does not parse"):
        plan_tests(("assert f(1) == 1", "assert f(1 =="), "", "f")


def test_the_reference_solution_gives_the_entries_and_a_guarded_prelude() -> None:
    reference = ("import math\r\nfrom collections import Counter\r\nLIMIT = 10\r\nclass Pair(object):\r\n    pass\r\n"
                 "def helper(x):\r\n    return x\r\ndef sum(a, b):\r\n    return helper(a) + b\r\nprint('side effect')\r\n")
    entries, prelude = trusted_parts(reference)
    assert entries == ("helper", "sum")
    namespace: dict = {}
    exec(prelude, namespace)  # noqa: S102 - the test's own string
    assert {"math", "Counter", "LIMIT", "Pair"} <= set(namespace) and "print" not in prelude
    assert trusted_parts("def broken(:") == ((), "")


# --- eager branches: Python's results, with every operand evaluated ---------------------------------------
def run(source: str, names: dict) -> list:
    """Run a compiled test; returns the order in which `f` was called."""
    calls: list = []

    def f(x):
        calls.append(x)
        if x < 0:
            raise ValueError(x)
        return x

    env = {"__builtins__": __builtins__, **runtime(Speculation()), "f": f, **names}
    exec(compile_test(ast.parse(source)), env)  # noqa: S102 - the test's own string
    return calls


@pytest.mark.parametrize(("source", "calls"), [
    ("assert f(1) or f(-1)", [1, -1]),  # f(-1) raised, but Python would not have reached it
    ("assert f(0) or f(2)", [0, 2]),
    ("assert f(2) if f(1) else f(-1)", [1, 2, -1]),
    ("assert not (f(0) and f(-1))", [0, -1]),
    ("assert f(1) < f(2) < f(3)", [1, 2, 3]),
    ("assert not (f(3) < f(2) < f(-1))", [3, 2, -1]),
    ("assert not all(f(i) for i in (1, 0, 2))", [1, 0, 2]),  # all() stopped at 0 in Python
    ("assert any(f(i) for i in (0, 1, 2))", [0, 1, 2]),
    ("assert f(1) == 1, f(5)", [1]),  # the message never runs: it would only on failure
], ids=["or", "or-second", "if", "and", "chain", "chain-false", "all", "any", "message"])
def test_branches_evaluate_every_operand_and_keep_pythons_result(source: str, calls: list) -> None:
    assert run(source, {}) == calls


@pytest.mark.parametrize("source", ["assert f(0) and f(-1)", "assert f(-1) or f(1)", "assert f(1) < f(-1)",
                                    "assert (f(-1) if f(1) else f(2))"])
def test_an_exception_python_would_reach_is_still_raised(source: str) -> None:
    with pytest.raises((ValueError, Failed)):
        run(source, {})


def test_a_false_assert_raises_failed() -> None:
    with pytest.raises(Failed):
        run("assert f(0)", {})


def test_a_test_with_an_assignment_expression_keeps_its_semantics() -> None:
    assert run("assert (y := f(2)) == 2 and y == 2", {}) == [2]


# --- all(), any() and `in`: read to the end or to a fixed bound, never to the decision ------------------------
def consumption(source: str, answers: list[bool]) -> tuple[list[int], object, str | None]:
    """(the calls `f` answered, the value `r` the source computed, why the test is too large) when `f(i)`
    answers answers[i]; each call is counted as the grader counts a request to the program."""
    speculation, calls = Speculation(), []

    def f(i):
        speculation.calls += 1
        calls.append(i)
        return answers[i]

    env = {"__builtins__": __builtins__, **runtime(speculation), "f": f, "n": len(answers)}
    exec(compile_test(ast.parse(source)), env)  # noqa: S102 - the test's own string
    return calls, env["r"], speculation.too_large


CONSUMERS = {  # source -> what Python computes from the answers
    "r = any(f(i) for i in range(n))": any,
    "r = all(f(i) for i in range(n))": all,
    "r = True in (f(i) for i in range(n))": lambda answers: True in answers,
    "r = False not in (f(i) for i in range(n))": lambda answers: False not in answers,
}


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(answers=st.lists(st.booleans(), max_size=60), source=st.sampled_from(sorted(CONSUMERS)),
       bound=st.integers(1, 40), by_calls=st.booleans())
def test_how_far_all_any_and_in_read_depends_on_the_iterable_never_on_the_answers(answers, source, bound, by_calls):
    """Issue 41: an eager any() read all of range(100000) (a timeout) where Python stops at the first true item.
    Now it reads to the end or to a bound; the calls are the same whatever the answers, the result is Python's
    wherever Python decided within the bound, and an undecided one marks the test too large."""
    with pytest.MonkeyPatch.context() as patch:  # a small bound, of items or of calls, keeps the search quick
        patch.setattr(eager, "CALLS_CAP" if by_calls else "ITEMS_CAP", bound)
        calls, result, too_large = consumption(source, answers)
        assert calls == consumption(source, [not a for a in answers])[0] == consumption(source, [False] * len(answers))[0]
    assert calls == list(range(min(len(answers), bound + 1)))  # at the bound, one more item: did it end there?
    python = CONSUMERS[source](answers)
    decided_at = next((i for i, a in enumerate(answers) if a is ("all" not in source and "not in" not in source)), None)
    if decided_at is not None and decided_at < bound or len(answers) <= bound:
        assert (result, too_large) == (python, None)
    else:
        assert too_large is not None and "too large" in too_large


def test_a_short_circuit_inside_a_bound_costs_no_more_than_the_bound() -> None:
    """The red team's case: Python decides at the third item of range(100000); eager reading stops at the bound."""
    calls, result, too_large = consumption("r = any(f(i) for i in range(n))", [False, False, True] + [False] * 99_997)
    assert result is True and too_large is None and len(calls) == eager.CALLS_CAP + 1


# --- arguments changed in place ----------------------------------------------------------------------
def test_write_back_changes_the_tests_objects_in_place_and_keeps_their_aliases() -> None:
    inner = [1]
    outer = {"a": inner, "b": [2]}
    write_back(outer, {"a": [1, 2], "c": 3})
    assert outer == {"a": [1, 2], "c": 3} and outer["a"] is inner
    items = [3, 1, 2]
    write_back(items, [1, 2])
    assert items == [1, 2]
    values = {1}
    write_back(values, {2, 3})
    assert values == {2, 3}
    frozen = (1, 2)
    write_back(frozen, (3,))
    assert frozen == (1, 2)
