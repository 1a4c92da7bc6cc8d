"""language:* and change_case:* instructions, with langdetect as the reference uses it.

Languages are detected by langdetect, as IFEval's reference does, with
`DetectorFactory.seed = 0` so a text always gets the same answer (langdetect
samples at random). Every text goes to langdetect: a quicker "clearly
English" test would disagree with it on mixed text (German with English
function words in it is `de` to langdetect).

Deliberate difference from the reference, in both modes: where langdetect
finds no language at all (digits, punctuation, symbols only: it raises) the
reference counts the instruction as followed; here it fails, so "12345" is
not rewarded as French, nor as English capitals.
"""

from __future__ import annotations

from functools import lru_cache

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.registry import as_int, compare, count_limit, instruction, validate_relation


@lru_cache(maxsize=2048)
def detect_language(text: str) -> str | None:
    """The ISO code langdetect gives `text` (seeded), or None when it finds no language (fails closed)."""
    import langdetect
    from langdetect import DetectorFactory

    DetectorFactory.seed = 0
    try:
        return langdetect.detect(text)
    except langdetect.LangDetectException:
        return None


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
