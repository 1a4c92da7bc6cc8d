"""keywords:* instructions (IFEval semantics: case-insensitive).

Deliberate difference from the reference: keywords are matched literally
(the reference uses them as regexes, so "c++" raises and "a.b" matches
"axb"). The 541 IFEval prompts have only plain-word keywords, where the two
agree.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval.registry import as_int, compare, instruction


@instruction("keywords:existence")
def existence(text: str, keywords: list[str]) -> bool:
    return all(re.search(re.escape(k), text, re.IGNORECASE) for k in keywords)


@instruction("keywords:frequency")
def frequency(text: str, keyword: str, frequency: int, relation: str) -> bool:
    count = len(re.findall(re.escape(keyword.strip()), text, re.IGNORECASE))
    return compare(count, relation, as_int(frequency, "frequency"))


@instruction("keywords:forbidden_words")
def forbidden_words(text: str, forbidden_words: list[str]) -> bool:
    return not any(re.search(r"\b" + re.escape(w) + r"\b", text, re.IGNORECASE) for w in forbidden_words)


@instruction("keywords:letter_frequency")
def letter_frequency(text: str, letter: str, let_frequency: int, let_relation: str) -> bool:
    """Counts `letter` as given. (The reference swaps a letter outside a-z, e.g. "#", for a random one.)"""
    return compare(text.lower().count(letter.lower()), let_relation, as_int(let_frequency, "let_frequency"))
