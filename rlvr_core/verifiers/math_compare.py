"""Step 2 of math verification: is the extracted answer the gold answer?

Cheapest test first, because most answers are decided without sympy:

1. normalised strings equal (spacing, `\\dfrac`, `\\left(`, `$`, `\\text{}`
   units, a leading `x =`, trailing `.`, `^\\circ`, `%`, thousands separators);
2. both are plain numbers (int, decimal, `a/b`, `\\frac{a}{b}`, percent):
   equal within a relative 1e-6 (so 3.14 vs 3.14159 is wrong); unequal numbers
   are final, no symbolic step;
3. both are tuples or intervals with the same brackets and length: compare
   element by element with these same rules;
4. otherwise math-verify's symbolic check (`verify(parse(gold), parse(pred))`),
   with its own timeout when called on a main thread; elsewhere the hard
   limit is the `VerifierPool` item timeout.

Normalisation only removes what changes no value; the gold keeps everything a
human would keep (`\\pi`, `\\sqrt`, interval brackets, signs).
"""

from __future__ import annotations

import re
import threading
from fractions import Fraction
from functools import lru_cache

_UNIT_WORDS = (
    r"(?:dollars?|cents?|units?|square|cubic|sq|feet|foot|ft|inches|inch|in|yards?|miles?|meters?|metres?|m|cm|mm|km|"
    r"kg|g|grams?|pounds?|lbs?|ounces?|oz|hours?|hrs?|minutes?|mins?|seconds?|secs?|s|days?|weeks?|months?|years?|"
    r"degrees?|liters?|litres?|l|ml|gallons?|mph|km/h|people|students|apples|points|percent|times|ways|pages|books)"
)
_TRAILING_UNITS = re.compile(rf"^(.*?\d)\s*(?:{_UNIT_WORDS}\b\.?\s*)+(?:\^?\{{?[23]\}}?)?$", re.IGNORECASE)
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mathrm|mbox|mathbf)\s*\{([^{}]*)\}")
_LEADING_VAR = re.compile(r"^[a-zA-Z](?:_\{?\w+\}?)?\s*=\s*(?=[^=])")
_THOUSANDS = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_FRAC = re.compile(r"^(-?)\\frac\{(-?\d+)\}\{(-?\d+)\}$")
_SIMPLE_FRAC = re.compile(r"^(-?)\\frac(\d)(\d)$")
_PLAIN = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e-?\d+)?$")
_SLASH = re.compile(r"^(-?\d+)/(-?\d+)$")
_REL_TOL = 1e-6


def normalize(answer: str) -> str:
    """A canonical spelling: same value, fewer ways to write it."""
    s = answer.strip()
    s = s.replace("\\$", "").replace("$", "")
    for token in ("\\left", "\\right", "\\!", "\\,", "\\;", "\\:", "~", "\\displaystyle"):
        s = s.replace(token, "")
    s = re.sub(r"(?<!\\)\\ ", " ", s)  # a LaTeX space, but not the row break "\\ "
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("{,}", ",")
    s = s.replace("^\\circ", "").replace("^{\\circ}", "").replace("\\circ", "").replace("°", "")
    s = s.replace("\\%", "").replace("%", "")
    s = s.replace("\\(", "").replace("\\)", "").replace("\\[", "").replace("\\]", "")
    s = re.sub(r"\\text\s*\{\s*\}", "", s)
    s = re.sub(r"\\(?:text|mbox|mathrm)\s*\{\s*(?:" + _UNIT_WORDS + r")\s*\}(?:\^\{?[23]\}?)?", "", s, flags=re.IGNORECASE)
    s = _TEXT_CMD.sub(r"\1", s)
    s = s.strip().rstrip(".").strip()
    s = _LEADING_VAR.sub("", s)
    units = _TRAILING_UNITS.match(s)
    if units:
        s = units.group(1)
    s = re.sub(r"(\\[a-zA-Z]+)\s+(?=[a-zA-Z])", "\\1\x00", s)  # "\pi r" must not become "\pir"
    s = re.sub(r"\s+", "", s).replace("\x00", " ")
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    return s


def as_number(s: str) -> Fraction | float | None:
    """The value of a normalised plain number, exact where possible; None if not a number."""
    try:
        if _PLAIN.match(s):
            return Fraction(s) if "e" not in s else float(s)
        match = _SLASH.match(s)
        if match:
            return Fraction(int(match.group(1)), int(match.group(2)))
        match = _FRAC.match(s) or _SIMPLE_FRAC.match(s)
        if match:
            value = Fraction(int(match.group(2)), int(match.group(3)))
            return -value if match.group(1) else value
    except (ValueError, ZeroDivisionError):
        return None
    return None


def numbers_equal(a: Fraction | float, b: Fraction | float) -> bool:
    if a == b:
        return True
    return abs(float(a) - float(b)) <= _REL_TOL * max(abs(float(a)), abs(float(b)))


def _split_top_level(s: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(s):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    return parts + [s[start:]]


def _as_sequence(s: str) -> tuple[str, list[str], str] | None:
    """(open bracket, items, close bracket) for tuples/intervals like (1,2] or bare lists 1,2."""
    if len(s) >= 2 and s[0] in "([" and s[-1] in ")]":
        inner = s[1:-1]
        depth = 0
        for char in inner:  # "(1)+(2)" is not one group
            depth += (char in "([{") - (char in ")]}")
            if depth < 0:
                return None
        items = _split_top_level(inner)
        return (s[0], items, s[-1]) if len(items) > 1 else None
    items = _split_top_level(s)
    return ("", items, "") if len(items) > 1 else None


def _symbolic_equal(gold: str, pred: str) -> bool:
    """math-verify's verdict; timeouts need the main thread (signal.alarm), so elsewhere none."""
    from math_verify import verify as mv_verify

    timeout = 5 if threading.current_thread() is threading.main_thread() else None
    gold_parsed, pred_parsed = _parse(gold, timeout), _parse(pred, timeout)
    if not gold_parsed or not pred_parsed:
        return False
    return bool(mv_verify(gold_parsed, pred_parsed, timeout_seconds=timeout))


@lru_cache(maxsize=4096)
def _parse(answer: str, timeout: int | None) -> list:
    """Parsed once per distinct answer: a GRPO group shares its gold across G completions."""
    from math_verify import parse

    return parse(f"${answer}$", parsing_timeout=timeout)


def compare(gold: str, pred: str) -> tuple[bool, str]:
    """(equal?, which rule decided) for a gold answer and an extracted prediction."""
    g, p = normalize(gold), normalize(pred)
    if not p:
        return False, "empty"
    if g == p:
        return True, "string"
    gn, pn = as_number(g), as_number(p)
    if gn is not None and pn is not None:
        return numbers_equal(gn, pn), "numeric"
    gs, ps = _as_sequence(g), _as_sequence(p)
    if gs and ps:
        if (gs[0], gs[2]) != (ps[0], ps[2]) and gs[0] and ps[0] or len(gs[1]) != len(ps[1]):
            return False, "structure"
        return all(compare(a, b)[0] for a, b in zip(gs[1], ps[1])), "elementwise"
    if gn is not None and re.fullmatch(r"-?[\d.,/]+", p):
        return False, "numeric"  # e.g. gold 1000, pred "1,00": a malformed number, never symbolic
    return _symbolic_equal(g, p), "symbolic"
