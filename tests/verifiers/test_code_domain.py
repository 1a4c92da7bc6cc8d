"""The domain a hidden test's input must stay in (`rlvr_core/verifiers/code/domain.py`): inferred from a problem's
own calls, so an input outside the task (where references answer arbitrarily) never becomes a hidden test.

Tables of real MBPP calls (the task id says which), each case commented with what it probes; Hypothesis
properties build shown calls that share a property and check that every mutation the domain accepts keeps
it (the property is checked here, not by the domain's code)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.verifiers.code.domain import CallDomain, OutputShape, TypeName

P648 = [([0, 1, 2, 3, 4, 5],), ([5, 6, 7, 8, 9, 10],), ([25, 35, 45, 55, 75, 95],)]
P650 = [([1, 2, 3], [3, 2, 1], 3, 3), ([1, 1, 1], [2, 2, 2], 3, 3), ([8, 9], [4, 5, 6], 2, 3)]
P644 = [([1, 2, 3, 4, 5, 6], 4), ([4, 5, 6, 7], 2), ([9, 8, 7, 6, 5], 3)]
P666 = [("Python", "o"), ("little", "t"), ("assert", "s")]
P11 = [("hello", "l"), ("abcda", "a"), ("PHP", "P"), ("hellolloll", "l"), ("", "l")]
P3 = [(2,), (10,), (35,)]
P24 = [(100,), (1011,), (1101101,)]
P597 = [([2, 3, 6, 7, 9], [1, 4, 8, 10], 5, 4, 5), ([100, 112, 256, 349, 770], [72, 86, 113, 119, 265, 445, 892], 5, 7, 7),
        ([3, 4, 7, 8, 10], [2, 5, 9, 11], 5, 4, 6)]
P653 = [([("yellow", 1), ("blue", 2), ("yellow", 3), ("blue", 4), ("red", 1)],),
        ([("yellow", 10), ("blue", 20), ("yellow", 30), ("blue", 40), ("red", 10)],)]
P667 = [("corner", "AaEeIiOoUu"), ("valid", "AaEeIiOoUu"), ("true", "AaEeIiOoUu")]
P616 = [((10, 4, 5, 6), (5, 6, 7, 5)), ((11, 5, 6, 7), (6, 7, 8, 6)), ((12, 6, 7, 8), (7, 8, 9, 7))]
P604 = [("python program",), ("java language",), ("indian man",)]
P9 = [("aaaa",), ("ab",), ("abc",)]
P125 = [("11000010001", 11), ("10111", 5), ("11011101100101", 14)]
P533 = [((4, 5, 4, 7.7, 1.2), TypeName("int")), ((7, 8, 9, "SR"), TypeName("str")), ((7, 1.1, 2, 2.2), TypeName("float"))]
P605 = [(13,), (7,), (-1010,)]

OUTSIDE = [
    (P648, ([0, 1, 2, 3, 4],)),  # 648: odd length where every shown list pairs up (the reference pads with None)
    (P650, ([1, 2], [1, 2, 3], 3, 3)),  # 650: n no longer the first list's length
    (P644, ([1, 2, 3, 4], 0)),  # 644: k = 0 where every shown k is a position
    (P644, ([1, 2, 3], 5)),  # 644: k past the list's end (every shown k < len)
    (P666, ("little", "tt")),  # 666: a one-character argument grown to two
    (P11, ("hello", "ll")),  # 11: the same, with an empty string among the shown ones
    (P666, ("little", "z")),  # 666: the character occurs in the string in every shown call
    (P3, (1,)),  # 3: below the smallest shown number (the reference calls 1 prime)
    (P3, (0,)),  # 3: zero, an edge no shown call touches
    (P605, (-99999,)),  # 605: far below every shown number
    (P24, (1021,)),  # 24: a digit other than 0 and 1 in a "binary number"
    (P597, ([9, 3, 6, 7, 2], [1, 4, 8, 10], 5, 4, 5)),  # 597: an unsorted "sorted array"
    (P597, ([2, 3, 3, 7, 9], [1, 4, 8, 10], 5, 4, 5)),  # 597: a repeat where every shown array strictly increases
    (P653, ([(2, "blue"), ("red", 1)],)),  # 653: a record's fields swapped (the key must be a str)
    (P667, ("corner", "aeiou")),  # 667: the vowels every shown call passes are part of the task
    (P616, ((10, 4, 5), (5, 6, 7, 5))),  # 616: tuples that pair up element by element no longer do
    (P604, ("python  program",)),  # 604: a double space where every shown string is single-spaced
    (P604, (" python program",)),  # 604: a leading space
    (P604, ("python Program",)),  # 604: an uppercase letter where no shown string has one
    (P9, ("",)),  # 9: shorter than every shown string (the empty string has no rotation)
    (P125, ("11020", 5)),  # 125: a "binary string" with a 2
    (P533, ((4, 5), TypeName("list"))),  # 533: a type no shown call passes
    (P533, ((4, 5), 3)),  # 533: a number where every shown call passes a type
]

INSIDE = [
    (P648, ([2, 4, 6, 8, 10, 12, 14, 16],)),  # 648: a longer list, even and ascending like every shown one
    (P650, ([4, 5, 6], [6, 5, 4], 3, 3)),  # 650: lengths that match n and m
    (P644, ([1, 2, 3, 4, 5], 3)),  # 644: a position inside the list
    (P666, ("banana", "a")),  # 666: a character of the string
    (P3, (17,)),  # 3: a number inside the shown range
    (P3, (60,)),  # 3: above the largest shown, within the allowed growth
    (P24, (1001,)),  # 24: binary digits
    (P597, ([2, 5, 9, 12, 20], [2, 3, 30, 40], 5, 4, 6)),  # 597: sorted arrays with their lengths
    (P653, ([("red", 7), ("blue", 2), ("red", 3), ("yellow", 4), ("blue", 1)],)),  # 653: records in place
    (P667, ("ocean", "AaEeIiOoUu")),  # 667: a new word, the same vowels
    (P616, ((13, 9, 4, 6), (5, 6, 7, 8))),  # 616: tuples of one length
    (P604, ("hello world",)),  # 604: single-spaced lowercase words
    (P533, ((5, 2.5, "AB", 7), TypeName("float"))),  # 533: a shown type
]


@pytest.mark.parametrize(("shown", "outside"), OUTSIDE)
def test_an_input_outside_the_domain_of_the_shown_calls_is_refused(shown, outside) -> None:
    assert not CallDomain(shown).accepts(outside)


@pytest.mark.parametrize(("shown", "inside"), INSIDE)
def test_an_input_that_keeps_every_shown_property_is_accepted(shown, inside) -> None:
    assert CallDomain(shown).accepts(inside)


@pytest.mark.parametrize("shown", [P648, P650, P644, P666, P11, P3, P24, P597, P653, P667, P616, P604, P9, P125, P605],
                         ids=["648", "650", "644", "666", "11", "3", "24", "597", "653", "667", "616", "604", "9", "125",
                              "605"])
def test_mutations_find_new_inputs_inside_the_domain(shown) -> None:
    """The domain is not so narrow that nothing new fits: mutations of the shown calls reach at least ten."""
    domain, rng = CallDomain(shown), random.Random(0)
    found = set()
    for k in range(400):
        values = domain.mutate(shown[k % len(shown)], rng)
        if domain.accepts(values):
            found.add(repr(values))
    assert len(found - {repr(c) for c in shown}) >= 10, found


OUTPUTS = [
    ([True, True, False], None, False),  # 605: None where every shown answer is a bool
    ([(4, 5), (3, 4), (13, 14)], (33, 1), False),  # 2: a tuple in set order where every shown one is sorted
    ([(4, 5), (3, 4), (13, 14)], (1, 33), True),  # 2: sorted
    ([[85, 75, 65], [85, 75], [85, 75, 65, 58, 35]], [22, 22, 14], True),  # 4: descending, repeats allowed
    ([[2, 4], [10, 20, 84], [8, 6, 4]], [], False),  # 41: empty where every shown list has elements
    ([6, 93, 3], 3.0, False),  # 126: a float where every shown answer is an int
    (["heo", "bcd", "H"], "", False),  # 11's official answers: all non-empty
    (["heo", "bcd", "H", "helollol", ""], "", True),  # 11 with its challenge answers: one is empty
    (["heo", "bcd", "H"], "zz", True),  # strings have no order rule
]


@pytest.mark.parametrize(("shown", "answer", "accepted"), OUTPUTS)
def test_an_answer_without_the_shape_of_every_shown_answer_is_refused(shown, answer, accepted: bool) -> None:
    assert OutputShape(shown).accepts(answer) is accepted


# --- properties: whatever the shown calls share, an accepted mutation keeps ----------------------------------
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow])
ints = st.integers(min_value=-50, max_value=50)


def _accepted(shown: list[tuple], seed: int, tries: int = 60) -> list[tuple]:
    """The mutations of the shown calls the domain accepts (some always are: the property is never vacuous)."""
    domain, rng = CallDomain(shown), random.Random(seed)
    out = []
    for k in range(tries):
        values = domain.mutate(shown[k % len(shown)], rng)
        if domain.accepts(values):
            out.append(values)
    assert out, f"no mutation of {shown} stays in its domain"
    return out


@PROPERTY_SETTINGS
@given(st.lists(st.lists(ints, min_size=1, max_size=4).map(lambda half: half + half[::-1]), min_size=2, max_size=3),
       st.integers(0, 2**32))
def test_even_lengths_and_a_length_argument_are_kept(lists: list[list[int]], seed: int) -> None:
    shown = [(lst, len(lst)) for lst in lists]
    for values, n in _accepted(shown, seed):
        assert len(values) % 2 == 0 and n == len(values)


@PROPERTY_SETTINGS
@given(st.lists(st.lists(ints, min_size=3, max_size=6, unique=True).map(sorted), min_size=2, max_size=3),
       st.integers(0, 2**32))
def test_strictly_sorted_lists_stay_strictly_sorted(lists: list[list[int]], seed: int) -> None:
    for (values,) in _accepted([(lst,) for lst in lists], seed):
        assert all(a < b for a, b in zip(values, values[1:]))


@PROPERTY_SETTINGS
@given(st.lists(st.tuples(st.text("abcxyz", min_size=1, max_size=6), st.integers(0, 5)), min_size=2, max_size=3),
       st.integers(0, 2**32))
def test_a_character_of_the_string_stays_one_character_of_it(pairs: list[tuple[str, int]], seed: int) -> None:
    shown = [(text, text[k % len(text)]) for text, k in pairs]
    for text, char in _accepted(shown, seed):
        assert len(char) == 1 and char in text


@PROPERTY_SETTINGS
@given(st.lists(st.integers(1, 40), min_size=2, max_size=3), st.lists(st.integers(1, 40), min_size=2, max_size=3),
       st.integers(0, 2**32))
def test_positive_numbers_stay_positive_and_ordered_pairs_stay_ordered(a: list[int], b: list[int], seed: int) -> None:
    shown = [(x, x + y) for x, y in zip(a, b)]  # the first argument below the second in every shown call
    smallest = min(x for x, _ in shown)
    for x, y in _accepted(shown, seed):
        assert smallest <= x < y
