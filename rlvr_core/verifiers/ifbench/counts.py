"""IFBench count:* and ratio:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import re
import string

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.text import split_sentences, words

_PUNCT = string.punctuation
_CONJUNCTIONS = {"and", "but", "for", "nor", "or", "so", "yet"}
_PERSON_NAMES = (
    "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin "
    "Harper Leo Zoe Daniel Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph "
    "Claire Ryan Stella Jonathan"
).split()


@constraint("count:word_count_range")
def word_count_range(text: str, min_words: int, max_words: int) -> bool:
    return int(min_words) <= len(words(text)) <= int(max_words)


@constraint("count:unique_word_count")
def unique_word_count(text: str, N: int) -> bool:
    return len({w.strip(_PUNCT + " ") for w in text.lower().split()}) >= int(N)


@constraint("count:conjunctions")
def conjunctions(text: str, small_n: int) -> bool:
    found = {w.strip(_PUNCT + " ").lower() for w in text.split()} & _CONJUNCTIONS
    return len(found) >= int(small_n)


@constraint("count:person_names")
def person_names(text: str, N: int) -> bool:
    return sum(1 for name in _PERSON_NAMES if name in text) >= int(N)


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
