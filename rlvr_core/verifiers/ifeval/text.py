"""Offline text helpers: regex sentence and word splitting (IFBench's), deterministic language detection.

IFEval's own counts follow its reference implementation and live in
`splitting.py` (NLTK Punkt and word tokenizer); the regex splitters here are
kept for the IFBench checks that use them.
"""

from __future__ import annotations

import re
from functools import lru_cache

_ABBREVIATIONS = ("Mr", "Ms", "Dr", "St", "vs", "Jr", "Sr", "Mrs", "etc", "e.g", "i.e")
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z])" + "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"[.!?]+[\"')\]]*(?=\s+|$)"
)
_WORD = re.compile(r"\w+")
_ASCII_UPPER = re.compile(r"[A-Z]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def split_sentences(text: str) -> list[str]:
    """Sentences with their end punctuation kept, e.g. ["Hi.", "Who?"]."""
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.end()].strip()
        if _WORD.search(piece):
            out.append(piece)
        start = match.end()
    tail = text[start:].strip()
    return out + ([tail] if _WORD.search(tail) else [])


def words(text: str) -> list[str]:
    return _WORD.findall(text)


_ENGLISH_FUNCTION_WORDS = frozenset(
    "the a an and or but of to in on at for with from by is are was were be been it its this that these those "
    "i you he she we they my your our their not no do does did have has had will would can could should as "
    "if so than then there here what which who when where why how all any some".split()
)


def _clearly_english(text: str) -> bool:
    """Fast path: long ASCII text, not mostly capitals, where >= 35% of words are English function words.

    langdetect costs 5-90 ms a call; prose like this is English to any detector,
    so only ambiguous or non-English text pays for it. Text in capitals is
    left to langdetect, which often calls English in capitals German or
    Vietnamese (as the reference then does too).
    """
    tokens = _WORD.findall(text)
    if len(tokens) < 8 or not text.isascii():
        return False
    if 2 * len(_ASCII_UPPER.findall(text)) > len(_ASCII_LETTER.findall(text)):
        return False
    tokens = [w.lower() for w in tokens]
    return sum(t in _ENGLISH_FUNCTION_WORDS for t in tokens) >= 0.35 * len(tokens)


@lru_cache(maxsize=2048)
def detect_language(text: str) -> str | None:
    """ISO code from langdetect with a fixed seed, or None when undetectable (fails closed)."""
    if _clearly_english(text):
        return "en"
    import langdetect
    from langdetect import DetectorFactory

    DetectorFactory.seed = 0
    try:
        return langdetect.detect(text)
    except langdetect.LangDetectException:
        return None
