"""Exact values of plain numbers: integers, decimals, `a/b`, `\\frac{a}{b}`, mixed numbers, scientific notation.

The fast path of comparison: most answers are plain numbers, and two plain
numbers compare as exact fractions without parsing or sympy. There is no
tolerance: `0.333` is not 1/3. A decimal of at least 10 significant digits
may state a value no decimal can write (`states_value`). A scientific literal
beyond the float range (`1e999`) is `OVERFLOW`: not a number, equal to nothing.
"""

from __future__ import annotations

import re
from fractions import Fraction

_PLAIN = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_SCIENTIFIC = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[eE]([+-]?[0-9]+)")
_LONG_DECIMAL = re.compile(r"-?[0-9]*\.[0-9]+")
_SLASH = re.compile(r"([+-]?[0-9]+)/([+-]?[0-9]+)")
_FRAC = re.compile(r"([+-]?)\\frac\{([+-]?[0-9]+)\}\{([+-]?[0-9]+)\}")
_MIXED = re.compile(r"([+-]?)([0-9]+)\\frac\{([0-9]+)\}\{([0-9]+)\}")
_MAX_DIGITS = 4000  # Python refuses to parse longer integers; such an answer is not a number


class _Overflow:
    """A scientific literal outside the float range: not a number."""


OVERFLOW = _Overflow()


def as_number(s: str) -> Fraction | _Overflow | None:
    """The exact value of a normalised plain number; None if not a number, OVERFLOW past the float range."""
    if len(s) > _MAX_DIGITS:
        return None
    try:
        if _PLAIN.fullmatch(s):
            return Fraction(s)
        match = _SCIENTIFIC.fullmatch(s)
        if match:
            exponent = int(match.group(2))
            if abs(exponent) > 308:
                return OVERFLOW
            value = Fraction(match.group(1)) * Fraction(10) ** exponent
            return OVERFLOW if abs(value) > Fraction(1.7976931348623157e308) else value
        match = _SLASH.fullmatch(s)
        if match:
            return Fraction(int(match.group(1)), int(match.group(2)))
        match = _FRAC.fullmatch(s)
        if match:
            value = Fraction(int(match.group(2)), int(match.group(3)))
            return -value if match.group(1) == "-" else value
        match = _MIXED.fullmatch(s)
        if match:
            value = int(match.group(2)) + Fraction(int(match.group(3)), int(match.group(4)))
            return -value if match.group(1) == "-" else value
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None


def states_value(decimal: str, value: Fraction) -> bool:
    """A decimal of >= 10 significant digits, right to its last digit, for a value no decimal can write.

    `0.0833333333333333` states 1/12; nothing but `0.5` states 1/2, and
    `4.999999999999` does not state 5.
    """
    if terminates(value) or not _LONG_DECIMAL.fullmatch(decimal):
        return False
    if len(decimal.lstrip("-").replace(".", "").lstrip("0")) < 10:
        return False
    places = len(decimal.split(".", 1)[1])
    return abs(Fraction(decimal) - value) <= Fraction(1, 10**places)


def terminates(value: Fraction) -> bool:
    """Whether `value` has a finite decimal expansion (its denominator has no prime factor but 2 and 5)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1
