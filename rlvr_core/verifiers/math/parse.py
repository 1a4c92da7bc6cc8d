"""Step 2b of math verification: the shape of a normalised answer.

An answer is one of:

- `Leaf`: one expression, number or word (`\\frac{\\sqrt3}{2}`, `7`, `Evelyn`);
- `Bracketed`: a tuple, point or interval, brackets kept (`(3,-1)`, `(1,2]`);
- `Collection`: several answers, unordered: a bare list `1,2` (also written
  "1 and 2", "1; 2", or as several boxes) or a set `\\{1,2\\}`;
- `Group`: assignments to distinct names, one solution (`p=5,q=2`);
- `Union`: `A \\cup B`;
- `Assign`: `name = value` or `name \\in set`, where a name is a variable,
  `f(x)`, `a_{3}`, `|AB|`, `A:B`, `(p,q)`: what a reader may drop;
- `Relation`: an equation or inequality that is not an assignment
  (`2x+4y=3`, `x \\le 5`, `-2 < x < 7`), kept as sides and operators.

Chains: `x = 5+5+1 = 11` assigns 11 to x (the last side is the value);
`2+3 = 5` (no variable anywhere) is the value 5 (comparison checks that such
a chain is true). `\\approx` keeps the exact side: `x = 1/3 \\approx 0.33` is
x = 1/3 and `\\pi \\approx 3.14` is `\\pi`; only `x \\approx 0.33`, where the
approximation is the only value, is read as x = 0.33. `a \\pm b` is the list `a+b, a-b`.

Parsing is bounded: at most `MAX_ITEMS` items per list and `MAX_DEPTH`
nesting levels, else `TooComplex` (the comparison then fails closed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union as TypingUnion

MAX_ITEMS = 64
MAX_DEPTH = 8


class TooComplex(ValueError):
    """The answer has more items or nesting than any real final answer."""


@dataclass(frozen=True)
class Leaf:
    text: str


@dataclass(frozen=True)
class Bracketed:
    opening: str
    items: tuple["Node", ...]
    closing: str


@dataclass(frozen=True)
class Collection:
    items: tuple["Node", ...]
    braces: bool  # written as \{...\}


@dataclass(frozen=True)
class Union:
    parts: tuple["Node", ...]


@dataclass(frozen=True)
class Assign:
    name: str
    value: "Node"
    op: str = "="  # "=" or "\\in"


@dataclass(frozen=True)
class Group:
    assigns: tuple[Assign, ...]


@dataclass(frozen=True)
class Relation:
    sides: tuple[str, ...]
    ops: tuple[str, ...]


Node = TypingUnion[Leaf, Bracketed, Collection, Union, Assign, Group, Relation]

_OPS = ("\\approx", "\\equiv", "\\le", "\\ge", "\\ne", "\\in", "=", "<", ">")
_NAME_SUBSCRIPT = re.compile(r"_\{[^{}]*\}|_[A-Za-z0-9]|'|\\prime")
_NAME_CALL = re.compile(r"(?<=[A-Za-z}])\([^()]*\)")
_NAME_CHARS = re.compile(r"[A-Za-z\\{}(),:/| ]+")
_NOT_NAME_COMMANDS = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|log|ln|exp|sqrt|sum|int|lim|pi|infty|pm|mp|cdot|times|div)(?![A-Za-z])")
_LETTER = re.compile(r"[A-Za-z]")
_COMMAND = re.compile(r"\\[A-Za-z]+")


def parse(s: str, depth: int = 0) -> Node:
    """The shape of a normalised answer; raises `TooComplex`."""
    if depth > MAX_DEPTH:
        raise TooComplex(f"nested deeper than {MAX_DEPTH}")
    solutions = split_top(s, ";")
    if len(solutions) > 1:
        return Collection(tuple(parse(part, depth + 1) for part in solutions), braces=False)
    items = split_top(s, ",")
    if len(items) > 1:
        nodes = tuple(_parse_item(item, depth + 1) for item in items)
        names = [n.name for n in nodes if isinstance(n, Assign) and n.op == "="]
        if len(names) == len(nodes) and len(set(names)) == len(names):
            return Group(nodes)  # type: ignore[arg-type]
        return Collection(nodes, braces=False)
    return _parse_item(s, depth)


def _parse_item(s: str, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise TooComplex(f"nested deeper than {MAX_DEPTH}")
    sides, ops = split_relations(s)
    if ops:
        return _relation(sides, ops, depth)
    if s.startswith("\\{") and s.endswith("\\}") and _wraps(s, 2):
        items = split_top(s[2:-2], ",")
        return Collection(tuple(_parse_item(i, depth + 1) for i in items), braces=True)
    if len(s) >= 2 and s[0] in "([" and s[-1] in ")]" and _wraps(s, 1):
        inner = s[1:-1]
        items = split_top(inner, ",") or [""]
        if len(items) == 1:
            items = split_top(inner, ";") or [""]
        if len(items) == 1 and s[0] == "(" and s[-1] == ")":
            return parse(inner, depth + 1)
        return Bracketed(s[0], tuple(_parse_item(i, depth + 1) for i in items), s[-1])
    parts = split_top(s, "\\cup")
    if len(parts) > 1:
        return Union(tuple(_parse_item(p, depth + 1) for p in parts))
    pm = split_top(s, "\\pm", keep_empty=True)
    if len(pm) == 2 and pm[1]:
        base = pm[0]
        plus = f"{base}+{{{pm[1]}}}" if base else pm[1]
        minus = f"{base}-{{{pm[1]}}}" if base else f"-{{{pm[1]}}}"
        return Collection((Leaf(plus), Leaf(minus)), braces=False)
    return Leaf(s)


def _relation(sides: list[str], ops: list[str], depth: int) -> Node:
    if "\\approx" in ops:  # the exact side is the answer; what follows "\\approx" is a rounding of it
        cut = ops.index("\\approx")
        if cut == 0 and is_name(sides[0]) and sides[1]:
            return Assign(sides[0], parse(sides[1], depth + 1))  # "x \\approx 0.33": the only value given
        sides, ops = sides[: cut + 1], ops[:cut]
        if not ops:
            return parse(sides[0], depth + 1) if sides[0] else Leaf("")
    if any(not side for side in sides):
        return Leaf("".join(a + b for a, b in zip(sides, ops + [""])))
    if ops == ["\\in"] and is_name(sides[0]):
        return Assign(sides[0], parse(sides[1], depth + 1), op="\\in")
    if set(ops) == {"="}:
        if is_name(sides[0]):
            return Assign(sides[0], parse(sides[-1], depth + 1))
        if len(sides) > 2 and is_name(sides[-2]):
            return Assign(sides[-2], parse(sides[-1], depth + 1))
        if not any(_LETTER.search(_COMMAND.sub("", side)) for side in sides):
            return parse(sides[-1], depth + 1)  # "2+3=5": a computation; its value is the last side
        return Relation((sides[0], sides[-1]), ("=",))
    return Relation(tuple(sides), tuple(ops))


def is_name(s: str) -> bool:
    """A label a reader may drop: `x`, `a_{3}`, `f(x)`, `|AB|`, `A:B`, `\\frac{NO}{BO}`, `(p,q)`; not `2x`, `a+b`, `e`."""
    if s in ("e", "i", "\\pi") or _NOT_NAME_COMMANDS.search(s):
        return False
    bare = _NAME_CALL.sub("", _NAME_SUBSCRIPT.sub("", s))
    return bool(bare) and bool(_LETTER.search(bare)) and _NAME_CHARS.fullmatch(bare) is not None


def _wraps(s: str, width: int) -> bool:
    """Whether the opening bracket at s[0] (width 1, or 2 for `\\{`) closes only at the very end."""
    depth = 0
    i = 0
    while i < len(s):
        step, delta = _bracket_at(s, i)
        depth += delta
        if depth == 0 and delta < 0:
            return i + step == len(s)
        i += step
    return False


def _bracket_at(s: str, i: int) -> tuple[int, int]:
    """(characters consumed, depth change) at s[i]: `\\{`/`\\}`, `\\begin{..}`/`\\end{..}` and ([{ }]) count."""
    char = s[i]
    if char == "\\":
        if s.startswith("\\{", i):
            return 2, 1
        if s.startswith("\\}", i):
            return 2, -1
        if s.startswith("\\begin{", i) or s.startswith("\\end{", i):
            close = s.find("}", i, i + 40)
            if close > 0:
                return close - i + 1, (1 if s[i + 1] == "b" else -1)
        return (2 if i + 1 < len(s) else 1), 0
    if char in "([{":
        return 1, 1
    if char in ")]}":
        return 1, -1
    return 1, 0


def split_top(s: str, sep: str, keep_empty: bool = False) -> list[str]:
    """`s` split at `sep` outside all brackets; empty pieces dropped unless `keep_empty`. Raises `TooComplex`."""
    if sep not in s:
        return [s] if s or keep_empty else []
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    is_command = sep.startswith("\\")
    while i < len(s):
        if depth == 0 and s.startswith(sep, i) and not (is_command and s[i + len(sep) : i + len(sep) + 1].isalpha()):
            parts.append(s[start:i])
            i += len(sep)
            start = i
            if len(parts) > MAX_ITEMS:
                raise TooComplex(f"more than {MAX_ITEMS} items")
            continue
        step, delta = _bracket_at(s, i)
        depth = max(0, depth + delta)
        i += step
    parts.append(s[start:])
    return parts if keep_empty else [p for p in parts if p]


def split_relations(s: str) -> tuple[list[str], list[str]]:
    """(sides, operators) for the relation operators outside brackets; ([s], []) when there is none."""
    if not any(c in s for c in "=<>\\"):
        return [s], []
    sides: list[str] = []
    ops: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(s):
        if depth == 0:
            op = next((o for o in _OPS if s.startswith(o, i) and not (o[0] == "\\" and s[i + len(o) : i + len(o) + 1].isalpha())), None)
            if op is not None:
                sides.append(s[start:i].strip())
                ops.append(op)
                i += len(op)
                start = i
                if len(ops) > MAX_ITEMS:
                    raise TooComplex(f"more than {MAX_ITEMS} relations")
                continue
        step, delta = _bracket_at(s, i)
        depth = max(0, depth + delta)
        i += step
    sides.append(s[start:].strip())
    return (sides, ops) if ops else ([s], [])
