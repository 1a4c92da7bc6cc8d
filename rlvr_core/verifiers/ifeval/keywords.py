"""keywords:* instructions (IFEval semantics: case-insensitive)."""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval.registry import compare, instruction


@instruction("keywords:existence")
def existence(text: str, keywords: list[str]) -> bool:
    return all(re.search(re.escape(k), text, re.IGNORECASE) for k in keywords)


@instruction("keywords:frequency")
def frequency(text: str, keyword: str, frequency: int, relation: str) -> bool:
    return compare(len(re.findall(re.escape(keyword), text, re.IGNORECASE)), relation, int(frequency))


@instruction("keywords:forbidden_words")
def forbidden_words(text: str, forbidden_words: list[str]) -> bool:
    return not any(re.search(r"\b" + re.escape(w) + r"\b", text, re.IGNORECASE) for w in forbidden_words)


@instruction("keywords:letter_frequency")
def letter_frequency(text: str, letter: str, let_frequency: int, let_relation: str) -> bool:
    return compare(text.lower().count(letter.lower()), let_relation, int(let_frequency))
