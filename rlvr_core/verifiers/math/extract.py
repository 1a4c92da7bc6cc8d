"""Step 1 of math verification: find the one final answer a completion commits to, or say why there is none.

Candidates, each anchored at a position in the text:

- `#### X` (GSM8K style; the rest of that line, without calculator
  annotations `<<9*2=18>>` and without a trailing explanation: "18 (because
  3*6=18)" is 18);
- `\\boxed{...}` / `\\fbox{...}` / `\\framebox{...}` (brace-matched; `\\boxed 5`
  too). Boxes that follow one another with only connectors between them (","
  "and" "or" `\\quad`, math delimiters, a short phrase ending in "and", or
  `y_2 =`) are one answer, a list: "\\boxed{-2} and \\boxed{1}" is "-2, 1". A
  percent or degree sign right after a box belongs to its answer;
- "Final Answer: ..." (Minerva; "The final answer is X. I hope it is
  correct.", or a sentence such as "The largest $n$ is 34.");
- "the answer is X" / "answer: X" / "Answer $X$".

Among `####`, boxes and "Final Answer:", the candidate anchored last wins:
models restate and correct themselves, and a final answer written after a box
("Final Answer: The final answer is $10,455$") is the one they ended on.
"the answer is X" is weaker and only counts when there is none of those
(after a box, "the answer: 3^2 = 9" is usually a check). An anchor counts only
when "answer" is followed by "is", ":", "=" or math.

Without any candidate, a completion that is nothing but an answer (one line of
math, or one word: "\\frac{\\sqrt3}{2}", "(x-2)(x+2)", "x \\in [-2, 7]", "Evelyn",
"C") is that answer, as a box would be. Otherwise the prose fallback reads
the last stated item (a math span such as `$x \\geq 5$`, or a number) in the
text, with these limits: a number glued to letters ("AZYUK2A", "3x", "x2") is
not a number unless the letters are a unit ("10m"), nor is one inside a LaTeX
argument ("x^{2}"; a bare `\\frac{1}{2}` is read whole); nothing after a math
opener that never closes ("$ \\n 9") is read. A completion with no item at all
that opens with a choice letter ("A. Because ...", "(B) ...") answers with it,
and so does one that states a single choice as right ("Because B is valid");
two choices stated as right are a hedge.

The answer found must then be one the model commits to (`math_commitment`):
not a partial box, not negated, not hedged. A `\\boxed{` that never closes,
after every other candidate, means the model did not finish its answer.
Reasoning inside `<think>...</think>` is ignored; a `<think>` still open at the
end means the model never answered. Each refusal is named (`Extraction.refusal`).

Every pass is linear in the length of the completion: scanners come from
`math_scan`, and every regular expression here either has no nested or
overlapping repetition or runs on a window of bounded length.
"""

from __future__ import annotations

import bisect
import re

from dataclasses import dataclass

from rlvr_core.verifiers.math.addressed import addressed_to_grader
from rlvr_core.verifiers.math.commitment import box_refusal, hedged_after, hedged_between, hedged_phrase, suffix_after
from rlvr_core.verifiers.math.masking import mask_code, own_turn
from rlvr_core.verifiers.math.qualifiers import qualified_after, qualified_before, struck_out
from rlvr_core.verifiers.math.scan import Box, Span, find_boxes, math_spans, undouble_box_backslashes
from rlvr_core.verifiers.math.tail import later_refusal
from rlvr_core.verifiers.math.units import SHORT_NAMES, UNIT_PHRASE
from rlvr_core.verifiers.reasoning import strip_think

_WINDOW = 500  # characters read after an "answer" anchor
_GAP = 80  # longest text between two boxes (or items) that can still join them
_TAIL = 4000  # characters of prose read first when looking for the last stated item
_MAX_JOINED = 65  # more joined items than any answer has (comparison refuses lists past 64 items)
_BARE_MAX = 300  # a completion longer than this is not an answer on its own

_INVISIBLE = str.maketrans("", "", "\u200b\u200c\u200d\u2060\ufeff")  # zero-width characters
_CALCULATOR = re.compile(r"<<[^<>\n]{0,200}>>")  # GSM8K calculator annotations: "<<9*2=18>>18"
# Where a `####` line's explanation starts: a parenthesis holding words, or the first prose word.
_EXPLANATION = re.compile(r"\s*\((?=[^()\n]{0,200}[A-Za-z]{2})|[\s,;:.]+(?=[A-Za-z]{2})")
_HEDGE_WORD = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably)\b|\?", re.IGNORECASE)

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
_NOT_PROSE = frozenset({"and", "or", "percent", "pct", "percentage", "pi", "sqrt", "sin", "cos", "tan", "log", "ln", "exp"})
_TEXT_CMD = re.compile(r"\\(?:text|textbf|textit|textnormal|mathrm|mbox)\s*\{([^{}]*)\}")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}")
_GAP_DROP = re.compile(r"\$|\\[()\[\]]|\\q?quad|\\[,;:! ]|~|\*\*")
_CONNECTORS = re.compile(r"[\s,;&]*(?:(?:and|or)\b[\s,;&]*)*")
_BOX_GAP_PHRASE = re.compile(r"[^\n]{0,40}\b(?:and|or)[\s,;]*")
_BOX_GAP_NAME = re.compile(r"[\s,;]*(?:(?:and|or)\s+)?[A-Za-z](?:_\{?[0-9A-Za-z]{1,3}\}?)?\s*=\s*")
_LEADING_CHOICE = re.compile(r"\s*(?:\*\*)?\(?([A-E])(?:\)|\.|:)")  # "A. Because ..." / "(B) ..." opens with its choice
# A choice stated as the right one, anywhere: "Because B is valid", "(C) is correct".
_CHOICE_STATEMENT = re.compile(
    r"(?<![A-Za-z])\(?([A-E])\)?\s+is\s+(?:(?:also|equally|likewise|clearly|definitely|certainly)\s+)?(?:the\s+)?"
    r"(?:correct|right|valid|best|true)(?:\s+(?:answer|choice|option|one))?\b"
)
_NEGATED = re.compile(r"(?:\bnot|n't|\\neq?)\s*\$?\s*$", re.IGNORECASE)
_ONE_WORD = re.compile(r"\(?[A-Za-z]+\)?")
_CHECK = re.compile(r"\b(?:check\w*|verif\w*|confirm\w*|plug\w*|substitut\w*|test\w*)\b", re.IGNORECASE)
_RELATION = re.compile(r"=|<|>|\\[lg]e|\\neq?")
# A physical unit after a prose number ("5 cm", "300 minutes"): kept with the number for `math_units`.
_SPACED_UNIT = re.compile(rf"[ \t]+({UNIT_PHRASE})", re.IGNORECASE)
_UNIT_END = re.compile(r"\s*(?:[.,;:!?)\]]|\$|\n|$)")


@dataclass(frozen=True)
class Extraction:
    """What a completion commits to: `answer` and the `rule` that found it, or no answer and `refusal`.

    Refusals: "no answer", "unclosed think", "unclosed box", and the reasons
    of `math_commitment` ("partial box: ...", "negated", "hedge").
    """

    answer: str | None
    rule: str = ""
    refusal: str = ""


@dataclass(frozen=True)
class _Candidate:
    anchor: int  # orders candidates: the last anchor wins
    start: int  # where the stated answer starts (negation is read before it)
    end: int  # where it ends (hedges and negations are read after it)
    answer: str
    rule: str
    refusal: str = ""


def last_boxed(text: str) -> str | None:
    """Content of the last closed `\\boxed{...}` or `\\fbox{...}` (or `\\boxed 5`); linear time."""
    boxes, _ = find_boxes(undouble_box_backslashes(text))
    return boxes[-1].content if boxes else None


def extract_answer(completion: str, trusted: bool = False) -> tuple[str, str] | None:
    """(answer text, rule name) or None when the completion commits to no answer (`extract` says why).

    Rule names: "####", "boxed", "final-answer", "answer-is", "bare", "prose", "choice".
    """
    found = extract(completion, trusted)
    return None if found.answer is None else (found.answer, found.rule)


def extract(completion: str, trusted: bool = False) -> Extraction:
    """The one final answer of a completion, or the reason there is none.

    `trusted` (a gold solution, not model output): the final answer is read by
    the same rules, without refusing hedges, negations or partial boxes.
    """
    text = strip_think(completion)
    if text is None:
        return Extraction(None, refusal="unclosed think: a <think> block never ends")
    text = text.translate(_INVISIBLE)
    if not trusted:
        addressed = addressed_to_grader(text)  # anywhere, the next turn's text included
        if addressed:
            return Extraction(None, refusal=f"addressed to the grader: {addressed[:60]!r}")
    text = mask_code(undouble_box_backslashes(own_turn(text)))
    boxes, unclosed_box = find_boxes(text)
    spans, broken = math_spans(text)
    candidates: list[_Candidate] = []

    found = _hash_candidate(text)
    if found is not None:
        candidates.append(found)
    if boxes:
        group = _joined_boxes(text, boxes)
        previous = boxes[-len(group) - 1] if len(boxes) > len(group) else None
        found = _box_candidate(text, group, previous, spans)
        if found is not None:
            candidates.append(found)
    found = _last_anchored(text, _FINAL_ANSWER, "final-answer")
    if found is not None:
        candidates.append(found)
    if not candidates:  # "the answer is X" is weaker: after a box it is usually a check, not the answer
        found = _last_anchored(text, _ANSWER, "answer-is")
        if found is not None:
            candidates.append(found)
    if candidates:
        final = max(candidates, key=lambda c: c.anchor)
        if unclosed_box is not None and unclosed_box > final.anchor:
            return Extraction(None, refusal="unclosed box: a later \\boxed{ never closes")
        if trusted:
            return Extraction(final.answer, final.rule)
        later = _last_anchored(text, _ANSWER, "answer-is")
        if later is not None and later.anchor >= final.end and not _is_check(text, later):
            final = later  # a later explicit answer statement is the last one the completion commits to
        return _committed(text, final, spans)
    if unclosed_box is not None:
        return Extraction(None, refusal="unclosed box: a \\boxed{ never closes")

    bare = None if boxes else _bare_answer(text)
    if bare is not None:
        return bare
    limit = len(text) if broken is None else broken
    found = _last_item(text, 0, limit, spans)
    if found is not None:
        return Extraction(found.answer, found.rule) if trusted else _committed(text, found, spans)
    choice = _LEADING_CHOICE.match(text)
    if choice:
        return Extraction(choice.group(1), "choice")
    stated = {m.group(1) for m in _CHOICE_STATEMENT.finditer(text)}
    if len(stated) == 1:
        return Extraction(stated.pop(), "choice")
    if stated:
        return Extraction(None, "choice", f"hedge: several choices are stated as right ({', '.join(sorted(stated))})")
    return Extraction(None, refusal="no answer: no box, answer statement or number")


def _committed(text: str, found: _Candidate, spans: list[Span]) -> Extraction:
    """The candidate as the answer, unless it is refused: qualified by the words around it (negated, a bound,
    disowned), a partial box, struck out, hedged, or taken back by the text after it (`math_tail`)."""
    reason = qualified_before(text, found.start) or qualified_after(text, found.end) or found.refusal
    if not reason and struck_out(found.answer):
        reason = f"negated: the answer {found.answer[:40]!r} is struck out"
    if not reason and hedged_after(text, found.end):
        reason = f"hedge: {found.answer[:40]!r} is asked, or followed by an alternative"
    if not reason:
        reason = later_refusal(text, found.end, found.answer, _items(text, found.end, len(text), spans))
    if reason:
        return Extraction(None, found.rule, reason[:300])
    return Extraction(found.answer, found.rule)


def _is_check(text: str, found: _Candidate) -> bool:
    """Whether an "answer" statement checks a computation ("let me double-check the answer: 3^2 = 9")."""
    sentence = _SENTENCE_END.split(text[max(0, found.anchor - _GAP) : found.anchor])[-1]
    return bool(_CHECK.search(sentence)) and bool(_RELATION.search(found.answer))


def _hash_candidate(text: str) -> _Candidate | None:
    """The last non-empty `#### X` line: X without calculator annotations and trailing explanations."""
    last = None
    for match in _HASHES.finditer(text):
        if match.group(1).strip():
            last = match
    if last is None:
        return None
    line = _CALCULATOR.sub("", last.group(1)[:_WINDOW]).strip()  # no answer line is longer than a window
    answer = line if _is_mathy(line) else _leading_answer(line)
    refusal = "hedge: the #### line offers alternatives" if _HEDGE_WORD.search(line) else ""
    if not answer:
        answer, refusal = line, refusal
    elif answer != line:  # the explanation after the value may hold its unit, or make it a bound or a negation
        unit = _unit_at(line, len(answer))
        if unit:
            answer += " " + unit.group(1)
        refusal = refusal or qualified_after(line, len(answer) if not unit else unit.end()) or ""
    return _Candidate(last.start(), last.start(1), last.end(), _strip_delimiters(answer), "####", refusal)


def _leading_answer(line: str) -> str | None:
    """The value a `####` line opens with, before an explanation: "18 (because 3*6=18)" -> "18"."""
    cut = _EXPLANATION.search(line)
    head = line[: cut.start()].rstrip() if cut else line
    return head if head.strip() and _is_mathy(head) else None


def _unit_at(text: str, position: int) -> re.Match[str] | None:
    """A physical unit written after a value at `position` ("5 cm", "300 minutes"); a short name ("m", "in")
    only where the clause ends after it."""
    unit = _SPACED_UNIT.match(text, position)
    if unit and unit.group(1).lower() in SHORT_NAMES and not _UNIT_END.match(text, unit.end()):
        return None
    return unit


def _box_candidate(text: str, group: list[Box], previous: Box | None, spans: list[Span]) -> _Candidate | None:
    """The joined boxes as one answer, each box's percent or degree sign and unit included, each box checked whole."""
    starts = [span.start for span in spans]
    parts = []
    end = group[-1].end
    for box in group:
        i = bisect.bisect_right(starts, box.start) - 1
        in_math = i >= 0 and spans[i].end > box.start
        refusal = box_refusal(text, box.start, box.end, in_math)
        if refusal:
            answer = ", ".join(b.content.strip() for b in group)
            return _Candidate(group[-1].start, group[0].start, group[-1].end, answer, "boxed", refusal)
        suffix, end = suffix_after(text, box.end)
        parts.append(box.content.strip() + suffix)
    answer = ", ".join(parts)
    if not answer.strip(", "):
        return None
    refusal = ""
    if previous is not None and hedged_between(text[previous.end : group[0].start][:_GAP]):
        refusal = f"hedge: {answer[:40]!r} is offered as an alternative to {previous.content[:20]!r}"
    return _Candidate(group[-1].start, group[0].start, end, answer, "boxed", refusal)


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


def _last_anchored(text: str, pattern: re.Pattern[str], rule: str) -> _Candidate | None:
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
        stated = _phrase(text[start : start + _WINDOW], final=rule == "final-answer")
        if stated is not None:
            answer, lead, end, refusal = stated
            return _Candidate(anchor.start(), start + lead, start + end, answer, rule, refusal)
    return None


def _phrase(window: str, final: bool) -> tuple[str, int, int, str] | None:
    """(answer, its start, the end of its sentence, refusal) stated at the start of `window`.

    The phrase runs to the end of its sentence and is reduced to its math; a
    phrase that hedges ("5 or maybe 7", "7?") is refused.
    """
    lead = _LEAD.match(window).end()
    window = window[lead:]
    spans, broken = math_spans(window)
    end = len(window) if broken is None else broken
    starts = [s.start for s in spans]
    for stop in _SENTENCE_END.finditer(window, 0, end):
        i = bisect.bisect_right(starts, stop.start()) - 1
        if i < 0 or spans[i].end <= stop.start():  # not inside a math span
            end = stop.start()
            break
    phrase = window[:end].strip().replace('\\"', '"').strip('"').strip("*").strip()
    if not phrase or phrase.lower().startswith(("not ", "n't")):
        return None
    spans = math_spans(phrase)[0]
    if hedged_phrase(phrase, len(_items(phrase, 0, len(phrase), spans))):
        return phrase, lead, lead + end, f"hedge: {phrase[:40]!r} offers alternatives or asks"
    if _is_mathy(phrase):
        return _strip_delimiters(phrase), lead, lead + end, ""
    if final:  # "The largest $n$ is 34."
        tail = list(_IS.finditer(phrase))
        if tail:
            phrase = phrase[tail[-1].end() :]
            if _is_mathy(phrase):
                return _strip_delimiters(phrase), lead, lead + end, ""
    else:
        phrase = _CLAUSE.split(phrase, maxsplit=1)[0]
    item = _last_item(phrase, 0, len(phrase), math_spans(phrase)[0])
    if item is not None:
        refusal = item.refusal or qualified_before(phrase, item.start) or qualified_after(phrase, item.end) or ""
        return item.answer, lead, lead + end, refusal
    if _ONE_WORD.fullmatch(phrase) and phrase.lstrip("(")[:1].isupper():  # "Evelyn", "(B)"; not "correct"
        return phrase, lead, lead + end, ""
    return None


def _is_mathy(phrase: str) -> bool:
    """No prose words outside `\\text{}` and LaTeX commands ("x = 5", "$\\frac12$", "A", "(3, 4)")."""
    plain = _ENVIRONMENT.sub(" ", _TEXT_CMD.sub(" ", phrase))
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
    taken_starts = [a for a, _, _ in found]  # fragments do not overlap: bisection finds the one a number may be in
    for match in _NUMBER.finditer(text, start, end):
        unit = match.group(1)
        if unit and unit.lower() not in _UNITS_AFTER_NUMBER:
            continue  # "3x", "2nd": not a stated number
        i = bisect.bisect_right(taken_starts, match.start()) - 1
        if text[match.end() : match.end() + 1] == "}" or (i >= 0 and found[i][1] > match.start()):
            continue  # inside a LaTeX argument: "x^{2}", "\\frac{1}{2}"
        number = match.group(0)[: len(match.group(0)) - len(unit)].strip()
        stop = match.end()
        if unit and unit.lower() not in SHORT_NAMES:
            number += " " + unit  # "10cm": the unit is kept for comparison
        elif not unit:
            spaced = _unit_at(text, match.end())
            if spaced and spaced.end() <= end:
                number, stop = f"{number} {spaced.group(1)}", spaced.end()
        found.append((match.start(), stop, number))
    return sorted(found)


def _last_item(text: str, start: int, end: int, spans: list[Span]) -> _Candidate | None:
    """The last item in text[start:end], joined with the items before it that only connectors separate.

    An item stated as negated ("is not 5", "isn't 5", "\\ne 5") is not an answer. An item offered
    as an alternative to the one before it ("5 or maybe 7", "5? 6? 7?") is a hedge. Only a tail
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
    previous = None
    for item in reversed(items[:-1]):
        if len(group) > _MAX_JOINED or not _is_item_gap(text[item[1] : group[-1][0]]):
            previous = item
            break
        group.append(item)
    group.reverse()
    answer = ", ".join(content for _, _, content in group)
    refusal = ""
    if previous is not None and hedged_between(text[previous[1] : group[0][0]][:_GAP]):
        refusal = f"hedge: {answer[:40]!r} is offered as an alternative to {previous[2][:20]!r}"
    return _Candidate(group[0][0], group[0][0], group[-1][1], answer, "prose", refusal)


def _bare_answer(text: str) -> Extraction | None:
    """The whole completion as the answer when it is nothing but one ("\\frac{\\sqrt3}{2}", "(1, 2]", "Evelyn")."""
    core = text.strip().strip("*").strip()
    if not core or len(core) > _BARE_MAX:
        return None
    spans, broken = math_spans(core)
    if broken is not None:
        return None
    outside = core
    for span in reversed(spans):
        outside = outside[: span.start] + " " + outside[span.end :]
    if "\n" in outside.strip():
        return None  # several lines of prose or working: not an answer on its own
    if _is_mathy(core):
        answer = _strip_delimiters(core)
    elif _ONE_WORD.fullmatch(core.rstrip(".")):
        answer = core.rstrip(".")
    else:
        return None
    if "?" in answer:
        return Extraction(None, "bare", f"hedge: {answer[:40]!r} is a question")
    return Extraction(answer, "bare") if answer.strip() else None
