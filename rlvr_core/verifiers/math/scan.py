"""Linear-time scanners for LaTeX in model output: braces, `\\boxed` groups, math spans.

Shared by extraction (step 1) and comparison (step 2). Every function is one
left-to-right pass over tokens found by a regular expression whose
alternatives are fixed strings or single character classes, so nothing can
backtrack: 100,000 characters of adversarial input (unclosed `\\boxed{`,
nested braces, runs of backslashes or dollars) cost milliseconds.

What a "box" is: `\\boxed{...}`, `\\fbox{...}` or `\\framebox{...}` with balanced braces (`\\{`
and `\\}` are characters, not grouping), or the brace-less `\\boxed 5`. A box
that never closes is reported separately: the model meant to commit to an
answer and did not finish it, so nothing after it is read as a stated answer.

What a math span is: `$$...$$` and `\\[...\\]` (may span lines), `$...$` and
`\\(...\\)` (one line only, as Markdown renders them). A `$` that is not
closed on its line is a currency sign when a digit follows it or precedes it
("$1,234", "2,74 $"); otherwise it is a broken math opener, and everything
after it is unreadable as prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Tokens: a LaTeX command (letters), any other escaped character, or a brace.
_BRACE_TOKENS = re.compile(r"\\[A-Za-z]+|\\.|[{}]", re.DOTALL)
_BOX_COMMANDS = frozenset({"\\boxed", "\\fbox", "\\framebox"})
# `\\boxed` written with an escaped backslash (JSON-escaped output) is still a box.
_DOUBLED_BOX = re.compile(r"\\\\(?=(?:boxed|fbox|framebox)(?![A-Za-z]))")
_BARE_BOX_TOKEN = re.compile(r"[ \t]*([^\s$.,;{}\\]+)")
_CLOSERS = {"$$": "$$", "\\[": "\\]", "$": "$", "\\(": "\\)"}
_MATH_TOKENS = re.compile(r"\\\$|\$\$|\$|\\\[|\\\]|\\\(|\\\)|\n")


@dataclass(frozen=True)
class Box:
    """One top-level box: `text[start:end]` is the whole `\\boxed{...}`, `content` what is inside."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Span:
    """One math span: `text[start:end]` with delimiters, `content` without."""

    start: int
    end: int
    content: str


def undouble_box_backslashes(text: str) -> str:
    """`\\\\boxed{5}` (an escaped backslash, common in JSON-escaped output) -> `\\boxed{5}`; same length or shorter."""
    return _DOUBLED_BOX.sub(lambda _: "\\", text) if "\\\\" in text else text


def matching_braces(text: str) -> dict[int, int]:
    """Index of every `{` -> index of its matching `}`; unclosed `{` are absent. One pass."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for token in _BRACE_TOKENS.finditer(text):
        char = token.group()
        if char == "{":
            stack.append(token.start())
        elif char == "}" and stack:
            pairs[stack.pop()] = token.start()
    return pairs


def find_boxes(text: str) -> tuple[list[Box], int | None]:
    """(top-level closed boxes in order, start of the first unclosed box or None). One pass.

    A box inside another box is part of the outer box's content (comparison
    unwraps it); only outermost boxes are candidates for the final answer.
    """
    boxes: list[Box] = []
    stack: list[tuple[int, int | None]] = []  # (brace index, start of the box it opens or None)
    open_boxes = 0
    pending_box: int | None = None  # a box command whose `{` is the next brace token
    unclosed: int | None = None
    for token in _BRACE_TOKENS.finditer(text):
        word = token.group()
        if word in _BOX_COMMANDS:
            after = token.end()
            while after < len(text) and text[after] in " \t":
                after += 1
            if after < len(text) and text[after] == "{":
                pending_box = token.start()
            elif open_boxes == 0:
                bare = _BARE_BOX_TOKEN.match(text, token.end())
                if bare:
                    boxes.append(Box(token.start(), bare.end(), bare.group(1)))
            continue
        if word == "{":
            stack.append((token.start(), pending_box))
            if pending_box is not None:
                open_boxes += 1
            pending_box = None
        elif word == "}":
            pending_box = None
            if not stack:
                continue
            brace, box_start = stack.pop()
            if box_start is not None:
                open_boxes -= 1
                if open_boxes == 0:
                    boxes.append(Box(box_start, token.end(), text[brace + 1 : token.start()]))
        else:
            pending_box = None
    for brace, box_start in stack:
        if box_start is not None:
            unclosed = box_start if unclosed is None else min(unclosed, box_start)
            break
    return boxes, unclosed


def math_spans(text: str) -> tuple[list[Span], int | None]:
    """(closed math spans in order, start of the first broken math opener or None). One pass."""
    spans: list[Span] = []
    broken: int | None = None
    opener: str | None = None
    start = 0
    for token in _MATH_TOKENS.finditer(text):
        word = token.group()
        if word == "\\$":
            continue
        if opener is None:
            if word in ("$$", "\\[", "$", "\\("):
                opener, start = word, token.start()
            continue
        closer = _CLOSERS[opener]
        if word == closer or (opener == "$" and word == "$$"):
            inner_start = start + len(opener)
            spans.append(Span(start, token.end(), text[inner_start : token.start()]))
            opener = None
            if opener is None and word == "$$" and closer == "$":
                # "$x$$y$": the `$$` closed one span and opens the next
                opener, start = "$", token.start() + 1
        elif word == "\n" and opener in ("$", "\\("):
            if not _is_currency(text, start) or opener == "\\(":
                broken = start if broken is None else broken
            opener = None
    if opener is not None and not (opener == "$" and _is_currency(text, start)):
        broken = start if broken is None else broken
    return spans, broken


def _is_currency(text: str, dollar: int) -> bool:
    """A lone `$` next to a number ("$1,234", "2,74 $") is a currency sign, not math."""
    after = text[dollar + 1 : dollar + 2]
    before = text[max(0, dollar - 2) : dollar].rstrip(" ")
    return after.isascii() and after.isdigit() or (before[-1:].isascii() and before[-1:].isdigit())
