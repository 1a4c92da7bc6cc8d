"""Strict mode is the reference and more: by construction, by class, and over every case the project has.

Issue 42: strict mode closed 22 example loopholes and none of their 53
variants, and opened five the reference closes (it counted fewer words, so
"less than 50 words" passed 430 numbers). Now every strict check is
`registry.strict_check`: the reference verdict on the text as written, AND on
what a reader sees (`visible.visible_text`), AND the strict variant. These
tests hold that structure, the regression table of each class
(`instruction_cases.py`), and the property "strict passes only what the
reference passes" over the golden files, the reference fixture (GPT-4's 541
responses, as written and with edge cases worked in), the loophole and class
tables.
"""

from __future__ import annotations

import inspect
import json
import sys
import unicodedata
from pathlib import Path

import pytest

from rlvr_core.verifiers import verify
from rlvr_core.verifiers.ifbench import CONSTRAINTS, STRICT_MODE_CONSTRAINTS
from rlvr_core.verifiers.ifeval import INSTRUCTIONS, STRICT_MODE_INSTRUCTIONS, check_each, parse_ground_truth
from rlvr_core.verifiers.ifeval.registry import for_mode
from rlvr_core.verifiers.ifeval.strict import COMMAS
from rlvr_core.verifiers.reasoning import strip_think
from tests.verifiers.instruction_cases import ALL_CASES, case_id, problem
from tests.verifiers.test_instruction_strict_mode import LOOPHOLES

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
MODES = {
    "ifeval": (INSTRUCTIONS, STRICT_MODE_INSTRUCTIONS),
    "ifbench": (CONSTRAINTS, STRICT_MODE_CONSTRAINTS),
}


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_the_disguised_or_content_free_response_fails_strict_mode(case: tuple) -> None:
    verifier, constraint_id, kwargs, disguised, _ = case
    score = verify(disguised, problem(verifier, constraint_id, kwargs), strict=True)
    assert (score.reward, score.status) == (0.0, "wrong"), score


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_the_honest_twin_passes_both_modes(case: tuple) -> None:
    verifier, constraint_id, kwargs, _, honest = case
    for strict in (False, True):
        score = verify(honest, problem(verifier, constraint_id, kwargs), strict=strict)
        assert score.reward == 1.0, (strict, score)


# The five loopholes strict mode opened in issue 42 (it counted fewer than the reference), in new spellings.
OPENED_BY_STRICT = [
    ("ifeval", "length_constraints:number_words", {"num_words": 50, "relation": "less than"},
     " ".join(str(i) for i in range(430))),  # numbers the reference counts as words
    ("ifeval", "length_constraints:number_words", {"num_words": 10, "relation": "at most"},
     " ".join(f"{i}th" for i in range(40))),  # ordinals
    ("ifeval", "keywords:frequency", {"keyword": "dog", "frequency": 2, "relation": "less than"},
     "dogs, dogs and more dogs"),  # the keyword inside longer words
    ("ifeval", "change_case:capital_word_frequency", {"capital_frequency": 3, "capital_relation": "less than"},
     "I II III IV V VI"),  # capital roman numerals
    ("ifbench", "count:word_count_range", {"min_words": 1, "max_words": 5}, " ".join(str(i) for i in range(60))),  # numbers
]


@pytest.mark.parametrize("case", OPENED_BY_STRICT, ids=lambda c: f"{c[1]}:{c[3][:20]!r}")
def test_what_the_reference_refuses_strict_mode_refuses(case: tuple) -> None:
    verifier, constraint_id, kwargs, text = case
    assert verify(text, problem(verifier, constraint_id, kwargs)).reward == 0.0
    assert verify(text, problem(verifier, constraint_id, kwargs), strict=True).reward == 0.0


@pytest.mark.parametrize("name", list(MODES))
def test_every_strict_variant_takes_the_arguments_of_its_reference_check(name: str) -> None:
    """A strict variant is called with the reference's kwargs, bound against the reference's signature."""
    reference, variants = MODES[name]
    for constraint_id, variant in variants.items():
        names = list(inspect.signature(reference[constraint_id]).parameters)[1:]
        accepted = inspect.signature(variant).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
        assert takes_any or list(accepted)[1:] == names, constraint_id


@pytest.mark.parametrize("name", list(MODES))
def test_every_strict_check_is_the_reference_check_and_more(name: str) -> None:
    """Each strict check wraps its reference check: the same signature, and strict_check built it."""
    reference, variants = MODES[name]
    strict = for_mode(reference, variants, strict_mode=True)
    assert strict.keys() == reference.keys()
    for constraint_id, check in strict.items():
        assert check.__wrapped__ is reference[constraint_id], constraint_id
        assert check.__qualname__ == reference[constraint_id].__qualname__


def _drawn_on_the_line(char: str) -> bool:
    """A code point named COMMA that a reader sees as one: not a letter (Romanian s-comma is one), not invisible
    (the tag comma, removed before checking), not raised (above a letter, or a high quotation mark like an apostrophe)."""
    name = unicodedata.name(char, "")
    if "COMMA" not in name or unicodedata.category(char)[0] == "L" or unicodedata.category(char) == "Cf":
        return False
    return "ABOVE" not in name and ("QUOTATION" not in name or "LOW" in name)


def test_every_comma_in_unicode_is_a_comma_to_strict_mode() -> None:
    named = {chr(code) for code in range(sys.maxunicode + 1) if _drawn_on_the_line(chr(code))}
    assert len(named) > 40 and named - COMMAS == set()


def _constraints(answer: str) -> list | None:
    try:
        return parse_ground_truth(answer)
    except ValueError:
        return None


def _project_cases() -> list[tuple[str, str, str, list]]:
    """(verifier, label, response, constraints) for every instruction case the project has."""
    cases = []
    for name in MODES:
        for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            constraints = _constraints(row["answer"])
            if constraints is not None:  # rows whose ground truth is broken on purpose test the error path
                cases.append((name, row["id"], row["completion"], constraints))
    for line in (GOLDEN / "ifeval_reference.jsonl").read_text().splitlines():
        row = json.loads(line)
        kwargs = [{k: v for k, v in kw.items() if v is not None} for kw in row["kwargs"]]
        constraints = list(zip(row["instruction_id_list"], kwargs))
        cases.append(("ifeval", f"gpt4-{row['key']}", row["response"], constraints))
        cases.append(("ifeval", f"edge-{row['key']}", row["edge_response"], constraints))
    for table in (ALL_CASES, LOOPHOLES):
        for verifier, constraint_id, kwargs, disguised, honest in table:
            cases.append((verifier, f"{constraint_id}:disguised", disguised, [(constraint_id, kwargs)]))
            cases.append((verifier, f"{constraint_id}:honest", honest, [(constraint_id, kwargs)]))
    for verifier, constraint_id, kwargs, text in OPENED_BY_STRICT:
        cases.append((verifier, constraint_id, text, [(constraint_id, kwargs)]))
    return cases


@pytest.mark.slow
def test_strict_mode_passes_no_constraint_the_reference_fails_over_every_case_of_the_project() -> None:
    """Over about 1,700 responses and 2,000 constraints: strict met implies reference met, constraint by constraint.

    Also prints how many reference passes strict mode refuses (over-refusal of real responses, and the
    content-free golden rows that document the reference's loopholes).
    """
    strict_only, refused, checked = [], 0, 0
    for verifier, label, response, constraints in _project_cases():
        text = strip_think(response) or ""
        reference, variants = MODES[verifier]
        ours = check_each(text, constraints, reference)
        strict = check_each(text, constraints, for_mode(reference, variants, strict_mode=True))
        for (constraint_id, _), r, s in zip(constraints, ours, strict):
            checked += 1
            refused += r.met and not s.met
            if s.met and not r.met:
                strict_only.append((label, constraint_id))
    print(f"\n{checked} constraints; reference passes refused by strict mode: {refused}")
    assert checked > 2000
    assert strict_only == []
