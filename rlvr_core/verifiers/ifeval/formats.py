"""detectable_format:* instructions."""

from __future__ import annotations

import json
import re

from rlvr_core.verifiers.ifeval.registry import instruction

_YES_NO_MAYBE = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


@instruction("detectable_format:number_bullet_lists")
def number_bullet_lists(text: str, num_bullets: int) -> bool:
    stars = re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE)
    dashes = re.findall(r"^\s*-.*$", text, flags=re.MULTILINE)
    return len(stars) + len(dashes) == int(num_bullets)


@instruction("detectable_format:constrained_response")
def constrained_response(text: str, options: list[str] | None = None) -> bool:
    return any(option in text.strip() for option in (options or _YES_NO_MAYBE))


@instruction("detectable_format:number_highlighted_sections")
def number_highlighted_sections(text: str, num_highlights: int) -> bool:
    single = [h for h in re.findall(r"\*[^\n\*]*\*", text) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n\*]*\*\*", text) if h.removeprefix("**").removesuffix("**").strip()]
    return len(single) + len(double) >= int(num_highlights)


@instruction("detectable_format:multiple_sections")
def multiple_sections(text: str, section_spliter: str, num_sections: int) -> bool:
    sections = re.split(r"\s?" + re.escape(section_spliter) + r"\s?\d+\s?", text)
    return len(sections) - 1 >= int(num_sections)


@instruction("detectable_format:json_format")
def json_format(text: str) -> bool:
    value = text.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        value = value.removeprefix(prefix)
    value = value.removesuffix("```").strip()
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


@instruction("detectable_format:title")
def title(text: str) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in re.findall(r"<<[^\n]+>>", text))
