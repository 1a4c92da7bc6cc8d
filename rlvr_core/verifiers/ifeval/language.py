"""language:* and change_case:* instructions (langdetect seeded; undetectable text fails)."""

from __future__ import annotations

from rlvr_core.verifiers.ifeval.registry import compare, instruction
from rlvr_core.verifiers.ifeval.text import detect_language, words


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
    return compare(sum(1 for w in words(text) if w.isupper()), capital_relation, int(capital_frequency))
