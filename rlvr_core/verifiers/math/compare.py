"""Step 2 of math verification: is the extracted answer the gold answer? Exactly.

`judge(gold, pred)` normalises both (`math_normalize`), compares the strings,
then the shapes (`math_parse`), then the leaves:

- numbers are exact fractions: integers, decimals, `a/b`, `\\frac{a}{b}`,
  mixed numbers, scientific notation. There is no tolerance: `1000001` is
  not `1000000`, `0.333` is not 1/3, `0.5` is 1/2 and `1.50` is 3/2. A
  scientific literal beyond the float range (`1e999`, `-1e400`, `1e309`) is
  not a number and equals nothing;
- a decimal with at least 10 significant digits may stand for a fraction or
  an irrational gold (or be the gold for an exact answer) when every digit
  it states is right: within one unit of its last digit (`math_symbolic`).
  Fewer digits could be a lucky rounding, so 3.14 is not pi;
- a decimal comma ("1000,99", "2,74") is read only when the gold is a single
  number and there is no space after the comma; a comma in a gold is a list,
  unless the gold is two digit runs joined by a comma and the prediction is a
  decimal with a point (gold "1,22", prediction "1.22");
- a percent sign is kept and read as `math_percent` says (`50%` is 1/2, and
  whole-number percentages may be the percent number itself);
- words compare as words (case aside), choice letters as letters;
- everything else is proved equal by sympy (`math_symbolic`), or is not.

Shapes: brackets must match (`(1,2]` is not `(1,2)`), tuples are ordered,
bare lists and sets are unordered (a perfect matching, duplicates ignored), a
tuple gold accepts a bare list in the same order, a union equals only a union,
and assignments to several names (`x=1, y=2`) accept their values in order. Equations compare as
equations: `y = 2` is not `x = 2`; `2x+4y=3` equals `y = -x/2 + 3/4` (one is a
non-zero multiple of the other); inequalities likewise with a positive
multiple (`x < 1` equals `-x > -1`). A leading `x =` (or `x \\in`) is dropped
when the gold is a bare value, and a gold `y = v` accepts a bare `v`, but a
gold equation that is not an assignment (`a+3z=0`) never equals a bare `0`.
A gold inequality in one variable equals the same set written as intervals
(`-2 \\le x \\le 7` and `[-2,7]`); a gold interval needs an interval, and an
interval with an infinite end needs its brackets (`-\\infty, 5` is not
`(-\\infty, 5)`). Equations that are not constant multiples of each other
may still have the same solutions (`\\frac1y+\\frac1x=2` and `y=\\frac{x}{2x-1}`):
`math_relations` solves them.

A prediction must be true as written: a chain of equalities whose constant
sides differ (`2 + 2 = 5`, `x = 6 = 5`) is a "false chain" and wrong, whatever
its last side. Several values against a single gold are "several answers".

Statuses: "correct", "wrong", "unparsed" (the prediction is empty, too long,
or not readable as math), "timeout" (sympy ran past the time limit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from rlvr_core.verifiers.math.literals import OVERFLOW, as_number, states_value, terminates  # noqa: F401  (re-exported)
from rlvr_core.verifiers.math.normalize import MAX_ANSWER_CHARS, normalize
from rlvr_core.verifiers.math.parse import (
    Assign,
    Bracketed,
    Collection,
    Group,
    Leaf,
    Node,
    Relation,
    TooComplex,
    Union,
    parse,
)
from rlvr_core.verifiers.math.percent import readings, split_percent
from rlvr_core.verifiers.math.units import split_unit
from rlvr_core.verifiers.math.symbolic import (
    NotFinite,
    NotMath,
    Refused,
    SymbolicTimeout,
    decimal_matches,
    time_limit,
    to_sympy,
)

TIME_LIMIT_S = 5.0

_MALFORMED_NUMBER = re.compile(r"[-+]?[0-9.,/]+")  # digits and separators only (checked with a digit present)
_DECIMAL_COMMA = re.compile(r"-?[0-9]+,[0-9]+")
_RAW_DECIMAL_COMMA = re.compile(r"[0-9],[0-9]")
_SPLIT_DIGITS = re.compile(r"[0-9] [0-9]")
_WORD = re.compile(r"[A-Za-z][A-Za-z ]*[A-Za-z]")
_BRACES = re.compile(r"[{}]")
_INFINITY = frozenset({"\\infty", "-\\infty"})


@dataclass(frozen=True)
class Verdict:
    """The outcome of one comparison: status is "correct", "wrong", "unparsed" or "timeout"."""

    status: Literal["correct", "wrong", "unparsed", "timeout"]
    how: str

    @property
    def equal(self) -> bool:
        return self.status == "correct"


class _Unreadable(Exception):
    """The prediction (not the gold) cannot be read as math."""


def judge(gold: str, pred: str, time_limit_s: float = TIME_LIMIT_S, percent_gold: bool = False) -> Verdict:
    """Compare a gold answer and an extracted prediction; never raises on model output.

    `percent_gold`: the problem asks for a percentage, so a plain-number gold
    is one (gold 25 is 25%, and accepts `25` and `25%`). Units are compared
    when the gold names one (`math_units`).
    """
    if len(pred) > MAX_ANSWER_CHARS:
        return Verdict("unparsed", f"answer longer than {MAX_ANSWER_CHARS} characters")
    converted = _convert_units(gold, pred)
    if isinstance(converted, Verdict):
        return converted
    gold, pred, unit = converted
    verdict = _judge_values(gold, pred, time_limit_s, percent_gold)
    if unit and verdict.status == "wrong":
        return Verdict("wrong", f"{verdict.how}, compared in {unit}")
    return verdict


def _judge_values(gold: str, pred: str, time_limit_s: float, percent_gold: bool) -> Verdict:
    """`judge` once units are dealt with."""
    g = normalize(gold)
    p = normalize(pred)
    if not p:
        return Verdict("unparsed", "empty answer")
    if percent_gold and isinstance(as_number(g), Fraction):
        g += "%"
    if _DECIMAL_COMMA.fullmatch(g) and _RAW_DECIMAL_COMMA.search(gold) and "." in p and isinstance(as_number(p), Fraction):
        g = g.replace(",", ".")  # a gold written with a decimal comma
    if g == p:
        return Verdict("correct", "string")
    numbers = [(as_number(a), as_number(b), a, b) for a, b in readings(g, p)]
    if all(isinstance(x, Fraction) and isinstance(y, Fraction) for x, y, _, _ in numbers):  # no parsing, no sympy
        equal = any(x == y or states_value(b, x) or states_value(a, y) for x, y, a, b in numbers)
        how = "percent" if "%" in g + p else "value"
        return Verdict("correct" if equal else "wrong", how)
    try:
        with time_limit(time_limit_s):
            gold_node = parse(g)
            if isinstance(gold_node, Leaf) and as_number(gold_node.text) is not None:
                if _DECIMAL_COMMA.fullmatch(p) and _RAW_DECIMAL_COMMA.search(pred):
                    p = p.replace(",", ".")
            broken = broken_chain(p)
            if broken:
                return Verdict("wrong", f"false chain: {broken}")
            pred_node = parse(p)
            if _equal(gold_node, pred_node):
                return Verdict("correct", _kind(gold_node))
            if _is_single(gold_node) and _several(pred_node):
                return Verdict("wrong", "several answers for a single gold")
            return Verdict("wrong", _kind(gold_node))
    except _Unreadable as exc:
        return Verdict("unparsed", f"not readable as math ({exc})")
    except TooComplex as exc:
        return Verdict("wrong", f"too complex: {exc}")
    except SymbolicTimeout:
        return Verdict("timeout", f"symbolic comparison exceeded {time_limit_s:g}s of CPU time")
    except RecursionError:
        return Verdict("wrong", "too deeply nested")
    except Exception as exc:  # noqa: BLE001 - sympy raises many types on odd input: fail closed
        return Verdict("wrong", f"not comparable ({type(exc).__name__})")


def _convert_units(gold: str, pred: str) -> tuple[str, str, str] | Verdict:
    """(gold, prediction, the gold's unit or "") without units, the prediction converted to the gold's unit.

    Only a gold that names a physical unit makes the prediction's unit matter
    (`math_units`); a unit of another dimension is "wrong".
    """
    g_core, g_unit = split_unit(gold)
    p_core, p_unit = split_unit(pred)
    if g_unit is None or p_unit is None:
        return g_core, p_core, ""
    if (g_unit.dimension, g_unit.power) != (p_unit.dimension, p_unit.power):
        return Verdict("wrong", f"unit: {p_unit.name!r} does not measure what the gold's {g_unit.name!r} does")
    ratio = p_unit.factor / g_unit.factor
    if ratio == 1:
        return g_core, p_core, g_unit.name
    value = as_number(normalize(p_core))
    if isinstance(value, Fraction):
        value *= ratio
        return g_core, str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}", g_unit.name
    if "," in p_core or ";" in p_core:
        return Verdict("wrong", f"unit: a list in {p_unit.name!r} is not converted to the gold's {g_unit.name!r}")
    return g_core, f"\\frac{{{ratio.numerator}}}{{{ratio.denominator}}}\\cdot({p_core})", g_unit.name


def compare(gold: str, pred: str) -> tuple[bool, str]:
    """(equal?, which rule decided): the boolean view of `judge`."""
    verdict = judge(gold, pred)
    return verdict.equal, verdict.how


def _kind(node: Node) -> str:
    return {Leaf: "value", Bracketed: "tuple", Collection: "unordered", Group: "group", Union: "union",
            Assign: "assignment", Relation: "relation"}[type(node)]


def _equal(g: Node, p: Node) -> bool:
    """Structural equality, gold first: the rules are not symmetric (see the module docstring)."""
    if isinstance(g, Assign):
        if isinstance(p, Assign):
            if _same_name(g.name, p.name):
                return _equal(g.value, p.value)
            both_leaves = g.op == p.op == "=" and isinstance(g.value, Leaf) and isinstance(p.value, Leaf)
            # "ia = b" and "a = b/i": different names on the left, the same equation
            return both_leaves and _relations_equal((g.name, g.value.text), ("=",), Relation((p.name, p.value.text), ("=",)))
        if isinstance(p, Relation):
            return g.op == "=" and isinstance(g.value, Leaf) and _relations_equal((g.name, g.value.text), ("=",), p)
        return _equal(g.value, p)
    if isinstance(p, Assign):
        if isinstance(g, Relation):
            if p.op == "\\in":
                return _relation_is_set(g, p.value)
            return isinstance(p.value, Leaf) and _relations_equal(g.sides, g.ops, Relation((p.name, p.value.text), ("=",)))
        return _equal(g, p.value)  # a leading `x =` is dropped when the gold is a bare value
    if isinstance(g, Relation):
        if isinstance(p, Relation):
            return _relations_equal(g.sides, g.ops, p)
        if isinstance(p, (Bracketed, Union, Collection)):
            return _relation_is_set(g, p)
        return False
    if isinstance(p, Relation):
        return False
    if isinstance(g, Group) or isinstance(p, Group):
        return _group_equal(g, p)
    if isinstance(g, Bracketed):
        if isinstance(p, Bracketed):
            return (g.opening, g.closing) == (p.opening, p.closing) and _ordered(g.items, p.items)
        if isinstance(p, Collection) and not p.braces and (g.opening, g.closing) == ("(", ")"):
            if any(isinstance(item, Leaf) and item.text in _INFINITY for item in g.items):
                return False  # an interval with an infinite end: the brackets are the answer
            return _ordered(g.items, p.items)
        return False
    if isinstance(g, Union) or isinstance(p, Union):  # a union equals only a union (parts in any order)
        return isinstance(g, Union) and isinstance(p, Union) and _unordered(g.parts, p.parts)
    if isinstance(g, Collection):
        if isinstance(p, Collection):
            return _unordered(g.items, p.items)
        distinct = _distinct(g.items)
        return len(distinct) == 1 and _equal(distinct[0], p)
    if isinstance(p, Collection):
        distinct = _distinct(p.items)
        return len(distinct) == 1 and _equal(g, distinct[0])
    if isinstance(g, Leaf) and isinstance(p, Leaf):
        return _leaf_equal(g.text, p.text)
    return False


def _is_single(node: Node) -> bool:
    return isinstance(node, Leaf) or isinstance(node, Assign) and isinstance(node.value, Leaf)


def _several(node: Node) -> bool:
    return isinstance(node, (Collection, Group)) and len(_distinct(getattr(node, "items", None) or node.assigns)) > 1


def _group_equal(g: Node, p: Node) -> bool:
    """`p=5,q=2`: by name against another group, in order against a tuple or a bare list."""
    if isinstance(g, Group) and isinstance(p, Group):
        g_names = {_BRACES.sub("", a.name): a.value for a in g.assigns}
        p_names = {_BRACES.sub("", a.name): a.value for a in p.assigns}
        return g_names.keys() == p_names.keys() and all(_equal(g_names[n], p_names[n]) for n in g_names)
    group, other = (g, p) if isinstance(g, Group) else (p, g)
    values = tuple(a.value for a in group.assigns)  # type: ignore[union-attr]
    if isinstance(other, Bracketed) and (other.opening, other.closing) == ("(", ")"):
        return _ordered(values, other.items) if group is g else _ordered(other.items, values)
    if isinstance(other, Collection) and not other.braces and group is g:
        return _ordered(values, other.items)  # "x=1, y=2" against "1, 2": the values in the order written
    if isinstance(other, Collection) and group is p:
        return _unordered(other.items, values)  # an unordered gold list against named values
    return False


def _same_name(a: str, b: str) -> bool:
    return _BRACES.sub("", a) == _BRACES.sub("", b)


def _ordered(gold: tuple[Node, ...], pred: tuple[Node, ...]) -> bool:
    return len(gold) == len(pred) and all(_equal(a, b) for a, b in zip(gold, pred))


def _distinct(items: tuple[Node, ...]) -> list[Node]:
    seen: list[Node] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _unordered(gold: tuple[Node, ...], pred: tuple[Node, ...]) -> bool:
    """A perfect matching between the distinct gold and predicted items."""
    gold_items, pred_items = _distinct(gold), _distinct(pred)
    if len(gold_items) != len(pred_items):
        return False
    exact = [g for g in gold_items if g in pred_items]
    gold_left = [g for g in gold_items if g not in exact]
    pred_left = [p for p in pred_items if p not in exact]
    if not gold_left:
        return True
    edges = [[j for j, p in enumerate(pred_left) if _equal(g, p)] for g in gold_left]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(gold_left)))


def _leaf_equal(g: str, p: str) -> bool:
    if g == p:
        return True
    if split_percent(g)[1] or split_percent(p)[1]:
        return any(_leaf_equal(a, b) for a, b in readings(g, p))
    if _SPLIT_DIGITS.search(p):
        raise _Unreadable("digits separated by a space ('5 6' is neither 56 nor a list)")
    g_word, p_word = _WORD.fullmatch(g), _WORD.fullmatch(p)
    if g_word or p_word:  # words ("Evelyn", "odd"): as words, never as products of symbols
        return bool(g_word and p_word) and g.lower().replace(" ", "") == p.lower().replace(" ", "")
    g_num, p_num = as_number(g), as_number(p)
    if g_num is OVERFLOW or p_num is OVERFLOW:
        return False  # beyond the float range: not a number
    if isinstance(g_num, Fraction) and isinstance(p_num, Fraction):
        return g_num == p_num or states_value(p, g_num) or states_value(g, p_num)
    if g_num is not None and _MALFORMED_NUMBER.fullmatch(p) and any(c.isdigit() for c in p):
        return False  # e.g. gold 1000, pred "1.00.0": a malformed number, never symbolic
    try:
        g_value = _sympy_value(g, g_num)
    except NotMath:
        return False
    try:
        p_value = _sympy_value(p, p_num)
    except (NotFinite, Refused):
        return False
    except NotMath as exc:
        raise _Unreadable(str(exc)[:80]) from None
    from rlvr_core.verifiers.math.symbolic import equal

    if p_num is not None and decimal_matches(p, g_value):
        return True
    if g_num is not None and decimal_matches(g, p_value):
        return True
    return equal(g_value, p_value)


def _sympy_value(text: str, number: Fraction | None):  # noqa: ANN202
    """A plain number as an exact sympy Rational (latex2sympy would read `1e5` as 1*e*5), else `to_sympy`."""
    if isinstance(number, Fraction):
        import sympy

        return sympy.Rational(number.numerator, number.denominator)
    return to_sympy(text)


def broken_chain(text: str) -> str | None:
    """The first false link of an equality chain in `text` ("2+2 = 5"), or None (see `math_relations`)."""
    from rlvr_core.verifiers.math.relations import false_link

    return false_link(text)


def _relations_equal(g_sides: tuple[str, ...], g_ops: tuple[str, ...], p: Relation) -> bool:
    """Same relation: each link of one is a constant multiple of a link of the other (positive for <, <=)."""
    from rlvr_core.verifiers.math.relations import links_equal

    return links_equal(g_sides, g_ops, p.sides, p.ops)


def _relation_is_set(g: Relation, p: Node) -> bool:
    """A gold inequality in one variable against a predicted interval, union or set."""
    from rlvr_core.verifiers.math.relations import relation_equals_set

    return relation_equals_set(g.sides, g.ops, p)
