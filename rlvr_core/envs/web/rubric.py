"""Compare a webextract answer with its gold, per answer type; every function returns (score in [0, 1], how).

Exact means equal once runs of whitespace are collapsed (HTML whitespace is
not significant). Normalised means equal after also applying NFKC, dropping
invisible format characters (direction marks, zero-width spaces), case
folding, and trimming surrounding quotes and a final period; it earns
`NORMALISED` instead of 1.0, so the perfect rate still tells them apart.

- text / url: 1.0 exact, `NORMALISED` normalised, else 0.
- number: 1.0 for a JSON number within a cent (relative 1e-9 for large ones);
  `NORMALISED` when the number had to be read out of a string ("$1,299.00").
- list: 1.0 when the lists are exactly equal in order; otherwise the F1 of the
  two multisets of normalised items, at most `PARTIAL_MAX`.
- records: each gold record is paired with the unpaired answer record that
  shares most fields; precision and recall sum those field fractions; 1.0 only
  for an exact, in-order match, otherwise the F1, at most `PARTIAL_MAX`.
- object: the mean of its fields' scores (each field by the type of its gold value).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from typing import Any

NORMALISED = 0.8
PARTIAL_MAX = 0.9
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def collapse(value: Any) -> str:
    return " ".join(str(value).split())


def normalise(value: Any) -> str:
    text = unicodedata.normalize("NFKC", str(value))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = " ".join(text.split()).casefold().strip("\"'“”‘’ ")
    return text[:-1] if text.endswith(".") else text


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
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
    """(the number, whether it was a JSON number) or (None, False)."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value), True
    if isinstance(value, str):
        match = _NUMBER.search(value.replace("\xa0", " "))
        if match:
            return float(match.group(0).replace(",", "")), False
    return None, False


def match_number(answer: Any, gold: float) -> tuple[float, str]:
    number, native = as_number(answer)
    if number is None:
        return 0.0, "not a number"
    if abs(number - gold) > max(0.005, 1e-9 * abs(gold)):
        return 0.0, "different"
    return (1.0, "exact") if native else (NORMALISED, "number read from text")


def match_value(answer: Any, gold: Any) -> tuple[float, str]:
    """One value against a gold of any scalar type (None, number or text)."""
    if gold is None:
        return (1.0, "exact") if answer is None else (0.0, "expected null")
    if isinstance(gold, (int, float)) and not isinstance(gold, bool):
        return match_number(answer, float(gold))
    return match_text(answer, str(gold))


def _f1(tp: float, n_answer: int, n_gold: int) -> float:
    if n_answer == 0 or n_gold == 0:
        return float(n_answer == n_gold)
    precision, recall = tp / n_answer, tp / n_gold
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def match_list(answer: Any, gold: list[Any]) -> tuple[float, str]:
    if not isinstance(answer, list):
        return 0.0, f"expected a list, got {type(answer).__name__}"
    if len(answer) == len(gold) and all(match_value(a, g)[0] == 1.0 for a, g in zip(answer, gold)):
        return 1.0, "exact"
    ours = Counter(normalise(a) for a in answer if _as_text(a) is not None)
    theirs = Counter(normalise(g) for g in gold)
    f1 = _f1(sum((ours & theirs).values()), len(answer), len(gold))
    return min(PARTIAL_MAX, f1), f"f1={f1:.2f}"


def _record_fraction(answer: Any, gold: dict[str, Any]) -> float:
    if not isinstance(answer, dict) or not gold:
        return 0.0
    return sum(match_value(answer.get(k), v)[0] > 0 for k, v in gold.items()) / len(gold)


def match_records(answer: Any, gold: list[dict[str, Any]]) -> tuple[float, str]:
    if not isinstance(answer, list):
        return 0.0, f"expected a list of objects, got {type(answer).__name__}"
    exact = len(answer) == len(gold) and all(
        isinstance(a, dict) and set(a) == set(g) and all(match_value(a[k], v)[0] == 1.0 for k, v in g.items())
        for a, g in zip(answer, gold))
    if exact:
        return 1.0, "exact"
    free = list(range(len(answer)))
    tp = 0.0
    for g in gold:
        if not free:
            break
        best = max(free, key=lambda j: _record_fraction(answer[j], g))
        tp += _record_fraction(answer[best], g)
        free.remove(best)
    f1 = _f1(tp, len(answer), len(gold))
    return min(PARTIAL_MAX, f1), f"f1={f1:.2f}"


def match_object(answer: Any, gold: dict[str, Any]) -> tuple[float, str]:
    if not isinstance(answer, dict):
        return 0.0, f"expected an object, got {type(answer).__name__}"
    scores = {k: match_value(answer.get(k), v)[0] for k, v in gold.items()}
    score = sum(scores.values()) / len(scores) if scores else 0.0
    return score, "exact" if score == 1.0 else "fields " + ",".join(f"{k}={v:g}" for k, v in scores.items())


MATCHERS = {"text": match_text, "url": match_text, "number": match_number, "list": match_list,
            "records": match_records, "object": match_object}


def match(answer_type: str, answer: Any, gold: Any) -> tuple[float, str]:
    """Score `answer` against `gold` for `answer_type`; ValueError for an unknown type."""
    if answer_type not in MATCHERS:
        raise ValueError(f"unknown webextract answer type {answer_type!r}; known: {sorted(MATCHERS)}")
    return MATCHERS[answer_type](answer, gold)
