"""Strict training mode: the IFEval checks whose reference accepts a loophole, closed.

Evaluation keeps the reference checks (numbers stay comparable with
published ones). A policy trained against them would learn the loopholes,
both the reference and a faithful copy accept:

| instruction | reference accepts | strict mode requires |
|---|---|---|
| keywords:existence, keywords:frequency | "cat" inside "concatenate" | the keyword as a whole word |
| length_constraints:number_words | "0 1 2 ... 299" as 300 words | words with a letter in them |
| detectable_format:json_format | `5`, `null`, `NaN` | a JSON object or array, standard JSON only |
| detectable_format:number_bullet_lists | "-\\n-\\n-" as 3 bullets | a word after each bullet marker |
| detectable_format:constrained_response | every option at once | exactly one of the options |
| punctuation:no_comma | a fullwidth, ideographic or Arabic comma | no comma in any script |
| combination:two_responses | a trailing or leading `******` | one separator with a response on each side |
| length_constraints:number_paragraphs | a trailing or leading divider | dividers with a paragraph on each side |
"""

from __future__ import annotations

import json
import re

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.formats import YES_NO_MAYBE, strip_json_fence
from rlvr_core.verifiers.ifeval.registry import as_int, compare, instruction, validate_relation

# Every comma: ASCII, Armenian, Arabic, NKo, Ethiopic, Mongolian, the turned/raised/reversed/medieval forms,
# ideographic, Lisu, Vai, Bamum, the presentation forms, small, fullwidth and halfwidth ideographic, Newa,
# Medefaidrin, SignWriting, the digit-comma ligatures, and the low-9 quotation mark that looks like one.
COMMAS = frozenset(
    chr(code) for code in (
        0x2C, 0x55D, 0x60C, 0x7F8, 0x1363, 0x1802, 0x1808, 0x2E32, 0x2E34, 0x2E41, 0x2E49, 0x2E4C, 0x3001, 0xA4FE,
        0xA60D, 0xA6F5, 0xFE10, 0xFE11, 0xFE50, 0xFE51, 0xFF0C, 0xFF64, 0x1144D, 0x1145A, 0x16E97, 0x1DA87,
        *range(0x1F101, 0x1F10B), 0x201A,
    )
)
_STAR_OR_DASH_BULLET = re.compile(r"^[^\S\n]*(?:\*(?!\*)|-)[^\n]*?\w", re.MULTILINE)
_TWO_RESPONSES = "******"


def whole_word(keyword: str) -> re.Pattern[str]:
    """`keyword` (literal, case-insensitive) not inside a longer word: "cat" is not in "concatenate"."""
    return re.compile(rf"(?<!\w){re.escape(keyword.strip())}(?!\w)", re.IGNORECASE)


@instruction("keywords:existence", strict_mode=True)
def existence(text: str, keywords: list[str]) -> bool:
    return all(whole_word(k).search(text) for k in keywords)


@instruction("keywords:frequency", strict_mode=True)
def frequency(text: str, keyword: str, frequency: int, relation: str) -> bool:
    return compare(len(whole_word(keyword).findall(text)), relation, as_int(frequency, "frequency"))


@instruction("length_constraints:number_words", strict_mode=True)
def number_words(text: str, num_words: int, relation: str) -> bool:
    n = as_int(num_words, "num_words")
    validate_relation(relation)
    return compare(splitting.count_lettered_words(text), relation, n)


@instruction("detectable_format:json_format", strict_mode=True)
def json_format(text: str) -> bool:
    try:
        value = json.loads(strip_json_fence(text), parse_constant=_reject_constant)
    except ValueError:
        return False
    return isinstance(value, (dict, list))


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not standard JSON")


@instruction("detectable_format:number_bullet_lists", strict_mode=True)
def number_bullet_lists(text: str, num_bullets: int) -> bool:
    return len(_STAR_OR_DASH_BULLET.findall(text)) == as_int(num_bullets, "num_bullets")


@instruction("detectable_format:constrained_response", strict_mode=True)
def constrained_response(text: str, options: list[str] | None = None) -> bool:
    text = text.strip()
    return sum(option in text for option in dict.fromkeys(options or YES_NO_MAYBE)) == 1


@instruction("punctuation:no_comma", strict_mode=True)
def no_comma(text: str) -> bool:
    return COMMAS.isdisjoint(text)


@instruction("combination:two_responses", strict_mode=True)
def two_responses(text: str) -> bool:
    parts = [part.strip() for part in text.split(_TWO_RESPONSES)]
    return len(parts) == 2 and all(parts) and parts[0] != parts[1]


@instruction("length_constraints:number_paragraphs", strict_mode=True)
def number_paragraphs(text: str, num_paragraphs: int, divider: str = "***") -> bool:
    parts = re.split(r"\s?" + re.escape(divider) + r"\s?", text)
    return all(part.strip() for part in parts) and len(parts) == as_int(num_paragraphs, "num_paragraphs")
