"""IFBench words:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import string
from collections import Counter

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import sentences as split_sentences

_CONSONANTS = set("bcdfghjklmnpqrstvwxyz")
_STRIP = string.punctuation + " "
_NO_PUNCT = str.maketrans("", "", string.punctuation)


@constraint("words:alphabet")
def alphabet(text: str) -> bool:
    """Each whitespace token (ASCII punctuation deleted) starts with the letter after the previous
    token's, Z wrapping to A. The first token must start with a letter; every token counts, so one
    starting with a digit or other non-letter ("42", "—") fails the chain. Empty text fails."""
    tokens = text.translate(_NO_PUNCT).split()
    if not tokens or tokens[0][0].lower() not in string.ascii_lowercase:
        return False
    letter = tokens[0][0].lower()
    for word in tokens[1:]:
        letter = string.ascii_lowercase[(string.ascii_lowercase.index(letter) + 1) % 26]
        if word.lower()[0] != letter:
            return False
    return True


@constraint("words:vowel")
def vowel(text: str) -> bool:
    """A single paragraph (no newline left after stripping outer whitespace) using at most three
    different vowels, case-insensitive ("A" and "a" are one vowel)."""
    paragraphs = text.strip().split("\n")
    return len(paragraphs) == 1 and len(set(paragraphs[0].lower()) & set("aeiou")) <= 3


@constraint("words:consonants")
def consonants(text: str) -> bool:
    """Every whitespace token (lowercased, punctuation kept) has two ASCII consonants in a row; a token
    without one, including a number or a lone symbol ("123", "&"), fails."""
    return all(
        any(a in _CONSONANTS and b in _CONSONANTS for a, b in zip(word, word[1:]))
        for word in text.lower().split()
    )


def split_words(text: str) -> list[str]:
    """Lowercased whitespace tokens with ASCII punctuation deleted (the reference's word split)."""
    return text.lower().translate(_NO_PUNCT).split()


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))


@constraint("words:palindrome")
def palindrome(text: str) -> bool:
    """At least 10 tokens (punctuation deleted, lowercased) that read the same reversed and have 5+ characters."""
    return sum(1 for w in split_words(text) if len(w) >= 5 and w == w[::-1]) >= 10


@constraint("words:prime_lengths")
def prime_lengths(text: str) -> bool:
    """Every whitespace token, punctuation deleted ("aren't" has 5), has a prime length below 100."""
    return all(_is_prime(len(w)) and len(w) < 100 for w in text.translate(_NO_PUNCT).split())


@constraint("words:last_first")
def last_first(text: str) -> bool:
    """Each sentence's last token is the next sentence's first token (case-insensitive; only the
    sentence's outer punctuation is stripped, so "word," still differs from "word")."""
    sentences = split_sentences(text)
    for current, following in zip(sentences, sentences[1:]):
        last = current.rstrip(_STRIP).split()
        first = following.lstrip(_STRIP).split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


@constraint("words:paragraph_last_first")
def paragraph_last_first(text: str) -> bool:
    """Every non-empty line starts and ends with the same token (lowercased, outer punctuation stripped)."""
    for line in text.split("\n"):
        tokens = line.strip().lower().strip(_STRIP).split()
        if tokens and tokens[0] != tokens[-1]:
            return False
    return True


@constraint("words:no_consecutive")
def no_consecutive(text: str) -> bool:
    """No two adjacent words (lowercased, punctuation deleted) start with the same character."""
    tokens = split_words(text)
    return all(a[0] != b[0] for a, b in zip(tokens, tokens[1:]))


@constraint("words:repeats")
def repeats(text: str, small_n: int) -> bool:
    """No word (lowercased, punctuation deleted) occurs more than small_n times."""
    return max(Counter(split_words(text)).values(), default=0) <= int(small_n)
