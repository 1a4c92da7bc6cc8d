"""Each source's row normaliser, on rows shaped like the real hub datasets."""

from __future__ import annotations

import json

import pytest

from rlvr_core.data.registry import resolve, source_names
from rlvr_core.data.source import RowContext, SkipRow


def normalise(name: str, row: dict, *, config: str | None = None, split: str = "train", index: int = 0):
    resolved = resolve(name)
    return resolved.source.normalise(row, RowContext(resolved.source.name, config or resolved.configs[0], split, index))


def test_all_design_sources_are_registered() -> None:
    assert set(source_names()) >= {
        "openai/gsm8k",
        "EleutherAI/hendrycks_math",
        "google-research-datasets/mbpp",
        "allenai/RLVR-IFeval",
        "allenai/IF_multi_constraints_upto5",
        "allenai/IFBench_test",
        "arith",
    }


def test_gsm8k_answer_is_the_number_after_hashes_without_commas() -> None:
    p = normalise(
        "openai/gsm8k", {"question": "How many?", "answer": "3 * 412 = 1,236\n#### 1,236"}, split="test", index=7
    )
    assert (p.id, p.prompt, p.answer, p.verifier) == ("test-7", "How many?", "1236", "math")


def test_gsm8k_row_without_final_answer_is_skipped() -> None:
    with pytest.raises(SkipRow, match="####"):
        normalise("openai/gsm8k", {"question": "q", "answer": "no marker"})


def test_math_gold_is_last_boxed_with_nested_braces() -> None:
    row = {
        "problem": "Compute.",
        "solution": "First \\boxed{2}, then finally $\\boxed{\\frac{1}{2}}$.",
        "level": "Level 3",
        "type": "Algebra",
    }
    p = normalise("EleutherAI/hendrycks_math", row, config="algebra", split="test", index=4)
    assert (p.answer, p.category, p.difficulty, p.id) == ("\\frac{1}{2}", "algebra", "Level 3", "algebra-test-4")


@pytest.mark.parametrize(
    ("solution", "gold"),
    [("so $\\boxed 5$.", "5"), ("\\fbox{12}", "12"), ("\\boxed{a}{b} \\boxed{\\sqrt{2}} end", "\\sqrt{2}")],
)
def test_math_boxed_forms(solution: str, gold: str) -> None:
    assert (
        normalise("EleutherAI/hendrycks_math", {"problem": "p", "solution": solution}, config="algebra").answer == gold
    )


@pytest.mark.parametrize("solution", ["no box at all", "\\boxed{unbalanced", "\\boxed{}", "\\boxed"])
def test_math_without_a_usable_boxed_answer_is_skipped(solution: str) -> None:
    with pytest.raises(SkipRow):
        normalise("EleutherAI/hendrycks_math", {"problem": "p", "solution": solution}, config="algebra")


def test_mbpp_answer_is_code_json() -> None:
    row = {
        "task_id": 11,
        "text": "Write a function to remove a char.",
        "code": "def f(): pass",
        "test_list": ["assert f() is None", "assert True"],
        "test_setup_code": "import math",
        "challenge_test_list": [],
    }
    p = normalise("google-research-datasets/mbpp", row)
    assert p.id == "11" and p.verifier == "code"
    assert json.loads(p.answer) == {
        "tests": ["assert f() is None", "assert True"],
        "setup": "import math",
        "entry": ["f"],  # the reference solution's def names
    }


def test_mbpp_sanitized_config_uses_prompt_and_test_imports() -> None:
    row = {"task_id": 2, "prompt": "Do it.", "code": "", "test_list": ["assert 1"], "test_imports": ["import re"]}
    p = normalise("google-research-datasets/mbpp:sanitized", row, config="sanitized")
    assert p.prompt == "Do it." and json.loads(p.answer)["setup"] == "import re"


def test_mbpp_without_tests_is_skipped() -> None:
    with pytest.raises(SkipRow, match="test_list"):
        normalise("google-research-datasets/mbpp", {"task_id": 1, "text": "t", "test_list": []})


@pytest.mark.parametrize("name", ["allenai/RLVR-IFeval", "allenai/IF_multi_constraints_upto5"])
def test_ifeval_prompt_from_user_message_and_ground_truth_unchanged(name: str) -> None:
    truth = '{"func_name": "validate_lowercase", "N": null}'
    row = {
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": " Write in lowercase. "}],
        "ground_truth": truth,
        "constraint_type": "Change Cases",
    }
    p = normalise(name, row, index=3)
    assert (p.prompt, p.answer, p.verifier, p.id) == ("Write in lowercase.", truth, "ifeval", "train-3")


def test_ifeval_row_without_user_message_is_skipped() -> None:
    with pytest.raises(SkipRow, match="user message"):
        normalise("allenai/RLVR-IFeval", {"messages": [{"role": "system", "content": "x"}], "ground_truth": "{}"})


def test_ifbench_answer_lists_instructions_with_unused_kwargs_dropped() -> None:
    row = {
        "key": 17,
        "prompt": "Write a poem.",
        "instruction_id_list": ["count:word_count_range", "format:no_bullets"],
        "kwargs": [{"min_words": 10, "max_words": 50, "N": None}, {"min_words": None, "max_words": None, "N": None}],
    }
    p = normalise("allenai/IFBench_test", row)
    assert p.id == "17" and p.verifier == "ifbench"
    assert json.loads(p.answer) == [
        {"instruction_id": "count:word_count_range", "kwargs": {"max_words": 50, "min_words": 10}},
        {"instruction_id": "format:no_bullets", "kwargs": {}},
    ]


def test_ifbench_mismatched_kwargs_are_skipped() -> None:
    row = {"key": 1, "prompt": "p", "instruction_id_list": ["a", "b"], "kwargs": [{}]}
    with pytest.raises(SkipRow, match="differ in length"):
        normalise("allenai/IFBench_test", row)


def test_unknown_dataset_and_config_errors_name_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown dataset 'openai/gsm9k'.*openai/gsm8k"):
        resolve("openai/gsm9k")
    with pytest.raises(ValueError, match="no config 'topology'.*algebra"):
        resolve("EleutherAI/hendrycks_math:topology")
    assert resolve("EleutherAI/hendrycks_math:geometry").configs == ("geometry",)
