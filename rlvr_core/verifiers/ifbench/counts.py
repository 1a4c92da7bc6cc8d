"""IFBench count:* and ratio:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import re
import string

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import count_words, sentences as split_sentences

_PUNCT = string.punctuation
_CONJUNCTIONS = {"and", "but", "for", "nor", "or", "so", "yet"}
_PERSON_NAMES = (
    "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin "
    "Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria "
    "Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella "
    "Jonathan"
).split()
# Case-sensitive, whole word (Unicode \b): "Leo" is not found in "Leonardo", "LEO" or "Leo2", but is in "Leo's".
_NAME_PATTERNS = [re.compile(rf"\b{re.escape(name)}\b") for name in _PERSON_NAMES]


@constraint("count:word_count_range")
def word_count_range(text: str, min_words: int, max_words: int) -> bool:
    return int(min_words) <= count_words(text) <= int(max_words)


@constraint("count:unique_word_count")
def unique_word_count(text: str, N: int) -> bool:
    return len({w.strip(_PUNCT + " ") for w in text.lower().split()}) >= int(N)


@constraint("count:conjunctions")
def conjunctions(text: str, small_n: int) -> bool:
    """At least small_n distinct whitespace tokens that are a coordinating conjunction once outer
    punctuation is stripped and case folded. Distinctness is on the raw token, as in the reference,
    so "and", "And" and "and," count as three."""
    found = {w for w in text.split() if w.strip(_PUNCT + " ").lower() in _CONJUNCTIONS}
    return len(found) >= int(small_n)


@constraint("count:person_names")
def person_names(text: str, N: int) -> bool:
    """At least N different names from the reference's list of 50, each matched case-sensitively as a
    whole word (so "Leonardo" does not count as "Leo")."""
    return sum(1 for pattern in _NAME_PATTERNS if pattern.search(text)) >= int(N)


@constraint("count:numbers")
def numbers(text: str, N: int) -> bool:
    return len(re.findall(r"\d+", text.translate(str.maketrans("", "", _PUNCT)))) == int(N)


@constraint("ratio:sentence_type")
def sentence_type(text: str) -> bool:
    sentences = split_sentences(text)
    declarative = sum(s.endswith(".") for s in sentences)
    return declarative == 2 * sum(s.endswith("?") for s in sentences)


@constraint("ratio:sentence_balance")
def sentence_balance(text: str) -> bool:
    sentences = split_sentences(text)
    counts = [sum(s.endswith(end) for s in sentences) for end in ".?!"]
    return counts[0] == counts[1] == counts[2]


_REQUIRED_MARKS = set(".,!?;:")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@constraint("count:punctuation")
def punctuation(text: str) -> bool:
    """An interrobang ("?!", "!?" or "‽") plus each of . , ! ? ; : elsewhere (one "?!"/"!?" is spent
    on the interrobang and does not count as "!" or "?")."""
    if not any(mark in text for mark in ("?!", "!?", "‽")):
        return False
    rest = text.replace("?!", "", 1) if "?!" in text else text.replace("!?", "", 1)
    return _REQUIRED_MARKS <= set(rest)


@constraint("count:keywords_multiple")
def keywords_multiple(
    text: str, keyword1: str, keyword2: str, keyword3: str, keyword4: str, keyword5: str
) -> bool:
    """keyword1..keyword5 occur exactly 1, 2, 3, 5 and 7 times as whole words, case-insensitive."""
    wanted = zip((keyword1, keyword2, keyword3, keyword4, keyword5), (1, 2, 3, 5, 7))
    return all(
        len(re.findall(rf"\b{re.escape(str(keyword).strip())}\b", text, flags=re.IGNORECASE)) == count
        for keyword, count in wanted
    )


@constraint("count:words_japanese")
def words_japanese(text: str, N: int) -> bool:
    """Every N-th whitespace token (outer punctuation stripped; empty or all-digit tokens exempt)
    contains a kana or CJK ideograph."""
    n = int(N)
    if n < 1:
        raise ValueError(f"N must be >= 1, got {N!r}")
    for position, token in enumerate(text.split(), start=1):
        token = token.strip(_PUNCT + " ")
        if position % n == 0 and token and not token.isdigit() and not _JAPANESE.search(token):
            return False
    return True


@constraint("ratio:sentence_words")
def sentence_words(text: str) -> bool:
    """Exactly three sentences of equal character length, no word (lowercased, punctuation deleted) repeated."""
    sentences = split_sentences(text)
    if len(sentences) != 3 or len({len(s.strip()) for s in sentences}) != 1:
        return False
    tokens = " ".join(sentences).lower().translate(str.maketrans("", "", _PUNCT)).split()
    return len(tokens) == len(set(tokens))
