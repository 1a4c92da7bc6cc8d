"""Benchmark definitions: prompts match the standard formats, filters and scoring behave like lm-eval's."""

from __future__ import annotations

import json

import pytest

from rlvr_core.problem import Problem
from rlvr_core.evaluation.benchmarks import benchmark_names, get_benchmark, gsm8k_flexible, gsm8k_strict
from rlvr_core.evaluation.metrics import summarise_records
from rlvr_core.evaluation.prompts import FEWSHOT_DIR
from rlvr_core.evaluation.scoring import instruction_problems, loose_variants, score_completions
from rlvr_core.verifiers import VerifierPool


def problem(prompt: str, answer: str, verifier: str = "math", **extra) -> Problem:
    return Problem(id="p1", source="t", prompt=prompt, answer=answer, verifier=verifier, **extra)


def test_the_standard_benchmarks_are_registered():
    assert {"arith", "gsm8k", "math", "math500", "ifeval", "ifbench", "mbpp"} <= set(benchmark_names())
    with pytest.raises(ValueError, match="unknown benchmark 'gsm9k'. Fix: use one of"):
        get_benchmark("gsm9k")


def test_arith_uses_the_tiny_models_format():
    arith = get_benchmark("arith")
    assert arith.prompt(problem("What is 1 + 2?", "3")) == "What is 1 + 2?\n" and arith.max_new_tokens == 8


def test_gsm8k_is_8_shot_chain_of_thought_in_q_a_format():
    gsm8k = get_benchmark("gsm8k")
    text = gsm8k.prompt(problem("How many?", "4"))
    assert text.count("Q: ") == 9 and text.count("The answer is") == 8
    assert text.startswith("Q: There are 15 trees in the grove.") and text.endswith("\n\nQ: How many?\nA:")
    assert "Q:" in gsm8k.stop and gsm8k.expected_size == 1319


def test_math_is_minerva_4_shot_with_boxed_answers():
    text = get_benchmark("math").prompt(problem("Find $x$.", "2"))
    assert text.count("Problem:\n") == 5 and text.count("\\boxed{") == 4
    assert text.endswith("Problem:\nFind $x$.\n\nSolution:")


def test_mbpp_is_3_shot_begin_done_with_the_items_tests():
    tests = ["assert f(1) == 2", "assert f(2) == 3", "assert f(3) == 4"]
    text = get_benchmark("mbpp").prompt(problem("Write f.", json.dumps({"tests": tests, "setup": ""}), "code"))
    assert text.count("[BEGIN]") == 4 and text.count("[DONE]") == 3
    assert text.endswith("here is your task: Write f. Your code should pass these tests:\n\n"
                         + "\n".join(tests) + "\n[BEGIN]\n")


def test_every_fewshot_file_cites_its_origin():
    for path in FEWSHOT_DIR.glob("*.json"):
        data = json.loads(path.read_text())
        assert len(data["origin"]) > 40 and data["examples"], path.name


@pytest.mark.parametrize("completion,strict,flexible", [
    ("She has 3 + 4 = 7 apples. The answer is 7.", "#### 7", "#### 7"),
    ("It costs $1,234. The answer is 1,234.", "#### 1234", "#### 1234"),
    ("3 + 4 = 7, so she keeps 7", "", "#### 7"),
    ("no numbers here", "", ""),
])
def test_gsm8k_strict_and_flexible_filters(completion, strict, flexible):
    assert gsm8k_strict(completion) == strict and gsm8k_flexible(completion) == flexible


def test_loose_variants_follow_the_ifeval_reference():
    variants = loose_variants("Sure!\n**Body**\nBye")
    assert variants[0] == "Sure!\n**Body**\nBye"
    assert variants[1:4] == ["**Body**\nBye", "Sure!\n**Body**", "**Body**"]
    assert variants[4:] == ["Sure!\nBody\nBye", "Body\nBye", "Sure!\nBody", "Body"]


def test_instruction_problems_split_one_check_per_instruction():
    checks = [{"instruction_id": "a:b", "kwargs": {}}, {"instruction_id": "c:d", "kwargs": {"n": 2}}]
    parts = instruction_problems(problem("p", json.dumps(checks), "ifeval"))
    assert [iid for iid, _ in parts] == ["a:b", "c:d"]
    assert json.loads(parts[1][1].answer) == [checks[1]]
    assert instruction_problems(problem("p", "not json", "ifeval"))[0][1].answer == "not json"


def test_gsm8k_scoring_reports_both_filters_through_the_verifier_pool():
    gsm8k = get_benchmark("gsm8k")
    items = [problem("q", "7"), problem("q", "7"), problem("q", "7")]
    texts = ["The answer is 7.", "so 7 in total", "The answer is 8."]
    with VerifierPool(workers=1) as pool:
        records = score_completions(gsm8k, items, texts, pool)
    assert [r["scores"] for r in records] == [
        {"flexible_extract": 1.0, "strict_match": 1.0},
        {"flexible_extract": 1.0, "strict_match": 0.0},
        {"flexible_extract": 0.0, "strict_match": 0.0},
    ]
    assert [r["reward"] for r in records] == [1.0, 1.0, 0.0]  # the primary (first) filter


def test_summary_metrics_and_breakdowns():
    records = [
        {"reward": 1.0, "status": "correct", "scores": {"a": 1.0}, "category": "x", "difficulty": "Level 1"},
        {"reward": 0.5, "status": "wrong", "scores": {"a": 0.0}, "category": "x", "difficulty": "Level 2"},
        {"reward": 0.0, "status": "unparsed", "scores": {"a": 0.0}, "category": "y", "difficulty": None},
        {"reward": 0.0, "status": "wrong", "scores": {"a": 0.0}, "category": "y", "difficulty": None,
         "instructions": {"strict": [True, False], "loose": [True, True]}},
    ]
    summary = summarise_records(records, pass_threshold=0.5)
    assert summary["metrics"] == {"reward_mean": 0.375, "pass_rate": 0.5, "perfect_rate": 0.25, "a": 0.25,
                                  "inst_level_strict_acc": 0.5, "inst_level_loose_acc": 1.0}
    assert summary["status_counts"] == {"correct": 1, "unparsed": 1, "wrong": 2}
    assert summary["breakdowns"]["category"]["x"]["n"] == 2 and summary["breakdowns"]["category"]["y"]["a"] == 0.0
    assert set(summary["breakdowns"]["difficulty"]) == {"Level 1", "Level 2"}
