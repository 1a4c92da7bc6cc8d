"""Offline text helpers: regex sentence and word splitting, deterministic language detection."""

from __future__ import annotations

import re
from functools import lru_cache

_ABBREVIATIONS = ("Mr", "Ms", "Dr", "St", "vs", "Jr", "Sr", "Mrs", "etc", "e.g", "i.e")
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z])" + "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"[.!?]+[\"')\]]*(?=\s+|$)"
)
_WORD = re.compile(r"\w+")


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


def count_sentences(text: str) -> int:
    """Sentences ended by . ! ? (abbreviations like "Dr." and initials do not end one)."""
    pieces = _SENTENCE_END.split(text)
    return sum(1 for piece in pieces if _WORD.search(piece))


def words(text: str) -> list[str]:
    return _WORD.findall(text)


@lru_cache(maxsize=2048)
def detect_language(text: str) -> str | None:
    """ISO code from langdetect with a fixed seed, or None when undetectable (fails closed)."""
    import langdetect
    from langdetect import DetectorFactory

    DetectorFactory.seed = 0
    try:
        return langdetect.detect(text)
    except langdetect.LangDetectException:
        return None
