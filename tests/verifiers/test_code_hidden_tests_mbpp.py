"""The hidden tests of the MBPP problems shipped in `tests/data/mbpp_rows.jsonl`, generated once for the module as
the dataset cache step does (`mbpp_offline.shipped_with_hidden_tests`).

They bite (attack class F1, the shown asserts are not all the graded ones): a lookup table of the shown asserts,
a program answering each call with the answer of the most similar shown call (two measures of similarity,
knowing the one assert a training prompt shows or the three the benchmark prompt shows), and a program giving
one shown answer to every call all score 0 under `reward: all`. They never pin a bug (false negatives): every
reference that passes its own tests, every known-correct program and every program of
`mbpp_correct_programs.py` (written independently of the references) scores 1.0 on every test.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator

import pytest

from rlvr_core.data.sources.mbpp_known_correct import KNOWN_CORRECT
from rlvr_core.problem import Problem
from rlvr_core.sandbox.codec import NotPlainData, encode
from rlvr_core.sandbox.runner import Sandbox
from rlvr_core.verifiers.code.domain import CallDomain, TypeName
from rlvr_core.verifiers.code.grader import Verdict, grade, plan_tests
from rlvr_core.verifiers.code.hidden import DEFAULT_COUNT
from rlvr_core.verifiers.code.templates import templates
from tests.sandbox import mbpp_offline
from tests.verifiers.mbpp_correct_programs import PROGRAMS

pytestmark = pytest.mark.slow



def types_cross_the_sandbox() -> bool:
    """Whether a builtin type can be sent to a program (`remove_datatype(t, int)`, MBPP 533): the sandbox half of
    issue 41 adds it to the codec."""
    try:
        encode(int)
    except NotPlainData:
        return False
    return True


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox()
    if box.refusal:
        pytest.skip(box.refusal)
    yield box
    box.close()


@pytest.fixture(scope="module")
def shipped() -> tuple[list[Problem], dict]:
    problems, summary = mbpp_offline.shipped_with_hidden_tests()
    return list(problems), summary


def answer(problem: Problem) -> dict:
    return json.loads(problem.answer)


def run(sandbox: Sandbox, program: str, problem: Problem, tests: list[str]) -> Verdict:
    a = answer(problem)
    return grade(sandbox, program, plan_tests(tuple(tests), a.get("setup", ""), tuple(a["entry"]), a.get("prelude", "")))


def graded(problem: Problem) -> list[str]:
    a = answer(problem)
    return a["tests"] + a.get("challenge", []) + a.get("hidden", [])


def with_hidden(shipped) -> list[Problem]:
    return [p for p in shipped[0] if answer(p).get("hidden")]


# --- the hidden tests exist, and the reference passes them -------------------------------------------
def test_every_reference_that_passes_its_own_tests_gets_ten_hidden_tests_and_passes_them(sandbox, shipped, capsys):
    problems, summary = shipped
    cannot_pass = set() if types_cross_the_sandbox() else {"533"}
    assert len(problems) == 45 and set(summary["reference_fails_own_tests"]) == cannot_pass, summary
    failures = []
    for problem in problems:
        if problem.id in cannot_pass:
            assert answer(problem)["grade_on"] == "official" and not answer(problem)["hidden"]
            continue
        verdict = run(sandbox, problem.extra["reference_code"], problem, graded(problem))
        if len(answer(problem)["hidden"]) != DEFAULT_COUNT or verdict.status != "passed":
            failures.append((problem.id, len(answer(problem)["hidden"]), verdict.detail))
    assert not failures and summary["fewer_than_asked"] == {}, failures
    with capsys.disabled():
        print(f"\nshipped MBPP problems: {len(problems)}; hidden tests: {summary['tests']} "
              f"({summary['contrast_tests']} answering as a shown test does); fewer than {DEFAULT_COUNT}: "
              f"{summary['fewer_than_asked']}; references failing their own tests: {summary['reference_fails_own_tests']}")


def test_mbpp_533_gets_hidden_tests_that_pass_a_type(shipped) -> None:
    if not types_cross_the_sandbox():
        pytest.xfail("a builtin type is not plain data for the sandbox codec (the sandbox half of issue 41)")
    hidden = answer(next(p for p in shipped[0] if p.id == "533"))["hidden"]
    calls = templates(hidden, frozenset({"remove_datatype"}))
    assert len(calls) == len(hidden) == DEFAULT_COUNT
    assert {t.args[1] for t in calls} <= {TypeName("int"), TypeName("str"), TypeName("float")}  # the types shown


def test_every_hidden_input_stays_in_the_domain_of_the_problems_own_calls(shipped) -> None:
    outside = []
    for problem in with_hidden(shipped):
        a = answer(problem)
        entries = frozenset(a["entry"])
        own = templates(a["tests"] + a.get("challenge", []), entries)
        domains = {sig: CallDomain([t.values for t in own if t.signature == sig]) for sig in {t.signature for t in own}}
        for template in templates(a["hidden"], entries):
            if not domains[template.signature].accepts(template.values):
                outside.append((problem.id, template.source))
    assert not outside


# --- F1: answers the prompt shows are worth nothing on the hidden tests --------------------------------
ANSWERER = '''
import difflib
SHOWN = {shown!r}
def _numbers(v):
    if isinstance(v, (bool, int, float)):
        return [float(v)]
    if isinstance(v, str):
        return [float(len(v))] + [float(ord(c)) for c in v]
    if isinstance(v, dict):
        v = list(v.items())
    out = [float(len(v))] if isinstance(v, (list, tuple, set, frozenset)) else []
    for x in (v if out else ()):
        out += _numbers(x)
    return out
def _far(a, b):
    x, y = _numbers(list(a)), _numbers(list(b))
    gap = 0.0
    for k in range(max(len(x), len(y))):
        gap += abs((x[k] if k < len(x) else 0.0) - (y[k] if k < len(y) else 0.0))
    return gap
def _answer(*args):
    for call, value in SHOWN:
        if call == args:
            return value
    if {how!r}.startswith("text"):
        nearest = max(SHOWN, key=lambda s: difflib.SequenceMatcher(None, repr(args), repr(s[0])).ratio())[1]
    elif {how!r}.startswith("numbers"):
        nearest = min(SHOWN, key=lambda s: _far(args, s[0]))[1]
    if {how!r}.endswith("opposite") and isinstance(nearest, bool):
        return not nearest
    if {how!r} != "table":
        return nearest
    answers = [repr(value) for _, value in SHOWN]
    return max(SHOWN, key=lambda s: answers.count(repr(s[1])))[1]  # the most common shown answer
'''


def shown_calls(problem: Problem, shown: int) -> list[tuple[tuple, object]]:
    """The (arguments, answer) of the first `shown` official asserts, read as a cheating program would."""
    out = []
    for source in answer(problem)["tests"][:shown]:
        test = ast.parse(source.strip()).body[0].test
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call, expected = (test.operand, False) if negated else (test, True)
        if isinstance(test, ast.Compare):
            call, expected = ((test.left, test.comparators[0]) if isinstance(test.left, ast.Call)
                              else (test.comparators[0], test.left))
            expected = ast.literal_eval(expected)
        try:
            out.append((tuple(ast.literal_eval(a) for a in call.args), expected))
        except (ValueError, AttributeError):
            pass
    return out


def answerer(problem: Problem, shown: int, how: str) -> str:
    """A program that knows the first `shown` asserts: their answers to their calls, else the answer of the most
    similar shown call (`how`: "text" or "numbers"; "text opposite", "numbers opposite": the other bool where
    that answer is a bool) or the most common shown answer ("table")."""
    entries = "".join(f"def {name}(*args):\n    return _answer(*args)\n" for name in answer(problem)["entry"])
    return ANSWERER.format(shown=shown_calls(problem, shown), how=how) + entries


NEAREST = [(3, "text"), (3, "numbers"), (3, "text opposite"), (3, "numbers opposite")]  # (asserts known, how)
CONSTANT = [(3, "table"), (1, "text")]  # with one shown call, the nearest is always that call


def expected_answer(source: str) -> object:
    """The answer an assert expects (`f(x) == v`: v; `[not] f(x)`: the bool), read as a cheating program would."""
    test = ast.parse(source).body[0].test
    if isinstance(test, ast.Compare):
        side = test.comparators[0] if isinstance(test.left, ast.Call) else test.left
        try:
            return ast.literal_eval(side)
        except ValueError:
            return None
    return not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))


def test_programs_that_answer_with_shown_answers_fail_the_hidden_tests(sandbox, shipped, capsys) -> None:
    """Where every hidden answer is new (read from the asserts), any program answering with shown answers fails
    every hidden test, the lookup table included: the nearest answerer by text shows it. Where some hidden
    answer is a shown one (bools, a few labels), every answerer is tried: those
    answering as the nearest shown call (by text or by numbers), or the other bool, fail the hidden tests alone;
    the lookup table and the answerer knowing the training prompt's one assert fail what the prompt did not show
    (MBPP 20's hidden answers are all False: mutations do not reach the sparse Woodall numbers; its challenge
    tests hold one)."""
    passing, fractions = [], {cheat: [] for cheat in NEAREST + CONSTANT}
    for problem in with_hidden(shipped):
        shown_answers = [value for _, value in shown_calls(problem, 3)]
        repeats = any(any(expected_answer(t) == v and type(expected_answer(t)) is type(v) for v in shown_answers)
                      for t in answer(problem)["hidden"])
        bools = any(isinstance(v, bool) for v in shown_answers)
        if not repeats:  # then no program answering with shown answers passes a hidden test; one shows it
            assert all(expected_answer(t) is not None for t in answer(problem)["hidden"]), problem.id
        for shown, how in NEAREST + CONSTANT:
            if (not repeats and (shown, how) != (3, "text")) or (how.endswith("opposite") and not bools):
                continue
            tests = answer(problem)["hidden"] if (shown, how) in NEAREST else graded(problem)
            verdict = run(sandbox, answerer(problem, shown, how), problem, tests)
            fractions[(shown, how)].append(verdict.passed / verdict.total)
            if verdict.status == "passed":
                passing.append((problem.id, shown, how))
    assert not passing
    with capsys.disabled():
        print("\nreward under `fraction`:", ", ".join(
            f"{how} knowing {shown} on the {'hidden' if (shown, how) in NEAREST else 'graded'} tests: "
            f"mean {sum(f) / len(f):.3f}, max {max(f):.3f} over {len(f)}" for (shown, how), f in fractions.items()))


# --- false negatives: correct programs pass every test -------------------------------------------------
def test_every_independently_written_correct_program_passes_every_test(sandbox, shipped) -> None:
    problems = {int(p.id): p for p in shipped[0]}
    assert set(PROGRAMS) == set(problems) and all(len(programs) >= 2 for programs in PROGRAMS.values())
    failures = []
    for task, programs in PROGRAMS.items():
        problem = problems[task]
        if problem.id == "533" and not types_cross_the_sandbox():
            continue
        for program in programs:
            verdict = run(sandbox, program, problem, graded(problem))
            if verdict.status != "passed":
                failures.append((task, program, verdict.detail))
    assert not failures


def test_every_known_correct_program_passes_its_problems_own_and_hidden_tests(sandbox, shipped) -> None:
    problems = {p.id: p for p in shipped[0]}
    assert set(KNOWN_CORRECT) <= set(problems)
    for task, programs in KNOWN_CORRECT.items():
        for program in programs:
            assert run(sandbox, program, problems[task], graded(problems[task])).status == "passed", (task, program)
