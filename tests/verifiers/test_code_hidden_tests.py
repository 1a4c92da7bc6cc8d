"""Hidden tests generated from the reference solution: enough of them, in the official asserts' form, only
where the reference answers deterministically, inside the task's domain, never where a known-correct program
disagrees, and always passed by the reference itself. (The shipped MBPP problems, the attacks and the correct
programs: `test_code_hidden_tests_mbpp.py`; the domain rules: `test_code_domain.py`.)"""

from __future__ import annotations

import json

import pytest

from rlvr_core.problem import Problem
from rlvr_core.data.sources.mbpp import official_tests_only
from rlvr_core.sandbox.runner import Sandbox
from rlvr_core.verifiers.code import hidden
from rlvr_core.verifiers.code.domain import CallDomain
from rlvr_core.verifiers.code.hidden import generate_hidden_tests, hidden_test_count
from rlvr_core.verifiers.code.verifier import CodeVerifier, parse_answer
from tests.sandbox import mbpp_offline


@pytest.fixture(scope="module")
def sandboxes():
    pair = (Sandbox(), Sandbox())
    if pair[0].refusal:
        pytest.skip(pair[0].refusal)
    yield pair
    for sandbox in pair:
        sandbox.close()


def truth(tests, entry, setup="", prelude="") -> dict:
    return parse_answer(json.dumps({"tests": list(tests), "setup": setup, "entry": entry, "prelude": prelude}))


def test_every_mbpp_row_shipped_offline_gets_ten_hidden_tests_that_its_reference_passes(capsys) -> None:
    problems = mbpp_offline.problems_with_hidden_tests()
    verifier = CodeVerifier()
    for problem in problems:
        answer = mbpp_offline.answer(problem)
        assert len(answer["hidden"]) == hidden.DEFAULT_COUNT >= 10, problem.id
        assert not set(answer["hidden"]) & set(answer["tests"])
        score = verifier.verify(f"```python\n{problem.extra['reference_code']}\n```", problem)
        assert score.reward == 1.0 and f"all {len(answer['tests']) + len(answer['hidden'])} tests" in score.detail, score
    with capsys.disabled():
        print(f"\nMBPP rows shipped offline: {len(problems)}; hidden tests: "
              f"{sum(len(mbpp_offline.answer(p)['hidden']) for p in problems)}; references failing their own tests: 0")


def test_generation_is_deterministic_per_problem(sandboxes) -> None:
    problem = mbpp_offline.problems()[2]
    parsed = parse_answer(json.dumps({**mbpp_offline.answer(problem), "grade_on": "official"}))
    runs = [generate_hidden_tests(problem.id, parsed, problem.extra["reference_code"], 5, sandboxes) for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0].tests) == 5


@pytest.mark.parametrize(("tests", "reference", "form"), [
    (("assert set(common((1, 2, 3), (2, 3, 4))) == set((2, 3))",), "def common(a, b):\n    return tuple(set(a) & set(b))\n",
     "assert set(common("),
    (("assert math.isclose(area(2), 12.566, rel_tol=0.001)",), "import math\ndef area(r):\n    return math.pi * r * r\n",
     "rel_tol=0.001"),
    (("assert not is_odd(4)", "assert is_odd(3)"), "def is_odd(n):\n    return n % 2 == 1\n", "is_odd("),
    (("assert half(3) == 1.5",), "def half(n):\n    return n / 2\n", "assert math.isclose(half("),
], ids=["set-wrapper", "isclose-tolerance", "truth", "float-equality-becomes-isclose"])
def test_hidden_tests_keep_the_form_of_the_official_assert(sandboxes, tests, reference, form: str) -> None:
    entry = reference.split("def ")[1].split("(")[0]
    generated = generate_hidden_tests("form", truth(tests, [entry]), reference, 6, sandboxes)
    assert generated.tests and all(t.startswith(form) or form in t for t in generated.tests), generated


def test_a_reference_that_answers_differently_in_two_interpreters_keeps_no_hidden_test(sandboxes) -> None:
    """`hash` of a str depends on the interpreter's random seed: the answer is not a fact about the input."""
    reference = "def f(x):\n    return x * hash('seed')\n"
    generated = generate_hidden_tests("seeded", truth(("assert f(0) == 0",), ["f"]), reference, 5, sandboxes)
    assert generated.tests == () and "0 of 5" in generated.note


def test_a_reference_that_fails_its_own_tests_keeps_no_hidden_test(sandboxes) -> None:
    generated = generate_hidden_tests("broken", truth(("assert f(1) == 2",), ["f"]), "def f(x):\n    return x\n", 5, sandboxes)
    assert generated.tests == () and generated.note.startswith(hidden.REFERENCE_FAILS)


def test_a_reference_that_fails_a_challenge_test_keeps_no_hidden_test(sandboxes) -> None:
    answer = {**truth(("assert f(1) == 2",), ["f"]), "challenge": ["assert f(0) == 7"]}
    generated = generate_hidden_tests("challenged", answer, "def f(x):\n    return 2 * x\n", 5, sandboxes)
    assert generated.tests == () and generated.note.startswith(hidden.REFERENCE_FAILS)


BUGGY_DOUBLE = "def f(n):\n    return 0 if n % 7 == 0 else 2 * n\n"  # wrong on multiples of 7
DOUBLE_TESTS = ("assert f(1) == 2", "assert f(3) == 6", "assert f(12) == 24")


def test_a_known_correct_program_vetoes_the_hidden_tests_that_pin_a_references_bug(sandboxes) -> None:
    pinned = generate_hidden_tests("double", truth(DOUBLE_TESTS, ["f"]), BUGGY_DOUBLE, 10, sandboxes)
    assert any(t.endswith("== 0") for t in pinned.tests), pinned  # without a veto, the bug becomes a test
    vetted = generate_hidden_tests("double", truth(DOUBLE_TESTS, ["f"]), BUGGY_DOUBLE, 10, sandboxes,
                                   known_correct=("def f(n):\n    return n + n\n",))
    assert len(vetted.tests) == 10 and not any(t.endswith("== 0") for t in vetted.tests), vetted


def test_a_known_correct_program_that_fails_the_problems_own_tests_is_an_error(sandboxes) -> None:
    with pytest.raises(ValueError, match="problem double: a known-correct program fails the problem's own tests"):
        generate_hidden_tests("double", truth(DOUBLE_TESTS, ["f"]), BUGGY_DOUBLE, 5, sandboxes,
                              known_correct=("def f(n):\n    return n\n",))


def test_an_answer_outside_the_shape_of_the_shown_answers_is_never_a_hidden_test(sandboxes) -> None:
    """MBPP 605's reference answers None for some numbers inside the shown range, where every shown answer is a
    bool: those inputs are in the domain, their answers are not."""
    reference = "def is_big(n):\n    if n < 0:\n        return False\n    if n < 5:\n        return None\n    return n > 9\n"
    tests = ("assert is_big(13) == True", "assert is_big(7) == False", "assert is_big(-10) == False")
    assert CallDomain([(13,), (7,), (-10,)]).accepts((3,))  # the None answers are reachable
    generated = generate_hidden_tests("605-like", truth(tests, ["is_big"]), reference, 10, sandboxes)
    assert len(generated.tests) == 10 and not any("None" in t for t in generated.tests), generated


def test_hidden_answers_differ_from_every_shown_answer_where_answers_can(sandboxes) -> None:
    tests = ("assert add(1, 2) == 3", "assert add(10, 5) == 15", "assert add(4, 4) == 8")
    generated = generate_hidden_tests("add", truth(tests, ["add"]), "def add(a, b):\n    return a + b\n", 10, sandboxes)
    answers = [int(t.rsplit("== ", 1)[1]) for t in generated.tests]
    assert len(answers) == 10 and not set(answers) & {3, 15, 8} and generated.contrast == 0, generated


def test_bool_answers_are_mixed_so_no_constant_passes_them(sandboxes) -> None:
    """Every bool answer is a shown one: the hidden tests hold both, and differ from the nearest shown call's."""
    tests = ("assert is_even(2) == True", "assert is_even(7) == False", "assert is_even(10) == True")
    generated = generate_hidden_tests("even", truth(tests, ["is_even"]), "def is_even(n):\n    return n % 2 == 0\n",
                                      10, sandboxes)
    answers = {t.rsplit("== ", 1)[1] for t in generated.tests}
    assert len(generated.tests) == 10 and answers == {"True", "False"} and generated.contrast > 0, generated


def test_a_problem_whose_reference_fails_its_own_tests_is_graded_on_its_official_tests_only() -> None:
    answer = json.dumps({"tests": ["assert f(1) == 2"], "entry": ["f"]})
    broken = Problem("broken", "t", "Double it.", answer, "code", extra={"reference_code": "def f(x):\n    return x\n"})
    problems, summary = hidden.add_hidden_tests([broken])
    assert json.loads(problems[0].answer)["grade_on"] == "official" and summary["reference_fails_own_tests"] == ["broken"]


@pytest.mark.slow
def test_a_mutated_input_that_hangs_the_reference_costs_only_itself(sandboxes, monkeypatch) -> None:
    monkeypatch.setattr(hidden, "PROBE_TIMEOUT_S", 1.0)
    monkeypatch.setattr(hidden, "RETRY_TIMEOUT_S", 0.5)
    reference = "def f(n):\n    while n % 2 == 0:\n        pass\n    return n * 3\n"
    generated = generate_hidden_tests("hangs", truth(("assert f(3) == 9", "assert f(5) == 15"), ["f"]), reference, 2,
                                      sandboxes)
    assert generated.tests and all(int(t.split("f(")[1].split(")")[0]) % 2 == 1 for t in generated.tests), generated


@pytest.mark.parametrize("value", ["", "ten", "-1"])
def test_the_hidden_test_count_is_a_whole_number(monkeypatch, value: str) -> None:
    monkeypatch.setenv(hidden.COUNT_ENV, value)
    if value:
        with pytest.raises(ValueError, match="RLVR_CODE_HIDDEN_TESTS.*whole number"):
            hidden_test_count()
    else:
        assert hidden_test_count() == hidden.DEFAULT_COUNT


def test_zero_hidden_tests_turns_generation_off(monkeypatch) -> None:
    monkeypatch.setenv(hidden.COUNT_ENV, "0")
    problems, summary = hidden.add_hidden_tests(mbpp_offline.problems())
    assert all("hidden" not in json.loads(p.answer) for p in problems) and summary["tests"] == 0


def test_official_grading_ignores_the_hidden_tests_and_extended_grading_uses_them() -> None:
    problem = mbpp_offline.problems_with_hidden_tests()[0]
    cheat = f"```python\n{mbpp_offline.lookup_table(problem)}\n```"
    assert CodeVerifier().verify(cheat, official_tests_only(problem)).reward == 1.0
    assert CodeVerifier().verify(cheat, problem).reward == 0.0


def test_a_fractional_reward_counts_the_tests_that_hold(monkeypatch) -> None:
    answer = json.dumps({"tests": ["assert f(1) == 1", "assert f(2) == 2", "assert f(3) == 3", "assert f(4) == 0"],
                         "entry": "f"})
    problem = Problem("p", "x", "", answer, "code")
    completion = "```python\ndef f(x):\n    return x\n```"
    assert CodeVerifier(reward="fraction").verify(completion, problem).reward == 0.75
    assert CodeVerifier().verify(completion, problem).reward == 0.0
    monkeypatch.setenv("RLVR_CODE_REWARD", "fraction")
    assert CodeVerifier().verify(completion, problem).reward == 0.75
    monkeypatch.setenv("RLVR_CODE_REWARD", "most")
    with pytest.raises(ValueError, match="RLVR_CODE_REWARD.*'all' or 'fraction'"):
        CodeVerifier()


@pytest.mark.parametrize(("answer", "field"), [
    ({"tests": ["assert f(1)"], "hidden": "assert f(2)"}, "hidden"),
    ({"tests": ["assert f(1)"], "entry": []}, "entry"),
    ({"tests": ["assert f(1)"], "grade_on": "all"}, "grade_on"),
    ({"tests": ["assert f(1)"], "prelude": 3}, "prelude"),
])
def test_a_malformed_code_answer_is_an_error_naming_the_field(answer: dict, field: str) -> None:
    score = CodeVerifier().verify("def f(x):\n    return x", Problem("p", "x", "", json.dumps(answer), "code"))
    assert score.status == "error" and f"['{field}']" in score.detail
