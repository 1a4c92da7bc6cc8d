"""`extract_code` takes the program out of a completion and nothing of the program's own: fences, `[BEGIN]`/`[DONE]`
markers and prose around it go; quotes and docstrings stay (stripping a trailing quote made MBPP 602's reference,
and any program ending with a string or opening with a docstring, a syntax error)."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.verifiers.code.verifier import extract_code
from tests.sandbox import mbpp_offline

PROGRAM = "def f(x):\n    return x\n"
CASES = [
    (PROGRAM, "def f(x):\n    return x"),  # plain code
    ('"""Doc."""\ndef f(x):\n    return x\n', '"""Doc."""\ndef f(x):\n    return x'),  # opens with a docstring
    ("def f(x):\n    return 'None'\n", "def f(x):\n    return 'None'"),  # ends with a quote (MBPP 537)
    ('def f(x):\n    return "None"', 'def f(x):\n    return "None"'),  # ends with a double quote (MBPP 602)
    ("'''Doc.'''\nx = 'a'", "'''Doc.'''\nx = 'a'"),  # a module of a docstring and a string constant
    ("```python\ndef f(x):\n    return 'a'\n```\nIt returns 'a'.", "def f(x):\n    return 'a'"),  # prose after a fence
    ("[BEGIN]\ndef f(x):\n    return x\n[DONE]", "def f(x):\n    return x"),  # MBPP's few-shot markers
    ("def f(x):\n    return x\n[DONE]", "def f(x):\n    return x"),  # the stop marker left at the end
    ("def f(x):\n    return x [DONE]", "def f(x):\n    return x"),  # the marker on the last line
    ("def f(x):\n    return x\n```", "def f(x):\n    return x"),  # an unmatched closing fence
    ("Here is the code:\ndef f(x):\n    return x\nThis returns x.", "def f(x):\n    return x"),  # prose around
    ("Sure.\n'''Doc.'''\ndef f(x):\n    return x", "'''Doc.'''\ndef f(x):\n    return x"),  # prose, then docstring
    ("```js\nfunction f(x) { return x; }\n```", None),  # another language only
    ("The answer is 42.", None),  # no program
]


@pytest.mark.parametrize(("completion", "program"), CASES)
def test_the_program_is_extracted_whole(completion: str, program: str | None) -> None:
    assert extract_code(completion) == program


@pytest.mark.parametrize("row", mbpp_offline.shipped_rows(), ids=lambda row: str(row["task_id"]))
def test_every_shipped_mbpp_reference_survives_extraction_unchanged(row: dict) -> None:
    code = row["code"]
    for completion in (code, f"```python\n{code}\n```", f"[BEGIN]\n{code}\n[DONE]"):
        extracted = extract_code(completion)
        assert extracted == code.strip("\n"), completion
        ast.parse(extracted)


literal = st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=12).map(repr)
docstring = st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=12).filter(
    lambda t: '"' not in t and "\\" not in t).map(lambda t: f'"""{t}"""\n')
wrappers = st.sampled_from(["{}", "```python\n{}\n```", "```\n{}```", "[BEGIN]\n{}\n[DONE]", "{}\n[DONE]",
                            "Here is my solution.\n{}\nHope this helps!", "Solution:\n```py\n{}\n```\nDone."])


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.just(""), docstring), literal, wrappers)
def test_quotes_and_docstrings_are_the_programs_own(doc: str, value: str, wrapper: str) -> None:
    program = f"{doc}def f():\n    return {value}"
    assert extract_code(wrapper.format(program)) == program
