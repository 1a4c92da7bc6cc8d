"""Strict training mode for IFBench: the classes of `ifeval.strict`, closed for IFBench's constraints.

Each check here runs on what a reader sees (`ifeval.visible`) and only after
the reference check passed on the text as written and on what a reader sees
(`registry.strict_check`); a constraint without an entry here is those two
reference verdicts, so an invisible character, a tag or an entity that
changes the reference's verdict without changing the rendered text cannot
help.

| constraint | a response the reference pays | strict mode requires |
|---|---|---|
| count:word_count_range | "0 1 2 ... 299", `a0 ... a299`, words joined by `_` | at least: words; at most: every visible token |
| count:unique_word_count | numbers, or one word in several cases, accents or scripts | different words (skeletons), at least N |
| count:conjunctions | "and", "And", "and," as three conjunctions | different conjunctions |
| count:keywords_multiple | an extra occurrence spelt with a confusable letter | exact counts on whole words as written and as seen |
| words:repeats, words:no_consecutive, words:vowel | a repeated word, a same-letter neighbour or a vowel spelt with confusable letters or accents | the reference check on the skeleton too |
| words:palindrome | "12321", "11111" as palindromes | palindromes that are words |
| format:list, format:no_bullets_bullets, format:sub-bullets | markers with nothing after them; no bullet at all for sub-bullets | a letter in every item, at least one bullet |
| format:parentheses, format:quotes | `((((()))))`, nested quotes around nothing | a letter inside the deepest group that satisfies it |
| format:thesis | `<i> </i>x`, `<i>&nbsp;</i>` | a word in the italic line and after it (the check sees tags) |
| format:output_template | the three labels and nothing after them | a letter after each label |
| ratio:*, sentence:*, words:last_first, custom:sentence_alphabet | sentences of bare punctuation or numbers | every sentence carries a word |
"""

from __future__ import annotations

# The modules whose constraints the loop at the end wraps register them first.
from rlvr_core.verifiers.ifbench import counts, custom, sentences, words as ifbench_words  # noqa: F401
from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.registry import compare_bounded
from rlvr_core.verifiers.ifeval.splitting import sentences as split_sentences
from rlvr_core.verifiers.ifeval.strict import whole_word
from rlvr_core.verifiers.ifeval.visible import has_letter, has_word, is_word, runs, skeleton, words

_CONJUNCTIONS = frozenset({"and", "but", "for", "nor", "or", "so", "yet"})
_PAIRS = {")": "(", "]": "[", "}": "{"}
_LABELS = ("My Answer:", "My Conclusion:", "Future Outlook:")


@constraint("count:word_count_range", strict_mode=True)
def word_count_range(text: str, min_words: int, max_words: int) -> bool:
    stingy, generous = len(words(text)), len(runs(text))
    return compare_bounded(stingy, generous, "at least", int(min_words)) and compare_bounded(
        stingy, generous, "at most", int(max_words)
    )


@constraint("count:unique_word_count", strict_mode=True)
def unique_word_count(text: str, N: int) -> bool:
    return len({skeleton(word) for word in words(text)}) >= int(N)


@constraint("count:conjunctions", strict_mode=True)
def conjunctions(text: str, small_n: int) -> bool:
    return len(_CONJUNCTIONS.intersection(map(skeleton, runs(text)))) >= int(small_n)


@constraint("count:keywords_multiple", strict_mode=True)
def keywords_multiple(text: str, keyword1: str, keyword2: str, keyword3: str, keyword4: str, keyword5: str) -> bool:
    folded = skeleton(text)
    wanted = zip((keyword1, keyword2, keyword3, keyword4, keyword5), (1, 2, 3, 5, 7))
    return all(
        len(whole_word(str(k)).findall(text)) == n == len(whole_word(skeleton(str(k))).findall(folded)) for k, n in wanted
    )


@constraint("words:repeats", strict_mode=True)
def repeats(text: str, small_n: int) -> bool:
    return ifbench_words.repeats(skeleton(text), small_n)


@constraint("words:no_consecutive", strict_mode=True)
def no_consecutive(text: str) -> bool:
    return ifbench_words.no_consecutive(skeleton(text))


@constraint("words:vowel", strict_mode=True)
def vowel(text: str) -> bool:
    return ifbench_words.vowel(skeleton(text))


@constraint("words:palindrome", strict_mode=True)
def palindrome(text: str) -> bool:
    found = ifbench_words.split_words(text)
    return sum(1 for w in found if len(w) >= 5 and w == w[::-1] and is_word(w)) >= 10


@constraint("format:list", strict_mode=True)
def list_marker(text: str, sep: str) -> bool:
    return sum(1 for item in text.split(str(sep))[1:] if has_letter(item)) >= 2


@constraint("format:no_bullets_bullets", strict_mode=True)
def no_bullets_bullets(text: str) -> bool:
    bullets = [line.strip()[1:] for line in text.split("\n") if line.strip().startswith("*")]
    return all(map(has_letter, bullets))


@constraint("format:sub-bullets", strict_mode=True)
def sub_bullets(text: str) -> bool:
    pieces = text.split("*")[1:]
    return bool(pieces) and all(has_letter(piece) for piece in pieces)


@constraint("format:parentheses", strict_mode=True)
def parentheses(text: str) -> bool:
    """The reference's walk, where the group that closes at depth 5 or more must hold a letter."""
    stack: list[int] = []
    deepest = 0
    for i, char in enumerate(text):
        if char in "([{":
            stack.append(i)
            deepest = max(deepest, len(stack))
        elif char in _PAIRS:
            if stack and text[stack[-1]] == _PAIRS[char]:
                start = stack.pop()
                if deepest >= 5 and has_letter(text[start:i]):
                    return True
            else:
                stack, deepest = [], 0
    return False


@constraint("format:quotes", strict_mode=True)
def quotes(text: str) -> bool:
    """The reference's walk, where the quote that closes 3 levels below the deepest must hold a letter."""
    stack: list[int] = []
    deepest = 0
    for i, char in enumerate(text):
        if stack and char == text[stack[-1]]:
            start = stack.pop()
            if deepest - len(stack) >= 3 and has_letter(text[start:i]):
                return True
        elif char in "\"'":
            stack.append(i)
            deepest = max(deepest, len(stack))
    return False


@constraint("format:thesis", strict_mode=True, keeps_markup=True)
def thesis(text: str) -> bool:
    """The reference's italic line (`<i>`, else `<em>`), with a word in it and a word after it."""
    start = text.find("<i>")
    opening = "<i>" if start >= 0 else "<em>"
    start = text.find(opening)
    if start < 0:
        return False
    rest = text[start + len(opening) :]
    end, closing = rest.find("</i>"), "</i>"
    if end < 0:
        end, closing = rest.find("</em>"), "</em>"
    return end >= 0 and has_word(rest[:end]) and has_word(rest[end + len(closing) :])


@constraint("format:output_template", strict_mode=True)
def output_template(text: str) -> bool:
    starts = sorted((text.find(label), label) for label in _LABELS)
    if starts[0][0] < 0:
        return False
    ends = [position for position, _ in starts[1:]] + [len(text)]
    return all(has_letter(text[p + len(label) : end]) for (p, label), end in zip(starts, ends))


def sentences_carry_words(text: str, **_: object) -> bool:
    """Every sentence holds a word (punctuation or numbers alone are not one)."""
    return all(has_word(s) for s in split_sentences(text))


for _id in (
    "ratio:sentence_type", "ratio:sentence_balance", "ratio:sentence_words", "sentence:increment",
    "sentence:alliteration_increment", "sentence:keyword", "words:last_first", "custom:sentence_alphabet",
):
    constraint(_id, strict_mode=True)(sentences_carry_words)
