"""The grader's side of a served program: its entry functions, called with plain data, answered with plain data.

An `EntryFunction` is the only thing of the program a test can touch. Calling
it sends copies of the arguments (`sandbox/codec.py`); the reply is decoded
strictly into builtin types (or records of trusted classes); arguments the
call changed in place come back too and are written into the test's own
objects, so a test that checks a mutation sees it. Nothing else is served:
no attribute, no operator, no method of a returned object runs program code.
"""

from __future__ import annotations

import builtins
import collections
import functools
from collections.abc import Callable
from typing import Any

from rlvr_core.sandbox.channel import Session
from rlvr_core.sandbox.codec import BadWire, Decoder, Encoder, NotPlainData
from rlvr_core.verifiers.code.eager import Speculation


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

    def call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        try:
            wire = Encoder().encode([list(args), dict(kwargs)])
        except NotPlainData as exc:
            raise TypeError(f"an argument cannot be sent to the program: {exc}") from None
        reply = self.session.request({"call": name, "args": wire})
        if "raise" in reply:
            text = str(reply["raise"])[:300]
            raise _program_error_type(text.partition(":")[0])(f"the program raised {text}")
        if "exit" in reply:
            raise ProgramError(f"the program exited ({str(reply['exit'])[:50]})")
        if "unplain" in reply:
            raise BadValue(f"{name}() returned a value that is not plain data ({str(reply['unplain'])[:120]})")
        if "value" not in reply:
            raise BadValue("the reply holds no value")
        value = self._decode(reply["value"])
        if "after" in reply and not self.speculation.active:
            after = self._decode(reply["after"])
            if type(after) is not list or len(after) != 2 or type(after[0]) is not list or type(after[1]) is not dict \
                    or len(after[0]) != len(args) or set(after[1]) != set(kwargs):
                raise BadValue("the arguments sent back do not match the call")
            for old, new in zip([*args, *kwargs.values()], [*after[0], *(after[1][k] for k in kwargs)]):
                write_back(old, new)
        return value

    def _decode(self, wire: Any) -> Any:
        try:
            return Decoder(self.trusted_class, strangers="refuse", made=self.made).decode(wire)
        except BadWire as exc:
            raise BadValue(str(exc)) from None


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
