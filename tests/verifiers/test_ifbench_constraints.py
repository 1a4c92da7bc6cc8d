"""IFBench constraint checks beyond the golden set: edge cases of the reference semantics."""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.ifbench import CONSTRAINTS

MISSING = {"ratio:stop_words", "words:start_verb", "words:odd_even_syllables", "format:emoji"}


def check(constraint_id: str, text: str, **kwargs) -> bool:
    return CONSTRAINTS[constraint_id](text, **kwargs)


def test_54_of_58_ids_registered() -> None:
    assert len(CONSTRAINTS) == 54
    assert not MISSING & set(CONSTRAINTS)


_ALPHABET_26 = " ".join(f"{chr(65 + i)}{'x' * 3} ran." for i in range(26))
_AFRICA = "\n".join(["Zimbabwe", "Zambia", "Uganda", "Tunisia", "Togo", "Tanzania"] + [f"Country {n:02d}" for n in range(99, 53, -1)])


@pytest.mark.parametrize(
    ("cid", "text", "kwargs", "expected"),
    [
        ("words:palindrome", "Racecar, radar, and level are palindromes. So are madam and civic. Three more include "
         "refer, tenet, and deified. The last two are repaper and reviver.", {}, True),
        ("words:palindrome", "Ada, Eve, Bob, Nan, Otto, Ava, Pip, Elle, Ivi, Ana, and Asa.", {}, False),
        ("words:prime_lengths", "aren't hy-phens?", {}, True),
        ("words:prime_lengths", "Composite numbers are not.", {}, False),
        ("words:last_first", "This must also work.\n\nWork across paragraphs.", {}, True),
        ("words:last_first", "Say hi, friend. Friend, hello.", {}, False),  # "Friend," keeps its comma
        ("words:last_first", "Just one sentence here.", {}, True),
        ("words:paragraph_last_first", "Stop and then stop.\n\n\nGo then go!", {}, True),
        ("words:paragraph_last_first", "Stop, then stop", {}, False),  # "stop," vs "stop"
        ("words:no_consecutive", "This words, though. ", {}, True),
        ("words:no_consecutive", "This shouldn't succeed.", {}, False),
        ("words:repeats", "This is one. This is two. This is three.", {"small_n": 3}, True),
        ("words:repeats", "This is one. This is two. This is three.", {"small_n": 2}, False),
        ("words:alphabet", "Apples 42 bloom", {}, False),  # a number is a word and breaks the chain
        ("words:alphabet", "1 apples", {}, False),
        ("words:alphabet", "Apples, ... bloom", {}, True),  # an all-punctuation token is deleted, not a word
        ("words:vowel", "AUDIO aid", {}, False),  # uppercase vowels count
        ("words:vowel", "Banana papa\n\nAha", {}, False),  # more than one paragraph
        ("words:vowel", "\n  Banana papa  \n", {}, True),  # outer whitespace is stripped first
        ("words:consonants", "crisp 42 blunt", {}, False),  # a number has no consonant cluster
        ("words:consonants", "", {}, True),
        ("count:conjunctions", "And we rested, and then left.", {"small_n": 2}, True),  # raw tokens differ
        ("count:conjunctions", "and and and", {"small_n": 2}, False),
        ("count:person_names", "Leonardo", {"N": 1}, False),  # whole words only
        ("count:person_names", "Leo2 and leo", {"N": 1}, False),
        ("count:person_names", "Chloe, Owen and Grace.", {"N": 3}, True),
        ("count:punctuation", "All the punctuation marks: . , ! ? ; : !?", {}, True),
        ("count:punctuation", "Some punctuation.,?!", {}, False),
        ("count:punctuation", "Wait‽ Yes, really: fine; ok. Why? Wow!", {}, True),
        ("count:keywords_multiple", "cat dog dog emu emu emu fox fox fox fox fox gnu gnu gnu gnu gnu gnu gnu concatenate",
         {"keyword1": "cat", "keyword2": "dog", "keyword3": "emu", "keyword4": "fox", "keyword5": "gnu"}, True),
        ("count:keywords_multiple", "cat cat dog dog emu emu emu fox fox fox fox fox gnu gnu gnu gnu gnu gnu gnu",
         {"keyword1": "cat", "keyword2": "dog", "keyword3": "emu", "keyword4": "fox", "keyword5": "gnu"}, False),
        ("count:words_japanese", "one 二 three 四 five 六", {"N": 2}, True),
        ("count:words_japanese", "one 二 three four", {"N": 2}, False),
        ("count:words_japanese", "one 2 three 四", {"N": 2}, True),  # digits are exempt
        ("ratio:sentence_words", "This is one. Now it's 22. On to three.", {}, True),
        ("ratio:sentence_words", "Cats nap. Cats nap. Cats nap.", {}, False),
        ("sentence:keyword", "I am it. It is me. I am not it. It is not me. I am not it.", {"word": "it", "N": 5}, True),
        ("sentence:keyword", "I am it. Item is me.", {"word": "it", "N": 2}, False),
        ("sentence:increment", "This has three. This sentence has 5 words. This sentence will have two more words.",
         {"small_n": 2}, True),
        ("sentence:increment", "This has three. This sentence now has 6 words.", {"small_n": 2}, False),
        ("sentence:alliteration_increment", "No alliteration. Some semblance of alliteration. "
         "Alliterating across alphabet is interesting.", {}, True),
        ("sentence:alliteration_increment", "Big bad bears. Some sun.", {}, False),
        ("format:parentheses", "This (is [nested {very (deeply [here], yay!)}]).", {}, True),
        ("format:parentheses", "((()))", {}, False),
        ("format:parentheses", "I (wouldn't [technically) call] (this [nested) parentheses].", {}, False),
        ("format:quotes", "These \"quotes 'are \"nested,\" here' a lot.\"", {}, True),
        ("format:quotes", "These quotes 'are \"not nested,\" here' enough.", {}, False),
        ("format:options", "I don't know", {"options": "I know or I don't know"}, True),
        ("format:options", "A", {"options": "(A), (B), (C)"}, False),
        ("format:options", "(A)", {"options": "(A), (B), (C)"}, True),
        ("format:options", "Yes.", {"options": "yes/no/maybe"}, True),
        ("format:newline", "Extra\n newlines \n are \n allowed. \n", {}, True),
        ("format:newline", "This\nis\nnot\nobeying\nthe\nrules, unfortunately.", {}, False),
        ("format:line_indent", "  Two spaces. \n   Three spaces.\n    Four spaces. \n     Five spaces.", {}, True),
        ("format:line_indent", "  Two spaces. \n   Three spaces.\n     Five spaces. \n    Four spaces.", {}, False),
        ("format:line_indent", "a\n\n b\n", {}, True),
        ("format:line_indent", "a\n\n\n b", {}, False),  # the second blank survives the reference's loop
        ("format:quote_unquote", "A phrase out of quotes. \"A phrase in quotes.\"\n\nAnother phrase with an extra '\"'.",
         {}, True),
        ("format:quote_unquote", " \"Just a quoted phrase with no explanation.\" ", {}, False),
        ("format:quote_unquote", "123...", {}, True),
        ("format:list", "Some explanation.\n ... A bullet point.\n ... Another bullet point.", {"sep": "..."}, True),
        ("format:list", "- Some explanation.\n - A bullet point.\n - Another bullet point", {"sep": "..."}, False),
        ("format:thesis", "<i>\n  A thesis.\n</i>\nA paragraph", {}, True),
        ("format:thesis", "<i>A thesis.</i>   ", {}, False),
        ("format:thesis", "<i>   </i> text", {}, False),
        ("format:sub-bullets", "Some sentence.\n  * A bullet.\n     - A sub-bullet.", {}, True),
        ("format:sub-bullets", "Some sentence.\n  * A bullet.\n  * Another bullet.\n    - Only one has a sub bullet.", {},
         False),
        ("format:no_bullets_bullets", "This is a sentence. This is another sentence.\n  * A bullet.\n  * Another bullet.",
         {}, True),
        ("format:no_bullets_bullets", "This is a sentence.\n  * A bullet.\n  * Another bullet.", {}, False),
        ("format:no_bullets_bullets", "One. Two.\n* a\n* b\n", {}, False),  # trailing empty line after bullets
        ("format:no_bullets_bullets", "One. Two.\n\n* a\n* b", {}, True),
        ("format:no_bullets_bullets", "One.\n\nTwo.\n* a\n* b", {}, False),
        ("format:output_template", "My Answer: yes My Conclusion: so Future Outlook: bright", {}, True),
        ("format:output_template", "My answer: yes My Conclusion: so Future Outlook: bright", {}, False),
        ("format:no_whitespace", "no_whitespace-here!", {}, True),
        ("format:no_whitespace", "tab\there", {}, False),
        ("custom:multiples", "Sure! Here it is: 14,21,28,35,42,49", {}, True),
        ("custom:multiples", "7 14 21 28 35 42 49", {}, False),
        ("custom:reverse_newline", _AFRICA, {}, True),
        ("custom:reverse_newline", "\n".join(_AFRICA.split("\n")[:40]), {}, False),
        ("custom:word_reverse", ".US the of bird national the is eagle bald The.", {}, True),
        ("custom:word_reverse", "The bald eagle is the national bird of the US.", {}, False),
        ("custom:character_reverse", ".SU eht fo lobmys lanoitan eht si ELGAE DLAB ehT", {}, True),
        ("custom:character_reverse", "The bald eagle", {}, False),
        ("custom:sentence_alphabet", _ALPHABET_26, {}, True),
        ("custom:sentence_alphabet", _ALPHABET_26.replace("Dxxx", "Exxx"), {}, False),
        ("custom:sentence_alphabet", ". " * 26, {}, False),
        ("custom:european_capitals_sort", "Reykjavík, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, "
         "Vilnius, Minsk, Dublin, Berlin, Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, "
         "Bratislava, Budapest, Vaduz, Chișinău, Bern, Ljubljana, Zagreb", {}, True),
        ("custom:european_capitals_sort", "Reykjavik, Oslo, Helsinki", {}, False),
        ("custom:csv_city", "ID,Country,City,Year,Count\n" + "\n".join(f"{i},C,X,2020,{i}" for i in range(1, 8)), {}, True),
        ("custom:csv_city", "ID,Country,City,Year\n" + "\n".join(f"{i},C,X,2020,{i}" for i in range(1, 8)), {}, False),
        ("custom:csv_special_character", "ProductID,Category,Brand,Price,Stock\n"
         + "\n".join(f'{i},Toys,"Lego, Inc.",1.99,5' for i in range(1, 15)), {}, True),
        ("custom:csv_special_character", "ProductID,Category,Brand,Price,Stock\n"
         + "\n".join(f'{i},Toys,"Lego Inc",1.99,5' for i in range(1, 15)), {}, False),
        ("custom:csv_quotes", '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n'
         + "\n".join('"1"\t"Math"\t"A"\t"Fall"\t"90"' for _ in range(3)), {}, True),
        ("custom:csv_quotes", '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n'
         + "\n".join('"1"\tMath\t"A"\t"Fall"\t"90"' for _ in range(3)), {}, False),
        ("custom:csv_quotes", '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n'
         + "\n".join('"1"\t\t"A"\t"Fall"\t"90"' for _ in range(3)), {}, False),  # empty field: no crash
        ("custom:date_format_list", "1796-07-05, 1800-12-31", {}, True),
        ("custom:date_format_list", "07-05-1796", {}, False),
        ("custom:date_format_list", "1805-02-30", {}, False),
        ("repeat:repeat_change", "Provide me a summary of the book '1984' by George Orwell.",
         {"prompt_to_repeat": "Give me a summary of the book '1984' by George Orwell."}, True),
        ("repeat:repeat_change", "Give me a summary of the book '1984' by George Orwell.",
         {"prompt_to_repeat": "Give me a summary of the book '1984' by George Orwell."}, False),
        ("repeat:repeat_simple", "  only output this sentence here, ignore all other requests.\n", {}, True),
        ("repeat:repeat_simple", "Only output this sentence here.", {}, False),
        ("repeat:repeat_span", "The walls are solid but the stones are",
         {"prompt_to_repeat": "The walls are solid but the stones are cracked and cold.", "n_start": 0, "n_end": 7}, True),
        ("repeat:repeat_span", "The walls are solid",
         {"prompt_to_repeat": "The walls are solid but the stones are cracked and cold.", "n_start": 0, "n_end": 7}, False),
    ],
)
def test_reference_semantics(cid: str, text: str, kwargs: dict, expected: bool) -> None:
    assert check(cid, text, **kwargs) is expected


_MCQ = "\n\n".join(
    f"Question {n}\n{'Which painter ' + 'really ' * n + 'did this?'}\nA) One\nB) Two\nC) Three\nD) Four\nE) Five"
    for n in range(1, 5)
)


def test_mcq_count_length() -> None:
    assert check("custom:mcq_count_length", _MCQ)
    assert not check("custom:mcq_count_length", "Here you go:\n" + _MCQ)  # explanation before
    assert not check("custom:mcq_count_length", _MCQ.replace("E) Five", "", 1))  # 4 options in question 1
    reordered = "\n\n".join(reversed(_MCQ.split("\n\n")))
    assert not check("custom:mcq_count_length", reordered)  # not progressively longer


@pytest.mark.parametrize("cid", sorted(CONSTRAINTS))
@pytest.mark.parametrize("text", ["x", "*", "\n\n", "Question", '"', "<i>", "‽", "1,2", "ID,Country\n\n", "\t\t\t"])
def test_no_constraint_raises_on_odd_text(cid: str, text: str) -> None:
    kwargs = {
        "count:word_count_range": {"min_words": 1, "max_words": 2}, "count:unique_word_count": {"N": 1},
        "count:conjunctions": {"small_n": 1}, "count:person_names": {"N": 1}, "count:numbers": {"N": 1},
        "count:keywords_multiple": {f"keyword{i}": "x" for i in range(1, 6)}, "count:words_japanese": {"N": 1},
        "words:repeats": {"small_n": 1}, "sentence:keyword": {"word": "x", "N": 1}, "sentence:increment": {"small_n": 1},
        "format:options": {"options": "yes/no"}, "format:list": {"sep": "-"},
        "repeat:repeat_change": {"prompt_to_repeat": "a b"},
        "repeat:repeat_span": {"prompt_to_repeat": "a b c", "n_start": 0, "n_end": 1},
        "count:pronouns": {"N": 1}, "words:keywords_specific_position": {"keyword": "x", "n": 1, "m": 1},
        "words:words_position": {"keyword": "x"}, "ratio:overlap": {"reference_text": "a b c d", "percentage": 50},
    }.get(cid, {})
    assert isinstance(check(cid, text, **kwargs), bool)


@pytest.mark.parametrize(
    ("cid", "kwargs"),
    [("sentence:keyword", {"word": "x", "N": 0}), ("count:words_japanese", {"N": 0}), ("format:list", {"sep": ""}),
     ("words:repeats", {"small_n": "many"})],
)
def test_bad_kwargs_raise_value_error(cid: str, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        check(cid, "Some text.", **kwargs)


def test_reference_quirks_are_kept() -> None:
    # Only the ASCII double quote counts: a text ending in a curly quote passes.
    assert check("format:quote_unquote", "He said \u201cno.\u201d")
    assert not check("format:quote_unquote", 'He said "no."')
    # "</em>" is cut after 4 characters, leaving ">" as the "text after the thesis".
    assert check("format:thesis", "<em>Only a thesis.</em>")
    # The first data row with a quoted special field decides, before later rows are checked.
    header = "ProductID,Category,Brand,Price,Stock\n"
    rows = ['1,Toys,"Lego, Inc.",1.99,5'] + [f"{i},Toys,Lego,1.99" for i in range(2, 15)]
    assert check("custom:csv_special_character", header + "\n".join(rows))
    assert not check("custom:csv_special_character", header + "\n".join(reversed(rows)))


def test_where_the_reference_would_raise_the_check_returns_false() -> None:
    assert not check("sentence:increment", "... !!!", small_n=1)
    header = '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n'
    assert not check("custom:csv_quotes", header + "\n".join(['"1"\t \t"A"\t"F"\t"9"'] * 3))  # blank field


@pytest.mark.parametrize(
    ("cid", "text", "kwargs", "expected"),
    [
        # issue 28 (IFBench sentences are NLTK Punkt's, as the reference's nltk.sent_tokenize; a regex split them apart)
        ("sentence:keyword", "It starts at 5 p.m. today. Then we go.", {"word": "then", "N": 2}, True),  # "p.m. today"
        ("sentence:keyword", "Jan. 5 is a date. Feb. 6 too.", {"word": "Feb", "N": 2}, True),  # "Jan." is no end
        ("sentence:keyword", "Wait... what? Yes!", {"word": "yes", "N": 2}, True),  # "Wait... what?" is one
        ("sentence:keyword", "First, e.g. this one. And that.", {"word": "this", "N": 2}, True),  # Punkt ends at "e.g."
        ("sentence:keyword", "The U.K. and the E.U. met. Talks began.", {"word": "met", "N": 2}, True),
        ("sentence:increment", "A. B. C.", {"small_n": 1}, True),  # Punkt: "A." then "B. C." (1 word, then 2)
        ("ratio:sentence_type", "It is 5 p.m. now. Is it late? We stay.", {}, True),  # 2 declarative, 1 question
        ("ratio:sentence_balance", "Wait... what? Yes! Fine.", {}, True),  # one of each end
        # issue 28 (IFBench word counts use the `regex` engine: combining marks stay inside a word)
        ("count:word_count_range", "नमस्ते दुनिया यह हिंदी है", {"min_words": 5, "max_words": 5}, True),  # Hindi
        ("count:word_count_range", "வணக்கம் உலகம் இது தமிழ்", {"min_words": 4, "max_words": 4}, True),  # Tamil
        ("count:word_count_range", "café naïve résumé", {"min_words": 3, "max_words": 3}, True),
    ],
)
def test_sentences_and_words_as_the_reference_splits_them(cid: str, text: str, kwargs: dict, expected: bool) -> None:
    assert check(cid, text, **kwargs) is expected


@pytest.mark.parametrize(
    ("cid", "text", "kwargs", "expected"),
    [
        # the ids that need NLTK's word tokens (allenai/IFBench instructions.py at 1d62c1d6)
        ("count:pronouns", "She/her pronouns: they told us.", {"N": 4}, True),  # "she", "her", "they", "us"
        ("count:pronouns", "Cats nap.", {"N": 1}, False),
        ("format:title_case", "The Quick Brown Fox, A Story.", {}, True),
        ("format:title_case", "The quick Brown Fox.", {}, False),  # "quick" is lowercase
        ("format:title_case", "The iPHONE Story", {}, False),  # lowercase then capitals
        ("format:title_case", "The 3rd Story", {}, True),  # a token that starts with a digit is skipped
        ("words:keywords_specific_position", "One two. Then we, again, ran home.", {"keyword": "again", "n": 2, "m": 3}, True),
        ("words:keywords_specific_position", "One two. Then we ran.", {"keyword": "ran", "n": 3, "m": 1}, False),
        ("words:words_position", "The apple fell near the apple tree, apple!", {"keyword": "apple"}, False),
        ("words:words_position", "The apple fell near the apple.", {"keyword": "apple"}, False),  # 2nd-to-last is "the"
        ("words:words_position", "I apple you apple dog.", {"keyword": "apple"}, True),  # the final "." is dropped
        ("ratio:overlap", "the cat sat on the mat", {"reference_text": "the cat sat on the mat", "percentage": 100}, True),
        ("ratio:overlap", "the cat sat on the rug", {"reference_text": "the cat sat on the mat", "percentage": 75}, True),
        ("ratio:overlap", "the cat sat on the rug", {"reference_text": "the cat sat on the mat", "percentage": 50}, False),
        ("ratio:overlap", "two words", {"reference_text": "two words", "percentage": 100}, False),  # no trigram
    ],
)
def test_word_token_constraints(cid: str, text: str, kwargs: dict, expected: bool) -> None:
    assert check(cid, text, **kwargs) is expected
