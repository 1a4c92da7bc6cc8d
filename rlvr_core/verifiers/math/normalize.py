"""Step 2a of math verification: one canonical spelling for an answer string.

Normalisation only removes what changes no value: math delimiters, `\\left`
and `\\right`, spacing commands, `\\dfrac`, `\\text{}` wrappers, formatting
macros (`\\color`, `\\textcolor`, `\\cancel`, `\\framebox`, `\\bm`), zero-width
characters, units and unit words after a number, a trailing period, thousands
separators ("1,234", "1{,}234", "1,\\! 234", "1 234"), and it spells relations
one way (`\\geq`, `>=`, "≥" -> `\\ge`). It keeps everything a reader would
keep: signs, `\\pi`, `\\sqrt`, brackets, the `x =` of an equation.

Some spellings are rewritten to the value they denote: a unicode vulgar
fraction ("½", "2½"), a mixed number with a space ("2 1/2", only a proper
fraction), a repeating decimal (`0.\\overline{3}`, `0.1\\dot{6}`, and
`0.333\\ldots` when its digits visibly repeat; `3.14159\\ldots` is left
unreadable), and Python's `**` power.

Percent is kept, as a trailing `%` (the words percent, pct and percentage
too), because `50%` is 1/2: comparison decides what it means. A degree sign is
dropped after a plain angle (`30^\\circ` is 30), but kept where the angle holds
`\\pi` (`\\pi^\\circ` is not `\\pi`: degrees are not radians).

A thousands separator needs exactly three digits and no space after the
comma: "32,349" is a number, "32, 349" is a list of two. "and"/"or" between
items become commas ("6 and 8" -> "6,8").

Every substitution is a regular expression without nested or overlapping
repetition (linear time); comparison also refuses answers longer than
`MAX_ANSWER_CHARS` before they get here.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rlvr_core.verifiers.math.scan import matching_braces

MAX_ANSWER_CHARS = 2000

_UNICODE = str.maketrans({
    "\u2212": "-", "\u2013": "-", "\u00d7": "\\times ", "\u00b7": "\\cdot ", "\u00f7": "\\div ",
    "\u2264": "\\le ", "\u2265": "\\ge ", "\u2260": "\\ne ", "\u03c0": "\\pi ", "\u221e": "\\infty ",
    "\u221a": "\\sqrt", "\u222a": "\\cup ", "\u2208": "\\in ", "\u00b1": "\\pm ", "\u2248": "\\approx ",
    "\u22c5": "\\cdot ", "\u2217": "*", "\u2229": "\\cap ", "\u2213": "\\mp ", "\u00b0": "^\\circ ", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2044": "/",
    "\u20ac": "", "\u00a3": "", "\u00a5": "", "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
    "\u00bd": "\\frac{1}{2}", "\u2153": "\\frac{1}{3}", "\u2154": "\\frac{2}{3}", "\u00bc": "\\frac{1}{4}",
    "\u00be": "\\frac{3}{4}", "\u2155": "\\frac{1}{5}", "\u2156": "\\frac{2}{5}", "\u2157": "\\frac{3}{5}",
    "\u2158": "\\frac{4}{5}", "\u2159": "\\frac{1}{6}", "\u215a": "\\frac{5}{6}", "\u2150": "\\frac{1}{7}",
    "\u215b": "\\frac{1}{8}", "\u215c": "\\frac{3}{8}", "\u215d": "\\frac{5}{8}", "\u215e": "\\frac{7}{8}",
    "\u2151": "\\frac{1}{9}", "\u2152": "\\frac{1}{10}",
})
_KNOWN_COMMANDS = (
    "frac|dfrac|tfrac|cfrac|sqrt|left|right|boxed|fbox|text|textbf|mathrm|mbox|pi|infty|cdot|times|le|ge|leq|geq|"
    "neq|ne|in|cup|cap|pm|mp|circ|quad|qquad|begin|end|sin|cos|tan|log|ln|exp|theta|alpha|beta|gamma|"
    "overrightarrow|mathbf|dots|ldots|cdots|angle|lt|gt|approx|div|color|textcolor|cancel|framebox|overline"
)
_DOUBLED = re.compile(rf"(?<!\\)\\\\(?=(?:{_KNOWN_COMMANDS})(?![A-Za-z]))")
_DELIMITERS = re.compile(r"\\\$|\$|\\[()\[\]]")
_SIZING = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg)(?![A-Za-z])\s*\.?|\\(?:displaystyle|textstyle)(?![A-Za-z])")
_LATEX_THOUSANDS = re.compile(r"(?<=[0-9])\s*(?:\{\s*,\s*\}|,\\!)\s*(?=[0-9]{3}(?![0-9]))")
_SPACING = re.compile(r"\\q?quad|\\[,;:! ]|~")
_ROW_BREAK = re.compile(r"\\\\")
_SCRIPT_TOKEN = re.compile(r"([_^])([0-9A-Za-z])(?=\s+[0-9A-Za-z\\])")  # "\log_2 8": the subscript is one token
_FRAC_VARIANT = re.compile(r"\\[dtc]frac(?![A-Za-z])")
_FRAC_TWO_DIGITS = re.compile(r"\\frac\s*([0-9A-Za-z])\s*([0-9A-Za-z])")  # "\frac12", "\frac1y"
_FRAC_DIGIT_BRACE = re.compile(r"\\frac\s*([0-9])\s*\{")
_FRAC_BRACE_TOKEN = re.compile(r"\\frac\s*\{([^{}]*)\}\s*([0-9A-Za-z])")
_SQRT_TOKEN = re.compile(r"\\sqrt\s*([0-9]+|[A-Za-z])")
_UNIT_WORDS = (
    r"dollars?|cents?|units?|square|cubic|sq|feet|foot|ft|inches|inch|in|yards?|miles?|meters?|metres?|m|cm|mm|km|"
    r"kg|g|grams?|pounds?|lbs?|ounces?|oz|hours?|hrs?|minutes?|mins?|seconds?|secs?|s|days?|weeks?|months?|years?|"
    r"degrees?|liters?|litres?|l|ml|gallons?|mph|yuan|euros?|people|students|apples|points|"
    r"times|ways|pages|books|(?:cm|m|km|mm|ft|in)\^?\{?[23]\}?"
)
_TEXT_UNIT = re.compile(
    rf"\\(?:text|mbox|mathrm|textnormal|textbf|textit)\s*\{{\s*(?:{_UNIT_WORDS})\s*\}}(?:\^\s*\{{?[23]\}}?)?", re.IGNORECASE
)
_TEXT_WRAP = re.compile(r"\\(?:text|textbf|textit|textnormal|textsf|mathrm|mathbf|mathit|mathsf|mbox|operatorname)\s*\{([^{}]*)\}")
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox|framebox)(?![A-Za-z])")
# Formatting that changes no value: a colour spec, a strike-through, bold symbols, invisible boxes.
_COLOR_SPEC = re.compile(r"\\color\s*\{[^{}]*\}|\\textcolor\s*\{[^{}]*\}")
_FORMAT_WRAP = re.compile(r"\\(?:cancel|bcancel|xcancel|bm|boldsymbol|underline|emph|hbox)\s*\{([^{}]*)\}")
_INVISIBLE = re.compile(r"\\(?:phantom|hphantom|vphantom|label|tag)\s*\{[^{}]*\}|\\(?:nonumber|notag)(?![A-Za-z])")
_DEGREES = re.compile(r"\^\s*(?:\{\s*)?\\circ\s*\}?|\\circ(?![A-Za-z])|\\degree(?![A-Za-z])")
_DEGREE_WORD = re.compile(
    r"\\(?:text|mbox|mathrm|textnormal)\s*\{\s*degrees?\s*\}|(?<![A-Za-z\\])degrees?(?![A-Za-z])", re.IGNORECASE
)
_PERCENT_WORD = re.compile(
    r"\\(?:text|mbox|mathrm|textnormal|textbf|textit)\s*\{\s*(?:percent|percentage|pct|\\%)\s*\}"
    r"|(?<![A-Za-z\\])(?:percent|percentage|pct)(?![A-Za-z])",
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\\?%")
_POWER = re.compile(r"\*\*")
_NEGATIVE_EXPONENT = re.compile(r"\^\s*-\s*([0-9]+|[A-Za-z])")  # "10^-2" -> "10^{-2}"
# Plain-text function names and constants ("2pi", "sqrt(2)", "sin x"): the LaTeX command they mean.
_PLAIN_FUNCTION = re.compile(r"(?<![A-Za-z\\])(sqrt|sin|cos|tan|cot|sec|csc|log|ln|exp|pi)(?![A-Za-z])")
_SQRT_PARENTHESES = re.compile(r"\\sqrt\s*\(([^()]*)\)")
# "2 1/2": a whole number, a space, a proper fraction (checked in `_mixed`).
_SPACED_MIXED = re.compile(r"(?<![0-9.,/])([0-9]+) ([0-9]+)/([0-9]+)(?![0-9./])")
_OVERLINE = re.compile(r"(-?)([0-9]*)\.([0-9]*)\\(?:overline|dot)\s*\{?([0-9]+)\}?")
_ELLIPSIS_DECIMAL = re.compile(r"(-?)([0-9]*)\.([0-9]+)\s*(?:\\[lc]?dots(?![A-Za-z])|\.\.\.|\u2026)")
_RELATIONS = (
    (re.compile(r"\\geqslant(?![A-Za-z])|\\geq(?![A-Za-z])|>="), r" \\ge "),
    (re.compile(r"\\leqslant(?![A-Za-z])|\\leq(?![A-Za-z])|<="), r" \\le "),
    (re.compile(r"\\neq(?![A-Za-z])|!="), r" \\ne "),
    (re.compile(r"\\lt(?![A-Za-z])"), "<"),
    (re.compile(r"\\gt(?![A-Za-z])"), ">"),
    (re.compile(r"\\infin(?:ity)?(?![A-Za-z])"), r"\\infty "),
)
_PLUS_INFINITY = re.compile(r"(?:^|(?<=[(\[,]))\s*\+\s*(?=\\infty)")
_MATRIX_BEGIN = re.compile(r"\\begin\s*\{(?:bmatrix|Bmatrix|matrix|smallmatrix)\}|\\begin\s*\{array\}\s*\{[^{}]*\}")
_MATRIX_END = re.compile(r"\\end\s*\{(?:bmatrix|Bmatrix|matrix|smallmatrix|array)\}")
_TRAILING_ROW_BREAK = re.compile(r"\\\\\s*\\end\{pmatrix\}")
_BRACKETED_MATRIX = re.compile(r"\[\s*(\\begin\{pmatrix\}.*\\end\{pmatrix\})\s*\]", re.DOTALL)
_CONNECTOR = re.compile(r"(?<![\s,])(?:\s*,\s*|\s+)(?:and|or)\s+|(?<=[)\]}])\s*(?:and|or)\s*(?=[(\[{\\])")
_COMMA_THOUSANDS = re.compile(r"(?<![0-9.,(\[{])(-?[1-9][0-9]{0,2})((?:,[0-9]{3})+)(?![0-9]|,[0-9])")
_SPACE_THOUSANDS = re.compile(r"(?<![0-9.])-?[1-9][0-9]{0,2}(?: [0-9]{3})+(?![0-9])")
_DIGIT_SPACE_DIGIT = re.compile(r"(?<=[0-9])\s+(?=[0-9])")
_COMMAND_THEN_LETTER = re.compile(r"(\\[a-zA-Z]+)\s+(?=[a-zA-Z])")
_WHITESPACE = re.compile(r"\s+")
_UNIT_TOKEN = re.compile(rf"(?:{_UNIT_WORDS})\.?", re.IGNORECASE)
_CHOICE = re.compile(r"\(([A-E])\)")


_SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a"
_SUBSCRIPTS = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
_SCRIPT_DIGITS = str.maketrans(_SUPERSCRIPTS + _SUBSCRIPTS, "0123456789-+" + "0123456789")
_SUPERSCRIPT_RUN = re.compile(f"[{_SUPERSCRIPTS}]+")
_SUBSCRIPT_RUN = re.compile(f"[{_SUBSCRIPTS}]+")


@lru_cache(maxsize=16384)
def normalize(answer: str) -> str:
    """A canonical spelling of `answer`: same value, fewer ways to write it (cached: a GRPO group shares its gold)."""
    s = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + m.group(0).translate(_SCRIPT_DIGITS) + "}", answer)  # "x⁻¹" -> "x^{-1}"
    s = _SUBSCRIPT_RUN.sub(lambda m: "_{" + m.group(0).translate(_SCRIPT_DIGITS) + "}", s)
    s = s.translate(_UNICODE).strip()
    if "\\\\" in s:
        s = _DOUBLED.sub(lambda _: "\\", s)
    if "\\" in s:
        s = _INVISIBLE.sub(" ", _COLOR_SPEC.sub(" ", s))
        s = _FORMAT_WRAP.sub(r" \1 ", s)
        s = _OVERLINE.sub(_repeating, s)
    s = _ELLIPSIS_DECIMAL.sub(_repeating, s)
    s = _POWER.sub("^", s)
    s = _NEGATIVE_EXPONENT.sub(r"^{-\1}", s)
    s = _WHITESPACE.sub(" ", _DELIMITERS.sub(" ", s))  # one space per run: no `\s*` below scans far
    s = _SIZING.sub("", s)
    s = _LATEX_THOUSANDS.sub(",", s)
    s = _ROW_BREAK.sub("\x01", s)  # a matrix row break `\\` must survive the removal of `\ `
    s = _SPACING.sub(" ", s)
    s = s.replace("\x01", "\\\\")
    s = _SCRIPT_TOKEN.sub(r"\1{\2}", s)
    s = _FRAC_VARIANT.sub(r"\\frac", s)
    s = _FRAC_TWO_DIGITS.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_DIGIT_BRACE.sub(r"\\frac{\1}{", s)
    s = _FRAC_BRACE_TOKEN.sub(r"\\frac{\1}{\2}", s)
    s = _SQRT_TOKEN.sub(r"\\sqrt{\1}", s)
    s = _PERCENT_WORD.sub("%", s)
    s = _DEGREE_WORD.sub(r"^\\circ ", s)  # "30 degrees" is 30; "\pi/4 degrees" is not \pi/4
    s = _TEXT_UNIT.sub(" ", s)
    for _ in range(3):  # \text{\textbf{x}}: a bounded number of passes
        unwrapped = _TEXT_WRAP.sub(r" \1 ", s)
        if unwrapped == s:
            break
        s = unwrapped
    s = _BOX_COMMAND.sub("", s)
    s = _SQRT_PARENTHESES.sub(r"\\sqrt{\1}", _PLAIN_FUNCTION.sub(r"\\\1", s))
    # a plain angle keeps its number; an angle holding pi is converted, since degrees are not radians
    s = _DEGREES.sub(r"\\cdot\\frac{\\pi}{180}" if "\\pi" in s else "", s)
    s = _PERCENT.sub("%", s)
    for pattern, replacement in _RELATIONS:
        s = pattern.sub(replacement, s)
    s = _PLUS_INFINITY.sub("", s)
    s = _MATRIX_BEGIN.sub(r"\\begin{pmatrix}", s)
    s = _MATRIX_END.sub(r"\\end{pmatrix}", s)
    s = _TRAILING_ROW_BREAK.sub(r"\\end{pmatrix}", s)
    s = _CONNECTOR.sub(",", _WHITESPACE.sub(" ", s))
    s = _strip_ends(_strip_outer_braces(_strip_ends(s)))
    s = _strip_units(s)
    s = _SPACED_MIXED.sub(_mixed, s)
    s = _SPACE_THOUSANDS.sub(lambda m: m.group(0).replace(" ", ""), s)
    s = _DIGIT_SPACE_DIGIT.sub("\x00", s)  # "5 6" is not 56: the space survives and the leaf is unreadable
    s = _COMMA_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), s)
    s = _COMMAND_THEN_LETTER.sub("\\1\x00", s)  # "\pi r" must not become "\pir"
    s = _WHITESPACE.sub("", s).replace("\x00", " ")
    s = _strip_outer_braces(s)
    bracketed = _BRACKETED_MATRIX.fullmatch(s)
    if bracketed:
        s = bracketed.group(1)
    choice = _CHOICE.fullmatch(s)
    return choice.group(1) if choice else s


def _repeating(match: re.Match[str]) -> str:
    """`0.1\\overline{6}` or `0.1666\\ldots` as the exact fraction it repeats to; the text as is when nothing repeats.

    With an ellipsis the repeating block is read from the digits: the shortest
    block (up to 6 digits) that the decimal ends with at least twice, so
    `0.333\\ldots` is 1/3 and `0.142857142857...` is 1/7, while `3.14159\\ldots`
    (no block repeats) stays unreadable: it states no exact value.
    """
    sign, whole, digits = match.group(1), match.group(2) or "0", match.group(3)
    if match.lastindex == 4:  # \overline{block}
        prefix, block = digits, match.group(4)
    else:
        for size in range(1, 7):
            block = digits[-size:]
            if len(digits) >= 2 * size and digits[-2 * size : -size] == block:
                prefix = digits[: -2 * size]
                break
        else:
            return match.group(0)
    numerator = int(whole + prefix + block) - int(whole + prefix)
    denominator = (10 ** len(block) - 1) * 10 ** len(prefix)
    return f"{sign}\\frac{{{numerator}}}{{{denominator}}}"


def _mixed(match: re.Match[str]) -> str:
    """`2 1/2` -> `2\\frac{1}{2}` (a mixed number) when the fraction is proper; otherwise unchanged."""
    numerator, denominator = int(match.group(2)), int(match.group(3))
    if 0 < numerator < denominator:
        return f"{match.group(1)}\\frac{{{numerator}}}{{{denominator}}}"
    return match.group(0)


def _strip_ends(s: str) -> str:
    """Trailing periods and commas, leading commas, surrounding quotes (no quadratic slicing)."""
    s = s.strip()
    end = len(s)
    while end and s[end - 1] in ".,; " and s[end - 2 : end] != "\\,":
        end -= 1
    start = 0
    while start < end and s[start] in ",; ":
        start += 1
    s = s[start:end]
    if len(s) >= 2 and s[0] == s[-1] == '"':
        s = s[1:-1].strip()
    return s


def _strip_units(s: str) -> str:
    """Unit words after a number or a closing brace: "12 apples" -> "12", "10 square units" -> "10"."""
    words = s.split()
    kept = len(words)
    while kept > 1 and _UNIT_TOKEN.fullmatch(words[kept - 1]):
        kept -= 1
    if kept == len(words) or not words[kept - 1][-1:] in set("0123456789})"):
        return s
    return " ".join(words[:kept])


def _strip_outer_braces(s: str) -> str:
    """`{1,3}` -> `1,3`: grouping braces around the whole answer mean nothing."""
    if not s.startswith("{") or not s.endswith("}"):
        return s
    pairs = matching_braces(s)
    start, end = 0, len(s) - 1
    while start < end and s[start] == "{" and pairs.get(start) == end:
        start, end = start + 1, end - 1
    return s[start : end + 1]
