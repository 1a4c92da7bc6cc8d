"""Units in comparison: when the gold names a physical unit, the prediction's unit is compared too.

A unit is a trailing word or `\\text{...}` after the value: "5 m", "5\\text{ cm}",
"12 \\mathrm{cm}^2", "3 square feet", "300 minutes", "\\$18.90". Units of the
same dimension are converted exactly (`500\\text{ cm}` equals gold `5\\text{ m}`,
`300` minutes equals `5` hours); units of different dimensions, or a unit
against a different one not in the table, are unequal (`5\\text{ cm}` is not
`5\\text{ m}`, `5` minutes is not `5` hours, `5\\text{ m}^2` is not `5\\text{ m}`).

What stays as before: a bare number against a gold with a unit is compared
as a number (the problem names the unit, and MATH's own checker reads
"10\\text{ units}" and "10" alike); a unit against a gold without one is not
checked (the gold states none); count words ("apples", "units", "ways") are
not units. Months and years convert to each other, not to days (a year has
no fixed number of days).

The table: length (mm, cm, m, km, in, ft, yd, mi), area (their squares, acres,
hectares), volume (their cubes, ml, l, gallons), time (s, min, h, days,
weeks), calendar (months, years), mass (mg, g, kg, lb, oz), speed (m/s,
km/h, mph), money (dollars, cents).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache


@dataclass(frozen=True)
class Unit:
    """A physical unit: `factor` units of the dimension's base per one of this unit, to the `power`."""

    name: str  # as written: "cm", "square feet", "km^2"
    dimension: str
    power: int
    factor: Fraction


_LENGTH = {
    "mm": Fraction(1, 1000), "millimeter": Fraction(1, 1000), "millimetre": Fraction(1, 1000),
    "cm": Fraction(1, 100), "centimeter": Fraction(1, 100), "centimetre": Fraction(1, 100),
    "m": Fraction(1), "meter": Fraction(1), "metre": Fraction(1),
    "km": Fraction(1000), "kilometer": Fraction(1000), "kilometre": Fraction(1000),
    "in": Fraction(254, 10000), "inch": Fraction(254, 10000), "inches": Fraction(254, 10000),
    "ft": Fraction(3048, 10000), "foot": Fraction(3048, 10000), "feet": Fraction(3048, 10000),
    "yd": Fraction(9144, 10000), "yard": Fraction(9144, 10000),
    "mi": Fraction(1609344, 1000), "mile": Fraction(1609344, 1000),
}
_OTHER = {
    # (dimension, power, factor)
    "s": ("time", 1, Fraction(1)), "sec": ("time", 1, Fraction(1)), "second": ("time", 1, Fraction(1)),
    "min": ("time", 1, Fraction(60)), "minute": ("time", 1, Fraction(60)),
    "h": ("time", 1, Fraction(3600)), "hr": ("time", 1, Fraction(3600)), "hour": ("time", 1, Fraction(3600)),
    "day": ("time", 1, Fraction(86400)), "week": ("time", 1, Fraction(604800)),
    "month": ("calendar", 1, Fraction(1)), "year": ("calendar", 1, Fraction(12)), "yr": ("calendar", 1, Fraction(12)),
    "mg": ("mass", 1, Fraction(1, 1000)), "milligram": ("mass", 1, Fraction(1, 1000)),
    "g": ("mass", 1, Fraction(1)), "gram": ("mass", 1, Fraction(1)), "gramme": ("mass", 1, Fraction(1)),
    "kg": ("mass", 1, Fraction(1000)), "kilogram": ("mass", 1, Fraction(1000)),
    "lb": ("mass", 1, Fraction(45359237, 100000)), "pound": ("mass", 1, Fraction(45359237, 100000)),
    "oz": ("mass", 1, Fraction(28349523125, 10**9)), "ounce": ("mass", 1, Fraction(28349523125, 10**9)),
    "ml": ("length", 3, Fraction(1, 10**6)), "milliliter": ("length", 3, Fraction(1, 10**6)),
    "millilitre": ("length", 3, Fraction(1, 10**6)),
    "l": ("length", 3, Fraction(1, 1000)), "liter": ("length", 3, Fraction(1, 1000)), "litre": ("length", 3, Fraction(1, 1000)),
    "gallon": ("length", 3, Fraction(3785411784, 10**12)), "gal": ("length", 3, Fraction(3785411784, 10**12)),
    "acre": ("length", 2, Fraction(40468564224, 10**7)), "hectare": ("length", 2, Fraction(10000)),
    "ha": ("length", 2, Fraction(10000)),
    "m/s": ("speed", 1, Fraction(1)), "km/h": ("speed", 1, Fraction(5, 18)), "kph": ("speed", 1, Fraction(5, 18)),
    "kmh": ("speed", 1, Fraction(5, 18)), "mph": ("speed", 1, Fraction(1609344, 3600000)),
    "ft/s": ("speed", 1, Fraction(3048, 10000)),
    "dollar": ("money", 1, Fraction(1)), "usd": ("money", 1, Fraction(1)), "cent": ("money", 1, Fraction(1, 100)),
}
_PLURAL_FREE = frozenset({"feet", "inches", "in", "s", "ms", "m/s", "km/h", "kph", "kmh", "mph", "ft/s", "ha", "usd"})
# Short names that are also ordinary words or variables: read as units only at the very end of the answer.
SHORT_NAMES = frozenset({"m", "s", "h", "g", "l", "in", "mi", "ha", "gal", "min", "sec", "hr", "yd", "ft", "lb", "oz", "yr"})


def _names() -> dict[str, tuple[str, int, Fraction]]:
    table: dict[str, tuple[str, int, Fraction]] = {}
    for name, factor in _LENGTH.items():
        table[name] = ("length", 1, factor)
    table.update(_OTHER)
    for name in list(table):
        if name not in _PLURAL_FREE and len(name) > 2 and name not in ("min", "sec"):
            table[name + "s"] = table[name]
    for name in ("hrs", "mins", "secs", "lbs", "yrs", "gals"):
        table[name] = table[name[:-1]]
    return table


UNITS = _names()
_NAME_PATTERN = "|".join(sorted((re.escape(n) for n in UNITS), key=len, reverse=True))
# A unit phrase: an optional "square"/"sq"/"cubic", a unit name, an optional power 2 or 3.
UNIT_PHRASE = (
    rf"(?:(?:square|sq\.?|cubic|cu\.?)\s+)?(?:{_NAME_PATTERN})(?![A-Za-z])"
    r"(?:\s*\^\s*\{?\s*[23]\s*\}?|[\u00b2\u00b3])?"
)
_TEXT_COMMAND = r"\\(?:text|mathrm|mbox|textrm|textnormal|operatorname|rm)\s*"
_SPACING = r"(?:\s|~|\\[,;:! ]|\\q?quad(?![A-Za-z]))*"
_TRAILING = re.compile(
    rf"{_SPACING}(?:{_TEXT_COMMAND}\{{{_SPACING}({UNIT_PHRASE}){_SPACING}\}}(?:\s*\^\s*\{{?\s*([23])\s*\}}?)?"
    rf"|({UNIT_PHRASE}))[\s.$]*$",
    re.IGNORECASE,
)
_LETTER = re.compile(r"[A-Za-z]")
_ESCAPED_DOLLAR = re.compile(r"^\s*\\\$\s*")
_POWER = re.compile(r"\^\s*\{?\s*([23])\s*\}?|([\u00b2\u00b3])")
_PREFIX_POWER = re.compile(r"^(square|sq\.?|cubic|cu\.?)\s+", re.IGNORECASE)
_VALUE_END = re.compile(r"(?:[0-9})\]]|\\pi)\s*$")
_TAIL = 80  # the trailing unit is read from the last characters only


def parse_unit(phrase: str, extra_power: str | None = None) -> Unit | None:
    """The unit a phrase names ("cm", "square feet", "km^2", "hours"), or None."""
    phrase = written = " ".join(phrase.split())
    power = 1
    prefix = _PREFIX_POWER.match(phrase)
    if prefix:
        power = 3 if prefix.group(1).lower().startswith("cu") else 2
        phrase = phrase[prefix.end() :]
    suffix = _POWER.search(phrase)
    if suffix:
        power = int(suffix.group(1)) if suffix.group(1) else (2 if suffix.group(2) == "\u00b2" else 3)
        phrase = phrase[: suffix.start()].strip()
    if extra_power:
        power = int(extra_power)
    name = phrase if phrase in UNITS else phrase.lower()
    if name not in UNITS:
        return None
    dimension, base_power, factor = UNITS[name]
    if base_power != 1 and power != 1:
        return None  # "square liters": not a unit
    if dimension != "length" and power != 1:
        return None
    if extra_power:
        written += f"^{extra_power}"
    return Unit(written, dimension, base_power * power, factor**power)


@lru_cache(maxsize=16384)
def split_unit(answer: str) -> tuple[str, Unit | None]:
    """(the answer without its trailing unit, the unit) or (answer, None) when it names none.

    A leading `\\$` names dollars. A short unit name glued to the value ("5m") is not read as a unit:
    it may be a product with a variable.
    """
    dollar = _ESCAPED_DOLLAR.match(answer)
    found = _TRAILING.search(answer, max(0, len(answer) - _TAIL)) if _LETTER.search(answer) else None
    if found is None:
        if dollar and _VALUE_END.search(answer.rstrip(" .$")):
            return answer[dollar.end() :], Unit("dollar", "money", 1, Fraction(1))
        return answer, None
    core = answer[: found.start()]
    if not core.strip() or not _VALUE_END.search(core.rstrip().rstrip("$").rstrip()):
        return answer, None
    if found.group(3) and found.start(3) == found.start() and found.group(3).lower() in SHORT_NAMES:
        return answer, None  # "5m", "2h": maybe a product with a variable
    unit = parse_unit(found.group(1) or found.group(3), found.group(2))
    if unit is None:
        return answer, None
    core = _ESCAPED_DOLLAR.sub("", core) if unit.dimension == "money" else core
    return core.rstrip(), unit
