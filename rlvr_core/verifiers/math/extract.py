"""Step 1 of math verification: find the final answer a completion commits to.

Candidates, each anchored at a position in the text:

- `#### X` (GSM8K style; the rest of that line);
- `\\boxed{...}` / `\\fbox{...}` (brace-matched; `\\boxed 5` too). Boxes that
  follow one another with only connectors between them ("," "and" "or"
  `\\quad`, math delimiters, a short phrase ending in "and", or `y_2 =`) are
  one answer, a list: "\\boxed{-2} and \\boxed{1}" is "-2, 1";
- "Final Answer: ..." (Minerva; "The final answer is X. I hope it is
  correct.", or a sentence such as "The largest $n$ is 34.");
- "the answer is X" / "answer: X" / "Answer $X$".

Among `####`, boxes and "Final Answer:", the candidate anchored last wins:
models restate and correct themselves, and a final answer written after a box
("Final Answer: The final answer is $10,455$") is the one they ended on.
"the answer is X" is weaker and only counts when there is none of those
(after a box, "the answer: 3^2 = 9" is usually a check). An anchor counts only
when "answer" is followed by "is", ":", "=" or math. Without any candidate, the prose fallback reads the last stated item
(a math span such as `$x \\geq 5$`, or a number) in the text, with these
limits: a number glued to letters ("AZYUK2A", "3x", "x2") is not a number
unless the letters are a unit ("10m"), nor is one inside a LaTeX argument
("x^{2}"; a bare `\\frac{1}{2}` is read whole); nothing after a math opener
that never closes ("$ \\n 9") is read. A `\\boxed{` that never closes, after
every other candidate, means the model did not finish its answer: nothing is
extracted. A completion with no item at all that
opens with a choice letter ("A. Because ...", "(B) ...") answers with that letter.

Reasoning inside `<think>...</think>` is ignored; an unterminated `<think>`
means the model never answered, so nothing is extracted.

Every pass is linear in the length of the completion: scanners come from
`math_scan`, and every regular expression here either has no nested or
overlapping repetition or runs on a window of bounded length.
"""

from __future__ import annotations

import bisect
import re

from rlvr_core.verifiers.math.scan import Box, Span, find_boxes, math_spans, undouble_box_backslashes
from rlvr_core.verifiers.reasoning import strip_think

_WINDOW = 500  # characters read after an "answer" anchor
_GAP = 80  # longest text between two boxes (or items) that can still join them
_TAIL = 4000  # characters of prose read first when looking for the last stated item
_MAX_JOINED = 65  # more joined items than any answer has (comparison refuses lists past 64 items)

_HASHES = re.compile(r"####[ \t]*([^\n]*)")
_FINAL_ANSWER = re.compile(r"final\s+answer", re.IGNORECASE)
_ANSWER = re.compile(r"\banswer\b", re.IGNORECASE)
# What may follow "answer" for it to introduce one: "is", ":", "=", "should be", or math right away.
_AFTER_ANSWER = re.compile(
    r"[ \t]*(?:\*\*[ \t]*)?(?:(?:is|was|should\s+be|would\s+be|will\s+be)\b[ \t]*:?|:|=|(?=\$|\\\(|\\\[|\\boxed|\\fbox))",
    re.IGNORECASE,
)
_LEAD = re.compile(r"[\s*:]*(?:(?:the\s+)?final\s+answer\s+is\b[\s*:]*|is\b[\s*:]*)?", re.IGNORECASE)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\n|;|I hope it is correct", re.IGNORECASE)
_CLAUSE = re.compile(r",\s+(?=[A-Za-z]{2,})")  # "12 apples, because ..." ends the answer at the comma
_IS = re.compile(r"\s(?:is|are|equals|was)\s", re.IGNORECASE)
# A number in prose. Letters glued after it must be a unit (checked in `_items`).
_FRAGMENT = re.compile(r"(?<![0-9])-?[0-9]*\\(?:[dtc]?frac\{[^{}\n]{1,40}\}\{[^{}\n]{1,40}\}|sqrt\{[^{}\n]{1,40}\})")
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_^\\.,{])(?:-?[0-9]+(?:[.,][0-9]+)*|-?\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"(?:[ \t]*/[ \t]*-?[0-9]+(?:\.[0-9]+)?)?(?:[ \t]*(?:%|percent\b|pct\b))?([A-Za-z\u00b2\u00b3]*)"
)
_UNITS_AFTER_NUMBER = frozenset(
    "m cm mm km kg g mg s ms h hr hrs min l ml ft in mi lb lbs oz m\u00b2 cm\u00b2 km\u00b2 m\u00b3 cm\u00b3 ".split()
)
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_NOT_PROSE = frozenset({"and", "or", "percent", "pct", "percentage"})
_TEXT_CMD = re.compile(r"\\(?:text|textbf|textit|textnormal|mathrm|mbox)\s*\{([^{}]*)\}")
_GAP_DROP = re.compile(r"\$|\\[()\[\]]|\\q?quad|\\[,;:! ]|~|\*\*")
_CONNECTORS = re.compile(r"[\s,;&]*(?:(?:and|or)\b[\s,;&]*)*")
_BOX_GAP_PHRASE = re.compile(r"[^\n]{0,40}\b(?:and|or)[\s,;]*")
_BOX_GAP_NAME = re.compile(r"[\s,;]*(?:(?:and|or)\s+)?[A-Za-z](?:_\{?[0-9A-Za-z]{1,3}\}?)?\s*=\s*")
_LEADING_CHOICE = re.compile(r"\s*(?:\*\*)?\(?([A-E])(?:\)|\.|:)")  # "A. Because ..." / "(B) ..." opens with its choice
_NEGATED = re.compile(r"(?:\bnot|n't|\\neq?)\s*\$?\s*$", re.IGNORECASE)
_ONE_WORD = re.compile(r"\(?[A-Za-z]+\)?")


def last_boxed(text: str) -> str | None:
    """Content of the last closed `\\boxed{...}` or `\\fbox{...}` (or `\\boxed 5`); linear time."""
    boxes, _ = find_boxes(undouble_box_backslashes(text))
    return boxes[-1].content if boxes else None


def extract_answer(completion: str) -> tuple[str, str] | None:
    """(answer text, rule name) or None when the completion commits to no answer.

    Rule names: "####", "boxed", "final-answer", "answer-is", "prose", "choice".
    """
    text = strip_think(completion)
    if text is None:
        return None
    text = undouble_box_backslashes(text)
    boxes, unclosed_box = find_boxes(text)
    spans, broken = math_spans(text)
    candidates: list[tuple[int, str, str]] = []  # (anchor position, answer, rule)

    last_hash = None
    for match in _HASHES.finditer(text):
        if match.group(1).strip():
            last_hash = match
    if last_hash is not None:
        candidates.append((last_hash.start(), last_hash.group(1).strip(), "####"))
    if boxes:
        group = _joined_boxes(text, boxes)
        answer = ", ".join(box.content.strip() for box in group)
        if answer.strip(", "):
            candidates.append((group[-1].start, answer, "boxed"))
    found = _last_anchored(text, _FINAL_ANSWER, "final-answer")
    if found is not None:
        candidates.append(found)
    if not candidates:  # "the answer is X" is weaker: after a box it is usually a check, not the answer
        found = _last_anchored(text, _ANSWER, "answer-is")
        if found is not None:
            candidates.append(found)
    if candidates:
        anchor, answer, rule = max(candidates, key=lambda c: c[0])
        if unclosed_box is not None and unclosed_box > anchor:
            return None  # the model started a later box and never closed it: no committed answer
        return answer, rule
    if unclosed_box is not None:
        return None

    limit = len(text) if broken is None else broken
    answer = _last_item(text, 0, limit, spans)
    if answer:
        return answer, "prose"
    choice = _LEADING_CHOICE.match(text)
    return (choice.group(1), "choice") if choice else None


def _joined_boxes(text: str, boxes: list[Box]) -> list[Box]:
    """The last box and the boxes before it that only connectors separate from it."""
    group = [boxes[-1]]
    for box in reversed(boxes[:-1]):
        if len(group) > _MAX_JOINED or not _is_box_gap(text[box.end : group[-1].start]):
            break
        group.append(box)
    return group[::-1]


def _is_box_gap(gap: str) -> bool:
    if len(gap) > _GAP:
        return False
    gap = _GAP_DROP.sub(" ", _TEXT_CMD.sub(r" \1 ", gap)).lower()
    return bool(_CONNECTORS.fullmatch(gap) or _BOX_GAP_PHRASE.fullmatch(gap) or _BOX_GAP_NAME.fullmatch(gap))


def _last_anchored(text: str, pattern: re.Pattern[str], rule: str) -> tuple[int, str, str] | None:
    """The last anchor of `pattern` that introduces a readable answer, as a candidate."""
    anchors = list(pattern.finditer(text))
    for anchor in reversed(anchors[-20:]):  # a bounded number of windows keeps this linear
        start = anchor.end()
        if rule == "answer-is" and text[max(0, anchor.start() - 7) : anchor.start()].rstrip().lower().endswith("final"):
            continue  # "final answer" is the final-answer rule's anchor
        after = _AFTER_ANSWER.match(text, start, start + _WINDOW)
        if after is None:
            continue  # "the final answer will need...", "to answer this": not an answer statement
        start = after.end()
        window = text[start : start + _WINDOW]
        answer = _phrase(window, final=rule == "final-answer")
        if answer:
            return anchor.start(), answer, rule
    return None


def _phrase(window: str, final: bool) -> str | None:
    """The answer stated at the start of `window`: up to the end of its sentence, reduced to its math."""
    window = window[_LEAD.match(window).end() :]
    spans, broken = math_spans(window)
    end = len(window) if broken is None else broken
    starts = [s.start for s in spans]
    for stop in _SENTENCE_END.finditer(window, 0, end):
        i = bisect.bisect_right(starts, stop.start()) - 1
        if i < 0 or spans[i].end <= stop.start():  # not inside a math span
            end = stop.start()
            break
    phrase = window[:end].strip().replace('\\"', '"').strip('"').strip()
    if not phrase or phrase.lower().startswith(("not ", "n't")):
        return None
    if _is_mathy(phrase):
        return _strip_delimiters(phrase)
    if final:  # "The largest $n$ is 34."
        tail = list(_IS.finditer(phrase))
        if tail:
            phrase = phrase[tail[-1].end() :]
            if _is_mathy(phrase):
                return _strip_delimiters(phrase)
    else:
        phrase = _CLAUSE.split(phrase, maxsplit=1)[0]
    spans = [s for s in math_spans(phrase)[0]]
    item = _last_item(phrase, 0, len(phrase), spans)
    if item:
        return item
    return phrase if _ONE_WORD.fullmatch(phrase) and phrase.lstrip("(")[:1].isupper() else None  # "Evelyn", "(B)"; not "correct"


def _is_mathy(phrase: str) -> bool:
    """No prose words outside `\\text{}` and LaTeX commands ("x = 5", "$\\frac12$", "A", "(3, 4)")."""
    plain = _TEXT_CMD.sub(" ", phrase)
    return all(word.group().lower() in _NOT_PROSE for word in _PROSE_WORD.finditer(plain))


def _strip_delimiters(phrase: str) -> str:
    """The math of a phrase made of math spans and connectors ("$12$ and $13$" -> "12, 13")."""
    spans, _ = math_spans(phrase)
    if not spans:
        return phrase.strip().rstrip(".").strip()
    outside = phrase[: spans[0].start] + phrase[spans[-1].end :]
    gaps = [phrase[a.end : b.start] for a, b in zip(spans, spans[1:])]
    if outside.strip(" .,") or not all(_is_item_gap(g) for g in gaps):
        return phrase.strip().rstrip(".").strip()
    return ", ".join(s.content.strip() for s in spans)


def _is_item_gap(gap: str) -> bool:
    return len(gap) <= _GAP and bool(_CONNECTORS.fullmatch(_GAP_DROP.sub(" ", _TEXT_CMD.sub(r" \1 ", gap)).lower()))


def _items(text: str, start: int, end: int, spans: list[Span]) -> list[tuple[int, int, str]]:
    """Math spans and prose numbers in text[start:end], in order, as (start, end, answer text)."""
    inside = [sp for sp in spans if start <= sp.start and sp.end <= end]
    starts = [sp.start for sp in inside]
    items = [(sp.start, sp.end, sp.content.strip()) for sp in inside if sp.content.strip()]
    for number in _numbers(text, start, end):
        i = bisect.bisect_right(starts, number[0]) - 1
        if i < 0 or inside[i].end <= number[0]:  # not inside a math span
            items.append(number)
    return sorted(items)


def _numbers(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Prose numbers and bare LaTeX fractions/roots in text[start:end] (outside math spans), in order."""
    found = [(m.start(), m.end(), m.group(0)) for m in _FRAGMENT.finditer(text, start, end)]
    taken = [(a, b) for a, b, _ in found]
    for match in _NUMBER.finditer(text, start, end):
        unit = match.group(1)
        if unit and unit.lower() not in _UNITS_AFTER_NUMBER:
            continue  # "3x", "2nd": not a stated number
        if text[match.end() : match.end() + 1] == "}" or any(a <= match.start() < b for a, b in taken):
            continue  # inside a LaTeX argument: "x^{2}", "\\frac{1}{2}"
        found.append((match.start(), match.end(), match.group(0)[: len(match.group(0)) - len(unit)].strip()))
    return sorted(found)


def _last_item(text: str, start: int, end: int, spans: list[Span]) -> str | None:
    """The last item in text[start:end], joined with the items before it that only connectors separate.

    An item stated as negated ("is not 5", "isn't 5", "\\ne 5") is not an answer. Only a tail
    of the text is read, doubled until it holds enough items: the cost is linear in the text.
    """
    window = _TAIL
    while True:
        tail_start = max(start, end - window)
        tail_spans = [sp for sp in spans[bisect.bisect_left([sp.end for sp in spans], tail_start) :] if sp.start >= tail_start]
        items = [i for i in _items(text, tail_start, end, tail_spans) if not _NEGATED.search(text, max(0, i[0] - 8), i[0])]
        if tail_start == start or len(items) > _MAX_JOINED + 1:
            break
        window *= 4
    if not items:
        return None
    group = [items[-1]]
    for item in reversed(items[:-1]):
        if len(group) > _MAX_JOINED or not _is_item_gap(text[item[1] : group[-1][0]]):
            break
        group.append(item)
    return ", ".join(content for _, _, content in reversed(group))
