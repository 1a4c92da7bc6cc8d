"""Parse both RLVR ground-truth formats into [(instruction_id, kwargs)].

- `allenai/RLVR-IFeval`: {"func_name": "validate_lowercase", "N": null, ...}; the
  open-instruct function names and argument names are translated to IFEval ids.
- `IF_multi_constraints_upto5` / google IFEval: {"instruction_id": [...], "kwargs":
  [...]} (or a list of such dicts, or a list of {"instruction_id": str, "kwargs": {}}).

None-valued kwargs are dropped (the sources pad every row with all keys).
Malformed ground truth raises ValueError naming the problem.
"""

from __future__ import annotations

import json
from typing import Any

Constraint = tuple[str, dict[str, Any]]

# open-instruct func_name -> (IFEval id, {their kwarg: our kwarg}, fixed kwargs)
_FUNC_NAMES: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {
    "verify_keywords": ("keywords:existence", {"keyword_list": "keywords"}, {}),
    "verify_keyword_frequency": ("keywords:frequency", {"word": "keyword", "N": "frequency"}, {"relation": "exactly"}),
    "validate_forbidden_words": ("keywords:forbidden_words", {"forbidden_words": "forbidden_words"}, {}),
    "verify_letter_frequency": ("keywords:letter_frequency", {"letter": "letter", "N": "let_frequency"}, {"let_relation": "exactly"}),
    "validate_response_language": ("language:response_language", {"language": "language"}, {}),
    "verify_paragraph_count": ("length_constraints:number_paragraphs", {"N": "num_paragraphs"}, {"divider": "* * *"}),
    "validate_word_constraint": ("length_constraints:number_words", {"N": "num_words", "quantifier": "relation"}, {}),
    "verify_sentence_constraint": ("length_constraints:number_sentences", {"N": "num_sentences", "quantifier": "relation"}, {}),
    "validate_paragraphs": (
        "length_constraints:nth_paragraph_first_word",
        {"N": "num_paragraphs", "first_word": "first_word", "i": "nth_paragraph"}, {},
    ),
    "verify_postscript": ("detectable_content:postscript", {"postscript_marker": "postscript_marker"}, {}),
    "validate_placeholders": ("detectable_content:number_placeholders", {"N": "num_placeholders"}, {}),
    "verify_bullet_points": ("detectable_format:number_bullet_lists", {"N": "num_bullets"}, {}),
    "validate_title": ("detectable_format:title", {}, {}),
    "validate_choice": ("detectable_format:constrained_response", {"options": "options"}, {}),
    "validate_highlighted_sections": ("detectable_format:number_highlighted_sections", {"N": "num_highlights"}, {}),
    "validate_sections": ("detectable_format:multiple_sections", {"N": "num_sections", "section_splitter": "section_spliter"}, {}),
    "validate_json_format": ("detectable_format:json_format", {}, {}),
    "validate_repeat_prompt": ("combination:repeat_prompt", {"original_prompt": "prompt_to_repeat"}, {}),
    "validate_two_responses": ("combination:two_responses", {}, {}),
    "validate_uppercase": ("change_case:english_capital", {}, {}),
    "validate_lowercase": ("change_case:english_lowercase", {}, {}),
    "validate_frequency_capital_words": (
        "change_case:capital_word_frequency", {"N": "capital_frequency", "quantifier": "capital_relation"}, {},
    ),
    "validate_end": ("startend:end_checker", {"end_phrase": "end_phrase"}, {}),
    "validate_quotation": ("startend:quotation", {}, {}),
    "validate_no_commas": ("punctuation:no_comma", {}, {}),
}


def _from_func_name(data: dict[str, Any]) -> list[Constraint]:
    name = data["func_name"]
    if name not in _FUNC_NAMES:
        raise ValueError(f"unknown RLVR-IFeval func_name {name!r}")
    instruction_id, renames, fixed = _FUNC_NAMES[name]
    kwargs = dict(fixed)
    for key, value in data.items():
        if key == "func_name" or value is None:
            continue
        if key not in renames:
            raise ValueError(f"func_name {name!r} does not take argument {key!r}")
        kwargs[renames[key]] = value
    return [(instruction_id, kwargs)]


def _clean(kwargs: Any) -> dict[str, Any]:
    if kwargs is None:
        return {}
    if not isinstance(kwargs, dict):
        raise ValueError(f"kwargs must be an object, got {type(kwargs).__name__}")
    return {k: v for k, v in kwargs.items() if v is not None}


def _from_ids(data: dict[str, Any]) -> list[Constraint]:
    ids, kwargs = data["instruction_id"], data.get("kwargs")
    if isinstance(ids, str):
        return [(ids, _clean(kwargs))]
    kwargs = kwargs if kwargs is not None else [None] * len(ids)
    if len(ids) != len(kwargs):
        raise ValueError(f"{len(ids)} instruction ids but {len(kwargs)} kwargs")
    return [(i, _clean(k)) for i, k in zip(ids, kwargs)]


def parse_ground_truth(answer: str | dict | list) -> list[Constraint]:
    """All constraints in one ground-truth value (JSON string or already parsed)."""
    data = json.loads(answer) if isinstance(answer, str) else answer
    items = data if isinstance(data, list) else [data]
    constraints: list[Constraint] = []
    for item in items:
        if isinstance(item, str):
            item = json.loads(item)
        if not isinstance(item, dict):
            raise ValueError(f"ground truth items must be objects, got {type(item).__name__}")
        if "func_name" in item:
            constraints += _from_func_name(item)
        elif "instruction_id" in item:
            constraints += _from_ids(item)
        elif "instruction_id_list" in item:
            constraints += _from_ids({"instruction_id": item["instruction_id_list"], "kwargs": item.get("kwargs")})
        else:
            raise ValueError('ground truth needs "func_name" or "instruction_id"')
    if not constraints:
        raise ValueError("ground truth holds no constraints")
    return constraints
