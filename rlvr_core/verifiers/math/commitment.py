"""Step 1b of math verification: is the answer found the one answer the model commits to?

The policy is an adversary, and a grader that reads "the last box" or "the
last number" pays for answers the model never gave. A found answer is
refused, with the reason as its name, when:

- "partial box": the box is only part of the expression it stands in
  (`$-\\boxed{5}$`, `$\\sqrt{\\boxed{4}}$`, `$\\boxed{12}\\sqrt{3}$`,
  `$\\boxed{5}^{-1}$`, `$2\\boxed{5}$`), or a multiplier, a power or more
  digits attached to it make its value (`\\boxed{5}\\text{ thousand}`,
  `\\boxed{5},000`, `\\boxed{5} k`, `\\boxed{5} \\times 10^3`, `\\boxed{5}e3`,
  "\\boxed{5} to the power of 2", "three times \\boxed{5}"). A box may
  stand after `=`, an arrow, a colon or a comma, or in prose; units, a
  percent or a degree sign may follow it (they become part of the answer:
  the percent and degree signs as its value, a physical unit for
  `math_units` to compare);
- "hedge": the answer is a question ("7?") or comes with an alternative
  ("5 or maybe 7", "\\boxed{5}. Or perhaps 6", "5, possibly 7").

Negations, bounds and disowning words around the answer are
`math_qualifiers`; what the text after it says is `math_tail`.

Several values joined only by "and", "or" and commas are not refused here:
they are a list, and a list never equals a single gold ("several answers").

Every check reads a window of bounded length around the answer, so the cost
does not grow with the completion.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.math.units import SHORT_NAMES, UNIT_PHRASE

_WINDOW = 60
_HEDGE_WINDOW = 200
# Spacing that separates nothing: whitespace, LaTeX spacing commands, style switches, markdown bold.
_SPACING_TAIL = re.compile(r"(?:\s|~|\\[,;:! ]|\\q?quad|\\(?:displaystyle|textstyle|left|right|big|Big)(?![A-Za-z])|\*\*)+$")
_SPACING_HEAD = re.compile(r"(?:[ \t~]|\\[,;:! ]|\\q?quad|\\(?:right|big|Big)(?![A-Za-z])|\*\*)+")
# Commands after which a box is a whole expression: relations, arrows, "therefore", spacing.
_SAFE_COMMANDS = frozenset(
    "le leq ge geq lt gt approx equiv sim simeq cong to implies Rightarrow rightarrow Longrightarrow longrightarrow "
    "iff Leftrightarrow therefore because quad qquad displaystyle textstyle hline newline in subset subseteq pmod bmod mod "
    "n".split()  # `\\n`: a newline in JSON-escaped output
)
_TEXT_COMMANDS = frozenset("text textbf textit textrm textnormal mathrm mbox".split())
_BOX_COMMANDS = frozenset(("boxed", "fbox", "framebox"))
_COMMAND_TAIL = re.compile(r"\\([A-Za-z]+)$")
_COMMAND_HEAD = re.compile(r"\\([A-Za-z]+)")
# What may follow a box and becomes part of its answer: a percent or a degree sign (or the word percent).
_SUFFIX = re.compile(
    r"[ \t]*(\\?%|\^\s*\{?\s*\\circ\s*\}?|\\circ(?![A-Za-z])|\\degree(?![A-Za-z])|\u00b0|per\s?cent(?![A-Za-z]))", re.IGNORECASE
)
# A physical unit after a box (and its closing math delimiter), which `math_units` compares against a gold's unit.
_UNIT_SUFFIX = re.compile(
    rf"(?:[ \t~]|\\[,;:! ])*(?:\$+|\\\))?(?:[ \t~]|\\[,;:! ])*"
    rf"(?:\\(?:text|mathrm|mbox|textrm|textnormal)\s*\{{\s*~?\s*({UNIT_PHRASE})\s*\}}(\s*\^\s*\{{?\s*[23]\s*\}}?)?"
    rf"|({UNIT_PHRASE}))",
    re.IGNORECASE,
)
_UNIT_END = re.compile(r"\s*(?:[.,;:!?)\]]|\$|\n|$)")
# A multiplier or more digits attached after a box make its value: "\\boxed{5}\\text{ thousand}", "\\boxed{5},000".
_MULTIPLIER_AFTER = re.compile(
    r"(?:[ \t~]|\\[,;:! ]|\\q?quad(?![A-Za-z]))*(?:\$+|\\\))?(?:[ \t~]|\\[,;:! ])*(?:"
    r"(?:\\(?:text|mathrm|mbox|textrm|textnormal|operatorname)\s*\{\s*)?(?:thousands?|millions?|billions?|trillions?|"
    r"hundreds?|dozens?|lakhs?|crores?|k|K|M|bn|mn|grand(?!\s+total)|per\s+mille|permille|basis\s+points?|bps|ppm"
    r"|ppb)(?![A-Za-z])"
    r"|(?:,|'|\u2019|\\!\s*|\{,\})[0-9]{3}(?![0-9])|,[ \t]*0[0-9]{2}(?![0-9])"
    r"|(?:x|X|\*|\u00d7|\\times|\\cdot)\s*\{?\s*10\b|[eE][+-]?[0-9]"
    r"|\(?\s*(?:in\s+)?(?:thousands|millions|billions|trillions|hundreds|tens|dozens|lakhs|crores)\b)"
)
# Words that make a boxed number part of a larger value: "minus \\boxed{5}", "\\boxed{5} thousand", "\\boxed{5} times 2".
_WORD_BEFORE = re.compile(
    r"\b(?:minus|negative|plus|times|over|root|of|twice|thrice|double|triple|quadruple|half|reciprocal|inverse)$", re.IGNORECASE
)
_NUMBER_WORD = r"(?:a\s+|one\s+)?(?:ten|hundred|thousand|million|billion|two|three|four|five|six|seven|eight|nine|half|third|quarter|dozen)\b"
_WORD_AFTER = re.compile(
    r"(?:squared|cubed|factorial|thousands?|millions?|billions?|trillions?|hundreds?|dozens?)\b"
    r"|(?:times|plus|minus|over|divided\s+by|multiplied\s+by|to\s+the(?:\s+power(?:\s+of)?)?"
    r"|raised\s+to(?:\s+the(?:\s+power(?:\s+of)?)?)?"
    rf"|more\s+than|less\s+than|of)\s+(?:\$|\\\(|-?[0-9]|\\boxed|{_NUMBER_WORD})"
    r"|to\s+the\s+power|raised\s+to",
    re.IGNORECASE,
)
_UNIT_WORD = re.compile(
    r"(?:cm|mm|km|m|kg|g|mg|s|ms|h|hr|hrs|min|ml|l|ft|in|mi|lb|lbs|oz|units?|dollars?|cents?|degrees?|meters?|"
    r"square|cubic|inches|feet|miles|hours?|minutes?|seconds?|days?|years?)(?![A-Za-z])"
)
_QUESTION_AFTER = re.compile(r"\s*(?:\$+|\\\)|\\\])?\s*\(?\s*\?")
# An alternative offered after the answer: a hedge word, then (a few words at most, then) another value.
# "or" only right after the answer ("\\boxed{5} or 7", "5. Or 7"); the others anywhere in its paragraph.
_HEDGE_WORDS = r"(?:or\s+(?:maybe|perhaps|possibly|else|rather)|maybe|perhaps|possibly|alternatively|(?:could|might)\s+(?:also\s+)?be)"
_ITEM_START = r"(?:\$+|\\\(|\\\[)?\s*(?:\\boxed|\\frac|\\dfrac|\\tfrac|\\sqrt|\\pi|-?\.?[0-9]|[A-Za-z]\s*=)"
_FILLER = r"[\s,:]*(?:(?:it\s+is|it's|the\s+answer\s+is|even|also|just)\s+)?"
_OR_AFTER = re.compile(rf"[\s,;.:)(*$\\\]]*or\b{_FILLER}{_ITEM_START}", re.IGNORECASE)
_ALTERNATIVE = re.compile(rf"\b{_HEDGE_WORDS}\b{_FILLER}{_ITEM_START}", re.IGNORECASE)
_HEDGE_BETWEEN = re.compile(
    r"\b(?:or|maybe|perhaps|possibly|possible|probably|also|alternatively|alternative|another|otherwise)\b|\?", re.IGNORECASE
)
_HEDGE_IN_PHRASE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|alternatively|or\s+else|not\s+sure)\b|\?", re.IGNORECASE)


def box_refusal(text: str, start: int, end: int, in_math: bool) -> str | None:
    """Why the box at text[start:end] is not a whole expression ("partial box: ..."), or None."""
    start, end = _unwrap(text, start, end)
    before = _SPACING_TAIL.sub("", text[max(0, start - _WINDOW) : start])
    spaced = len(before) < min(start, _WINDOW)  # something was stripped between the box and what precedes it
    left = _left_problem(before, spaced, in_math, text, start)
    if left:
        return f"partial box: {left} before it"
    suffix = _SUFFIX.match(text, end)
    after_start = suffix.end() if suffix else end
    multiplier = _MULTIPLIER_AFTER.match(text, after_start, after_start + _WINDOW)
    if multiplier:
        return f"partial box: {multiplier.group(0).strip()!r} after it makes its value"
    after = text[after_start : after_start + _WINDOW]
    right = _right_problem(after, in_math)
    return f"partial box: {right} after it" if right else None


def suffix_after(text: str, end: int) -> tuple[str, int]:
    """(what follows a box and belongs to its answer, where that ends): a percent or degree sign, a physical unit.

    `\\boxed{50}\\%` is 50%, `$\\boxed{5}$ cm` is 5 cm. A short unit name ("m", "in") counts only
    where the clause ends after it ("\\boxed{5} in total" holds no unit).
    """
    shown = ""
    suffix = _SUFFIX.match(text, end)
    if suffix:
        shown, end = suffix.group(1), suffix.end()
    unit = _UNIT_SUFFIX.match(text, end, end + _WINDOW)
    if unit:
        name = unit.group(1) or unit.group(3)
        if unit.group(1) or name.lower() not in SHORT_NAMES or _UNIT_END.match(text, unit.end()):
            shown += f" \\text{{{name}}}{(unit.group(2) or '').strip()}"
            end = unit.end()
    return shown, end


def hedged_after(text: str, end: int) -> bool:
    """Whether the answer ending at `end` is asked rather than stated ("7?"), or followed by an alternative."""
    if _QUESTION_AFTER.match(text, end, end + _WINDOW) or _OR_AFTER.match(text, end, end + _WINDOW):
        return True
    paragraph = text[end : end + _HEDGE_WINDOW].split("\n\n", 1)[0]
    return bool(_ALTERNATIVE.search(paragraph))


def hedged_between(gap: str) -> bool:
    """Whether the text between two stated values offers the later one as an alternative ("5 or maybe 7")."""
    return bool(_HEDGE_BETWEEN.search(gap))


def hedged_phrase(phrase: str, items: int) -> bool:
    """Whether an answer phrase hedges: a question mark, or a hedge word among several values."""
    found = _HEDGE_IN_PHRASE.search(phrase)
    return bool(found) and (found.group(0) == "?" or items > 1)


def _unwrap(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a box to the brackets or bare braces that hold only it: `(\\boxed{5})`, `{\\boxed{5}}`."""
    for _ in range(4):
        left = _SPACING_TAIL.sub("", text[max(0, start - _WINDOW) : start])
        head = _SPACING_HEAD.match(text, end)
        right_at = head.end() if head else end
        opener, closer = left[-1:], text[right_at : right_at + 1]
        if (opener, closer) not in (("(", ")"), ("{", "}"), ("[", "]")):
            break
        if opener == "{" and (left[-2:-1].isalnum() or left[-2:-1] in ("^", "_", "}") or _COMMAND_TAIL.search(left[:-1])):
            break  # the argument of a command or a script (`\sqrt{\boxed{4}}`, `2^{\boxed{3}}`): not a bare group
        start, end = start - (len(text[max(0, start - _WINDOW) : start]) - len(left)) - 1, right_at + 1
    return start, end


def _left_problem(before: str, spaced: bool, in_math: bool, text: str, start: int) -> str | None:
    if not before:
        return None
    last = before[-1]
    command = _COMMAND_TAIL.search(before)
    if command:
        name = command.group(1)
        return None if name in _SAFE_COMMANDS else f"\\{name}"
    if before.endswith("\\$"):
        return None  # an escaped dollar: a currency sign
    if (last == "$" or before.endswith("\\)")) and not spaced and not in_math:
        return _left_problem(before.rstrip("$")[:-1] if last != "$" else before.rstrip("$"), False, True, text, start)
    if last in "=:,;&<>$" or before.endswith(("\\(", "\\[", "\\\\", "\n")):
        return None
    if last == "}":
        return None if _closes_group_of(before, _TEXT_COMMANDS | _BOX_COMMANDS) else "a closing brace"
    if last.isalpha():
        word = _WORD_BEFORE.search(before)
        if word:
            return f"the word {word.group(0)!r}"
        return None if spaced and not in_math else f"{last!r}"
    if last.isdigit():
        return f"{last!r}"
    if last in ".!?)(\"'#*|[":
        return None if not in_math else f"{last!r}"
    if last == "-" and not in_math and (len(before) == 1 or before[-2] == "\n") and spaced:
        return None  # a markdown bullet
    return f"{last!r}"


def _right_problem(after: str, in_math: bool) -> str | None:
    head = _SPACING_HEAD.match(after)
    spaced = bool(head)
    after = after[head.end() :] if head else after
    if not after:
        return None
    first = after[0]
    command = _COMMAND_HEAD.match(after)
    if command:
        name = command.group(1)
        if name in _SAFE_COMMANDS or name in _TEXT_COMMANDS or name in _BOX_COMMANDS or name == "end":
            return None
        if after.startswith(("\\)", "\\]", "\\\\")):
            return None
        return f"\\{name}"
    if after.startswith(("\\)", "\\]", "\\\\", "\\,")) or first in "\n$=<>&,;:":
        return None
    if first == ".":
        return "a digit" if after[1:2].isdigit() else None
    if first == "!" and not in_math:
        return None
    if first.isalpha():
        word = _WORD_AFTER.match(after)
        if word and (spaced or in_math):
            return f"the word {word.group(0).split()[0]!r}"
        if _UNIT_WORD.match(after) or (spaced and not in_math):
            return None
        return f"{first!r}"
    if first in "\"')*?|":
        return None if not in_math or first == "?" else f"{first!r}"
    if first in "([" and spaced and not in_math:
        return None  # a parenthesis in prose
    if first in "-\u2013\u2014" and spaced and not in_math:
        return None  # a dash in prose
    return f"{first!r}"


def _closes_group_of(before: str, commands: frozenset[str]) -> bool:
    """Whether `before` ends with a whole group of one of `commands` (`\\text{...}`, an adjacent `\\boxed{...}`)."""
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        char = before[i]
        if char == "}":
            depth += 1
        elif char == "{":
            depth -= 1
            if depth == 0:
                command = _COMMAND_TAIL.search(before[:i].rstrip())
                return bool(command) and command.group(1) in commands
    return False
