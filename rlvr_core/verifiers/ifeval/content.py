"""detectable_content:*, startend:*, punctuation:* and combination:* instructions."""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval.registry import instruction


@instruction("detectable_content:number_placeholders")
def number_placeholders(text: str, num_placeholders: int) -> bool:
    return len(re.findall(r"\[.*?\]", text)) >= int(num_placeholders)


@instruction("detectable_content:postscript")
def postscript(text: str, postscript_marker: str) -> bool:
    if postscript_marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif postscript_marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + re.escape(postscript_marker.lower()) + r".*$"
    return bool(re.findall(pattern, text.lower(), flags=re.MULTILINE))


@instruction("startend:end_checker")
def end_checker(text: str, end_phrase: str) -> bool:
    return text.strip().strip('"').lower().endswith(end_phrase.strip().lower())


@instruction("startend:quotation")
def quotation(text: str) -> bool:
    text = text.strip()
    return len(text) > 1 and text[0] == '"' and text[-1] == '"'


@instruction("punctuation:no_comma")
def no_comma(text: str) -> bool:
    return "," not in text


@instruction("combination:two_responses")
def two_responses(text: str) -> bool:
    parts = text.split("******")
    kept = []
    for i, part in enumerate(parts):
        if not part.strip():
            if i not in (0, len(parts) - 1):
                return False
        else:
            kept.append(part)
    return len(kept) == 2 and kept[0].strip() != kept[1].strip()


@instruction("combination:repeat_prompt")
def repeat_prompt(text: str, prompt_to_repeat: str) -> bool:
    return text.strip().lower().startswith(prompt_to_repeat.strip().lower())
