"""detectable_format:* instructions.

Bullets and titles give the reference's answers, but in linear time: its
`^\\s*\\*` crosses blank lines and `<<[^\\n]+>>` rescans a line from every
"<<", both quadratic on a long run of newlines or "<".
"""

from __future__ import annotations

import json
import re

from rlvr_core.verifiers.ifeval.registry import as_int, instruction

YES_NO_MAYBE = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
# The reference's `^\s*` may run across blank lines to the marker; starting at
# the marker's own line instead finds the same matches, each ending where it did.
_STAR_BULLET = re.compile(r"^[^\S\n]*\*[^\*].*$", re.MULTILINE)
_DASH_BULLET = re.compile(r"^[^\S\n]*-.*$", re.MULTILINE)


def count_bullets(text: str) -> int:
    """Lines starting "* " (not "**") plus lines starting "-", leading whitespace allowed."""
    return len(_STAR_BULLET.findall(text)) + len(_DASH_BULLET.findall(text))


@instruction("detectable_format:number_bullet_lists")
def number_bullet_lists(text: str, num_bullets: int) -> bool:
    return count_bullets(text) == as_int(num_bullets, "num_bullets")


@instruction("detectable_format:constrained_response")
def constrained_response(text: str, options: list[str] | None = None) -> bool:
    return any(option in text.strip() for option in (options or YES_NO_MAYBE))


@instruction("detectable_format:number_highlighted_sections")
def number_highlighted_sections(text: str, num_highlights: int) -> bool:
    single = [h for h in re.findall(r"\*[^\n\*]*\*", text) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n\*]*\*\*", text) if h.removeprefix("**").removesuffix("**").strip()]
    return len(single) + len(double) >= as_int(num_highlights, "num_highlights")


@instruction("detectable_format:multiple_sections")
def multiple_sections(text: str, section_spliter: str, num_sections: int) -> bool:
    sections = re.split(r"\s?" + re.escape(section_spliter.strip()) + r"\s?\d+\s?", text)
    return len(sections) - 1 >= as_int(num_sections, "num_sections")


def strip_json_fence(text: str) -> str:
    """The text inside a markdown code fence (```json ... ```), as the reference strips it."""
    value = text.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        value = value.removeprefix(prefix)
    return value.removesuffix("```").strip()


@instruction("detectable_format:json_format")
def json_format(text: str) -> bool:
    try:
        json.loads(strip_json_fence(text))
    except ValueError:
        return False
    return True


def titles(text: str) -> list[str]:
    """What `re.findall(r"<<[^\\n]+>>", text)` finds: per line, from the first "<<" to the last ">>" after it."""
    found = []
    for line in text.split("\n"):
        opening = line.find("<<")
        closing = line.rfind(">>")
        if opening >= 0 and closing >= opening + 3:
            found.append(line[opening : closing + 2])
    return found


@instruction("detectable_format:title")
def title(text: str) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in titles(text))
