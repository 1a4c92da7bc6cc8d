"""The grader's side of a served program: its entry functions, called with plain data, answered with plain data.

An `EntryFunction` is the only thing of the program a test can touch. Calling
it sends copies of the arguments (`sandbox/codec.py`); the reply is decoded
strictly into builtin types (or records of trusted classes); arguments the
call changed in place come back too and are written into the test's own
objects, so a test that checks a mutation sees it. An iterator or generator
the program returns is a `ProgramIterator`: read one item per request, as
the test consumes it (a generator that would run forever, or fail after the
items a test needs, is graded as Python would), up to `eager.CALLS_CAP`
items, past which the test fails as too large. Nothing else is served: no attribute, no
operator, no method of a returned object runs program code.
"""

from __future__ import annotations

import builtins
import collections
import functools
from collections.abc import Callable
from typing import Any

from rlvr_core.sandbox.channel import Session
from rlvr_core.sandbox.codec import EXPANSION_CAP, BadWire, Decoder, Encoder, NotPlainData
from rlvr_core.verifiers.code.eager import CALLS_CAP, Speculation, contains


class ProgramError(Exception):
    """The program raised (or exited) while answering a call.

    Raised as a subclass that is also the builtin exception the program
    raised (a TypeError stays catchable as TypeError), so test code and
    Python's own fallbacks behave as they would next to the program.
    """


class BadValue(Exception):
    """The program's reply is not a value of the wire form, or not plain data (the message says which)."""


_NOT_MIRRORED = (StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit)


@functools.lru_cache(maxsize=None)
def _program_error_type(name: str) -> type[ProgramError]:
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception) and not issubclass(builtin, _NOT_MIRRORED):
        return type(f"Program{name}", (ProgramError, builtin), {})
    return ProgramError


class Connection:
    """Calls to one served program. `trusted_class(name)` gives the class a record of that name is rebuilt as
    (only classes of the dataset's own code), or None. While `speculation` is active (an operand Python would
    have skipped, `eager.py`), calls are made but change no argument of the test's."""

    def __init__(self, session: Session, trusted_class: Callable[[str], type | None]) -> None:
        self.session = session
        self.trusted_class = trusted_class
        self.speculation = Speculation()
        self.made: dict = {}  # record classes made for this program's values (`Decoder.made`)
        self.iterators: dict[int, ProgramIterator] = {}  # the program's iterators by number: one object each

    def request(self, message: dict, what: str) -> dict:
        """One request to the program and its reply; raises what the program raised or exited with."""
        self.speculation.calls += 1
        reply = self.session.request(message)
        if "raise" in reply:
            text = str(reply["raise"])[:300]
            raise _program_error_type(text.partition(":")[0])(f"the program raised {text}")
        if "exit" in reply:
            raise ProgramError(f"the program exited ({str(reply['exit'])[:50]})")
        if "unplain" in reply:
            raise BadValue(f"{what} gave a value that is not plain data ({str(reply['unplain'])[:120]})")
        return reply

    def call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        try:
            wire = Encoder(self._number).encode([list(args), dict(kwargs)])
        except NotPlainData as exc:
            raise TypeError(f"an argument cannot be sent to the program: {exc}") from None
        reply = self.request({"call": name, "args": wire}, f"{name}()")
        if "value" not in reply:
            raise BadValue("the reply holds no value")
        value = self.decode(reply["value"])
        if "after" in reply and not self.speculation.active:
            after = self.decode(reply["after"])
            if type(after) is not list or len(after) != 2 or type(after[0]) is not list or type(after[1]) is not dict \
                    or len(after[0]) != len(args) or set(after[1]) != set(kwargs):
                raise BadValue("the arguments sent back do not match the call")
            for old, new in zip([*args, *kwargs.values()], [*after[0], *(after[1][k] for k in kwargs)]):
                write_back(old, new)
        return value

    def decode(self, wire: Any) -> Any:
        """A value from the program: plain data, its iterators as `ProgramIterator`s, ranges bounded."""
        try:
            return Decoder(self.trusted_class, strangers="refuse", made=self.made, iterator=self._iterator,
                           max_range=EXPANSION_CAP).decode(wire)
        except BadWire as exc:
            raise BadValue(str(exc)) from None

    def _iterator(self, number: int) -> ProgramIterator:
        if number not in self.iterators:
            self.iterators[number] = ProgramIterator(self, number)
        return self.iterators[number]

    def _number(self, value: Any) -> int | None:
        """How an argument that is an iterator crosses: the program's own by its number (it is sent back to the
        program it came from), any other materialised."""
        if not isinstance(value, ProgramIterator):
            return None
        if value.read_ahead():
            raise NotPlainData("an iterator of the program's that a skipped branch read ahead cannot be sent back")
        return value.number


class ProgramIterator:
    """An iterator the program returned, read as the test consumes it: one item per request.

    Where the test evaluates a branch Python would have skipped (`eager.py`),
    the items it reads are requested all the same (the program's requests do
    not depend on what the test decided) and kept, in order, for the test's
    own reads. `in` reads it as `any()` does. Past CALLS_CAP items read (each
    a request), the test fails as too large."""

    __slots__ = ("_conn", "number", "_ahead", "_episode", "_spent", "_read", "_end")

    def __init__(self, conn: Connection, number: int) -> None:
        self._conn, self.number = conn, number
        self._ahead: collections.deque = collections.deque()  # entries read ahead: ("value", v), ("raise", exc)...
        self._episode, self._spent = 0, 0  # entries of `_ahead` the current speculative episode has used
        self._read = 0  # items requested
        self._end: str | None = None  # "stop" once it ended or raised, "over" past CALLS_CAP items

    def __iter__(self) -> "ProgramIterator":
        return self

    def __next__(self) -> Any:
        speculation = self._conn.speculation
        if speculation.active:
            if self._episode != speculation.episode:
                self._episode, self._spent = speculation.episode, 0
            if self._spent == len(self._ahead):
                self._ahead.append(self._fetch())
            self._spent += 1
            return self._give(self._ahead[self._spent - 1])
        self._spent = max(0, self._spent - 1)
        return self._give(self._ahead.popleft() if self._ahead else self._fetch())

    def __contains__(self, value: Any) -> bool:
        return contains(self._conn.speculation, value, self)

    def read_ahead(self) -> bool:
        """Whether a branch Python would have skipped read items the test has not consumed yet."""
        return bool(self._ahead)

    def finished(self) -> bool:
        """Whether the program's iterator ended (or raised) within the items read so far."""
        return self._end == "stop" and not self._ahead

    def _fetch(self) -> tuple:
        """The next entry, from the program (one request) unless the iterator is over."""
        if self._end is None and self._read >= CALLS_CAP:
            self._end = "over"
        if self._end is not None:
            return (self._end,)
        self._read += 1
        try:
            reply = self._conn.request({"next": self.number}, "the program's iterator")
        except (ProgramError, BadValue) as exc:
            self._end = "stop"  # a generator that raised is finished
            return ("raise", exc)
        if reply.get("stop") is True:
            self._end = "stop"
            return ("stop",)
        if "value" not in reply:
            raise BadValue("the reply holds no item")
        return ("value", self._conn.decode(reply["value"]))

    def _give(self, entry: tuple) -> Any:
        if entry[0] == "value":
            return entry[1]
        if entry[0] == "raise":
            raise entry[1]
        if entry[0] == "over":
            self._conn.speculation.exceeded(f"too large: the program's iterator yields more than {CALLS_CAP} items")
        raise StopIteration

    def __repr__(self) -> str:
        return f"<iterator {self.number} of the program>"


class EntryFunction:
    """One of the program's entry functions, as a test sees it: callable, and nothing else."""

    __slots__ = ("_conn", "_name")

    def __init__(self, conn: Connection, name: str) -> None:
        self._conn, self._name = conn, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._conn.call(self._name, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self._name} of the program>"


_MUTABLE = (list, dict, set, bytearray, collections.deque)


def write_back(old: Any, new: Any, seen: set[int] | None = None) -> None:
    """Make `old` (an argument of the test's) equal to `new` (its state after the call) in place, reusing
    its own nested containers where the types agree, so aliases the test holds see the change too."""
    seen = set() if seen is None else seen
    if id(old) in seen:
        return
    seen.add(id(old))
    if type(old) is not type(new):
        return
    if isinstance(old, list):
        for i in range(min(len(old), len(new))):
            old[i] = _merged(old[i], new[i], seen)
        del old[len(new):]
        old.extend(new[len(old):])
    elif isinstance(old, dict):
        merged = [(k, _merged(old[k], v, seen) if k in old else v) for k, v in new.items()]
        old.clear()
        old.update(merged)
    elif isinstance(old, set):
        old.clear()
        old.update(new)
    elif isinstance(old, collections.deque):
        old.clear()
        old.extend(new)
    elif isinstance(old, bytearray):
        old[:] = new
    elif hasattr(old, "__dict__") and not isinstance(old, type):
        for key, value in vars(new).items():
            old.__dict__[key] = _merged(old.__dict__.get(key), value, seen)


def _merged(old: Any, new: Any, seen: set[int]) -> Any:
    if type(old) is type(new) and (isinstance(old, _MUTABLE) or hasattr(old, "__dict__") and not isinstance(old, type)):
        write_back(old, new, seen)
        return old
    return new
