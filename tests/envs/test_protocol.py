"""The tool-call and final-answer format: what is a call, what is an answer, what each malformed case says, and
which model text is refused (reserved markers); JSON from the model is parsed totally."""

from __future__ import annotations

import json

import pytest

from rlvr_core.envs import jsonsafe
from rlvr_core.envs.web.protocol import (
    RESERVED_MARKERS,
    TURN_SEPARATOR,
    parse_final,
    parse_finals,
    parse_tool_calls,
    reserved_marker,
    restore_closer,
    visible_text,
)

RUN = '<tool_call>{"name": "run_python", "arguments": {"code": "print(1)"}}</tool_call>'


def test_a_well_formed_call_is_parsed():
    [call] = parse_tool_calls("Let me look.\n" + RUN)
    assert (call.name, call.arguments, call.error) == ("run_python", {"code": "print(1)"}, None)


@pytest.mark.parametrize("text, error", [
    ('<tool_call>{"name": "run_python", "arguments": {"code": "x"</tool_call>', "not valid JSON"),
    ("<tool_call>run_python(code='x')</tool_call>", "not valid JSON"),
    ('<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>', "unknown tool 'search'"),
    ('<tool_call>{"arguments": {"code": "x"}}</tool_call>', 'string "name"'),
    ('<tool_call>["run_python"]</tool_call>', 'string "name"'),
    ('<tool_call>{"name": "run_python", "arguments": {}}</tool_call>', '"code"'),
    ('<tool_call>{"name": "navigate", "arguments": {"url": ""}}</tool_call>', '"url"'),
    ('<tool_call>{"name": "navigate", "arguments": [1]}</tool_call>', '"arguments" must be a JSON object'),
    ('<tool_call>{"name": "run_python", "arguments": {"code": "print(', "not closed"),
])
def test_a_malformed_call_is_a_call_with_an_error_that_shows_the_right_format(text, error):
    [call] = parse_tool_calls(text)
    assert error in call.error


def test_a_json_error_says_where_and_shows_the_expected_format():
    [call] = parse_tool_calls('<tool_call>{"name": "run_python", "arguments": {"code": "x"</tool_call>')
    assert "line 1 column" in call.error and '<tool_call>{"name": "run_python", "arguments": {"code":' in call.error


def test_tolerated_variants_raw_newlines_fences_and_string_arguments():
    raw_newline = '<tool_call>{"name": "run_python", "arguments": {"code": "a = 1\nprint(a)"}}</tool_call>'
    fenced = '<tool_call>\n```json\n{"name": "navigate", "arguments": {"url": "/b.html"}}\n```\n</tool_call>'
    as_string = '<tool_call>{"name": "navigate", "arguments": "{\\"url\\": \\"/c.html\\"}"}</tool_call>'
    calls = parse_tool_calls(raw_newline + fenced + as_string)
    assert [c.error for c in calls] == [None, None, None]
    assert calls[0].arguments["code"] == "a = 1\nprint(a)"
    assert [c.arguments.get("url") for c in calls[1:]] == ["/b.html", "/c.html"]


def test_calls_inside_reasoning_do_not_count():
    assert parse_tool_calls("<think>maybe " + RUN + "</think>Done.") == []
    assert parse_tool_calls("<think>still thinking " + RUN) == []
    assert visible_text("<think>a</think>b") == "b"


def test_two_open_tags_are_two_calls():
    calls = parse_tool_calls('<tool_call>{"name": "x"' + RUN)
    assert len(calls) == 2 and calls[0].error and calls[1].error is None


def test_the_final_answer_is_the_last_answer_or_abstain_tag():
    assert parse_final('<answer>"a"</answer> then <answer>["b", 2]</answer>').value == ["b", 2]
    final = parse_final("I cannot read it. <abstain>The code is in an IMAGE banner</abstain>")
    assert (final.kind, final.value) == ("abstain", "image")
    assert parse_final("no tags here") is None


def test_an_answer_that_is_not_json_is_read_as_text_with_a_note():
    final = parse_final("<answer>Free delivery</answer>")
    assert (final.value, final.note) == ("Free delivery", "not JSON: read as text")
    assert parse_final("<answer>```json\n[1, 2]\n```</answer>").value == [1, 2]


def test_a_stop_string_cut_closing_tag_is_put_back_only_after_a_stop():
    cut = '<tool_call>{"name": "navigate", "arguments": {"url": "/a"}}'
    assert restore_closer(cut, "stop").endswith("</tool_call>")
    assert restore_closer(cut, "length") == cut
    assert restore_closer("<answer>42", "stop") == "<answer>42</answer>"
    assert restore_closer("<answer>42</answer>", "stop") == "<answer>42</answer>"


def test_an_abstention_naming_several_reasons_names_none():
    assert parse_final("<abstain>image or canvas</abstain>").value.startswith("several reasons")
    assert parse_final("<abstain>it is a PDF</abstain>").value == "pdf"


def test_every_final_tag_of_a_turn_is_listed_in_order():
    assert [f.value for f in parse_finals('<answer>1</answer> <abstain>image</abstain> <answer>"x"</answer>')] == \
        [1, "image", "x"]


@pytest.mark.parametrize("marker", RESERVED_MARKERS)
def test_a_turn_holding_a_transcript_marker_is_flagged_even_inside_reasoning(marker):
    assert reserved_marker(f"<think>{marker}</think> fine") == marker
    assert reserved_marker("a normal turn <answer>1</answer>") is None
    assert TURN_SEPARATOR.strip() in RESERVED_MARKERS


@pytest.mark.parametrize("text, why", [
    ("[" * 1000 + "]" * 1000, "nested 1000 levels deep"),
    ("9" * 5000, "integer of 5000 digits"),
    ("NaN", "NaN is not a JSON number"),
    ('{"a": Infinity}', "Infinity is not a JSON number"),
    ('{"a": 1', "line 1 column"),
])
def test_json_from_the_model_is_refused_with_a_reason_never_a_crash(text, why):
    with pytest.raises(jsonsafe.JsonRejected, match=why):
        jsonsafe.loads(text)


def test_an_escaped_lone_surrogate_becomes_a_replacement_character_so_records_encode():
    value = jsonsafe.loads('{"url": "\\ud800/x", "\\udfff": ["\\ud83d"]}')
    assert value == {"url": "\ufffd/x", "\ufffd": ["\ufffd"]}
    json.dumps(value, ensure_ascii=False).encode("utf-8")


def test_deep_or_huge_json_in_a_tool_call_or_an_answer_is_an_error_or_text_not_a_crash():
    [deep] = parse_tool_calls('<tool_call>{"name": "run_python", "arguments": {"code": ' + "[" * 1000 + "]" * 1000
                              + "}}</tool_call>")
    assert "nested" in deep.error
    huge = parse_final("<answer>" + "7" * 5000 + "</answer>")
    assert huge.kind == "answer" and huge.note.endswith("not JSON: read as text")
