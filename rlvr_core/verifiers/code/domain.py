"""The domain of a code problem's inputs and outputs, inferred from the calls its own tests make.

Why: a hidden test must be a fact about the task, not about the reference
solution. A shown input mutated blindly leaves the task's domain (an
odd-length list where every shown one pairs up, a length `n` that no longer
matches its list, `k = 0` where every shown `k` is a position, a
two-character "character"), and there references are often wrong or answer
arbitrarily: a hidden test there pins that answer, and correct programs
score 0. So a generated input keeps every property that all the problem's
own calls (official and challenge tests) share:

- each value: its type; numbers their sign, no magnitude below the smallest
  shown (0, 1 and the empty list are where references go wrong) and a
  bounded growth above the largest; ints written only with 0 and 1 stay
  binary; strings their character classes (lower, upper, digits, spaces,
  the punctuation seen; an alphabet of at most three characters exactly),
  no length below the shortest shown, one character stays one character,
  single spacing; sequences an even length, sorted order (ascending or
  descending), distinct elements, rectangular rows, a record's (tuple's)
  length, and elements from the domain of all shown elements; dicts their
  keys' and values' domains;
- between arguments: every order relation (<, <=, ==, >=, >) that holds in
  all shown calls between int arguments, lengths and row lengths (a length
  `n` follows its list, `k <= len(list)`); a one-character argument found
  in a string argument stays in it;
- the output (`OutputShape`): its type (a reference answering None where
  every shown answer is a bool has left the task), sorted order and
  non-emptiness where every shown output has them.

A property read off a few calls may be accidental: each only narrows the
domain (fewer hidden tests), never widens it. Mutations stay near a shown
input and inside these bounds (`CallDomain.mutate`); `CallDomain.accepts`
has the last word.
"""

from __future__ import annotations

import operator
import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

TYPE_NAMES = frozenset({"int", "float", "str", "bool", "list", "tuple", "dict", "set", "frozenset", "complex", "bytes"})


@dataclass(frozen=True)
class TypeName:
    """A builtin type passed as an argument (`remove_datatype(values, int)`): written as its name in a test."""

    name: str

    def __repr__(self) -> str:
        return self.name


def _lengths_grow(lengths: Sequence[int]) -> int:
    """The longest a generated sequence or string may be: twice the longest shown, plus a little."""
    return 2 * max(lengths) + 2


class Domain:
    """The values one argument (or the elements of sequences) may take: one part per type seen."""

    def __init__(self, values: Sequence[Any]) -> None:
        groups: dict[type, list] = {}
        for value in values:
            groups.setdefault(type(value), []).append(value)
        self.parts = {kind: _part(kind, group) for kind, group in groups.items()}

    def accepts(self, value: Any) -> bool:
        part = self.parts.get(type(value))
        return part is not None and part.accepts(value)

    def mutate(self, value: Any, rng: random.Random) -> Any:
        part = self.parts.get(type(value))
        return value if part is None else part.mutate(value, rng)

    def sample(self, rng: random.Random) -> Any:
        """A value near one seen (an element for a growing sequence)."""
        part = rng.choice(list(self.parts.values()))
        return part.mutate(rng.choice(part.seen), rng)


class _Choice:
    """Values that are not mutated, only exchanged for another seen (None, a type name)."""

    def __init__(self, values: list) -> None:
        self.seen = values

    def accepts(self, value: Any) -> bool:
        return any(value == v for v in self.seen)

    def mutate(self, value: Any, rng: random.Random) -> Any:
        return rng.choice(self.seen)


class _Bool(_Choice):
    def accepts(self, value: Any) -> bool:
        return True

    def mutate(self, value: Any, rng: random.Random) -> Any:
        return not value if rng.random() < 0.5 else value


class _Number:
    """Ints or floats: the shown sign, no magnitude below the smallest shown, bounded growth above."""

    def __init__(self, values: list) -> None:
        self.seen = values
        self.kind = type(values[0])
        lo, hi = min(values), max(values)
        spread = max(hi - lo, abs(hi), abs(lo), 16)
        if lo > 0:
            self.low, self.high = lo, hi + spread
        elif hi < 0:
            self.low, self.high = lo - spread, hi
        else:
            self.low, self.high = (lo - spread if lo < 0 else 0), (hi + spread if hi > 0 else 0)
        self.hull = (lo, hi)
        self.binary = self.kind is int and lo >= 0 and hi >= 100 and all(set(str(v)) <= {"0", "1"} for v in values)
        self.decimals = max((len(repr(v).partition(".")[2]) for v in values), default=0) if self.kind is float else 0

    def accepts(self, value: Any) -> bool:
        if not self.low <= value <= self.high:
            return False
        return not self.binary or set(str(value)) <= {"0", "1"}

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if self.binary:
            digits = list(str(value))
            i = rng.randrange(1, len(digits)) if len(digits) > 1 else 0
            choice = rng.randrange(3)
            if choice == 0 and len(digits) > 2:
                del digits[i]
            elif choice == 1:
                digits.insert(i, rng.choice("01"))
            else:
                digits[i] = "1" if digits[i] == "0" or i == 0 else "0"
            return int("1" + "".join(digits)[1:])
        lo, hi = self.hull
        if self.kind is int:
            step = rng.randint(1, 5)
            options = [value + step, value - step, value * 2, value // 2, rng.randint(lo, hi), rng.randint(lo, hi)]
        else:
            options = [value * rng.choice((0.5, 1.5, 2.0)) + rng.choice((-1.0, 0.0, 1.0)), rng.uniform(lo, hi)]
        new = rng.choice(options)
        new = min(max(new, self.low), self.high)
        return round(new, self.decimals) if self.kind is float else new


def _char_pools(values: list[str]) -> str:
    """The characters a generated string may use: an alphabet of at most three characters exactly (binary
    strings), else the classes seen (lower, upper, digits, space) and each other character seen."""
    seen = set("".join(values))
    if 0 < len(seen) <= 3 and sum(map(len, values)) >= 6:
        return "".join(sorted(seen))
    pools = [pool for pool in (string.ascii_lowercase, string.ascii_uppercase, string.digits, " ")
             if seen & set(pool)]
    others = sorted(c for c in seen if not any(c in pool for pool in pools))
    return "".join(pools) + "".join(others)


class _Text:
    """Strings: character classes, no length below the shortest shown, one character stays one, parity,
    single spacing."""

    def __init__(self, values: list[str]) -> None:
        self.seen = values
        lengths = [len(v) for v in values]
        self.min_len, self.max_len = min(lengths), _lengths_grow(lengths)
        self.one_char = all(n == 1 for n in lengths)
        self.even = len(values) >= 2 and min(lengths) >= 2 and all(n % 2 == 0 for n in lengths)
        self.chars = _char_pools(values)
        self.single_spaced = all("  " not in v and v == v.strip() for v in values)

    def accepts(self, value: str) -> bool:
        if not self.min_len <= len(value) <= self.max_len or (self.one_char and len(value) != 1):
            return False
        if self.even and len(value) % 2:
            return False
        if self.single_spaced and ("  " in value or value != value.strip()):
            return False
        return all(c in self.chars for c in value)  # no character shown: only the empty string

    def mutate(self, value: str, rng: random.Random) -> str:
        if not self.chars:
            return value
        if self.one_char:
            return rng.choice(self.chars)
        chars = list(value)
        kind = rng.randrange(5)
        i = rng.randrange(len(chars)) if chars else 0
        if kind == 0 and chars:
            del chars[i]
        elif kind == 1 and chars:
            chars.insert(i, chars[i])
        elif kind == 2 and len(chars) > 1:
            j = rng.randrange(len(chars))
            chars[i], chars[j] = chars[j], chars[i]
        elif kind == 3 and chars:
            chars[i] = self._like(chars[i], rng)
        else:
            chars.insert(i, self._like(chars[i] if chars else rng.choice(self.chars), rng))
        while len(chars) < self.min_len or (self.even and len(chars) % 2):
            chars.append(self._like(chars[-1] if chars else rng.choice(self.chars), rng))
        text = "".join(chars)
        return " ".join(text.split()) if self.single_spaced else text

    def _like(self, char: str, rng: random.Random) -> str:
        """A character of the same class as `char` where the domain has it, else any allowed one."""
        for pool in (string.ascii_lowercase, string.ascii_uppercase, string.digits):
            if char in pool and any(c in pool for c in self.chars):
                return rng.choice([c for c in pool if c in self.chars])
        return rng.choice(self.chars)


def _comparable(values: list) -> bool:
    try:
        for a, b in pairwise(values):
            a < b  # noqa: B015 - only whether the elements compare
    except TypeError:
        return False
    return True


def _order(values: list) -> str | None:
    """"asc"/"desc" (with "!" when strict) if every shown sequence of two or more is so ordered, from at least two
    such sequences or one of three or more."""
    long = [list(v) for v in values if len(v) >= 2]
    if not long or (len(long) < 2 and len(long[0]) < 3) or not all(_comparable(v) for v in long):
        return None
    for name, op in (("asc!", operator.lt), ("asc", operator.le), ("desc!", operator.gt), ("desc", operator.ge)):
        if all(op(a, b) for v in long for a, b in pairwise(v)):
            return name
    return None


def _holds_order(items: list, order: str | None) -> bool:
    if order is None:
        return True
    op = {"asc!": operator.lt, "asc": operator.le, "desc!": operator.gt, "desc": operator.ge}[order]
    try:
        return all(op(a, b) for a, b in pairwise(items))
    except TypeError:
        return False


def _distinct(items: list) -> bool:
    return all(items[i] != items[j] for i in range(len(items)) for j in range(i + 1, len(items)))


def _row_length(value: Any) -> int | None:
    """The common length of a sequence's rows (its elements that are sequences), or None."""
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(r, (list, tuple, str)) for r in value):
        return None
    lengths = {len(r) for r in value}
    return lengths.pop() if len(lengths) == 1 else None


def scale_numbers(value: Any, factor: int, shift: int) -> Any:
    """Every int in `value` (not bools) times `factor` plus `shift`: order and distinctness survive, the
    answer usually changes."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value * factor + shift
    if isinstance(value, (list, tuple)):
        return type(value)(scale_numbers(v, factor, shift) for v in value)
    return value


class _Sequence:
    """Lists, tuples, sets: length bounds, parity, order, distinct elements, rows, a record's length, and the
    elements' own domain."""

    def __init__(self, values: list) -> None:
        self.seen = values
        self.kind = type(values[0])
        lengths = [len(v) for v in values]
        self.min_len, self.max_len = min(lengths), _lengths_grow(lengths)
        self.record = lengths[0] if self.kind is tuple and len(set(lengths)) == 1 else None
        self.even = len(values) >= 2 and min(lengths) >= 2 and all(n % 2 == 0 for n in lengths)
        ordered = self.kind in (list, tuple)
        self.order = _order(values) if ordered else None
        long = [list(v) for v in values if len(v) >= 2]
        self.distinct = ordered and any(len(v) >= 3 for v in long) and all(_distinct(v) for v in long)
        self.rectangular = any(len(v) >= 2 for v in values) and all(_row_length(v) is not None for v in values)
        elements = [e for v in values for e in v]
        self.elements = Domain(elements) if elements else None
        kinds = [{type(v[i]) for v in values} for i in range(self.record or 0)]
        # a record: tuples of one length whose positions hold different types (("yellow", 1)): each field
        # keeps its own domain and place
        self.fields = [Domain([v[i] for v in values]) for i in range(len(kinds))] if len(
            {frozenset(k) for k in kinds}) > 1 else None

    def accepts(self, value: Any) -> bool:
        items = list(value)
        if self.fields is not None:
            return len(items) == len(self.fields) and all(d.accepts(v) for d, v in zip(self.fields, items))
        if not self.min_len <= len(items) <= self.max_len or (self.record is not None and len(items) != self.record):
            return False
        if (self.even and len(items) % 2) or (self.distinct and not _distinct(items)):
            return False
        if not _holds_order(items, self.order) or (self.rectangular and items and _row_length(items) is None):
            return False
        return all(self.elements is not None and self.elements.accepts(e) for e in items)

    def mutate(self, value: Any, rng: random.Random) -> Any:
        items = list(value) if self.kind in (list, tuple) else sorted(value, key=repr)
        if self.fields is not None and len(items) == len(self.fields):
            i = rng.randrange(len(items))
            items[i] = self.fields[i].mutate(items[i], rng)
            return tuple(items)
        if self.elements is None:
            return value
        kind = rng.randrange(8)
        i = rng.randrange(len(items)) if items else 0
        if kind == 0:
            rng.shuffle(items)
        elif kind == 1 and len(items) > self.min_len:
            del items[i]
        elif kind == 2 and items:
            items.insert(i, items[i])
        elif kind == 3 or not items:
            items.append(self.elements.mutate(items[i], rng) if items else self.elements.sample(rng))
        elif kind == 4:
            items[i] = self.elements.mutate(items[i], rng)
        elif kind == 5:
            items.reverse()
        elif kind == 6:
            items = [scale_numbers(v, rng.choice((2, 3)), rng.randint(-1, 1)) for v in items]
        else:
            for j in rng.sample(range(len(items)), min(2, len(items))):
                items[j] = self.elements.mutate(items[j], rng)
        return self._repair(items, rng)

    def _repair(self, items: list, rng: random.Random) -> Any:
        """Back into the shape every shown value has: ordered, distinct, even, long enough, a record's length."""
        if self.distinct or (self.order or "").endswith("!"):
            items = [v for k, v in enumerate(items) if all(v != w for w in items[:k])]
        target = self.record if self.record is not None else max(self.min_len, min(len(items), self.max_len))
        if self.even and target % 2:
            target += 1 if target < self.max_len else -1
        for _ in range(4 * (target + 1)):
            if len(items) >= target:
                break
            assert self.elements is not None
            new = self.elements.mutate(items[-1], rng) if items else self.elements.sample(rng)
            if not self.distinct or all(new != w for w in items):
                items.append(new)
        del items[target:]
        if self.order is not None and _comparable(items):
            items.sort(reverse=self.order.startswith("desc"))
        try:
            return self.kind(items)
        except TypeError:  # an unhashable element for a set: keep the shown value
            return self.seen[0]


class _Mapping:
    """Dicts: size bounds, keys and values from the shown keys' and values' domains."""

    def __init__(self, values: list[dict]) -> None:
        self.seen = values
        lengths = [len(v) for v in values]
        self.min_len, self.max_len = min(lengths), _lengths_grow(lengths)
        keys, items = [k for v in values for k in v], [x for v in values for x in v.values()]
        self.keys, self.values = (Domain(keys), Domain(items)) if keys else (None, None)

    def accepts(self, value: dict) -> bool:
        if not self.min_len <= len(value) <= self.max_len:
            return False
        return all(self.keys is not None and self.keys.accepts(k) and self.values.accepts(x)
                   for k, x in value.items())

    def mutate(self, value: dict, rng: random.Random) -> dict:
        if self.keys is None or not value:
            return value
        items = list(value.items())
        i = rng.randrange(len(items))
        kind = rng.randrange(3)
        if kind == 0:
            items[i] = (items[i][0], self.values.mutate(items[i][1], rng))
        elif kind == 1 and len(items) > self.min_len:
            del items[i]
        else:
            key = self.keys.mutate(items[i][0], rng)
            if all(key != k for k, _ in items):
                items.append((key, self.values.mutate(items[i][1], rng)))
        try:
            return dict(items)
        except TypeError:
            return value


def _part(kind: type, values: list) -> Any:
    if kind is bool:
        return _Bool(values)
    if kind in (int, float):
        return _Number(values)
    if kind is str:
        return _Text(values)
    if kind in (list, tuple, set, frozenset):
        return _Sequence(values)
    if kind is dict:
        return _Mapping(values)
    return _Choice(values)


# --- one call's arguments -----------------------------------------------------------------------------
Feature = tuple[str, int]  # ("value", i): an int argument; ("len", i): a length; ("row", i): its rows' length
_OPS: dict[str, Callable[[Any, Any], bool]] = {"<": operator.lt, "<=": operator.le, "==": operator.eq,
                                               ">=": operator.ge, ">": operator.gt}


def _feature(feature: Feature, args: Sequence[Any]) -> int | None:
    kind, i = feature
    value = args[i]
    if kind == "value":
        return value if type(value) is int else None
    if kind == "len":
        return len(value) if isinstance(value, (str, list, tuple, dict, set, frozenset)) else None
    return _row_length(value)


class CallDomain:
    """The inputs of one entry function's calls (positional arguments, then keyword values): each
    argument's `Domain` and the relations between arguments that every shown call keeps."""

    def __init__(self, calls: Sequence[Sequence[Any]]) -> None:
        n = len(calls[0])
        self.arity = n
        self.positions = [Domain([call[i] for call in calls]) for i in range(n)]
        # a string argument with one value in every shown call (the vowels to count) is part of the task: kept
        self.fixed = {i: calls[0][i] for i in range(n) if len(calls) >= 2 and isinstance(calls[0][i], str)
                      and all(repr(call[i]) == repr(calls[0][i]) for call in calls)}
        features = [(kind, i) for i in range(n) for kind in ("value", "len", "row")
                    if all(_feature((kind, i), call) is not None for call in calls)]
        self.relations: list[tuple[Feature, str, Feature]] = []
        self.ties: dict[int, Feature] = {}  # an int argument equal to a length in every shown call follows it
        for k, a in enumerate(features):
            for b in features[k + 1:]:
                for name, op in _OPS.items():
                    if all(op(_feature(a, call), _feature(b, call)) for call in calls):
                        self.relations.append((a, name, b))
                if any(r == (a, "==", b) for r in self.relations) and (a[0] == "value") != (b[0] == "value"):
                    value, length = (a, b) if a[0] == "value" else (b, a)
                    self.ties.setdefault(value[1], length)
        self.members = [(i, j) for i in range(n) for j in range(n) if i != j
                        and all(isinstance(c[i], str) and len(c[i]) == 1 and isinstance(c[j], str) for c in calls)
                        and all(c[i] in c[j] for c in calls)]

    def accepts(self, args: Sequence[Any]) -> bool:
        if len(args) != self.arity or not all(d.accepts(v) for d, v in zip(self.positions, args)):
            return False
        if any(repr(args[i]) != repr(value) for i, value in self.fixed.items()):
            return False
        for a, name, b in self.relations:
            left, right = _feature(a, args), _feature(b, args)
            if left is None or right is None or not _OPS[name](left, right):
                return False
        return all(args[i] in args[j] for i, j in self.members)

    def mutate(self, args: Sequence[Any], rng: random.Random) -> tuple:
        """One or two arguments mutated within their domains; a tied length follows its sequence, a
        character that must occur in a string is taken from it."""
        free = [i for i in range(self.arity) if i not in self.ties and i not in self.fixed]
        new = list(args)
        for i in rng.sample(free, min(len(free), rng.choice((1, 1, 2)))):
            new[i] = self.positions[i].mutate(new[i], rng)
        for i, j in self.members:
            if new[i] not in new[j] and new[j]:
                new[i] = rng.choice(new[j])
        for i, feature in self.ties.items():
            value = _feature(feature, new)
            if value is not None:
                new[i] = value
        return tuple(new)


class OutputShape:
    """What every shown output shares: its type, sorted order, non-emptiness. An answer without them comes
    from outside the task (None where every shown answer is a bool) or from the reference's accidents (a
    tuple in set order where every shown one is sorted)."""

    def __init__(self, values: Sequence[Any]) -> None:
        self.types = {type(v) for v in values}
        sequences = [v for v in values if isinstance(v, (list, tuple, str))]
        whole = len(sequences) == len(values) >= 2
        texts = any(isinstance(v, str) for v in values)
        order = _order(sequences) if whole and not texts else None
        self.order = order.rstrip("!") if order else None  # a repeated element is no accident of the reference
        self.nonempty = whole and all(len(v) > 0 for v in sequences)

    def accepts(self, value: Any) -> bool:
        if type(value) not in self.types:
            return False
        if self.nonempty and not len(value):
            return False
        return self.order is None or _holds_order(list(value), self.order)
