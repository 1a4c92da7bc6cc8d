"""What a reader sees: the one normalisation strict mode applies before any instruction check.

A policy under RL controls every character of its response; a reader (and
the instruction's author) judges what is rendered. Strict mode therefore
checks each instruction twice: the reference check on the response as
written, and again on `visible_text(response)` (registry.strict_check), so a
disguise that changes what the checker reads without changing what a reader
sees cannot help either way:

- HTML comments (`<!-- ... -->`, an unclosed one to the end), hidden
  elements (`<script>`, `<style>`, `<template>`, `<head>`, anything marked
  `hidden`, `display:none`, `visibility:hidden`, `font-size:0`) and the
  markdown comment idiom (`[//]: # (...)`) are removed with their content;
- tags are not text (`<b>cat</b>` reads "cat"; a block tag such as `<br>` or
  `<p>` reads as a line break), `<<title>>` is not a tag;
- character references are decoded (`&nbsp;` is a space, `&#44;` a comma);
- a right-to-left override's span is read in the order it is drawn
  (reversed); then format characters (category Cf) and default-ignorable
  code points (zero width spaces and joiners, soft hyphens, word joiners,
  variation selectors, tag characters, bidirectional controls) are removed; fillers that render as a blank (Hangul
  fillers, the braille blank) become a space;
- NFKC folds compatibility forms (fullwidth letters, ligatures, mathematical
  alphanumerics, the no-break space).

Where it stops: confusable letters from other scripts (Cyrillic "а" for "a")
stay as written here, since folding them would change Russian or Greek text
(language checks); the checks where a confusable hides a forbidden or
counted word fold them themselves with `skeleton`. CSS beyond the hiding
properties above (white text, off-screen positions) is not interpreted.

Words and content, as strict mode counts them:

- a *word* (`is_word`) is a run of letters, marks and digits (underscores
  and other joiners split runs) that has a letter, no digit, and is not a
  numbering token: ordinals (`1st`), hex and letter+digit labels (`a17`,
  `0x1f`) hold a digit; roman numerals of two or more letters (`xiv`) and
  single consonants (`b`, `x`) are not words, except the end of a
  contraction (the "s" of "it's");
- *content* (`has_letter`) is at least one letter: list items, JSON payloads,
  titles, quotes and repeated responses must carry some.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import regex

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MARKDOWN_COMMENT = re.compile(r"^[ ]{0,3}\[[^\]\n]*\]:[ \t]*(?:#|<>)[^\n]*$", re.MULTILINE)
# A tag: "<" then a name, attributes, ">" (as an HTML parser reads it); "<<title>>" is IFEval's title, not a tag.
_TAG = re.compile(r"(?<!<)<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s[^<>]*)?)/?>(?!>)")
_HIDDEN_ELEMENTS = frozenset({"script", "style", "template", "head", "title", "noscript", "iframe", "object"})
_HIDING_ATTRIBUTE = re.compile(
    r"\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])",
    re.IGNORECASE,
)
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr li "
    "main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
_INVISIBLE = regex.compile(r"[\p{Cf}\p{Default_Ignorable_Code_Point}]+")
# A right-to-left override draws what follows it, to its pop or the line's end, in reverse: "\u202edab" reads "bad".
_RIGHT_TO_LEFT = re.compile("\u202e([^\u202c\n]*)")
# Default-ignorable fillers that fonts draw as a blank, and the braille blank: a reader sees a space.
_BLANK_FILLERS = {ord(c): " " for c in "\u115f\u1160\u3164\uffa0\u2800"}

_RUN = regex.compile(r"[\p{L}\p{M}\p{N}]+")
_LETTER_RUN = regex.compile(r"(?<![\p{L}\p{M}\p{N}])\p{L}[\p{L}\p{M}]*(?![\p{L}\p{M}\p{N}])")
_ROMAN_LETTERS = frozenset("IVXLCDMivxlcdm")
_ROMAN = re.compile(r"M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})", re.IGNORECASE)
_ONE_LETTER_WORDS = frozenset("aeiouyAEIOUY")  # "a", "I", and the vowels other Latin languages use as words
_ROMAN_LOOKING_WORDS = frozenset({"mix"})


def _remove_hidden_elements(text: str) -> str:
    """`text` without hidden elements and their content (nesting of the same tag name respected)."""
    out, position = [], 0
    for match in _TAG.finditer(text):
        if match.start() < position:
            continue  # inside an element already removed
        closing, name, attributes = match.group(1), match.group(2).lower(), match.group(3)
        if closing or not (name in _HIDDEN_ELEMENTS or _HIDING_ATTRIBUTE.search(attributes)):
            continue
        out.append(text[position : match.start()])
        position = _element_end(text, name, match.end())
    out.append(text[position:])
    return "".join(out)


def _element_end(text: str, name: str, start: int) -> int:
    """Where the element opened just before `start` ends: after its matching close tag, else the end of text."""
    depth = 1
    for match in _TAG.finditer(text, start):
        if match.group(2).lower() != name:
            continue
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.end()
    return len(text)


def _tag_as_text(match: re.Match[str]) -> str:
    return "\n" if match.group(2).lower() in _BLOCK_TAGS else ""


@lru_cache(maxsize=256)
def visible_text(text: str) -> str:
    """What a reader sees of `text` (module docstring); plain ASCII without markup is returned as it is.

    Cached: every strict check of one response normalises it once.
    """
    if text.isascii() and "<" not in text and "&" not in text and "[" not in text:
        return text
    if "<" in text:
        text = _COMMENT.sub("", text)
        text = _remove_hidden_elements(text)
        text = _TAG.sub(_tag_as_text, text)
    if "[" in text:
        text = _MARKDOWN_COMMENT.sub("", text)
    return _characters(text)


@lru_cache(maxsize=64)
def markup_text(text: str) -> str:
    """`visible_text` that keeps tags: for the checks whose instruction is about markup (IFBench's `<i>` thesis)."""
    if "<" in text:
        text = _COMMENT.sub("", text)
        text = _remove_hidden_elements(text)
    return _characters(text)


def _characters(text: str) -> str:
    """References decoded, right-to-left spans in drawn order, invisibles out, blank fillers as spaces, NFKC."""
    if "&" in text:
        text = html.unescape(text)
    if "\u202e" in text:
        text = _RIGHT_TO_LEFT.sub(lambda m: m.group(1)[::-1], text)
    text = _INVISIBLE.sub("", text.translate(_BLANK_FILLERS))
    return unicodedata.normalize("NFKC", text)


View = Callable[[str], str]

# Latin letters and the letters of other scripts drawn the same (Unicode's confusables for a-z, abridged to the
# letters a reader cannot tell apart in running text): Cyrillic, Greek, Armenian, Cherokee, Latin small capitals,
# and the forms NFKC gives some of them (the lunate sigma "ϲ" becomes "ς").
_CONFUSABLES = str.maketrans({
    **dict.fromkeys("аαɑ⍺", "a"), **dict.fromkeys("ЬЪ", "b"), **dict.fromkeys("сϲςⅽᴄ", "c"), **dict.fromkeys("ԁⅾ", "d"),
    **dict.fromkeys("еєҽ", "e"), **dict.fromkeys("ɡց", "g"), **dict.fromkeys("һհ", "h"),
    **dict.fromkeys("іιɩӏⅰı", "i"), **dict.fromkeys("јϳ", "j"), **dict.fromkeys("кκᴋ", "k"), **dict.fromkeys("ⅼ", "l"),
    **dict.fromkeys("ⅿ", "m"), **dict.fromkeys("ոռ", "n"), **dict.fromkeys("оοօσᴏ", "o"), **dict.fromkeys("рρ", "p"),
    **dict.fromkeys("ԛ", "q"), **dict.fromkeys("ѕꜱ", "s"), **dict.fromkeys("τт", "t"), **dict.fromkeys("υսᴜ", "u"),
    **dict.fromkeys("νѵᴠⅴ", "v"), **dict.fromkeys("ԝѡᴡ", "w"), **dict.fromkeys("хχⅹ", "x"), **dict.fromkeys("уγỿ", "y"),
    **dict.fromkeys("ᴢ", "z"),
    **dict.fromkeys("АΑᎪ", "A"), **dict.fromkeys("ВΒᏴ", "B"), **dict.fromkeys("СϹᏟ", "C"), **dict.fromkeys("ЕΕᎬ", "E"),
    **dict.fromkeys("НΗᎻ", "H"), **dict.fromkeys("ІΙӀ", "I"), **dict.fromkeys("ЈᎫ", "J"), **dict.fromkeys("КΚᏦ", "K"),
    **dict.fromkeys("МΜᎷ", "M"), **dict.fromkeys("Ν", "N"), **dict.fromkeys("ОΟՕ", "O"), **dict.fromkeys("РΡᏢ", "P"),
    **dict.fromkeys("ЅᏚ", "S"), **dict.fromkeys("ТΤᎢ", "T"), **dict.fromkeys("ХΧ", "X"), **dict.fromkeys("ҮΥ", "Y"),
    **dict.fromkeys("Ζ", "Z"),
})


def skeleton(text: str) -> str:
    """`text` folded to what it looks like: accents dropped (NFKD, marks removed), confusable letters to Latin, case folded.

    For comparisons only (never shown or language-detected): "Сat", "cát" and "cat" share the skeleton "cat".
    """
    decomposed = unicodedata.normalize("NFKD", text)
    if not decomposed.isascii():
        decomposed = "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_CONFUSABLES)
    return decomposed.casefold()


def runs(text: str) -> list[str]:
    """Every visible token: runs of letters, marks and digits (underscores, hyphens, joiners split them)."""
    return _RUN.findall(text)


def is_word(run: str) -> bool:
    """A run that reads as a word: a letter, no digit, not a roman numeral or a lone consonant (module docstring)."""
    if not any(map(str.isalpha, run)) or any(map(str.isdigit, run)):
        return False
    if len(run) == 1:
        return not run.isascii() or run in _ONE_LETTER_WORDS
    return not (_ROMAN.fullmatch(run) and run.lower() not in _ROMAN_LOOKING_WORDS)


def words(text: str) -> list[str]:
    """The runs of `text` that are words (`is_word`), and the one-letter ends of contractions ("it's", "don't").

    The reference counts "it's" as two words; so does this, lest an honest text lose its contractions.
    """
    found = []
    for match in _LETTER_RUN.finditer(text):  # the runs without a digit: most runs of a text are words
        run, start = match.group(), match.start()
        if len(run) == 1:
            if not run.isascii() or run in _ONE_LETTER_WORDS or (start >= 2 and text[start - 1] in "'\u2019" and text[start - 2].isalpha()):
                found.append(run)
        elif not (_ROMAN_LETTERS.issuperset(run) and _ROMAN.fullmatch(run) and run.lower() not in _ROMAN_LOOKING_WORDS):
            found.append(run)
    return found


def count_words(text: str) -> tuple[int, int]:
    """(words, runs) of `text`: its stingy and its generous word count."""
    return len(words(text)), sum(1 for _ in _RUN.finditer(text))


def has_letter(text: str) -> bool:
    """Content: at least one letter (after `visible_text`, a blank-looking letter is gone)."""
    return any(map(str.isalpha, text))


def has_word(text: str) -> bool:
    """At least one word (`is_word`) in `text`."""
    return any(is_word(run) for run in runs(text))
