"""What runs inside a sandboxed child, next to the program: run it, then answer the grader's calls.

Read as text and appended to `sandbox/codec.py` in the zygote's source (the
zygote forks, the child calls `run_program` or `serve`); importable on its
own, without side effects. Standard library only. Nothing here is trusted
by the parent: the program can rewrite any of it, so the parent only ever
reads plain data in the codec's wire form, which the program could have
returned anyway.

Protocol of `serve` (frames of a 4-byte big-endian length + JSON; requests
on fd 3, replies on fd 4). First reply: {"ready": true} once the program and
the setup code ran, else {"raise": text} or {"exit": text}. Then each request
{"call": name, "args": wire of [positional list, keyword dict]} gets one
reply: {"value": wire} (plus "after": the arguments re-encoded, when the call
changed them in place), {"unplain": text} when the value is not plain data,
{"raise": text} or {"exit": text}. An iterator or generator in a value
crosses as ["gen", n], the n-th in this run's table (the same object keeps
its number); {"next": n} asks for its next item: {"value": wire}, {"stop":
true} at its end, or {"raise"|"exit"|"unplain": text}. There is no other
operation: the program is only ever asked to call one of its functions on
data, or to advance an iterator it returned.
"""

import json
import os
import struct
import sys
import traceback

from rlvr_core.sandbox.codec import BadWire, Decoder, Encoder, NotPlainData

REPLY_CAP = 8 << 20  # bytes of one serialised reply


def write_frame(fd, obj):
    data = json.dumps(obj).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd):
    header = read_exact(fd, 4)
    if header is None:
        return None
    body = read_exact(fd, struct.unpack(">I", header)[0])
    return None if body is None else json.loads(body)


def flush_and_exit(code):
    _flush_streams()
    os._exit(code & 0xFF)


def serve(program, setup, namespace):
    """Run the program and the setup code, say so on fd 4, then answer calls from fd 3 until EOF. Never returns."""
    try:
        exec(compile(program, "<program>", "exec"), namespace)
        if setup:
            exec(compile(setup, "<setup>", "exec"), namespace)
        first = {"ready": True}
    except SystemExit as exc:
        first = {"exit": repr(exc.code)[:200]}
    except BaseException as exc:
        traceback.print_exc()
        first = {"raise": _describe(exc)}
    _flush_streams()
    write_frame(4, first)
    if "ready" not in first:
        flush_and_exit(1)
    iterators = Iterators()
    while True:
        try:
            request = read_frame(3)
        except BaseException:
            request = None
        if request is None:
            flush_and_exit(0)
        reply = answer(request, namespace, iterators)
        _flush_streams()
        write_frame(4, reply)
        if "exit" in reply:
            flush_and_exit(1)


class Iterators:
    """The iterators and generators this run's values held, numbered in the order they first crossed."""

    def __init__(self):
        self._items, self._numbers = [], {}

    def register(self, iterator):
        if id(iterator) not in self._numbers:
            self._numbers[id(iterator)] = len(self._items)
            self._items.append(iterator)
        return self._numbers[id(iterator)]

    def get(self, number):
        if type(number) is not int or not 0 <= number < len(self._items):
            raise BadWire(f"no iterator number {number!r}")
        return self._items[number]


_STOP = object()


def answer(request, namespace, iterators):
    """The reply to one call or next request (see the module docstring)."""
    try:
        if "next" in request:
            value = next(iterators.get(request["next"]), _STOP)
            if value is _STOP:
                return {"stop": True}
            args = kwargs = None
        else:
            function = namespace[request["call"]]
            resolve = lambda name: namespace.get(name) if isinstance(namespace.get(name), type) else None  # noqa: E731
            args, kwargs = Decoder(resolve, strangers="namespace", iterator=iterators.get).decode(request["args"])
            value = function(*args, **kwargs)
    except SystemExit as exc:
        return {"exit": repr(exc.code)[:200]}
    except BaseException as exc:
        return {"raise": _describe(exc)}
    try:
        reply = {"value": Encoder(iterators.register).encode(value)}
        if args is not None:
            after = Encoder(iterators.register).encode([args, kwargs])
            if after != request["args"]:
                reply["after"] = after
        size = len(json.dumps(reply))
    except NotPlainData as exc:
        return {"unplain": str(exc)[:300]}
    except BaseException as exc:
        return {"raise": _describe(exc)}
    if size > REPLY_CAP:
        return {"raise": f"ValueTooLarge: the value takes {size} bytes; the limit is {REPLY_CAP}"}
    return reply


def _flush_streams():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _describe(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text[:500]


def run_program(program, namespace):
    """Run `program` as `python program.py` would; exit with its status. Never returns."""
    code = 0
    try:
        exec(compile(program, "<program>", "exec"), namespace)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    flush_and_exit(code)
