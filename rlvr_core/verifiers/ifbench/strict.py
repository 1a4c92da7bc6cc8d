"""Strict training mode: the IFBench constraints whose reference accepts a loophole, closed (see ifeval.strict).

| constraint | reference accepts | strict mode requires |
|---|---|---|
| count:word_count_range | "0 1 2 ... 299" as 300 words | words with a letter in them |
| count:unique_word_count | numbers as unique words | unique words with a letter in them |

`count:keywords_multiple` already counts whole words in both modes.
"""

from __future__ import annotations

import string

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import count_lettered_words

_STRIP = string.punctuation + " "


@constraint("count:word_count_range", strict_mode=True)
def word_count_range(text: str, min_words: int, max_words: int) -> bool:
    return int(min_words) <= count_lettered_words(text) <= int(max_words)


@constraint("count:unique_word_count", strict_mode=True)
def unique_word_count(text: str, N: int) -> bool:
    unique = {word.strip(_STRIP) for word in text.lower().split()}
    return sum(1 for word in unique if any(map(str.isalpha, word))) >= int(N)
