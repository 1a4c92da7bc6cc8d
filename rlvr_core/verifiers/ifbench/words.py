"""IFBench words:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import string

from rlvr_core.verifiers.ifbench.registry import constraint

_CONSONANTS = set("bcdfghjklmnpqrstvwxyz")


@constraint("words:alphabet")
def alphabet(text: str) -> bool:
    """Each word starts with the letter after the previous word's, Z wrapping to A."""
    tokens = [w for w in text.translate(str.maketrans("", "", string.punctuation)).split()
              if any(c in string.ascii_lowercase for c in w.lower())]
    if not tokens or tokens[0][0].lower() not in string.ascii_lowercase:
        return False
    letter = tokens[0][0].lower()
    for word in tokens[1:]:
        letter = string.ascii_lowercase[(string.ascii_lowercase.index(letter) + 1) % 26]
        if word[0].lower() != letter:
            return False
    return True


@constraint("words:vowel")
def vowel(text: str) -> bool:
    """At most three different (lowercase) vowels in the whole response."""
    return len(set(text) & set("aeiou")) <= 3


@constraint("words:consonants")
def consonants(text: str) -> bool:
    """Every word with a letter has two consonants in a row."""
    for word in text.lower().split():
        if not any(c in string.ascii_lowercase for c in word):
            continue
        if not any(a in _CONSONANTS and b in _CONSONANTS for a, b in zip(word, word[1:])):
            return False
    return True
