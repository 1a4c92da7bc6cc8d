"""Plain data across the sandbox boundary: one typed codec, used on both sides.

Why a codec and not handles: an object that stays in the sandbox answers
`==`, `in` and method calls with the program's own code, so a wrong program
can make any test true. Here a value crosses as data and is rebuilt on the
other side as a plain Python object of a known type; what the program wrote
never runs next to the test.

Read as text and prepended to the zygote's source (`host.py`), so the
sandboxed harness encodes with the same code the grader decodes with;
standard library only, no side effects on import.

Wire form (JSON-able). None, true, false and strings as JSON; then lists
tagged by their first item:
  ["i", hex] int (subclasses such as IntEnum as int) · ["f", float.hex] float
  (nan and inf included) · ["c", re, im] complex · ["b", hex] bytes ·
  ["ba", hex] bytearray · ["t", [items]] tuple · ["fs", [items]] frozenset ·
  ["nt", type name, [fields], [values]] namedtuple · ["rg", start, stop,
  step] range · ["dec", text] Decimal · ["fr", hex, hex] Fraction ·
  ["m", text, start, end] a re.Match (rebuilt as a match of the same text
  at the same span; its groups are not carried) · ["dk"|"dv", [items]],
  ["di", [[k, v], ...]] dict views · ["ty", module, name] a class of the
  standard library (`int`, `str`, `list`, `Decimal`, `date`... as a value,
  e.g. MBPP 533's `remove_datatype(t, int)`) · ["date", y, m, d],
  ["dt", y, m, d, H, M, S, us, fold, tz], ["time", H, M, S, us, fold, tz],
  ["td", days, seconds, us] the datetime types (tz: None or ["tz", offset
  in seconds, microseconds, name]: a fixed offset; another tzinfo crosses as
  the offset it gives that value) · ["it", [items], complete] an iterator or
  generator run to at most ITER_CAP items, when the encoding side has no
  iterator table (the grader's arguments) · ["gen", n] the n-th iterator of
  the side that has one (the sandbox registers the program's iterators and
  generators there and the grader reads them lazily, one item per request,
  as a test consumes them: `verifiers/code/calls.py`).
Mutable values are numbered in the order they are first met, so shared and
cyclic structure survives: ["l", [items]] list · ["d", [[k, v], ...]] dict
(order kept; a defaultdict arrives as a dict) · ["od", ...] OrderedDict ·
["ctr", ...] Counter · ["s", [items]] set · ["dq", [items], maxlen] deque ·
["dc", class name, [[field, value], ...]] dataclass instance · ["o", class
name, [[attribute, value], ...]] any other instance with attributes · ["r",
n] the n-th mutable value again.

Anything else (a function, a class of the program's, a module, a socket, a
lock) raises `NotPlainData` when encoded. Decoding checks every type and
bound and raises `BadWire`; records are rebuilt through `Decoder.resolve`,
which each side sets: the sandbox maps a class name to the program's own
class, the grader only to classes of trusted code (the dataset's setup and
reference code), else to a dataclass made from the field names, else it
refuses. A class is always the decoding side's own (`getattr` on a standard
module it already imported), never one the other side made. The grader
also bounds what a value may expand to (`Decoder(max_range=...)`): a range
longer than that is refused as too large, before a test's `set(...)` could
materialise it.
"""

import builtins
import collections
import collections.abc
import datetime
import decimal
import fractions
import keyword
import numbers
import re
import sys
import types

MAX_DEPTH = 100  # levels of nesting
MAX_NODES = 200_000  # values in one message
MAX_INT_HEX_DIGITS = 100_000
ITER_CAP = 10_000  # items of an iterator that are materialised, or read from the program's
EXPANSION_CAP = 1_000_000  # items a value from the program may expand to in the grader (a range's length)
TYPE_MODULES = ("builtins", "types", "collections", "collections.abc", "decimal", "fractions", "datetime", "numbers")


class NotPlainData(TypeError):
    """A value the codec does not carry (the message names its type)."""


class BadWire(ValueError):
    """Something that is not a value of the wire form, or exceeds its bounds."""


class ReplayIterator:
    """A returned iterator, materialised: yields its items; past ITER_CAP items it raises instead of ending."""

    __slots__ = ("_items", "_position", "_complete")

    def __init__(self, items, complete):
        self._items, self._position, self._complete = items, 0, complete

    def __iter__(self):
        return self

    def __next__(self):
        if self._position < len(self._items):
            self._position += 1
            return self._items[self._position - 1]
        if not self._complete:
            raise OverflowError(f"the program's iterator yields more than {ITER_CAP} items")
        raise StopIteration

    def __repr__(self):
        return f"<iterator of {len(self._items)} items from the program>"


def _is_namedtuple(value):
    fields = getattr(type(value), "_fields", None)
    return isinstance(value, tuple) and isinstance(fields, tuple) and all(isinstance(f, str) for f in fields)


_NOT_RECORDS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type,
                types.CodeType, types.FrameType, types.TracebackType, property, staticmethod, classmethod)


class Encoder:
    """Values to wire form; one instance per message (it numbers the mutable values it meets).

    `register(iterator)`: the number an iterator crosses as (["gen", n]), or None to materialise it (["it",
    ...]); without it every iterator is materialised."""

    def __init__(self, register=None):
        self._seen = {}  # id -> number, for mutable values
        self._keep = []  # what `_seen` numbers, alive until the message is done (ids stay unique)
        self._nodes = 0
        self._register = register

    def encode(self, value, depth=0):
        self._nodes += 1
        if depth > MAX_DEPTH or self._nodes > MAX_NODES:
            raise NotPlainData(f"the value is nested more than {MAX_DEPTH} levels or has more than {MAX_NODES} parts")
        if value is None or value is True or value is False:
            return value
        if isinstance(value, int):
            return ["i", hex(int.__index__(value))]
        if isinstance(value, float):
            return ["f", float.hex(value)]
        if isinstance(value, complex):
            return ["c", float.hex(value.real), float.hex(value.imag)]
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, bytes):
            return ["b", bytes(value).hex()]
        if isinstance(value, bytearray):
            return ["ba", bytes(value).hex()]
        if id(value) in self._seen:
            return ["r", self._seen[id(value)]]
        down = depth + 1
        if isinstance(value, (dict, list, set, collections.deque)):
            self._number(value)
        if isinstance(value, collections.OrderedDict):  # its own order, which `dict.items` does not follow
            return ["od", [[self.encode(k, down), self.encode(v, down)] for k, v in collections.OrderedDict.items(value)]]
        if isinstance(value, dict):
            tag = "ctr" if isinstance(value, collections.Counter) else "d"
            return [tag, [[self.encode(k, down), self.encode(v, down)] for k, v in dict.items(value)]]
        if isinstance(value, list):
            return ["l", [self.encode(v, down) for v in list.__iter__(value)]]
        if isinstance(value, set):
            return ["s", [self.encode(v, down) for v in set.__iter__(value)]]
        if isinstance(value, collections.deque):
            return ["dq", [self.encode(v, down) for v in value], value.maxlen]
        if _is_namedtuple(value):
            return ["nt", type(value).__name__, list(type(value)._fields), [self.encode(v, down) for v in tuple.__iter__(value)]]
        if isinstance(value, tuple):
            return ["t", [self.encode(v, down) for v in tuple.__iter__(value)]]
        if isinstance(value, frozenset):
            return ["fs", [self.encode(v, down) for v in frozenset.__iter__(value)]]
        return self._encode_other(value, down)

    def _encode_other(self, value, down):
        if isinstance(value, type):
            return ["ty", *_type_name(value)]
        if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
            return _encode_datetime(value)
        if isinstance(value, range):
            return ["rg", self.encode(value.start), self.encode(value.stop), self.encode(value.step)]
        if isinstance(value, decimal.Decimal):
            return ["dec", str(value)]
        if isinstance(value, fractions.Fraction):
            return ["fr", hex(value.numerator), hex(value.denominator)]
        if isinstance(value, re.Match):
            return ["m", self.encode(value.string, down), value.start(), value.end()]
        views = ((type({}.keys()), "dk"), (type({}.values()), "dv"))
        for view, tag in views:
            if isinstance(value, view):
                return [tag, [self.encode(v, down) for v in value]]
        if isinstance(value, type({}.items())):
            return ["di", [[self.encode(k, down), self.encode(v, down)] for k, v in value]]
        if hasattr(type(value), "__next__") and hasattr(type(value), "__iter__"):
            number = self._register(value) if self._register is not None else None
            if number is not None:
                return ["gen", number]
            items = []
            for item in value:
                items.append(self.encode(item, down))
                if len(items) >= ITER_CAP:
                    return ["it", items, False]
            return ["it", items, True]
        if hasattr(type(value), "__dataclass_fields__"):  # a dataclass instance: its module is imported, then
            dataclasses = sys.modules["dataclasses"]
            self._number(value)
            fields = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
            return ["dc", type(value).__name__, [[name, self.encode(v, down)] for name, v in fields]]
        if self._is_record(value):
            self._number(value)
            return ["o", type(value).__name__, [[name, self.encode(v, down)] for name, v in _attributes(value)]]
        raise NotPlainData(f"a {type(value).__name__} is not plain data")

    def _number(self, value):
        self._seen[id(value)] = len(self._seen)
        self._keep.append(value)

    @staticmethod
    def _is_record(value):
        """An instance of a class with attributes: not a function, class, module or other callable."""
        if isinstance(value, _NOT_RECORDS) or callable(value):
            return False
        return hasattr(value, "__dict__") or bool(getattr(type(value), "__slots__", ()))


def _type_name(cls):
    """(module, name) of a class a standard module defines under that name; NotPlainData for any other."""
    module, name = cls.__module__, cls.__qualname__
    if module == "builtins" and name == "NoneType":
        module = "types"
    if module in TYPE_MODULES and getattr(sys.modules.get(module), name, None) is cls:
        return module, name
    raise NotPlainData(f"the class {name} is not plain data (only classes of {', '.join(TYPE_MODULES)} are)")


def _offset(tz, value):
    """A tzinfo as ["tz", seconds, microseconds, name]: its offset for `value` (a fixed one for a timezone)."""
    if tz is None:
        return None
    delta = tz.utcoffset(value)
    if delta is None:
        return None
    if not isinstance(delta, datetime.timedelta):
        raise NotPlainData("a tzinfo whose offset is not a timedelta is not plain data")
    name = tz.tzname(value)
    return ["tz", delta.days * 86400 + delta.seconds, delta.microseconds, name if isinstance(name, str) else None]


def _encode_datetime(value):
    if isinstance(value, datetime.datetime):
        return ["dt", value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
                value.fold, _offset(value.tzinfo, value)]
    if isinstance(value, datetime.date):
        return ["date", value.year, value.month, value.day]
    if isinstance(value, datetime.time):
        return ["time", value.hour, value.minute, value.second, value.microsecond, value.fold, _offset(value.tzinfo, None)]
    return ["td", value.days, value.seconds, value.microseconds]


def _decode_tz(wire):
    if wire is None:
        return None
    if type(wire) is not list or len(wire) != 4 or wire[0] != "tz" or not all(type(x) is int for x in wire[1:3]) \
            or not (wire[3] is None or type(wire[3]) is str and len(wire[3]) < 100):
        raise BadWire("malformed tzinfo")
    offset = datetime.timedelta(seconds=wire[1], microseconds=wire[2])
    return datetime.timezone(offset) if wire[3] is None else datetime.timezone(offset, wire[3])


def _decode_datetime(tag, rest):
    """A date, datetime, time or timedelta from its fields (ints; the constructors check their ranges)."""
    fields, tz = (rest[:-1], rest[-1]) if tag in ("dt", "time") else (rest, None)
    if len(rest) != {"date": 3, "dt": 9, "time": 6, "td": 3}[tag] or not all(type(x) is int for x in fields):
        raise BadWire(f"malformed {tag!r} value")
    if tag == "date":
        return datetime.date(*fields)
    if tag == "td":
        return datetime.timedelta(days=fields[0], seconds=fields[1], microseconds=fields[2])
    *parts, fold = fields
    make = datetime.datetime if tag == "dt" else datetime.time
    return make(*parts, tzinfo=_decode_tz(tz), fold=fold)


def _decode_type(rest):
    """The decoding side's own class named (module, name), of a standard module it has imported."""
    if len(rest) != 2 or rest[0] not in TYPE_MODULES:
        raise BadWire("malformed class")
    cls = getattr(sys.modules.get(rest[0]), _name(rest[1], "class name"), None)
    if not isinstance(cls, type):
        raise BadWire(f"{rest[0]}.{rest[1]} is not a class of the standard library")
    return cls


def _attributes(value):
    """An instance's own attributes (its __dict__, then slots), names that are not dunders."""
    out = dict(getattr(value, "__dict__", {}))
    for cls in type(value).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in out and name not in ("__dict__", "__weakref__") and hasattr(value, name):
                out[name] = getattr(value, name)
    return [(k, v) for k, v in out.items() if isinstance(k, str) and not k.startswith("__")]


def encode(value):
    """`value` in wire form; NotPlainData if any part of it is not plain data."""
    return Encoder().encode(value)


def _name(text, what):
    if type(text) is not str or not text.isidentifier() or keyword.iskeyword(text) or text.startswith("__") or len(text) > 100:
        raise BadWire(f"{what} {str(text)[:40]!r} is not a plain identifier")
    return text


class Decoder:
    """Wire form to values, strictly; one instance per message.

    `resolve(name)` gives the class to rebuild a record of that name as, or
    None; `strangers` says what becomes of an "o" record whose class is not
    resolved: "refuse" (the grader: BadWire) or "namespace" (the sandbox: an
    instance of a plain class of that name). `made` keeps the classes made
    for records (namedtuples, dataclasses) across messages, so two values of
    one program class decode to one class here and compare as equal.
    `iterator(n)` gives what ["gen", n] stands for (absent: refused);
    `max_range` refuses a longer range as too large (absent: no bound).
    """

    def __init__(self, resolve=lambda name: None, strangers="refuse", made=None, iterator=None, max_range=None):
        self._resolve, self._strangers = resolve, strangers
        self._numbered = []
        self._nodes = 0
        self._made = {} if made is None else made  # (kind, name, fields) -> class made here
        self._iterator, self._max_range = iterator, max_range

    def decode(self, obj, depth=0):
        self._nodes += 1
        if depth > MAX_DEPTH or self._nodes > MAX_NODES:
            raise BadWire(f"the value is nested more than {MAX_DEPTH} levels or has more than {MAX_NODES} parts")
        if obj is None or type(obj) in (bool, str):
            return obj
        if type(obj) is not list or not obj or type(obj[0]) is not str:
            raise BadWire(f"unexpected {type(obj).__name__} in the value")
        tag, rest = obj[0], obj[1:]
        try:
            return self._decode_tagged(tag, rest, depth + 1)
        except BadWire:
            raise
        except (ValueError, TypeError, OverflowError, AttributeError, KeyError, IndexError) as exc:
            raise BadWire(f"malformed {tag!r} value: {type(exc).__name__}: {str(exc)[:100]}") from None

    def _items(self, rest, depth, count=1):
        if len(rest) != count or type(rest[0]) is not list:
            raise BadWire("malformed container")
        return [self.decode(v, depth) for v in rest[0]]

    def _pairs(self, rest, depth):
        if len(rest) != 1 or type(rest[0]) is not list or not all(type(p) is list and len(p) == 2 for p in rest[0]):
            raise BadWire("malformed mapping")
        return [(self.decode(k, depth), self.decode(v, depth)) for k, v in rest[0]]

    def _number(self, value):
        self._numbered.append(value)
        return value

    def _decode_tagged(self, tag, rest, depth):
        scalar = self._scalar(tag, rest)
        if scalar is not _NONE:
            return scalar
        if tag == "r" and len(rest) == 1 and type(rest[0]) is int and 0 <= rest[0] < len(self._numbered):
            return self._numbered[rest[0]]
        if tag == "l":
            out = self._number([])
            out.extend(self._items(rest, depth))
            return out
        if tag in ("d", "od", "ctr"):
            out = self._number({"d": dict, "od": collections.OrderedDict, "ctr": collections.Counter}[tag]())
            for key, value in self._pairs(rest, depth):
                out[key] = value
            return out
        if tag == "s":
            out = self._number(set())
            out.update(self._items(rest, depth))
            return out
        if tag == "dq" and len(rest) == 2 and (rest[1] is None or type(rest[1]) is int and rest[1] >= 0):
            out = self._number(collections.deque(maxlen=rest[1]))
            out.extend(self._items(rest[:1], depth))
            return out
        if tag == "t":
            return tuple(self._items(rest, depth))
        if tag == "fs":
            return frozenset(self._items(rest, depth))
        if tag == "nt" and len(rest) == 3 and type(rest[1]) is list and type(rest[2]) is list and len(rest[1]) == len(rest[2]):
            cls = self._namedtuple(_name(rest[0], "type name"), tuple(_name(f, "field") for f in rest[1]))
            return cls(*self._items(rest[2:], depth))
        if tag in ("dc", "o") and len(rest) == 2 and type(rest[1]) is list:
            return self._record(tag, _name(rest[0], "class name"), rest[1], depth)
        if tag in ("dk", "dv"):
            items = self._items(rest, depth)
            return dict.fromkeys(items).keys() if tag == "dk" else dict(enumerate(items)).values()
        if tag == "di":
            return dict(self._pairs(rest, depth)).items()
        if tag == "it" and len(rest) == 2 and type(rest[1]) is bool:
            return ReplayIterator(self._items(rest[:1], depth), rest[1])
        if tag == "gen" and len(rest) == 1 and type(rest[0]) is int and self._iterator is not None:
            return self._iterator(rest[0])
        if tag == "m" and len(rest) == 3 and type(rest[1]) is int and type(rest[2]) is int:
            return _rebuild_match(self.decode(rest[0], depth), rest[1], rest[2])
        raise BadWire(f"unknown or malformed tag {tag!r}")

    def _scalar(self, tag, rest):
        one = len(rest) == 1 and type(rest[0]) is str
        if tag == "i" and one and len(rest[0]) <= MAX_INT_HEX_DIGITS + 3:
            return int(rest[0], 16)
        if tag == "f" and one and len(rest[0]) < 40:
            return float.fromhex(rest[0])
        if tag == "c" and len(rest) == 2 and all(type(x) is str and len(x) < 40 for x in rest):
            return complex(float.fromhex(rest[0]), float.fromhex(rest[1]))
        if tag in ("b", "ba") and one:
            return (bytes if tag == "b" else bytearray)(bytes.fromhex(rest[0]))
        if tag == "rg" and len(rest) == 3:
            bounds = [self.decode(x) for x in rest]
            if not all(type(b) is int for b in bounds):
                raise BadWire("range bounds must be ints")
            value = range(*bounds)
            span = value.stop - value.start  # its length, without len()'s overflow past sys.maxsize
            length = max(0, span // value.step + (span % value.step != 0))
            if self._max_range is not None and length > self._max_range:
                raise BadWire(f"too large: a range of {length} items; the bound is {self._max_range}")
            return value
        if tag == "ty":
            return _decode_type(rest)
        if tag in ("date", "dt", "time", "td"):
            return _decode_datetime(tag, rest)
        if tag == "dec" and one and len(rest[0]) < 1000:
            return decimal.Decimal(rest[0])
        if tag == "fr" and len(rest) == 2 and all(type(x) is str and len(x) <= MAX_INT_HEX_DIGITS + 3 for x in rest):
            return fractions.Fraction(int(rest[0], 16), int(rest[1], 16))
        return _NONE

    def _namedtuple(self, name, fields):
        cls = self._resolve(name)
        if isinstance(cls, type) and issubclass(cls, tuple) and getattr(cls, "_fields", None) == fields:
            return cls
        key = ("nt", name, fields)
        if key not in self._made:
            self._made[key] = collections.namedtuple(name, fields)
        return self._made[key]

    def _record(self, tag, name, pairs, depth):
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise BadWire("malformed record")
        names = tuple(_name(p[0], "attribute") for p in pairs)
        cls = self._resolve(name)
        if not isinstance(cls, type):
            if tag == "o" and self._strangers == "refuse":
                raise BadWire(f"a {name} object is not plain data")
            key = (tag, name, names)
            if key not in self._made:
                if tag == "dc":
                    import dataclasses  # here, not in the zygote: its import is a sixth of the zygote's memory

                    self._made[key] = dataclasses.make_dataclass(name, names)
                else:
                    self._made[key] = type(name, (), {})
            cls = self._made[key]
        record = self._number(object.__new__(cls))
        for attribute, (_, value) in zip(names, pairs):
            value = self.decode(value, depth)
            if hasattr(record, "__dict__"):
                record.__dict__[attribute] = value
            else:
                object.__setattr__(record, attribute, value)
        return record


_NONE = object()


def _rebuild_match(string, start, end):
    """A re.Match over `string` spanning [start, end), made by searching for that literal text there (linear
    time: the program's pattern is never run here)."""
    if type(string) not in (str, bytes) or not 0 <= start <= end <= len(string):
        raise BadWire("malformed match")
    text = string[start:end]
    return re.compile(re.escape(text)).match(string, start)


def decode(obj, resolve=lambda name: None, strangers="refuse", made=None, max_range=None):
    """The value `obj` stands for (see `Decoder`)."""
    return Decoder(resolve, strangers, made, max_range=max_range).decode(obj)
