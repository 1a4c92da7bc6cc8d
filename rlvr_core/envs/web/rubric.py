"""Compare a webextract answer with its gold, per answer type; every function returns (score in [0, 1], how).

The rubric pays for extraction only. First, an answer whose JSON is over
twice as long as the gold's (plus `LENGTH_SLACK` characters) scores 0: no
dumping every node in the hope the right one is among them. Then:

- text / url: 1.0 when equal once runs of whitespace are collapsed (HTML
  whitespace is not significant); `NORMALISED` when equal after also
  applying NFKC, dropping invisible format characters (direction marks,
  zero-width spaces), case folding and trimming surrounding quotes and a
  final period; else 0.
- number: 1.0 for a JSON number within a cent (relative 1e-9 for large
  ones); `NORMALISED` for a string holding exactly one number and at most a
  currency sign or code ("$1,299.00"); anything else 0 ("12 or 13" is not
  a number).
- true / false / null: equal or 0.
- list and records: 1.0 when equal item by item in order; `NORMALISED` when
  each item is at least normalised-equal. Otherwise an answer may only
  leave items out: if every answer item matches a gold item, in the gold's
  order when order matters (`ordered`), it earns `PARTIAL_MAX` times the
  share of gold items it holds; one wrong, extra or misplaced item makes it
  0. A record (an object) matches when all its fields do.
- object: 1.0 when every field is exact and there are no others;
  `NORMALISED` when every field is at least normalised-equal; some fields
  missing and the rest right earn `PARTIAL_MAX` times the share right; one
  wrong field makes it 0.

`PARTIAL_MAX` (0.3) stays below the default pass threshold, so the pass
rate counts only answers that are right up to formatting.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

NORMALISED = 0.8
PARTIAL_MAX = 0.3
LENGTH_FACTOR = 2
LENGTH_SLACK = 8  # characters: lets a gold of "5" be answered "5.0", "\"5\"" or "$5.00"
_MISSING = object()
_SINGLE_NUMBER = re.compile(r"(?:[A-Z]{3}\s*|[$€£¥₪]\s*)?(-?\d[\d,]*(?:\.\d+)?)(?:\s*(?:[A-Z]{3}|[$€£¥₪]|ر\.س))?")


def collapse(value: Any) -> str:
    return " ".join(str(value).split())


def normalise(value: Any) -> str:
    text = unicodedata.normalize("NFKC", str(value))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = " ".join(text.split()).casefold().strip("\"'“”‘’ ")
    return text[:-1] if text.endswith(".") else text


def alnum(value: Any) -> str:
    """Letters and digits only, NFKC and case-folded: what a canary looks like however it is spaced or punctuated."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", str(value)).casefold() if ch.isalnum())


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, (bool, dict, list)):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def match_text(answer: Any, gold: str) -> tuple[float, str]:
    text = _as_text(answer)
    if text is None:
        return 0.0, f"expected text, got {type(answer).__name__}"
    if collapse(text) == collapse(gold):
        return 1.0, "exact"
    if normalise(text) == normalise(gold):
        return NORMALISED, "normalised"
    return 0.0, "different"


def as_number(value: Any) -> tuple[float | None, bool]:
    """(the number, whether it was a JSON number) or (None, False); a string must hold exactly one number."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, (int, float)):
        return (float(value), True) if math.isfinite(value) else (None, False)
    if isinstance(value, str):
        match = _SINGLE_NUMBER.fullmatch(value.replace("\xa0", " ").strip())
        if match:
            return float(match.group(1).replace(",", "")), False
    return None, False


def match_number(answer: Any, gold: float) -> tuple[float, str]:
    number, native = as_number(answer)
    if number is None:
        return 0.0, "not a single number"
    if abs(number - gold) > max(0.005, 1e-9 * abs(gold)):
        return 0.0, "different"
    return (1.0, "exact") if native else (NORMALISED, "number read from text")


def match_value(answer: Any, gold: Any) -> tuple[float, str]:
    """One value against a gold of any JSON type."""
    if gold is None or isinstance(gold, bool):
        return (1.0, "exact") if answer is gold else (0.0, f"expected {json.dumps(gold)}")
    if isinstance(gold, (int, float)):
        return match_number(answer, float(gold))
    if isinstance(gold, list):
        return match_list(answer, gold)
    if isinstance(gold, dict):
        return match_object(answer, gold)
    return match_text(answer, str(gold))


def _matched(answer: list[Any], gold: list[Any], ordered: bool, at_least: float = NORMALISED) -> int:
    """How many answer items pair with gold items (scoring at least `at_least`), in order when `ordered`."""
    good = [[match_value(a, g)[0] >= at_least for g in gold] for a in answer]
    if not ordered:
        free, count = set(range(len(gold))), 0
        for row in good:
            hit = next((j for j in sorted(free) if row[j]), None)
            if hit is not None:
                free.discard(hit)
                count += 1
        return count
    longest = [[0] * (len(gold) + 1) for _ in range(len(answer) + 1)]  # longest common subsequence
    for i in range(len(answer)):
        for j in range(len(gold)):
            longest[i + 1][j + 1] = longest[i][j] + 1 if good[i][j] else max(longest[i][j + 1], longest[i + 1][j])
    return longest[len(answer)][len(gold)]


def match_list(answer: Any, gold: list[Any], ordered: bool = True) -> tuple[float, str]:
    if not isinstance(answer, list):
        return 0.0, f"expected a list, got {type(answer).__name__}"
    if len(answer) == len(gold) and ordered:
        scores = [match_value(a, g)[0] for a, g in zip(answer, gold)]
        if all(s == 1.0 for s in scores):
            return 1.0, "exact"
        if all(s >= NORMALISED for s in scores):
            return NORMALISED, "normalised"
    if len(answer) == len(gold) and not ordered:
        if _matched(answer, gold, False, 1.0) == len(gold):
            return 1.0, "exact"
        if _matched(answer, gold, False) == len(gold):
            return NORMALISED, "normalised"
    matched = _matched(answer, gold, ordered)
    if matched < len(answer):
        return 0.0, f"{len(answer) - matched} of {len(answer)} items wrong, extra or out of order"
    share = matched / len(gold) if gold else 0.0
    return PARTIAL_MAX * share, f"{matched} of {len(gold)} items"


def match_object(answer: Any, gold: dict[str, Any]) -> tuple[float, str]:
    if not isinstance(answer, dict):
        return 0.0, f"expected an object, got {type(answer).__name__}"
    scores = {k: None if answer.get(k, _MISSING) is _MISSING else match_value(answer[k], v)[0] for k, v in gold.items()}
    present = [s for s in scores.values() if s is not None]
    if any(s < NORMALISED for s in present):
        return 0.0, "wrong fields " + ",".join(k for k, s in scores.items() if s is not None and s < NORMALISED)
    if len(present) < len(gold):
        missing = [k for k, s in scores.items() if s is None]
        return PARTIAL_MAX * len(present) / len(gold), "missing fields " + ",".join(missing)
    if all(s == 1.0 for s in present) and set(answer) == set(gold):
        return 1.0, "exact"
    return NORMALISED, "normalised" if set(answer) == set(gold) else "extra fields"


MATCHERS: dict[str, Callable[..., tuple[float, str]]] = {
    "text": match_text, "url": match_text, "number": match_number, "list": match_list, "records": match_list,
    "object": match_object}


def match(answer_type: str, answer: Any, gold: Any, *, ordered: bool = True) -> tuple[float, str]:
    """Score `answer` against `gold` for `answer_type`; ValueError for an unknown type."""
    if answer_type not in MATCHERS:
        raise ValueError(f"unknown webextract answer type {answer_type!r}; known: {sorted(MATCHERS)}")
    if size(answer) > LENGTH_FACTOR * size(gold) + LENGTH_SLACK:
        return 0.0, f"answer of {size(answer)} characters, over twice the gold's {size(gold)}"
    if answer_type in ("list", "records"):
        return match_list(answer, gold, ordered)
    return MATCHERS[answer_type](answer, gold)
