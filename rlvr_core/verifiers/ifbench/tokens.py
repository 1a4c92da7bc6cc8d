"""IFBench constraints on NLTK word tokens (semantics of allenai/IFBench `instructions.py`, commit 1d62c1d6).

Tokens are `nltk.word_tokenize`'s: Punkt sentences, then NLTK's Treebank-style
word tokenizer, as `ifeval.splitting.word_tokens` runs them offline. A text
with more possible sentence ends than the splitter's budget raises
`TooManyBreaks`; the caller scores that constraint as not followed.
"""

from __future__ import annotations

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import sentences, word_tokens

_PRONOUNS = frozenset(
    "i me we us you he him she her it they them "  # personal
    "my mine our ours your yours his hers its their theirs "  # possessive
    "myself ourselves yourself yourselves himself herself itself themselves "  # reflexive
    "this that these those who whom whose which what whoever whomever whatever whichever "  # demonstrative, interrogative
    "anybody anyone anything everybody everyone everything nobody nothing somebody someone something "  # indefinite
    "each either neither both all some any none".split()
)


def _alphanumeric_tokens(text: str) -> list[str]:
    """Word tokens holding a letter or digit: standalone punctuation tokens dropped."""
    return [token for token in word_tokens(text) if any(ch.isalnum() for ch in token)]


@constraint("count:pronouns")
def pronouns(text: str, N: int) -> bool:
    """At least N tokens of the lowercased response (with "/" read as a space: "she/her") are pronouns."""
    return sum(1 for token in word_tokens(text.replace("/", " ").lower()) if token in _PRONOUNS) >= int(N)


@constraint("format:title_case")
def title_case(text: str) -> bool:
    """No token that starts with a letter is all lowercase or lowercase-then-capitals; one-letter tokens are capitals."""
    for token in word_tokens(text):
        if not token or not token[0].isalpha():
            continue
        if len(token) == 1:
            if token.islower():
                return False
            continue
        if token[0].isupper() and token[1:].islower():
            continue
        if token[0].islower() and (token[1:].isupper() or token[1:].islower()):
            return False
    return True


@constraint("words:keywords_specific_position")
def keywords_specific_position(text: str, keyword: str, n: int, m: int) -> bool:
    """The m-th word token (punctuation tokens dropped) of the n-th Punkt sentence is `keyword`, case-insensitive."""
    found = sentences(text)
    if len(found) < int(n):
        return False
    tokens = _alphanumeric_tokens(found[int(n) - 1])
    return len(tokens) >= int(m) and tokens[int(m) - 1].lower() == str(keyword).strip().lower()


@constraint("words:words_position")
def words_position(text: str, keyword: str) -> bool:
    """The second word token and the second-to-last one (punctuation tokens dropped) are both `keyword`."""
    tokens = _alphanumeric_tokens(text)
    target = str(keyword).strip().lower()
    return len(tokens) >= 2 and tokens[1].lower() == tokens[-2].lower() == target


@constraint("ratio:overlap")
def overlap(text: str, reference_text: str, percentage: int) -> bool:
    """The share of the response's distinct word trigrams also in `reference_text` is within 2 points of `percentage`."""
    trigrams = _trigrams(word_tokens(text))
    if not trigrams:
        return False
    shared = len(trigrams & _trigrams(word_tokens(str(reference_text)))) / len(trigrams)
    return int(percentage) - 2 <= shared * 100 <= int(percentage) + 2


def _trigrams(tokens: list[str]) -> set[tuple[str, str, str]]:
    return set(zip(tokens, tokens[1:], tokens[2:]))
