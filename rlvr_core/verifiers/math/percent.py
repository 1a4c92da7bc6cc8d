"""Percent in comparison: what `X%` may mean against a gold, and nothing more.

Normalisation keeps a percent sign as a trailing `%` on a leaf. Against a
gold, a prediction is then read in these ways only:

- both or neither carry `%`: the numbers as written (`50%` is `50%`);
- the gold carries `%` (it is a percentage, written so or declared so by its
  problem): the prediction is in percent too, with or without its sign, so
  gold `28%` accepts `28` and `28%` but not `0.28`;
- only the prediction carries `%`: `X%` is X/100 (gold 0.5 accepts `50%`,
  never `0.5%`), and a whole-number X may also be the percent number itself
  (gold 50 accepts `50%`, the convention of GSM8K and MATH golds for "what
  percent" questions, as Math-Verify also reads it). A fractional X is never
  its own percent number: `0.5%` is not 0.5.
"""

from __future__ import annotations

from fractions import Fraction

from rlvr_core.verifiers.math.literals import as_number

_PERCENT_QUESTION_WORDS = ("what percent", "which percent", "as a percent", "in percent", "percentage of", "what percentage")


def split_percent(text: str) -> tuple[str, bool]:
    """(text without a trailing `%`, whether it had one); a `%` elsewhere is left for the parser to refuse."""
    if text.endswith("%") and "%" not in text[:-1] and len(text) > 1:
        return text[:-1], True
    return text, False


def readings(gold: str, pred: str) -> list[tuple[str, str]]:
    """The (gold, prediction) pairs, without `%`, that the prediction may equal; the first is the plain one."""
    g_core, g_percent = split_percent(gold)
    p_core, p_percent = split_percent(pred)
    if g_percent == p_percent or g_percent:
        return [(g_core, p_core)]
    pairs = [(gold, _hundredth(p_core))]
    if isinstance(as_number(p_core), Fraction) and as_number(p_core).denominator == 1 and "." not in p_core:
        pairs.append((gold, p_core))
    return pairs


def asks_for_percent(prompt: str) -> bool:
    """Whether a problem asks for its answer as a percentage ("What percent of ...?")."""
    lowered = prompt.lower()
    return any(words in lowered for words in _PERCENT_QUESTION_WORDS)


def _hundredth(core: str) -> str:
    value = as_number(core)
    if isinstance(value, Fraction):
        value /= 100
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return f"\\frac{{{core}}}{{100}}"
