"""Strict training mode, counts and words: keywords, lengths, capitals, commas.

Every strict check here runs on what a reader sees (`visible.visible_text`)
and only after the reference check passed on the text as written and on what
a reader sees (`registry.strict_check`): strict mode is the reference and
these checks.
Evaluation keeps the reference checks alone (numbers stay comparable with
published ones). The classes closed here, each for every spelling:

| instruction | a response the reference pays | strict mode requires |
|---|---|---|
| keywords:existence | "cat" inside "concatenate" | the keyword as a whole word a reader sees |
| keywords:frequency, keywords:letter_frequency | "less than 2 cats" with cats hidden by confusable letters, accents or zero-width characters | lower bounds on whole words as written, upper bounds on every occurrence a reader would see (substrings, confusables folded) |
| keywords:forbidden_words | the word split by a zero-width space, soft hyphen or tag, or spelt with Cyrillic letters | no whole word whose skeleton is the forbidden one |
| length_constraints:number_words | "0 1 2 ... 299", `1st 2nd`, `ii iii iv`, `a0 ... a299`, words joined by `_` | at least: words (a letter, no digit, not a numbering token); at most: every visible token |
| length_constraints:number_sentences | ". . ." or "1. 2. 3." as sentences | at least: sentences with a word; at most: every sentence |
| change_case:capital_word_frequency | "II III IV", "A1 B2" as capital words | at least: capital tokens that are words; at most: every capital token |
| punctuation:no_comma | a fullwidth, ideographic, Arabic, low-9 or cedilla comma, `&#44;` | no comma or comma look-alike in any script |

What passes strict mode is a subset of what passes the reference mode, by
construction; `tests/verifiers/test_instruction_strict_mode.py` checks it
over every case the project has.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.registry import as_int, compare_bounded, instruction, validate_relation
from rlvr_core.verifiers.ifeval.visible import count_words, has_word, is_word, skeleton

# Every comma and comma look-alike: ASCII, Armenian, Arabic (and its decimal and thousands separators), NKo,
# Ethiopic, Mongolian, the turned/raised/reversed/medieval/stacked forms, ideographic, Lisu, Vai, Bamum, the
# presentation forms, small, fullwidth and halfwidth ideographic, Newa, Medefaidrin, SignWriting, the digit-comma
# ligatures, the low-9 quotation marks and ornaments, the APL comma bar, the cedilla, the combining comma below, the Greek lower numeral sign and
# the modifier low acute and grave accents.
COMMAS = frozenset(
    chr(code) for code in (
        0x2C, 0x55D, 0x60C, 0x66B, 0x66C, 0x7F8, 0x1363, 0x1802, 0x1808, 0x2E32, 0x2E34, 0x2E41, 0x2E49, 0x2E4C,
        0x3001, 0xA4FE, 0xA60D, 0xA6F5, 0xFE10, 0xFE11, 0xFE50, 0xFE51, 0xFF0C, 0xFF64, 0x1144D, 0x1145A, 0x16E97,
        0x1DA87, *range(0x1F101, 0x1F10B), 0x201A, 0x201E, 0x275F, 0x2760, 0x1F678, 0x236A, 0xB8, 0x326, 0x375,
        0x2CF, 0x2CE,
    )
)
# NFKC turns a spacing cedilla into a space and a combining cedilla: one that sits on no letter is a comma.
_DETACHED_CEDILLA = re.compile(r"(?<![^\W\d_])\u0327")


def whole_word(keyword: str) -> re.Pattern[str]:
    """`keyword` (literal, case-insensitive) not inside a longer word: "cat" is not in "concatenate"."""
    return re.compile(rf"(?<!\w){re.escape(keyword.strip())}(?!\w)", re.IGNORECASE)


@instruction("keywords:existence", strict_mode=True)
def existence(text: str, keywords: list[str]) -> bool:
    return all(whole_word(k).search(text) for k in keywords)


@instruction("keywords:frequency", strict_mode=True)
def frequency(text: str, keyword: str, frequency: int, relation: str) -> bool:
    """At least: whole words as written; at most: every occurrence in the skeleton ("cats", "Сat", "c\u0301at")."""
    n = as_int(frequency, "frequency")
    key = skeleton(keyword.strip())
    generous = skeleton(text).count(key) if key else 0
    return compare_bounded(len(whole_word(keyword).findall(text)), generous, relation, n)


@instruction("keywords:forbidden_words", strict_mode=True)
def forbidden_words(text: str, forbidden_words: list[str]) -> bool:
    folded = skeleton(text)
    return not any(whole_word(skeleton(w)).search(folded) for w in forbidden_words if w.strip())


@instruction("keywords:letter_frequency", strict_mode=True)
def letter_frequency(text: str, letter: str, let_frequency: int, let_relation: str) -> bool:
    """At least: the letter as written; at most: the letter and its look-alikes (accented, other scripts)."""
    n = as_int(let_frequency, "let_frequency")
    stingy = text.lower().count(letter.lower())
    key = skeleton(letter)
    generous = skeleton(text).count(key) if key else 0
    return compare_bounded(stingy, max(stingy, generous), let_relation, n)


@instruction("length_constraints:number_words", strict_mode=True)
def number_words(text: str, num_words: int, relation: str) -> bool:
    stingy, generous = count_words(text)
    return compare_bounded(stingy, generous, relation, as_int(num_words, "num_words"))


@instruction("length_constraints:number_sentences", strict_mode=True)
def number_sentences(text: str, num_sentences: int, relation: str) -> bool:
    n = as_int(num_sentences, "num_sentences")
    validate_relation(relation)
    found = splitting.sentences(text)
    return compare_bounded(sum(1 for s in found if has_word(s)), len(found), relation, n)


@instruction("change_case:capital_word_frequency", strict_mode=True)
def capital_word_frequency(text: str, capital_frequency: int, capital_relation: str) -> bool:
    n = as_int(capital_frequency, "capital_frequency")
    validate_relation(capital_relation)
    capitals = splitting.capital_words(text)
    return compare_bounded(sum(1 for token in capitals if is_word(token)), len(capitals), capital_relation, n)


@instruction("punctuation:no_comma", strict_mode=True)
def no_comma(text: str) -> bool:
    return COMMAS.isdisjoint(text) and not _DETACHED_CEDILLA.search(text)
