"""length_constraints:* instructions."""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval.registry import compare, instruction
from rlvr_core.verifiers.ifeval.text import count_sentences, words


@instruction("length_constraints:number_sentences")
def number_sentences(text: str, num_sentences: int, relation: str) -> bool:
    return compare(count_sentences(text), relation, int(num_sentences))


@instruction("length_constraints:number_words")
def number_words(text: str, num_words: int, relation: str) -> bool:
    return compare(len(words(text)), relation, int(num_words))


@instruction("length_constraints:number_paragraphs")
def number_paragraphs(text: str, num_paragraphs: int, divider: str = "***") -> bool:
    """Paragraphs split by the markdown divider; an empty one inside the text fails."""
    parts = re.split(r"\s?" + re.escape(divider) + r"\s?", text)
    count = len(parts)
    for i, part in enumerate(parts):
        if not part.strip():
            if i in (0, len(parts) - 1):
                count -= 1
            else:
                return False
    return count == int(num_paragraphs)


@instruction("length_constraints:nth_paragraph_first_word")
def nth_paragraph_first_word(text: str, num_paragraphs: int, nth_paragraph: int, first_word: str) -> bool:
    paragraphs = re.split(r"\n\n", text)
    count = sum(1 for p in paragraphs if p.strip())
    nth = int(nth_paragraph)
    if nth > count or nth < 1 or not paragraphs[nth - 1].strip():
        return False
    word = paragraphs[nth - 1].split()[0].strip().lstrip("'\"")
    first = re.match(r"[^.,?!'\"]*", word).group(0).lower()
    return count == int(num_paragraphs) and first == first_word.lower()
