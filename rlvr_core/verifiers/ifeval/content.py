"""detectable_content:*, startend:*, punctuation:* and combination:* instructions.

The reference finds placeholders with `\\[.*?\\]` and postscripts with a
pattern that starts `\\s*`; on a long line of "[" or of spaces both take
quadratic time. The scans here give the same answers in linear time.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval.registry import as_int, instruction

_PPS = re.compile(r"p\.\s?p\.\s?s")
_PS = re.compile(r"p\.\s?s\.")


def placeholders(text: str) -> list[str]:
    """What is inside each non-overlapping "[...]" within one line, closed by the first "]" after its "[" (as `\\[.*?\\]`)."""
    found = []
    for line in text.split("\n"):
        start = 0
        while (opening := line.find("[", start)) >= 0:
            closing = line.find("]", opening + 1)
            if closing < 0:
                break  # no later "[" on this line can close either
            found.append(line[opening + 1 : closing])
            start = closing + 1
    return found


def count_placeholders(text: str) -> int:
    return len(placeholders(text))


@instruction("detectable_content:number_placeholders")
def number_placeholders(text: str, num_placeholders: int) -> bool:
    return count_placeholders(text) >= as_int(num_placeholders, "num_placeholders")


@instruction("detectable_content:postscript")
def postscript(text: str, postscript_marker: str) -> bool:
    """The marker anywhere, case-insensitive ("P.S." also as "p. s.", "P.P.S" also as "p. p. s")."""
    marker, lowered = postscript_marker.strip(), text.lower()
    if marker == "P.P.S":
        return _PPS.search(lowered) is not None
    if marker == "P.S.":
        return _PS.search(lowered) is not None
    return marker.lower() in lowered


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
