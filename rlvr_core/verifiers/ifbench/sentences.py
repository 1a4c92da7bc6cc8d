"""IFBench sentence:* constraints (semantics of allenai/IFBench `instructions.py`).

Sentences are NLTK Punkt's (English), as the reference's `nltk.sent_tokenize`.
"""

from __future__ import annotations

import re
import string

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import sentences as split_sentences

_NO_PUNCT = str.maketrans("", "", string.punctuation)


@constraint("sentence:keyword")
def keyword(text: str, word: str, N: int) -> bool:
    """The N-th sentence (1-based) contains `word` as a whole word, case-insensitive."""
    n = int(N)
    if n < 1:
        raise ValueError(f"N must be >= 1, got {N!r}")
    sentences = split_sentences(text)
    if len(sentences) < n:
        return False
    return re.search(rf"\b{re.escape(str(word))}\b", sentences[n - 1], flags=re.IGNORECASE) is not None


@constraint("sentence:increment")
def increment(text: str, small_n: int) -> bool:
    """Each sentence has exactly small_n more whitespace tokens (punctuation deleted) than the one before."""
    step = int(small_n)
    counts = [len(s.translate(_NO_PUNCT).split()) for s in split_sentences(text)]
    if not counts:
        return False
    return all(b == a + step for a, b in zip(counts, counts[1:]))


def _alliteration(sentence: str) -> int:
    """Words in runs of adjacent words sharing a first character (a run of k words scores k)."""
    tokens = [t for t in (w.lstrip(string.punctuation + " ") for w in sentence.lower().split()) if t]
    score, in_run = 0, False
    for a, b in zip(tokens, tokens[1:]):
        if a[0] == b[0]:
            score += 1 if in_run else 2
            in_run = True
        else:
            in_run = False
    return score


@constraint("sentence:alliteration_increment")
def alliteration_increment(text: str) -> bool:
    """Each sentence's alliteration score (words in runs of same-first-letter neighbours, summed
    over runs) is strictly greater than the previous sentence's; the first may score 0."""
    previous = -1
    for sentence in split_sentences(text):
        score = _alliteration(sentence)
        if score <= previous:
            return False
        previous = score
    return True
