"""The typed codec both sides of the sandbox share: what crosses, as what, and what is refused."""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.sandbox import codec
from rlvr_core.sandbox.codec import MAX_DEPTH, BadWire, NotPlainData, ReplayIterator, decode, encode

Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Box:
    value: int
    items: list


class Node:
    def __init__(self, data):
        self.data, self.next = data, None


def through(value, **kwargs):
    """`value` encoded, sent as JSON, decoded."""
    return decode(json.loads(json.dumps(encode(value))), **kwargs)


@pytest.mark.parametrize("value", [
    None, True, 0, -7, 10**400, 1.5, -0.0, math.inf, 2 - 3j, "é\ud800", b"\x00\xff", bytearray(b"ab"), [1, [2, "x"]], (1, (2,)),
    {3, "a"}, frozenset({(1, 2)}), {"b": 1, "a": [2]}, collections.OrderedDict([("b", 1), ("a", 2)]),
    collections.Counter("aab"), collections.deque([1, 2], maxlen=5), Point(1, 2), range(1, 10, 3),
    decimal.Decimal("1.10"), fractions.Fraction(2, 6),
], ids=lambda v: type(v).__name__)
def test_plain_values_cross_as_themselves(value) -> None:
    back = through(value)
    assert back == value and type(back).__name__ == type(value).__name__
    if isinstance(value, dict):
        assert list(back) == list(value)  # order kept


def test_nan_crosses_as_nan() -> None:
    back = through(math.nan)
    assert isinstance(back, float) and back != back


def test_subclasses_arrive_as_their_base_type() -> None:
    class Loud(list):
        def __eq__(self, other):
            return True

    class Color(enum.IntEnum):
        RED = 1

    back = through([Loud([1]), Color.RED, collections.defaultdict(list, {1: [2]})])
    assert back == [[1], 1, {1: [2]}] and [type(v) for v in back] == [list, int, dict]


def test_an_ordered_dict_keeps_the_order_move_to_end_gave_it() -> None:
    value = collections.OrderedDict(a=1, b=2)
    value.move_to_end("a")
    assert list(through(value)) == ["b", "a"]


def test_shared_and_cyclic_structure_survives() -> None:
    shared = [1]
    back = through([shared, shared, {"k": shared}])
    assert back[0] is back[1] is back[2]["k"]
    loop: list = []
    loop.append(loop)
    again = through(loop)
    assert again[0] is again


def test_an_iterator_is_materialised_and_replayed() -> None:
    back = through(x * x for x in range(4))
    assert isinstance(back, ReplayIterator) and next(back) == 0 and list(back) == [1, 4, 9]


def test_an_endless_iterator_raises_past_its_bound_instead_of_ending() -> None:
    back = through(iter(range(codec.ITER_CAP + 5)))
    with pytest.raises(OverflowError, match="more than"):
        list(back)


def test_dict_views_compare_as_views() -> None:
    d = {"a": 1, "b": 2}
    assert through(d.keys()) == {"a", "b"} and through(d.items()) == {("a", 1), ("b", 2)}


def test_a_match_is_rebuilt_from_its_text_and_span_without_running_a_pattern() -> None:
    back = through(re.search(r"(a+)(b)", "xxaab"))
    assert back.span() == (2, 5) and back.group() == "aab" and back.string == "xxaab"


def test_records_need_a_trusted_class_on_the_grader_side() -> None:
    node = Node(1)
    with pytest.raises(BadWire, match="Node object is not plain data"):
        through(node)
    rebuilt = through(node, resolve=lambda name: Node if name == "Node" else None)
    assert type(rebuilt) is Node and rebuilt.data == 1 and rebuilt.next is None


def test_records_become_plain_objects_on_the_sandbox_side() -> None:
    node = Node(1)
    node.next = node
    back = through(node, strangers="namespace")
    assert type(back).__name__ == "Node" and back.next is back


def test_a_dataclass_becomes_a_dataclass_of_the_same_fields() -> None:
    made: dict = {}
    first, second = (decode(encode(Box(1, [2])), made=made) for _ in range(2))
    assert dataclasses.is_dataclass(first) and first.value == 1 and first.items == [2] and first == second


class PosingAsInt:
    """A program's class that claims to be `int` by its module and name."""


PosingAsInt.__module__, PosingAsInt.__qualname__ = "builtins", "int"


@pytest.mark.parametrize("value", [len, Node, math, lambda: 1, object(), iter, PosingAsInt, Point],
                         ids=["builtin", "class", "module", "lambda", "object", "builtin-iter", "posing-as-int", "namedtuple-class"])
def test_anything_else_is_not_plain_data(value) -> None:
    with pytest.raises(NotPlainData):
        encode(value)


@pytest.mark.parametrize("cls", [int, str, float, bool, list, tuple, dict, set, type(None), type, ValueError,
                                 decimal.Decimal, fractions.Fraction, collections.OrderedDict, collections.abc.Iterable,
                                 datetime.date, datetime.timedelta], ids=lambda c: c.__name__)
def test_a_standard_class_crosses_as_the_decoding_sides_own(cls) -> None:
    """MBPP 533 passes `int` to the program (`remove_datatype(t, int)`); a program may return `type(x)`."""
    assert through(cls) is cls and through([cls, (cls,)]) == [cls, (cls,)]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.dates(), st.times(timezones=st.none() | st.timezones()), st.timedeltas(),
                 st.datetimes(timezones=st.none() | st.timezones(), allow_imaginary=False)))
def test_a_date_time_or_delta_crosses_as_the_same_value(value) -> None:
    """Naive, fixed-offset and zone-aware values alike: a zone crosses as the offset it gives this value, so an
    aware datetime arrives as the same instant, with the same offset and wall time."""
    back = through(value)
    assert type(back) is type(value) and back == value
    if isinstance(value, (datetime.datetime, datetime.time)) and value.tzinfo is not None:
        assert back.utcoffset() == value.utcoffset() and back.replace(tzinfo=None) == value.replace(tzinfo=None)


def test_a_range_from_the_program_longer_than_the_bound_is_refused_as_too_large() -> None:
    """`set(f())` over a returned range(0, 10**12) grew the grader to 3 GB in 10 s."""
    assert decode(encode(range(5)), max_range=5) == range(5)
    for huge in (range(0, 10**12), range(10**30, -10**30, -1), range(0, 7, 1)):
        with pytest.raises(BadWire, match="too large"):
            decode(encode(huge), max_range=6)


def test_a_value_nested_too_deeply_is_not_plain_data() -> None:
    value: list = []
    for _ in range(MAX_DEPTH + 2):
        value = [value]
    with pytest.raises(NotPlainData, match="nested"):
        encode(value)


@pytest.mark.parametrize("wire", [
    ["x", "0x1"], ["i", "12z"], ["i", 5], ["i", "0x" + "f" * 200_000], ["f", "1" * 100], ["l", "abc"],
    ["s", [["l", []]]], ["d", [["a"]]], ["r", 0], ["r", "0"], 3, 1.5, {"a": 1}, [], ["t", [["i", "0x1"]], "extra"],
    ["o", "Node", [["__class__", None]]], ["o", "not an identifier", []], ["nt", "P", ["_x"], [None]],
    ["dq", [], -1], ["m", "abc", 2, 9], ["rg", "0", "1", "1"], ["it", [], "yes"], ["h", 0, "Anything"],
    ["gen", 0], ["ty", "os", "system"], ["ty", "builtins", "eval"], ["ty", "builtins", "__import__"],
    ["ty", "subprocess", "Popen"], ["ty", "builtins"], ["date", 2020, 13, 1], ["date", "2020", 1, 1],
    ["dt", 2020, 1, 1, 0, 0, 0, 0, 0, ["tz", 86400, 0, None]], ["dt", 2020, 1, 1, 0, 0, 0, 0, 0, ["tz", 0, 0, 5]],
    ["time", 25, 0, 0, 0, 0, None], ["td", 10**10, 0, 0], ["td", 1.5, 0, 0],
], ids=["unknown-tag", "bad-hex", "int-not-text", "int-too-long", "float-too-long", "list-not-list",
        "unhashable-set-member", "malformed-dict", "dangling-reference", "reference-not-int", "bare-json-int",
        "bare-json-float", "json-object", "empty-list", "extra-field", "dunder-attribute", "bad-class-name",
        "bad-namedtuple-field", "negative-maxlen", "span-outside-text", "range-of-strings", "iterator-flag",
        "old-handle", "iterator-handle-without-table", "class-of-another-module", "function-not-class",
        "dunder-class-name", "class-of-a-module-not-allowed", "class-without-name", "month-13", "year-as-text",
        "offset-of-a-day", "zone-name-not-text", "hour-25", "days-out-of-range", "days-as-float"])
def test_anything_else_on_the_wire_is_rejected(wire) -> None:
    with pytest.raises(BadWire):
        decode(wire, resolve=lambda name: Node if name == "Node" else None)


def test_the_zygote_source_holds_the_codec_without_importing_the_package() -> None:
    from rlvr_core.sandbox import host

    source = host._zygote_source()
    assert "class Encoder" in source and "class Decoder" in source and "from rlvr_core" not in source
    compile(source, "<zygote>", "exec")

