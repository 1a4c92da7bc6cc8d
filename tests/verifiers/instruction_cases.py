"""Disguised and content-free responses to instruction constraints, by class, each with an honest twin.

Shared by the strict-mode regression table and the "strict passes only what
the reference passes" property. Each case: (verifier, constraint id, kwargs,
disguised response, honest response). The disguised response must fail
strict mode; the honest one must pass both modes. One comment per case says
what it probes. None of these spellings is the issue's own wording.
"""

from __future__ import annotations

import json

from rlvr_core.problem import Problem

COUNTING = " ".join(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"] * 2)  # 20 words
HONEST_20 = "Rivers carry water from the hills down to the sea and feed the fields along their banks every spring season."
FRENCH = "Bonjour à tous, je vous écris aujourd'hui pour parler de la cuisine française et de ses traditions anciennes."
ENGLISH = "Hello there, this short answer is written in plain English for every reader."
PROMPT = "Write a short note about rivers."

FORBID_BAD = {"forbidden_words": ["bad"]}
CAT_LESS_2 = {"keyword": "cat", "frequency": 2, "relation": "less than"}
WORDS_20 = {"num_words": 20, "relation": "at least"}
YES_NO = {}

CASES: dict[str, list[tuple]] = {
    # A forbidden or capped word hidden from the checker, seen by the reader.
    "hidden_word": [
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\u00adad luck.", "That was poor luck."),  # soft hyphen
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\u2060ad luck.", "That was poor luck."),  # word joiner
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\ufeffad luck.", "That was poor luck."),  # byte order mark
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\u200dad luck.", "That was poor luck."),  # zero width joiner
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\U000e0020ad luck.", "That was poor luck."),  # tag space
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was ba\ufe0fd luck.", "That was poor luck."),  # variation selector
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b<b></b>ad luck.", "That was poor luck."),  # empty tag inside
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b<!-- -->ad luck.", "That was poor luck."),  # comment inside
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b\u0430d luck.", "That was poor luck."),  # Cyrillic a
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was ba\u0301d luck.", "That was poor luck."),  # combining accent
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was \uff42\uff41\uff44 luck.", "That was poor luck."),  # fullwidth
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was \U0001d41b\U0001d41a\U0001d41d luck.",
         "That was poor luck."),  # mathematical bold letters
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was b&#97;d luck.", "That was poor luck."),  # character reference
        ("ifeval", "keywords:forbidden_words", FORBID_BAD, "That was \u202edab\u202c luck.",
         "That was poor luck."),  # drawn right to left: "dab" reads "bad"
        ("ifeval", "keywords:frequency", CAT_LESS_2, "A cat met a c\u200bat.", "A cat met a dog."),  # second cat split
        ("ifeval", "keywords:frequency", CAT_LESS_2, "A cat met a \u0441at.", "A cat met a dog."),  # Cyrillic es
        ("ifeval", "keywords:frequency", CAT_LESS_2, "One cat, two cats, many cats.", "One cat and a dog."),  # plurals as the reference counts
        ("ifeval", "keywords:letter_frequency", {"letter": "a", "let_frequency": 3, "let_relation": "less than"},
         "B\u0430n\u0430na bread.", "Plum bread."),  # a's hidden as Cyrillic a
        ("ifbench", "words:repeats", {"small_n": 1}, "cat c\u0430t c\u00e1t", "cat dog owl"),  # one word, three spellings
        ("ifbench", "words:no_consecutive", {}, "cold \u0441offee here", "cold tea here"),  # same first letter via Cyrillic
        ("ifbench", "words:vowel", {}, "B\u043eb \u0430nd Ann \u0456n Uganda", "Bab and Ann"),  # vowels hidden as Cyrillic
        ("ifbench", "repeat:repeat_change", {"prompt_to_repeat": PROMPT}, "\u200bWrite a short note about rivers.",
         "Draft a short note about rivers."),  # first word "changed" by an invisible character
        ("ifbench", "format:no_whitespace", {}, "hello\u2800world", "helloworld"),  # braille blank reads as a space
        ("ifbench", "format:no_whitespace", {}, "hello\u3164world", "helloworld"),  # Hangul filler reads as a space
    ],
    # Text the checker counts but a reader never sees: comments, hidden elements, markdown comments, attributes.
    "hidden_markup": [
        ("ifeval", "keywords:existence", {"keywords": ["cat"]}, "<!-- cat --> A dog barked.", "A cat purred."),  # in a comment
        ("ifeval", "keywords:existence", {"keywords": ["cat"]}, '<span style="display: none">cat</span> A dog.',
         "A cat purred."),  # in a hidden element
        ("ifeval", "keywords:existence", {"keywords": ["cat"]}, "<script>cat</script> A dog.", "A cat purred."),  # in a script
        ("ifeval", "keywords:existence", {"keywords": ["cat"]}, "[//]: # (cat)\nA dog barked.", "A cat purred."),  # markdown comment
        ("ifeval", "keywords:existence", {"keywords": ["cat"]}, '<img alt="cat"> A dog.', "A cat purred."),  # in an attribute
        ("ifeval", "length_constraints:number_words", WORDS_20, f"<style>{COUNTING}</style> Short.", HONEST_20),  # words in a style
        ("ifeval", "length_constraints:number_words", WORDS_20, f"Short.<!-- {COUNTING}", HONEST_20),  # an unclosed comment
        ("ifeval", "startend:end_checker", {"end_phrase": "Any other questions?"},
         "Here is my answer.<!-- Any other questions?", "Here is my answer. Any other questions?"),  # end phrase hidden
        ("ifeval", "language:response_language", {"language": "fr"}, f"<!-- {FRENCH} {FRENCH} --> {ENGLISH}", FRENCH),  # French hidden
        ("ifeval", "length_constraints:number_sentences", {"num_sentences": 2, "relation": "less than"},
         "<p>First point.</p><p>Second point.</p>", "One single sentence here."),  # sentences glued by markup
    ],
    # Counts inflated by tokens that are not words.
    "non_words": [
        ("ifeval", "length_constraints:number_words", WORDS_20, " ".join(f"{i}th" for i in range(4, 26)), HONEST_20),  # ordinals
        ("ifeval", "length_constraints:number_words", WORDS_20,
         "ii iii iv vi vii viii ix xi xii xiii xiv xv xvi xvii xviii xix xx xxi xxii xxiii xxiv", HONEST_20),  # roman numerals
        ("ifeval", "length_constraints:number_words", WORDS_20, " ".join(f"0x{i:x}" for i in range(30)), HONEST_20),  # hex
        ("ifeval", "length_constraints:number_words", WORDS_20, " ".join(f"q{i}" for i in range(25)), HONEST_20),  # letter+digits
        ("ifeval", "length_constraints:number_words", WORDS_20, " ".join("bcdfghjklmnpqrstvwxz"), HONEST_20),  # lone consonants
        ("ifeval", "length_constraints:number_words", WORDS_20, " ".join(chr(0xFF11 + i % 9) for i in range(25)),
         HONEST_20),  # fullwidth digits
        ("ifeval", "length_constraints:number_words", {"num_words": 5, "relation": "less than"},
         "rivers_carry_water_from_the_hills_to_the_sea", "Rivers carry water."),  # words joined by underscores
        ("ifeval", "length_constraints:number_sentences", {"num_sentences": 4, "relation": "at least"},
         "1. 2. 3. 4. 5.", "One. Two things. Three more. Four at last."),  # numbered nothing
        ("ifeval", "change_case:capital_word_frequency", {"capital_frequency": 5, "capital_relation": "at least"},
         "I II III IV VI VII", "NASA AND THE ESA WORK TOGETHER"),  # roman numerals as capital words
        ("ifeval", "change_case:capital_word_frequency", {"capital_frequency": 5, "capital_relation": "at least"},
         "A1 B2 C3 D4 E5 F6", "NASA AND THE ESA WORK TOGETHER"),  # labels as capital words
        ("ifbench", "count:word_count_range", {"min_words": 20, "max_words": 40}, " ".join(f"x{i}" for i in range(25)),
         HONEST_20),  # letter+digit labels
        ("ifbench", "count:unique_word_count", {"N": 5}, "cat c\u00e1t c\u0430t c\u00e0t \u010bat", "cat dog owl fox elk"),  # one word, five spellings
        ("ifbench", "count:unique_word_count", {"N": 5}, "10 20 30 40 50 60", "cat dog owl fox elk"),  # numbers
        ("ifbench", "count:conjunctions", {"small_n": 3}, "and And AND, and.", "Tea and cake, but no jam, or toast."),  # one conjunction
        ("ifbench", "words:palindrome", {}, " ".join(["12321"] + [f"{d}{d}5{d}{d}" for d in range(1, 10)]),
         "racecar level radar civic kayak refer rotor madam stats tenet"),  # numeric palindromes
    ],
    # Shapes satisfied by empty payloads.
    "content_free": [
        ("ifeval", "detectable_format:json_format", {}, "[0]", '{"answer": "rivers"}'),  # a number in a list
        ("ifeval", "detectable_format:json_format", {}, '{"": 0}', '{"answer": "rivers"}'),  # an empty key
        ("ifeval", "detectable_format:json_format", {}, "[[], {}]", '{"answer": "rivers"}'),  # empty containers
        ("ifeval", "detectable_format:json_format", {}, '["\\u200b"]', '{"answer": "rivers"}'),  # an invisible string
        ("ifeval", "detectable_format:json_format", {}, "[true, false]", '{"answer": "rivers"}'),  # literals only
        ("ifeval", "detectable_format:json_format", {}, '{"1": [2, 3]}', '{"answer": "rivers"}'),  # digits only
        ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 3}, "* 1\n* 2\n* 3", "* red\n* green\n* blue"),  # numbers
        ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 3}, "- \u00a0\n- \u00a0\n- \u00a0",
         "* red\n* green\n* blue"),  # no-break spaces
        ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 2}, "* &#8203;\n* &#8203;",
         "* red\n* green"),  # zero width spaces as entities
        ("ifeval", "detectable_format:number_bullet_lists", {"num_bullets": 2}, "* <br>\n* <br>", "* red\n* green"),  # a tag
        ("ifeval", "detectable_format:number_highlighted_sections", {"num_highlights": 3}, "*1* *2* *3*",
         "*Rivers* and *lakes* and *seas*"),  # digits highlighted
        ("ifeval", "detectable_format:number_highlighted_sections", {"num_highlights": 2}, "*&nbsp;* and *&nbsp;*",
         "*Rivers* and *lakes*"),  # spaces highlighted
        ("ifeval", "detectable_format:title", {}, "<<1>>\nRivers run.", "<<Rivers>>\nRivers run."),  # digit title
        ("ifeval", "detectable_format:title", {}, "<<&nbsp;>>\nRivers run.", "<<Rivers>>\nRivers run."),  # blank title
        ("ifeval", "detectable_format:title", {}, "<<x>>\nRivers run.", "<<Rivers>>\nRivers run."),  # one consonant
        ("ifeval", "detectable_content:number_placeholders", {"num_placeholders": 3}, "[1] [2] [3]",
         "[name] lives at [address] in [city]"),  # numbered brackets
        ("ifeval", "detectable_content:number_placeholders", {"num_placeholders": 2}, "[ ] and [\u200b]",
         "[name] at [address]"),  # blank brackets
        ("ifeval", "detectable_content:postscript", {"postscript_marker": "P.S."}, "Rivers run.\nP.S.",
         "Rivers run.\nP.S. Lakes too."),  # empty postscript
        ("ifeval", "detectable_content:postscript", {"postscript_marker": "P.P.S"}, "Rivers run.\nP.P.S 42",
         "Rivers run.\nP.P.S Lakes too."),  # postscript of digits
        ("ifeval", "detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2},
         "Section 1\nSection 2", "Section 1\nRivers.\nSection 2\nLakes."),  # empty sections
        ("ifeval", "length_constraints:number_paragraphs", {"num_paragraphs": 3}, "Rivers.\n***\n...\n***\nLakes.",
         "Rivers.\n***\nStreams.\n***\nLakes."),  # a paragraph of dots
        ("ifeval", "combination:repeat_prompt", {"prompt_to_repeat": PROMPT}, PROMPT + " 123",
         PROMPT + " Rivers carry water."),  # the prompt and digits
        ("ifeval", "startend:end_checker", {"end_phrase": "Is there anything else I can help with?"},
         "Is there anything else I can help with?", "Rivers run. Is there anything else I can help with?"),  # phrase alone
        ("ifeval", "startend:quotation", {}, '" "', '"Rivers run."'),  # quoted blank
        ("ifeval", "startend:quotation", {}, '"\u200b\u200b"', '"Rivers run."'),  # quoted invisibles
        ("ifbench", "format:list", {"sep": "-"}, "- - -", "- rivers - lakes"),  # markers alone
        ("ifbench", "format:sub-bullets", {}, "No list here at all.", "* Rivers\n - streams"),  # no bullet at all
        ("ifbench", "format:parentheses", {}, "((((()))))", "(a [b {c (d [rivers])}])"),  # nested nothing
        ("ifbench", "format:thesis", {}, "<i>&nbsp;</i>\nRivers run.", "<i>Rivers shape valleys.</i>\nThey carve rock."),  # blank italic
        ("ifbench", "format:output_template", {}, "My Answer: My Conclusion: Future Outlook:",
         "My Answer: yes. My Conclusion: rivers. Future Outlook: lakes."),  # labels alone
        ("ifbench", "format:no_bullets_bullets", {}, "Rivers run. Lakes rest.\n* 1\n* 2",
         "Rivers run. Lakes rest.\n* streams\n* ponds"),  # bullets of digits
    ],
    # Two answers where one is asked for; two responses that are one.
    "one_of_many": [
        ("ifeval", "detectable_format:constrained_response", YES_NO, "My answer is yes. my answer is NO",
         "My answer is yes."),  # second answer in other case, no period
        ("ifeval", "detectable_format:constrained_response", YES_NO, "My answer is yes.\nMy answer is maybe",
         "My answer is yes."),  # second answer without its period
        ("ifeval", "detectable_format:constrained_response", YES_NO, "My answer is yes. My answer is n\u043e!",
         "My answer is yes."),  # second answer in Cyrillic
        ("ifeval", "detectable_format:constrained_response", YES_NO, "My answer is yes. My answer is nope.",
         "My answer is yes."),  # the stem goes on with another answer
        ("ifeval", "combination:two_responses", {}, "Rivers run.\n******\nRivers run!", "Rivers run.\n******\nLakes rest."),  # punctuation
        ("ifeval", "combination:two_responses", {}, "Rivers run.\n******\nRIVERS RUN.", "Rivers run.\n******\nLakes rest."),  # case
        ("ifeval", "combination:two_responses", {}, "Rivers run.\n******\nRivers\u200b run.",
         "Rivers run.\n******\nLakes rest."),  # an invisible character
        ("ifeval", "combination:two_responses", {}, "Rivers run.\n******\nRivers   run.", "Rivers run.\n******\nLakes rest."),  # spacing
        ("ifeval", "combination:two_responses", {}, "1.\n******\n2.", "Rivers run.\n******\nLakes rest."),  # no words
    ],
    # Commas the reader sees, spelt so the checker does not.
    "commas": [
        ("ifeval", "punctuation:no_comma", {}, "Rivers\u00b8 lakes", "Rivers and lakes"),  # cedilla
        ("ifeval", "punctuation:no_comma", {}, "Pi is 3\u066b14", "Pi is about three"),  # Arabic decimal separator
        ("ifeval", "punctuation:no_comma", {}, "Rivers\u201e lakes", "Rivers and lakes"),  # low double quote
        ("ifeval", "punctuation:no_comma", {}, "Rivers&#44; lakes", "Rivers and lakes"),  # character reference
        ("ifeval", "punctuation:no_comma", {}, "Rivers&comma; lakes", "Rivers and lakes"),  # named reference
        ("ifeval", "punctuation:no_comma", {}, "Rivers\u0375 lakes", "Rivers and lakes"),  # Greek lower numeral sign
        ("ifeval", "punctuation:no_comma", {}, "Rivers\u02cf lakes", "Rivers and lakes"),  # modifier low acute
        ("ifeval", "punctuation:no_comma", {}, "Rivers\ufe50 lakes", "Rivers and lakes"),  # small comma
    ],
    # Sentences of nothing.
    "empty_sentences": [
        ("ifbench", "ratio:sentence_balance", {}, "Rivers run. Why? Wow! 1. 2? 3!", "Rivers run. Why? Wow!"),  # numbered sentences
        ("ifbench", "ratio:sentence_type", {}, "Rivers run. Lakes rest. Why? 1. 2. 3?",
         "Rivers run. Lakes rest. Why?"),  # numbered sentences
    ],
}

ALL_CASES = [case for cases in CASES.values() for case in cases]


def problem(verifier: str, constraint_id: str, kwargs: dict) -> Problem:
    answer = json.dumps({"instruction_id": [constraint_id], "kwargs": [kwargs]})
    return Problem("strict-class", "strict-mode", "", answer, verifier)


def case_id(case: tuple) -> str:
    return f"{case[1]}:{case[3][:24]!r}"
