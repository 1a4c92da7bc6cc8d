"""The grader's own logic, without a sandbox: which names are the program's, and what a reply may contain."""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.code.grader import MAX_DEPTH, BadValue, Remote, _Connection, plan_tests


@pytest.mark.parametrize(
    ("tests", "setup", "entry", "program", "modules"),
    [
        (("assert add(1, 2) == 3",), "", "add", {"add"}, set()),
        (("assert math.isclose(area(1), 3.14, rel_tol=0.01)",), "", "area", {"area"}, {"math"}),
        (("assert set(common(a, b)) == set((4, 5))",), "a = (1, 4)\nb = (4, 5)", "common", {"common", "a", "b"}, set()),
        (("assert all(f(i) == 2 * i for i in range(3))",), "", None, {"f"}, set()),  # `i` is the test's own
        (("assert max(3) == 3",), "", "max", {"max"}, set()),  # the entry wins over a builtin of that name
        (("assert sorted(f([2, 1])) == [1, 2]",), "", None, {"f"}, set()),  # a builtin stays the real one
        (("assert heapq([3]) == [3]",), "", None, {"heapq"}, set()),  # a module name used bare is the program's
        (("assert f(re.compile('a')) == 1",), "", None, {"f"}, {"re"}),
    ],
    ids=["plain", "stdlib-module", "setup-names", "comprehension", "entry-shadows-builtin", "builtin", "bare-module-name",
         "module-attribute"],
)
def test_names_are_split_between_the_program_and_this_process(tests, setup, entry, program, modules) -> None:
    plan = plan_tests(tests, setup, entry)
    assert plan.program_names == program and plan.modules == modules


def test_asserts_are_compiled_to_a_check_that_python_O_cannot_drop() -> None:
    plan = plan_tests(("assert add(1, 2) == 3",), "", "add")
    assert "__rlvr_check__" in plan.codes[0].co_names


def test_a_test_that_does_not_parse_is_named() -> None:
    with pytest.raises(ValueError, match="test 2 does not parse"):
        plan_tests(("assert f(1) == 1", "assert f(1 =="), "", "f")


class _NoSession:
    def request(self, message):  # pragma: no cover - decoding never talks to the program
        raise AssertionError("no request expected")


def _decode(obj):
    return _Connection(_NoSession()).decode(obj, [0])


@pytest.mark.parametrize(
    ("wire", "value"),
    [
        (["i", "0x2a"], 42), (["i", "-0x1"], -1), (["f", "0x1.8000000000000p+0"], 1.5), (["f", "nan"], None),
        (["c", "0x1p+0", "-0x1p+1"], 1 - 2j), ("é", "é"), (["b", "00ff"], b"\x00\xff"), (["ba", "61"], bytearray(b"a")),
        (["l", [["i", "0x1"], None, True]], [1, None, True]), (["t", []], ()), (["s", [["i", "0x1"]]], {1}),
        (["fs", ["a"]], frozenset({"a"})), (["d", [[["t", [["i", "0x1"]]], "x"]]], {(1,): "x"}),
    ],
)
def test_plain_values_decode_to_builtin_types(wire, value) -> None:
    decoded = _decode(wire)
    if value is None:  # NaN: equal to nothing, itself included
        assert decoded != decoded
    else:
        assert decoded == value and type(decoded) is type(value)


@pytest.mark.parametrize(
    "wire",
    [
        ["x", "0x1"], ["i", "12z"], ["i", 5], ["i", "0x" + "f" * 200_000], ["f", "1" * 100], ["l", "abc"],
        ["s", [["l", []]]], ["d", [["a"]]], ["h", "0", "x"], 3, 1.5, {"a": 1}, [], ["t", [["i", "0x1"]], "extra"],
    ],
    ids=["unknown-tag", "bad-hex", "int-not-text", "int-too-long", "float-too-long", "list-not-list", "unhashable-set-member",
         "malformed-dict", "handle-id-not-int", "bare-json-int", "bare-json-float", "json-object", "empty-list", "extra-field"],
)
def test_anything_else_in_a_reply_is_rejected(wire) -> None:
    with pytest.raises(BadValue):
        _decode(wire)


def test_a_value_nested_too_deeply_is_rejected() -> None:
    wire: list = ["i", "0x0"]
    for _ in range(MAX_DEPTH + 2):
        wire = ["l", [wire]]
    with pytest.raises(BadValue, match="levels"):
        _decode(wire)


def test_a_handle_is_equal_only_to_itself_and_refuses_dunders() -> None:
    handle = _decode(["h", 0, "Anything"])
    assert isinstance(handle, Remote)
    assert handle == handle and handle != _decode(["h", 0, "Anything"]) and handle != 0 and not (handle == [])
    with pytest.raises(AttributeError):
        handle.__array_interface__  # noqa: B018


def test_arguments_are_sent_as_data_or_by_reference() -> None:
    conn = _Connection(_NoSession())
    remote = Remote(conn, ["g", "Pair"], "Pair")
    assert conn.encode([1, "a", (2.0,), {3}, remote]) == ["l", [["i", "0x1"], "a", ["t", [["f", "0x1.0000000000000p+1"]]],
                                                                ["s", [["i", "0x3"]]], ["g", "Pair"]]]
    with pytest.raises(TypeError, match="cannot be sent"):
        conn.encode(lambda x: x)


def test_what_the_sandboxed_harness_encodes_decodes_to_builtin_types() -> None:
    """The two ends of the wire format agree; subclasses arrive as their base type, objects as handles."""
    import collections
    import enum

    from rlvr_core.sandbox import harness

    class Color(enum.IntEnum):
        RED = 1

    class Loud(list):
        def __eq__(self, other):
            return True

    point = collections.namedtuple("Point", "x y")(1, 2)
    value = [Color.RED, Loud([1]), collections.Counter("aab"), point, {frozenset({1}): b"x"}, 10**400, 2.5, True, None, object()]
    handles: dict = {}
    decoded = _decode(harness.encode(value, handles))
    assert decoded[:9] == [1, [1], {"a": 2, "b": 1}, (1, 2), {frozenset({1}): b"x"}, 10**400, 2.5, True, None]
    assert [type(v) for v in decoded[:4]] == [int, list, dict, tuple]
    assert isinstance(decoded[9], Remote) and list(handles) == [0]


@pytest.mark.parametrize(
    ("tests", "setup", "prefetched"),
    [
        (("assert add(1, 2) == 3", "assert add(-1, 1) == 0"), "", [("add", (1, 2), ()), ("add", (-1, 1), ())]),
        (("assert math.isclose(f(1.5), 2.0, rel_tol=0.01)",), "", [("f", (1.5,), ())]),
        (("assert f(1) or f(2)",), "", []),  # f(2) may not run
        (("assert all(f(i) for i in range(3))",), "", []),  # runs three times
        (("assert f(x) == 1", "assert f(2) == 2"), "x = 1", []),  # a prefix only: the first test needs a request
        (("assert f(2) == 2", "assert f(x) == 1"), "x = 1", [("f", (2,), ())]),
        (("assert f(2) == 2",), "y = f(1)", []),  # setup calls the program: order would change
        (("assert max_chain_length([Pair(5, 24)], 4) == 3",), "", []),  # arguments built by the program
    ],
    ids=["literals", "inside-a-builtin-call", "short-circuit", "comprehension", "prefix-stops", "prefix-kept",
         "setup-calls-program", "program-objects"],
)
def test_calls_with_literal_arguments_are_prefetched_in_order(tests, setup, prefetched) -> None:
    assert list(plan_tests(tests, setup, None).prefetch) == prefetched
