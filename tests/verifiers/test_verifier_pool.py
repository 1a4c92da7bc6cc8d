"""VerifierPool: one Score per item, in order, hard timeouts that kill and replace a worker."""

from __future__ import annotations

import json
import threading

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import Score, VerifierPool, get_verifier, verify, verify_batch

MATH = Problem("m1", "t", "2+2?", "4", "math")
CODE = Problem("c1", "t", "add", json.dumps({"tests": ["assert add(1, 2) == 3"], "setup": ""}), "code", extra={"timeout_s": 30})
HANG = "```python\ndef add(a, b):\n    while True:\n        pass\n```"


def test_scores_come_back_in_order_one_per_item() -> None:
    pairs = [(f"#### {i}", MATH) for i in range(40)]
    scores = verify_batch(pairs, workers=2)
    assert [s.status for s in scores] == ["correct" if i == 4 else "wrong" for i in range(40)]


def test_empty_batch_gives_empty_list() -> None:
    with VerifierPool(workers=1) as pool:
        assert pool.verify_batch([]) == []


@pytest.mark.slow
def test_hung_item_times_out_and_the_pool_keeps_working() -> None:
    with VerifierPool(workers=2, timeout_s=1.5) as pool:
        scores = pool.verify_batch([("#### 4", MATH), (HANG, CODE), ("#### 5", MATH)])
        assert [s.status for s in scores] == ["correct", "timeout", "wrong"]
        assert scores[1].reward == 0.0 and pool.restarts == 1
        assert pool.verify_batch([("#### 4", MATH)])[0].status == "correct"


def test_a_worker_that_died_between_batches_is_replaced_and_the_next_batch_is_scored() -> None:
    """A worker killed while idle (the OOM killer, an operator) costs a restart, never the training run."""
    with VerifierPool(workers=1) as pool:
        assert pool.verify_batch([("#### 4", MATH)])[0].status == "correct"
        pool._pool[0].process.kill()
        pool._pool[0].process.join()
        scores = pool.verify_batch([("#### 4", MATH), ("#### 5", MATH)])
        assert [s.status for s in scores] == ["correct", "wrong"] and pool.restarts == 1


def code_problem(test: str) -> Problem:
    return Problem("c3", "t", "f", json.dumps({"tests": [test], "setup": "", "entry": "f"}), "code", extra={"timeout_s": 30})


BOMBS = [  # (program, test): a value the test expands past the grader's bounds
    ("def f():\n    return range(0, 10**12)", "assert len(set(f())) > 0"),  # refused before it expands: too large
    ("def f():\n    return 10**9", "assert len('x' * f()) > 0"),  # a gigabyte string: past the worker's memory limit
    ("def f():\n    return 2 * 10**7", "assert len(list(range(f()))) > 0"),  # grown item by item up to the limit
]


def test_a_value_the_test_expands_past_the_bound_scores_0_and_the_worker_grades_the_next_item() -> None:
    """Issue 41: the grader is trusted code on untrusted values; its own memory is bounded too."""
    bombs = [(f"```python\n{program}\n```", code_problem(test)) for program, test in BOMBS]
    right = ("```python\ndef f():\n    return 3\n```", code_problem("assert len('x' * f()) == 3"))
    with VerifierPool(workers=1, memory_mb=512) as pool:
        scores = pool.verify_batch([item for bomb in bombs for item in (bomb, right)])
    for bomb, after in zip(scores[::2], scores[1::2]):
        assert bomb.reward == 0.0 and ("too large" in bomb.detail or "MemoryError" in bomb.detail), bomb
        assert after.status == "correct"
    assert pool.restarts == 0


def test_a_memory_limit_below_what_a_worker_needs_is_refused_naming_the_fix() -> None:
    with pytest.raises(ValueError, match=r"memory_mb=100\) must be >= 512"):
        VerifierPool(memory_mb=100)


def test_pool_works_from_a_non_main_thread() -> None:
    result: list[Score] = []
    with VerifierPool(workers=1) as pool:
        thread = threading.Thread(target=lambda: result.extend(pool.verify_batch([("\\boxed{x^2}", Problem("p", "t", "", "x^2", "math"))])))
        thread.start()
        thread.join(60)
    assert [s.status for s in result] == ["correct"]


def test_bad_input_scores_error_instead_of_raising() -> None:
    bad_code = Problem("c2", "t", "", "not json", "code")
    assert verify("anything", bad_code).status == "error"
    assert verify(None, MATH).status == "error"  # type: ignore[arg-type]
    assert "must be one of" in verify("x", Problem("p", "t", "", "1", "html")).detail  # type: ignore[arg-type]


def test_registry_is_keyed_by_problem_verifier() -> None:
    assert {get_verifier(n).name for n in ("math", "code", "ifeval", "ifbench")} == {"math", "code", "ifeval", "ifbench"}
    with pytest.raises(KeyError, match="unknown verifier"):
        get_verifier("nope")


def test_score_rejects_out_of_range_reward() -> None:
    with pytest.raises(ValueError, match="reward"):
        Score(1.5, "correct")
