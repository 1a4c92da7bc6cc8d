"""Strict training mode, shapes: formats, placeholders, starts and ends, repeats; each must carry content.

As in `strict.py`, each check runs on what a reader sees, after the reference
passed on the text as written and on what a reader sees. The class closed here: a shape
satisfied by an empty or disguised payload. Content means a letter; a word
is `visible.is_word`.

| instruction | a response the reference pays | strict mode requires |
|---|---|---|
| detectable_format:json_format | `5`, `null`, `NaN`, `[5]`, `{}`, `[[]]`, `[""]` | a JSON object or array, standard JSON, with a letter in some key or string |
| detectable_format:number_bullet_lists | `-`, `* _`, `* &nbsp;`, `- 1` as bullets | a letter after each counted bullet marker |
| detectable_format:number_highlighted_sections | `*1*`, `*.*`, `*&nbsp;*` | highlights with a letter |
| detectable_format:multiple_sections | "SECTION 1 SECTION 2" with nothing in them | sections with a letter |
| detectable_format:title | `<<&nbsp;>>`, `<<1>>`, `<<x>>` | a title with a word |
| detectable_format:constrained_response | every option, or "My answer is yes. My answer is no" without the period, or the other option in another case or script | exactly one option, however spelt or punctuated |
| detectable_content:number_placeholders | `[]`, `[ ]`, `[1]` | placeholders with a letter |
| detectable_content:postscript | "P.S." with nothing after it | a letter after the marker |
| length_constraints:number_paragraphs, nth_paragraph_first_word | a divider with nothing after it, a paragraph of punctuation | every paragraph carries a letter |
| combination:two_responses | a trailing `******`; two responses differing by an invisible character, case or punctuation | two responses with words, differing in their words |
| combination:repeat_prompt | the prompt and nothing else | a word after the repeated prompt |
| startend:end_checker | the end phrase alone | a word before the end phrase |
| startend:quotation | `""`, `" "` | a letter inside the quotes |
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlvr_core.verifiers.ifeval import content
from rlvr_core.verifiers.ifeval.formats import YES_NO_MAYBE, strip_json_fence, titles
from rlvr_core.verifiers.ifeval.registry import as_int, instruction
from rlvr_core.verifiers.ifeval.visible import has_letter, has_word, runs, skeleton, visible_text

_BULLET = re.compile(r"^[^\S\n]*(?:\*(?!\*)|-)([^\n]*)$", re.MULTILINE)
_TWO_RESPONSES = "******"
_OPTION_END = ".!? "


@instruction("detectable_format:json_format", strict_mode=True)
def json_format(text: str) -> bool:
    try:
        value = json.loads(strip_json_fence(text), parse_constant=_reject_constant)
    except ValueError:
        return False
    return isinstance(value, (dict, list)) and _carries_letters(value)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not standard JSON")


def _carries_letters(value: Any) -> bool:
    """Some key or string in `value` has a letter a reader sees (iterative: nesting depth is the response's)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_letter(visible_text(item)):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@instruction("detectable_format:number_bullet_lists", strict_mode=True)
def number_bullet_lists(text: str, num_bullets: int) -> bool:
    return sum(1 for item in _BULLET.findall(text) if has_letter(item)) == as_int(num_bullets, "num_bullets")


@instruction("detectable_format:number_highlighted_sections", strict_mode=True)
def number_highlighted_sections(text: str, num_highlights: int) -> bool:
    single = re.findall(r"\*[^\n\*]*\*", text)
    double = re.findall(r"\*\*[^\n\*]*\*\*", text)
    return sum(1 for h in single + double if has_letter(h)) >= as_int(num_highlights, "num_highlights")


@instruction("detectable_format:multiple_sections", strict_mode=True)
def multiple_sections(text: str, section_spliter: str, num_sections: int) -> bool:
    sections = re.split(r"\s?" + re.escape(section_spliter.strip()) + r"\s?\d+\s?", text)
    return sum(1 for s in sections[1:] if has_letter(s)) >= as_int(num_sections, "num_sections")


@instruction("detectable_format:title", strict_mode=True)
def title(text: str) -> bool:
    return any(has_word(t.lstrip("<").rstrip(">")) for t in titles(text))


@instruction("detectable_format:constrained_response", strict_mode=True)
def constrained_response(text: str, options: list[str] | None = None) -> bool:
    """Exactly one option, found by its words (case, punctuation, accents and confusable letters aside).

    Where the options share leading words ("My answer is"), every time those words occur they go on with
    the same option: "My answer is yes. My answer is nope." names two answers.
    """
    cores = list(dict.fromkeys(tuple(runs(skeleton(option))) for option in (options or YES_NO_MAYBE)))
    said = tuple(runs(skeleton(text)))
    found = [core for core in cores if core and _contains(said, core)]
    if len(found) != 1:
        return False
    stem = _common_prefix(cores)
    if not stem:
        return True
    chosen = found[0]
    starts = [i for i in range(len(said) - len(stem) + 1) if said[i : i + len(stem)] == stem]
    return all(said[i : i + len(chosen)] == chosen for i in starts)


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    return any(words[i : i + len(phrase)] == phrase for i in range(len(words) - len(phrase) + 1))


def _common_prefix(cores: list[tuple[str, ...]]) -> tuple[str, ...]:
    if len(cores) < 2:
        return ()
    prefix = cores[0]
    for core in cores[1:]:
        n = 0
        while n < min(len(prefix), len(core)) and prefix[n] == core[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


@instruction("detectable_content:number_placeholders", strict_mode=True)
def number_placeholders(text: str, num_placeholders: int) -> bool:
    found = content.placeholders(text)
    return sum(1 for inside in found if has_letter(inside)) >= as_int(num_placeholders, "num_placeholders")


@instruction("detectable_content:postscript", strict_mode=True)
def postscript(text: str, postscript_marker: str) -> bool:
    """The marker (as the reference finds it) with a letter after it."""
    marker, lowered = postscript_marker.strip(), text.lower()
    pattern = {"P.P.S": content._PPS, "P.S.": content._PS}.get(marker, re.compile(re.escape(marker.lower())))
    return any(has_letter(lowered[match.end() :]) for match in pattern.finditer(lowered))


@instruction("length_constraints:number_paragraphs", strict_mode=True)
def number_paragraphs(text: str, num_paragraphs: int, divider: str = "***") -> bool:
    parts = re.split(r"\s?" + re.escape(divider) + r"\s?", text)
    return all(has_letter(part) for part in parts) and len(parts) == as_int(num_paragraphs, "num_paragraphs")


@instruction("length_constraints:nth_paragraph_first_word", strict_mode=True)
def nth_paragraph_first_word(text: str, num_paragraphs: int, nth_paragraph: int, first_word: str) -> bool:
    return all(has_letter(p) for p in re.split(r"\n\n", text) if p.strip())


@instruction("combination:two_responses", strict_mode=True)
def two_responses(text: str) -> bool:
    parts = [part.strip() for part in text.split(_TWO_RESPONSES)]
    if len(parts) != 2 or not all(map(has_word, parts)):
        return False
    return runs(skeleton(parts[0])) != runs(skeleton(parts[1]))


@instruction("combination:repeat_prompt", strict_mode=True)
def repeat_prompt(text: str, prompt_to_repeat: str) -> bool:
    prompt = visible_text(prompt_to_repeat).strip().lower()
    said = text.strip()
    return said.lower().startswith(prompt) and has_word(said[len(prompt) :])


@instruction("startend:end_checker", strict_mode=True)
def end_checker(text: str, end_phrase: str) -> bool:
    body, phrase = text.strip().strip('"'), end_phrase.strip()
    return body.lower().endswith(phrase.lower()) and has_word(body[: len(body) - len(phrase)])


@instruction("startend:quotation", strict_mode=True)
def quotation(text: str) -> bool:
    return has_letter(text.strip()[1:-1])
