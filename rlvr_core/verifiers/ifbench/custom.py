"""IFBench custom:* constraints: fixed prompts with one right shape of answer
(semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import csv
import io
import re
import string
import unicodedata

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import sentences as split_sentences

_STRIP = string.punctuation + " "
_NO_PUNCT = str.maketrans("", "", string.punctuation)
_QUESTION_LABEL = re.compile(r"\n*(?:Question \d+[\.|\):;]?\s*)")
_OPTION_LINE = re.compile(r"^[A-Ea-e][\.|\)]\s*\w+")
_EUROPEAN_CAPITALS = (
    "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam "
    "Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb"
).split()
_CITY_HEADER = ["ID", "Country", "City", "Year", "Count"]
_PRODUCT_HEADER = re.compile(
    r'^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$'
)
_STUDENT_HEADER = re.compile(
    r'^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$'
)
_QUOTED_SPECIAL = re.compile(r'".*[^\d\w\s].*"')
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_LONG_MONTHS = {1, 3, 5, 7, 8, 10, 12}
_SHORT_MONTHS = {4, 6, 9, 11}


def _ascii_fold(text: str) -> str:
    """'São Tomé' -> 'Sao Tome': NFKD, then drop whatever is not ASCII."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _csv_rows(text: str, delimiter: str = ",") -> list[list[str]] | None:
    try:
        return list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:
        return None


@constraint("custom:multiples")
def multiples(text: str) -> bool:
    """The digit runs in the response are exactly 14, 21, 28, 35, 42, 49, in that order."""
    return re.findall(r"\d+", text.replace(",", ", ")) == ["14", "21", "28", "35", "42", "49"]


@constraint("custom:mcq_count_length")
def mcq_count_length(text: str) -> bool:
    """Starts with "Question"; 4 questions split on "Question <n>" labels; each has exactly 5 option
    lines ("A)" / "b." ... "E)") and question text (lines before its first option) strictly longer
    than the previous question's."""
    if not text.startswith("Question"):
        return False
    questions = [q.strip() for q in _QUESTION_LABEL.split(text) if q.strip()]
    if len(questions) != 4:
        return False
    lengths = []
    for question in questions:
        stem, n_options, in_options = "", 0, False
        for line in question.split("\n"):
            if _OPTION_LINE.match(line.strip()):
                n_options += 1
                in_options = True
            elif not in_options:
                stem += " " + line.strip()
        if n_options != 5:
            return False
        lengths.append(len(stem.strip()))
    return all(a < b for a, b in zip(lengths, lengths[1:]))


@constraint("custom:reverse_newline")
def reverse_newline(text: str) -> bool:
    """From the first line containing "Zimbabwe": 52+ non-empty lines (outer punctuation/spaces
    stripped) in reverse alphabetical order after folding accents to ASCII."""
    lines = [line.strip(_STRIP) for line in text.split("\n") if line.strip(_STRIP)]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    folded = [_ascii_fold(line) for line in lines[start:]]
    return folded == sorted(folded, reverse=True)


@constraint("custom:word_reverse")
def word_reverse(text: str) -> bool:
    """Read backwards word by word (lowercased, punctuation deleted), the response says "bald eagle"
    and is a single sentence."""
    forward = " ".join(text.lower().strip().translate(_NO_PUNCT).split()[::-1])
    return "bald eagle" in forward and forward in split_sentences(forward)


@constraint("custom:character_reverse")
def character_reverse(text: str) -> bool:
    """Contains "elgae dlab" ("bald eagle" reversed), case-insensitive."""
    return "elgae dlab" in text.lower()


@constraint("custom:sentence_alphabet")
def sentence_alphabet(text: str) -> bool:
    """Exactly 26 sentences; the i-th, leading punctuation/whitespace stripped, starts with the i-th
    letter (case-insensitive)."""
    sentences = split_sentences(text)
    if len(sentences) != 26:
        return False
    for letter, sentence in zip(string.ascii_lowercase, sentences):
        body = sentence.lstrip(string.punctuation + string.whitespace)
        if not body or body[0].lower() != letter:
            return False
    return True


@constraint("custom:european_capitals_sort")
def european_capitals_sort(text: str) -> bool:
    """Exactly the 27 European capitals north of 45°N, comma-separated, north to south (accents folded,
    exact spelling and case)."""
    names = [name.strip() for name in _ascii_fold(text).split(",") if name.strip()]
    return names == _EUROPEAN_CAPITALS


@constraint("custom:csv_city")
def csv_city(text: str) -> bool:
    """Comma CSV: header exactly ID,Country,City,Year,Count then 7 rows of 5 fields, nothing else
    (a blank line is a row)."""
    rows = _csv_rows(text)
    return (
        rows is not None
        and len(rows) == 8
        and rows[0] == _CITY_HEADER
        and all(len(row) == 5 for row in rows[1:])
    )


@constraint("custom:csv_special_character")
def csv_special_character(text: str) -> bool:
    """First line is the ProductID,Category,Brand,Price,Stock header (names optionally quoted); 15
    rows in all; scanning data rows, one with 5 fields holding a double-quoted field containing a
    special character is found before any row without 5 fields."""
    if not _PRODUCT_HEADER.match(text.split("\n")[0].strip()):
        return False
    rows = _csv_rows(text.replace('"', '"""'))
    if rows is None or len(rows) != 15:
        return False
    for row in rows[1:]:
        if len(row) != 5:
            return False
        if any(_QUOTED_SPECIAL.match(field) for field in row):
            return True
    return False


@constraint("custom:csv_quotes")
def csv_quotes(text: str) -> bool:
    """Tab-separated: the StudentID/Subject/Grade/Semester/Score header then 3 rows, 4 rows in all,
    each of 5 fields, every field wrapped in double quotes."""
    if not _STUDENT_HEADER.match(text.split("\n")[0].strip()):
        return False
    rows = _csv_rows(text.replace('"', '"""'), delimiter="\t")
    if rows is None or len(rows) != 4:
        return False
    for row in rows:
        if len(row) != 5:
            return False
        for field in row:
            field = field.strip()
            if not field or field[0] != '"' or field[-1] != '"':
                return False
    return True


@constraint("custom:date_format_list")
def date_format_list(text: str) -> bool:
    """Only comma-separated YYYY-MM-DD dates with year 1769-1821, month <= 12 and day within the
    month's length (29 for February; 00 is not rejected, as in the reference)."""
    for item in text.strip().split(","):
        item = item.strip()
        if not _DATE.match(item):
            return False
        year, month, day = (int(part) for part in item.split("-"))
        if not 1769 <= year <= 1821 or month > 12:
            return False
        if (month in _LONG_MONTHS and day > 31) or (month in _SHORT_MONTHS and day > 30) or (month == 2 and day > 29):
            return False
    return True
