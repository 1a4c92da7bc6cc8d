"""What runs inside a sandboxed child, next to the program: run it, then answer the grader's requests.

Read as text and prepended to `sandbox/zygote.py` (the zygote forks, the
child calls `run_program` or `serve`); importable on its own, without side
effects, so tests can check its encoder against `verifiers/code/grader.py`'s decoder.
Standard library only. Nothing here is trusted by the parent: the program can
rewrite any of it, so the parent only ever gets values the program could
have returned anyway.

Wire format of a value (`encode`): None, true, false and strings as JSON;
["i", hex] int, ["f", float.hex] float, ["c", re, im], ["b", hex] bytes,
["ba", hex] bytearray, ["l"|"t"|"s"|"fs", [items]] list, tuple, set,
frozenset, ["d", [[k, v], ...]] dict, subclasses as their base type;
anything else stays here as ["h", id, type name]. From the parent also
["g", name] for a global of the program.
"""

import builtins
import json
import os
import struct
import sys
import traceback

REPLY_CAP = 8 << 20  # bytes of one serialised value


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
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code & 0xFF)


def serve(program, setup, namespace, prefetch=(), then_exit=False):
    """Run the program and setup, answer `prefetch` (calls known in advance), then requests on fd 3.

    The first message (fd 4) is {"ready": true, "prefetched": [replies]}, or
    {"raise": ...} / {"exit": ...} if the program failed before the tests.
    Ends on EOF, when the parent finishes the run, or right after the first
    message if `then_exit` and no answer left an object behind (a handle the
    parent may still use).
    """
    try:
        exec(compile(program, "<program>", "exec"), namespace)
        if setup:
            exec(compile(setup, "<setup>", "exec"), namespace)
        first = {"ready": True, "prefetched": []}
    except SystemExit as exc:
        first = {"exit": repr(exc.code)[:200]}
    except BaseException as exc:
        traceback.print_exc()
        first = {"raise": _describe(exc)}
    handles = {}
    if "ready" in first:
        for request in prefetch:
            first["prefetched"].append(_answer(request, namespace, handles))
            if "exit" in first["prefetched"][-1]:
                break
        first["exiting"] = then_exit and not handles  # the parent need not tell it to finish
    _flush_streams()
    write_frame(4, first)
    if "ready" not in first or (first["prefetched"] and "exit" in first["prefetched"][-1]):
        flush_and_exit(1)
    if then_exit and not handles:
        flush_and_exit(0)
    while True:
        try:
            request = read_frame(3)
        except BaseException:
            request = None
        if request is None:
            flush_and_exit(0)
        reply = _answer(request, namespace, handles)
        _flush_streams()
        write_frame(4, reply)
        if "exit" in reply:
            flush_and_exit(1)


def _answer(request, namespace, handles):
    try:
        reply = {"value": encode(_perform(request, namespace, handles), handles)}
    except SystemExit as exc:
        return {"exit": repr(exc.code)[:200]}
    except BaseException as exc:
        return {"raise": _describe(exc)}
    size = len(json.dumps(reply))
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


def _perform(request, namespace, handles):
    op = request["op"]
    target = _decode(request["ref"], namespace, handles)
    if op == "call":
        args = [_decode(a, namespace, handles) for a in request["args"]]
        kwargs = {k: _decode(v, namespace, handles) for k, v in request["kwargs"]}
        return target(*args, **kwargs)
    if op == "getattr":
        return getattr(target, request["name"])
    if op == "getitem":
        return target[_decode(request["key"], namespace, handles)]
    if op == "contains":
        return _decode(request["item"], namespace, handles) in target
    if op == "list":
        return list(target)
    conversions = {"len": len, "bool": bool, "str": str, "int": int, "float": float}
    return conversions[op](target)


def encode(value, handles, depth=0):
    """Plain data in the wire form `grader.decode_value` reads; anything else becomes a handle."""
    if depth > 100:
        raise ValueError("value nested more than 100 levels deep")
    if value is None or value is True or value is False:
        return value
    if isinstance(value, int):
        return ["i", hex(int(value))]
    if isinstance(value, float):
        return ["f", float(value).hex()]
    if isinstance(value, complex):
        return ["c", value.real.hex(), value.imag.hex()]
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return ["b", bytes(value).hex()]
    if isinstance(value, bytearray):
        return ["ba", bytes(value).hex()]
    tag = next((t for cls, t in ((list, "l"), (tuple, "t"), (set, "s"), (frozenset, "fs")) if isinstance(value, cls)), None)
    if tag:
        return [tag, [encode(v, handles, depth + 1) for v in value]]
    if isinstance(value, dict):
        return ["d", [[encode(k, handles, depth + 1), encode(v, handles, depth + 1)] for k, v in value.items()]]
    handles[len(handles)] = value
    return ["h", len(handles) - 1, type(value).__name__[:100]]


def _decode(obj, namespace, handles):
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    tag = obj[0]
    if tag == "g":
        return namespace[obj[1]] if obj[1] in namespace else getattr(builtins, obj[1])
    if tag == "h":
        return handles[obj[1]]
    if tag == "i":
        return int(obj[1], 16)
    if tag == "f":
        return float.fromhex(obj[1])
    if tag == "c":
        return complex(float.fromhex(obj[1]), float.fromhex(obj[2]))
    if tag in ("b", "ba"):
        return (bytes if tag == "b" else bytearray)(bytes.fromhex(obj[1]))
    if tag == "d":
        return {_decode(k, namespace, handles): _decode(v, namespace, handles) for k, v in obj[1]}
    items = [_decode(v, namespace, handles) for v in obj[1]]
    return {"l": list, "t": tuple, "s": set, "fs": frozenset}[tag](items)




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
