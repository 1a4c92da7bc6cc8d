"""length_constraints:* instructions (sentences and words counted as the reference counts them)."""

from __future__ import annotations

import re

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.registry import as_int, compare, count_limit, instruction, validate_relation


@instruction("length_constraints:number_sentences")
def number_sentences(text: str, num_sentences: int, relation: str) -> bool:
    """Punkt sentences (NLTK, English model): "etc. Then" is two sentences only where Punkt says so."""
    n = as_int(num_sentences, "num_sentences")
    validate_relation(relation)
    return compare(splitting.count_sentences(text, limit=count_limit(n)), relation, n)


@instruction("length_constraints:number_words")
def number_words(text: str, num_words: int, relation: str) -> bool:
    n = as_int(num_words, "num_words")
    validate_relation(relation)
    return compare(splitting.count_words(text), relation, n)


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
    return count == as_int(num_paragraphs, "num_paragraphs")


@instruction("length_constraints:nth_paragraph_first_word")
def nth_paragraph_first_word(text: str, num_paragraphs: int, nth_paragraph: int, first_word: str) -> bool:
    """Paragraphs split on blank lines; the first word loses leading ' then " and stops at . , ? ! ' "."""
    paragraphs = re.split(r"\n\n", text)
    count = sum(1 for p in paragraphs if p.strip())
    nth = as_int(nth_paragraph, "nth_paragraph")
    if nth > count or nth < 1 or not paragraphs[nth - 1].strip():
        return False
    word = paragraphs[nth - 1].split()[0].strip().lstrip("'").lstrip('"')
    first = re.match(r"[^.,?!'\"]*", word).group(0).lower()
    return count == as_int(num_paragraphs, "num_paragraphs") and first == first_word.lower()
