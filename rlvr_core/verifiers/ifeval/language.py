"""language:* and change_case:* instructions (langdetect seeded; undetectable text fails).

Deliberate difference from the reference: where langdetect finds no language
(digits or punctuation only) the reference counts the instruction as followed;
here it fails, so "12345" is not rewarded as French.
"""

from __future__ import annotations

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.registry import as_int, compare, count_limit, instruction, validate_relation
from rlvr_core.verifiers.ifeval.text import detect_language


@instruction("language:response_language")
def response_language(text: str, language: str) -> bool:
    return detect_language(text) == language


@instruction("change_case:english_capital")
def english_capital(text: str) -> bool:
    return text.isupper() and detect_language(text) == "en"


@instruction("change_case:english_lowercase")
def english_lowercase(text: str) -> bool:
    return text.islower() and detect_language(text) == "en"


@instruction("change_case:capital_word_frequency")
def capital_word_frequency(text: str, capital_frequency: int, capital_relation: str) -> bool:
    """All-capital tokens of `nltk.word_tokenize`: "WELL-KNOWN" and "U.S.A." count once each."""
    n = as_int(capital_frequency, "capital_frequency")
    validate_relation(capital_relation)
    return compare(splitting.count_capital_words(text, limit=count_limit(n)), capital_relation, n)
