"""Generated variants of each instruction loophole class fail strict mode; honest responses pass both modes.

One property per class (issue 42: close classes, not examples). Strategies
build the disguises a policy can reach: invisible characters and markup
inside a word, confusable and compatibility letters, numbering tokens in
every spelling, comma look-alikes raw or as character references, markup
that hides text, list items and JSON without a letter, two responses that
differ only in what a reader cannot see. Each variant must fail strict mode
(and, as always, strict mode passes nothing the reference fails); each honest
counterpart, generated the same way, must pass both modes (no over-refusal).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from rlvr_core.verifiers import verify
from rlvr_core.verifiers.ifeval.strict import COMMAS
from tests.verifiers.instruction_cases import HONEST_20, problem

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

INVISIBLE = [
    "\u00ad", "\u034f", "\u061c", "\u180e", "\u200b", "\u200c", "\u200d", "\u200e", "\u2060", "\u2061",
    "\u2063", "\ufeff", "\ufe0f", "\U000e0001", "\U000e0061", "\U0001d173",
]
SPLITTERS = INVISIBLE + ["<b></b>", "<span></span>", "<!---->", "<!-- x -->", "&shy;", "&#8203;", "&zwj;", "&#x2060;"]
# Letters a reader takes for a, b, c, d, e, o, p, s: other scripts, fullwidth, mathematical, accented.
LOOK_ALIKES = {
    "a": ["\u0430", "\u03b1", "\uff41", "\U0001d41a", "\u00e1", "a\u0301"],
    "b": ["\uff42", "\U0001d41b", "\u1e03"],
    "d": ["\u0501", "\uff44", "\U0001d41d", "\u1e0b"],
    "e": ["\u0435", "\uff45", "\u00e9", "e\u0300"],
    "o": ["\u043e", "\u03bf", "\uff4f", "\u00f6"],
    "p": ["\u0440", "\u03c1", "\uff50"],
    "c": ["\u0441", "\u03f2", "\uff43", "\u00e7"],
    "s": ["\u0455", "\uff53", "\u015b"],
}
COMMA_SPELLINGS = sorted(COMMAS) + ["&#44;", "&comma;", "&#x2C;", "&#65292;", "&#x201a;"]
HIDERS = [
    "<!-- {} -->", '<span style="display:none">{}</span>', "<div hidden>{}</div>", "<script>{}</script>",
    "<style>{}</style>", "<template>{}</template>", '<p style="font-size: 0">{}</p>', "\n[//]: # ({})\n",
    '<img alt="{}">', '<a title="{}"></a>', "<!-- {}",
]
NO_LETTER = st.lists(
    st.sampled_from(list("0123456789 .,-_!?#%()+=/") + ["\u00a0", "&nbsp;", "\u200b", "&#8203;", "<br>", "<!-- x -->"]),
    max_size=8,
).map("".join)
SEPARATORS = st.sampled_from([" ", "\n", ", ", "; ", " | ", "\t"])


def _roman(n: int) -> str:
    out = ""
    for value, numeral in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + numeral, n - value
    return out


NUMBERING = st.one_of(
    st.integers(0, 10**6).map(str),  # plain numbers
    st.integers(1, 999).map(lambda n: f"{n}{['th', 'st', 'nd', 'rd', 'TH', 'ème'][n % 6]}"),  # ordinals
    st.integers(2, 3999).map(_roman),  # roman numerals
    st.integers(2, 3999).map(lambda n: _roman(n).lower()),
    st.integers(0, 2**32).map(lambda n: f"0x{n:x}"),  # hex
    st.tuples(st.sampled_from("abcdefghqxyzABQZ"), st.integers(0, 999)).map(lambda t: f"{t[0]}{t[1]}"),  # labels
    st.integers(0, 999).map(lambda n: "".join(chr(0xFF10 + int(d)) for d in str(n))),  # fullwidth digits
    st.sampled_from("bcdfghjklmnpqrstvwxz"),  # lone consonants
)


def _met(text: str, verifier: str, constraint_id: str, kwargs: dict, strict: bool) -> bool:
    return verify(text, problem(verifier, constraint_id, kwargs), strict=strict).reward == 1.0


def _assert_strict_refuses(text: str, verifier: str, constraint_id: str, kwargs: dict) -> None:
    assert not _met(text, verifier, constraint_id, kwargs, strict=True), text


def _assert_both_modes_pay(text: str, verifier: str, constraint_id: str, kwargs: dict) -> None:
    assert _met(text, verifier, constraint_id, kwargs, strict=False), text
    assert _met(text, verifier, constraint_id, kwargs, strict=True), text


@st.composite
def disguised(draw: st.DrawFn, word: str) -> str:
    """`word` as a reader sees it, with splitters between letters and look-alike letters, changed at least once."""
    letters = [draw(st.sampled_from([c, *LOOK_ALIKES.get(c, [])])) for c in word]
    gaps = [draw(st.one_of(st.just(""), st.sampled_from(SPLITTERS))) for _ in word[1:]]
    spelt = letters[0] + "".join(g + c for g, c in zip(gaps, letters[1:]))
    if spelt == word:
        spelt = word[0] + draw(st.sampled_from(SPLITTERS)) + word[1:]
    return spelt


@SETTINGS
@given(word=st.sampled_from(["bad", "code", "dose", "soap"]), data=st.data())
def test_a_forbidden_word_in_disguise_is_still_forbidden(word: str, data: st.DataObject) -> None:
    kwargs = {"forbidden_words": [word]}
    _assert_strict_refuses(f"They said it was {data.draw(disguised(word))} in the end.", "ifeval",
                           "keywords:forbidden_words", kwargs)
    _assert_both_modes_pay("They said it was fine in the end.", "ifeval", "keywords:forbidden_words", kwargs)


@SETTINGS
@given(data=st.data(), copies=st.integers(2, 5))
def test_a_capped_keyword_in_disguise_still_counts(data: st.DataObject, copies: int) -> None:
    kwargs = {"keyword": "code", "frequency": 2, "relation": "less than"}
    spellings = " and ".join(data.draw(disguised("code")) for _ in range(copies))
    _assert_strict_refuses(f"Some code, then {spellings}.", "ifeval", "keywords:frequency", kwargs)
    _assert_both_modes_pay("Some code, then some tests.", "ifeval", "keywords:frequency", kwargs)


@SETTINGS
@given(tokens=st.lists(NUMBERING, min_size=20, max_size=60), separator=SEPARATORS)
def test_numbering_tokens_are_not_words(tokens: list[str], separator: str) -> None:
    text = separator.join(tokens)
    _assert_strict_refuses(text, "ifeval", "length_constraints:number_words", {"num_words": 20, "relation": "at least"})
    _assert_strict_refuses(text, "ifbench", "count:word_count_range", {"min_words": 20, "max_words": 100})
    _assert_both_modes_pay(HONEST_20 + separator + text, "ifeval", "length_constraints:number_words",
                           {"num_words": 20, "relation": "at least"})


@SETTINGS
@given(tokens=st.lists(NUMBERING, min_size=12, max_size=40), joiner=st.sampled_from(["_", "-", "/", ".", "\u2011"]))
def test_joined_tokens_count_as_what_a_reader_sees_against_an_upper_bound(tokens: list[str], joiner: str) -> None:
    kwargs = {"num_words": 10, "relation": "less than"}
    _assert_strict_refuses(joiner.join(tokens), "ifeval", "length_constraints:number_words", kwargs)
    _assert_both_modes_pay("Rivers carry water to the sea.", "ifeval", "length_constraints:number_words", kwargs)


@SETTINGS
@given(comma=st.sampled_from(COMMA_SPELLINGS), before=st.sampled_from(["Rivers", "3", "yes", "Lakes "]))
def test_every_comma_spelling_breaks_no_comma(comma: str, before: str) -> None:
    _assert_strict_refuses(f"{before}{comma} lakes and seas", "ifeval", "punctuation:no_comma", {})
    _assert_both_modes_pay(f"{before} lakes and seas", "ifeval", "punctuation:no_comma", {})


@SETTINGS
@given(hider=st.sampled_from(HIDERS), keyword=st.sampled_from(["river", "delta", "estuary"]))
def test_a_keyword_only_in_hidden_markup_is_missing(hider: str, keyword: str) -> None:
    kwargs = {"keywords": [keyword]}
    shown = "Water runs downhill to the sea."
    for text in (hider.format(keyword) + shown, shown + hider.format(keyword)):
        _assert_strict_refuses(text, "ifeval", "keywords:existence", kwargs)
    _assert_both_modes_pay(f"<b>The {keyword}</b> runs downhill &amp; reaches the sea.", "ifeval", "keywords:existence",
                           kwargs)


@SETTINGS
@given(items=st.lists(NO_LETTER, min_size=2, max_size=6), marker=st.sampled_from(["* ", "- ", "  * ", "-"]))
def test_bullets_without_a_letter_are_not_list_items(items: list[str], marker: str) -> None:
    text = "\n".join(marker + item for item in items)
    kwargs = {"num_bullets": len(items)}
    _assert_strict_refuses(text, "ifeval", "detectable_format:number_bullet_lists", kwargs)
    honest = "\n".join(f"{marker}item number {i + 1}" for i in range(len(items)))
    _assert_both_modes_pay(honest, "ifeval", "detectable_format:number_bullet_lists", kwargs)


LETTERLESS_STRINGS = st.text(alphabet=st.sampled_from(list("0123456789 .-_#") + ["\u200b", "\u00ad", "\u2060"]),
                             max_size=6)
LETTERLESS_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | LETTERLESS_STRINGS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(LETTERLESS_STRINGS, inner, max_size=4),
    max_leaves=12,
)


@SETTINGS
@given(value=LETTERLESS_JSON.filter(lambda v: isinstance(v, (list, dict))), ascii_only=st.booleans(),
       fence=st.sampled_from(["{}", "```json\n{}\n```", "```\n{}\n```"]))
def test_json_without_a_letter_is_not_a_json_answer(value: object, ascii_only: bool, fence: str) -> None:
    payload = json.dumps(value, ensure_ascii=ascii_only)
    _assert_strict_refuses(fence.format(payload), "ifeval", "detectable_format:json_format", {})
    honest = json.dumps({"answer": "rivers", "detail": value}, ensure_ascii=ascii_only)
    _assert_both_modes_pay(fence.format(honest), "ifeval", "detectable_format:json_format", {})


@st.composite
def same_words(draw: st.DrawFn, text: str) -> str:
    """`text` changed only in what a reader does not read as words: case, punctuation, spacing, invisibles."""
    out = []
    for char in text:
        if char.isalpha():
            char = draw(st.sampled_from([char, char.upper(), char.lower()]))
        elif char in " .":
            char = draw(st.sampled_from([char, char * 2, " ", "!", ";", "\u00a0"]))
        out.append(char + draw(st.sampled_from(["", "", "", *INVISIBLE[:6]])))
    return "".join(out)


@SETTINGS
@given(data=st.data())
def test_two_responses_that_differ_only_in_what_is_not_a_word_are_one(data: st.DataObject) -> None:
    first = "Rivers carry water to the sea."
    second = data.draw(same_words(first))
    _assert_strict_refuses(f"{first}\n******\n{second}", "ifeval", "combination:two_responses", {})
    _assert_both_modes_pay(f"{first}\n******\nLakes hold water for the dry months.", "ifeval",
                           "combination:two_responses", {})


@SETTINGS
@given(other=st.sampled_from(["no", "maybe"]), data=st.data())
def test_a_second_answer_however_spelt_is_a_second_answer(other: str, data: st.DataObject) -> None:
    spelt = data.draw(same_words(f"My answer is {other}"))
    ending = data.draw(st.sampled_from(["", ".", "!", "?", " :)"]))
    _assert_strict_refuses(f"My answer is yes. {spelt}{ending}", "ifeval", "detectable_format:constrained_response", {})
    _assert_both_modes_pay("My answer is yes. Rivers do reach the sea.", "ifeval",
                           "detectable_format:constrained_response", {})
