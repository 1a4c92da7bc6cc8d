"""Grade MBPP-style asserts in this (trusted) process; the sandboxed program only answers calls.

Why: a program that shares an interpreter with its asserts can reach them
(read the expected constant from the caller's frame or bytecode, patch
`traceback`, return an object whose `__eq__` is always true). So the asserts
never enter the sandbox. `Sandbox.serve` runs the program and its setup code;
this module then executes each test here, where every name the program
defines is a `Remote`: calling it sends the arguments (plain data) to the
program and gets back plain data. The comparison, `set(...)`,
`math.isclose(...)`, `not ...` all run here on values of builtin types only.

What crosses the boundary, both ways: None, bool, int, float (NaN and inf
included), complex, str, bytes, bytearray, list, tuple, dict, set, frozenset,
nested up to 100 levels, at most 8 MB. A subclass arrives as its base type
(a `list` subclass with a custom `__eq__` becomes a plain list, a Counter a
dict). Anything else stays in the sandbox as a handle: a `Remote` that can be
called, indexed, iterated (copied as a list), asked for `len`, `bool`, `str`,
`int`, `float` or an attribute, and compares equal only to itself. The
program never sees the assert, only the call it answers, so it cannot learn
the expected value; it can only choose what its function returns.

Semantics kept from running `program + setup + asserts` in one interpreter:
the tests run in order, short-circuit, stop at the first failure, and the
program's functions keep their state between calls. Differences: builtins
and standard-library modules named in a test always mean the real ones (a
program cannot redefine `set` or `math` for the tests); values are copies;
the setup code runs in both places (its plain values are trusted here, its
functions and objects are the sandbox's); arguments that are not plain data
(a lambda written in a test) cannot be sent and fail the test.

Not covered: a value crafted to make this process's own work slow (hash
collisions in a set the test builds, a huge int raised to a power) is
bounded only by the verifier pool's item timeout; it scores 0, never 1.
"""

from __future__ import annotations

import ast
import builtins
import copy
import functools
import importlib
import math
import sys
import textwrap
from dataclasses import dataclass
from types import CodeType
from typing import Any, Literal

from rlvr_core.sandbox.runner import Sandbox, Session, SessionEnded

MAX_DEPTH = 100
MAX_NODES = 200_000
MAX_INT_HEX_DIGITS = 100_000
_CHECK = "__rlvr_check__"
_PREFETCHED = "__rlvr_prefetched__"
_BUILTIN_NAMES = frozenset(dir(builtins))

VerdictStatus = Literal["passed", "failed", "timeout", "error"]


@dataclass(frozen=True)
class Verdict:
    """`passed` only if every test ran here and held; `error` when the sandbox could not run the program."""

    status: VerdictStatus
    detail: str


@dataclass(frozen=True)
class TestPlan:
    """Tests compiled for this process: asserts become calls to a checker that `python -O` cannot drop."""

    sources: tuple[str, ...]
    codes: tuple[CodeType, ...]
    setup: str
    setup_code: CodeType | None
    program_names: frozenset[str]
    modules: frozenset[str]
    prefetch: tuple[tuple[str, tuple, tuple], ...] = ()  # (function, args, kwargs) sent with the program
    prefetch_only: bool = False  # every test reads the program through prefetched calls only


class _Failed(Exception):
    """An assert evaluated to a false value."""


class ProgramError(Exception):
    """The program raised (or exited) while answering a request.

    Raised as a subclass that is also the builtin exception the program
    raised (a TypeError stays catchable as TypeError), so test code and
    Python's own fallbacks (`list()` asking a generator for its length)
    behave as they would next to the program.
    """


_NOT_MIRRORED = (StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit)


@functools.lru_cache(maxsize=None)
def _program_error_type(name: str) -> type[ProgramError]:
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception) and not issubclass(builtin, _NOT_MIRRORED):
        return type(f"Program{name}", (ProgramError, builtin), {})
    return ProgramError


class BadValue(Exception):
    """The program sent something that is not a value of the wire format."""


class _Prefetcher(ast.NodeTransformer):
    """Turn `f(<literals>)`, f a program function, into `__rlvr_prefetched__(k)`: its value arrives with the
    program's first message instead of one request each. Calls that may run zero or several times (under
    `and`/`or`, `x if c else y`, a lambda, a comprehension, a chained comparison, a dict display, whose
    fields are not in evaluation order) are left to requests, so prefetched calls run in the original order."""

    def __init__(self, program: frozenset[str], start: int) -> None:
        self.program, self.start, self.calls, self.depth = program, start, [], 0

    def _opaque(self, node: ast.AST) -> ast.AST:
        self.depth += 1
        node = self.generic_visit(node)
        self.depth -= 1
        return node

    visit_BoolOp = visit_IfExp = visit_Lambda = visit_GeneratorExp = visit_ListComp = _opaque
    visit_SetComp = visit_DictComp = visit_Dict = _opaque

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        return self._opaque(node) if len(node.ops) > 1 else self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not self.depth and isinstance(node.func, ast.Name) and node.func.id in self.program:
            literals = _literal_arguments(node)
            if literals is not None:
                self.calls.append((node.func.id, *literals))
                index = ast.Constant(self.start + len(self.calls) - 1)
                return ast.copy_location(ast.Call(ast.Name(_PREFETCHED, ast.Load()), [index], []), node)
        return self.generic_visit(node)


def _literal_arguments(call: ast.Call) -> tuple[tuple, tuple] | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    try:
        return (tuple(ast.literal_eval(a) for a in call.args),
                tuple((k.arg, ast.literal_eval(k.value)) for k in call.keywords))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _reads(tree: ast.AST, names: frozenset[str] | set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(tree))


def _plan_prefetch(trees: list[ast.Module], program: frozenset[str], setup_names: set[str]) -> tuple[list, list]:
    """Rewrite the tests that call the program only with literal arguments, in order, up to the first that
    does something else; the rest (and all of them, when the setup code calls the program) use requests."""
    calls: list = []
    out = list(trees)
    if _reads(trees[0], program - setup_names):
        return out, calls
    for i, tree in enumerate(trees[1:], start=1):
        prefetcher = _Prefetcher(program, len(calls))
        rewritten = prefetcher.visit(copy.deepcopy(tree))
        if _reads(rewritten, program):
            break
        out[i] = rewritten
        calls += prefetcher.calls
    return out, calls


class _AssertToCheck(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert) -> ast.Expr:
        call = ast.Call(ast.Name(_CHECK, ast.Load()), [self.visit(node.test)], [])
        return ast.copy_location(ast.Expr(call), node)


@functools.lru_cache(maxsize=4096)
def plan_tests(tests: tuple[str, ...], setup: str, entry: str | None) -> TestPlan:
    """Parse and compile the tests once per problem; ValueError names the test that does not parse.

    A name a test or the setup reads becomes a program name unless it is a
    builtin, a standard-library module used as `module.attr`, or bound by the
    tests themselves; `entry` is always a program name.
    """
    loads, stores, bare, trees = set(), set(), set(), []
    for index, source in enumerate((setup, *tests)):
        try:
            tree = ast.parse(textwrap.dedent(source), mode="exec")
        except SyntaxError as exc:
            what = "the setup code" if index == 0 else f"test {index}"
            raise ValueError(f"{what} does not parse: {exc.msg} ({source[:80]!r})") from exc
        trees.append(tree)
        attr_bases = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
                if id(node) not in attr_bases:
                    bare.add(node.id)  # used as a value itself, not as `name.attr`: not a module
            else:
                stores.update(_bound_names(node))
    modules = {n for n in loads if n in sys.stdlib_module_names and n not in bare and n != entry}
    setup_names = _top_level_names(trees[0])
    program = {n for n in loads if n not in _BUILTIN_NAMES and n not in modules and n not in stores} | setup_names
    if entry:
        program.add(entry)
    program_names = frozenset(program - {_CHECK, _PREFETCHED})
    trees, prefetch = _plan_prefetch(trees, program_names, setup_names)
    prefetch_only = not any(_reads(tree, program_names) for tree in trees[1:])
    codes = [compile(ast.fix_missing_locations(_AssertToCheck().visit(tree)), "<test>", "exec", dont_inherit=True, optimize=0)
             for tree in trees[1:]]
    setup_code = compile(trees[0], "<setup>", "exec", dont_inherit=True) if setup.strip() else None
    return TestPlan(tests, tuple(codes), setup, setup_code, program_names, frozenset(modules), tuple(prefetch),
                    prefetch_only)


def _bound_names(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.arg):
        return {node.arg}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def _top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
        names |= _bound_names(stmt)
    return names


# --- the wire format, this side ------------------------------------------------------------------
class Remote:
    """An object that lives in the sandbox. Equal only to itself; every other use is a request."""

    __slots__ = ("_conn", "_ref", "_label")

    def __init__(self, conn: "_Connection", ref: list, label: str) -> None:
        self._conn, self._ref, self._label = conn, ref, label

    def __repr__(self) -> str:
        return f"<{self._label} in the sandbox>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._conn.op("call", self, args=[self._conn.encode(a) for a in args],
                             kwargs=[[k, self._conn.encode(v)] for k, v in kwargs.items()])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._conn.op("getattr", self, name=name)

    def __getitem__(self, key: Any) -> Any:
        return self._conn.op("getitem", self, key=self._conn.encode(key))

    def __contains__(self, item: Any) -> bool:
        return self._conn.op("contains", self, expect=bool, item=self._conn.encode(item))

    def __iter__(self):
        return iter(self._conn.op("list", self, expect=list))

    def __len__(self) -> int:
        return self._conn.op("len", self, expect=int)

    def __bool__(self) -> bool:
        return self._conn.op("bool", self, expect=bool)

    def __str__(self) -> str:
        return self._conn.op("str", self, expect=str)

    def __int__(self) -> int:
        return self._conn.op("int", self, expect=int)

    __index__ = __int__

    def __float__(self) -> float:
        return self._conn.op("float", self, expect=float)


class _Connection:
    """Requests to one served program; decodes its replies strictly."""

    def __init__(self, session: Session | None) -> None:
        self.session = session
        self.setup_objects: dict[int, str] = {}  # id of a non-plain setup object here -> its name there
        self.replies: list = []  # the program's answers to the prefetched calls

    def op(self, op: str, target: Remote, expect: type | None = None, **fields: Any) -> Any:
        return self.value_of(self.session.request({"op": op, "ref": target._ref, **fields}), op, expect)

    def prefetched(self, index: int) -> Any:
        """The value of the `index`-th call sent with the program (see `_Prefetcher`)."""
        if index >= len(self.replies):
            raise ProgramError("the program stopped before it answered this call")
        return self.value_of(self.replies[index], "call")

    def value_of(self, reply: Any, op: str, expect: type | None = None) -> Any:
        if not isinstance(reply, dict):
            raise BadValue("a reply is not an object")
        if "raise" in reply:
            text = str(reply["raise"])[:300]
            raise _program_error_type(text.partition(":")[0])(f"the program raised {text}")
        if "exit" in reply:
            raise ProgramError(f"the program exited ({str(reply['exit'])[:50]})")
        if "value" not in reply:
            raise BadValue("the reply holds no value")
        value = self.decode(reply["value"], [0])
        if expect is not None and type(value) is not expect:
            raise BadValue(f"{op}() must give a {expect.__name__}, got {type(value).__name__}")
        return value

    def encode(self, value: Any, depth: int = 0) -> Any:
        """A test's argument, for the program. Remotes go back by reference; setup objects by name."""
        if depth > MAX_DEPTH:
            raise TypeError("argument nested too deeply to send to the program")
        if isinstance(value, Remote):
            return value._ref
        if value is None or isinstance(value, (bool, str)):
            return value if type(value) in (bool, type(None)) else str.__str__(value)
        if isinstance(value, int):
            return ["i", hex(value)]
        if isinstance(value, float):
            return ["f", float.hex(value)]
        if isinstance(value, complex):
            return ["c", float.hex(value.real), float.hex(value.imag)]
        if isinstance(value, (bytes, bytearray)):
            return ["b" if isinstance(value, bytes) else "ba", bytes(value).hex()]
        for cls, tag in ((list, "l"), (tuple, "t"), (set, "s"), (frozenset, "fs")):
            if isinstance(value, cls):
                return [tag, [self.encode(v, depth + 1) for v in value]]
        if isinstance(value, dict):
            return ["d", [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]]
        if id(value) in self.setup_objects:
            return ["g", self.setup_objects[id(value)]]
        raise TypeError(f"a {type(value).__name__} cannot be sent to the program")

    def decode(self, obj: Any, budget: list[int], depth: int = 0) -> Any:
        """A value from the program: builtin types only, or a Remote handle; BadValue for anything else."""
        budget[0] += 1
        if budget[0] > MAX_NODES or depth > MAX_DEPTH:
            raise BadValue(f"the value has more than {MAX_NODES} parts or {MAX_DEPTH} levels")
        if obj is None or type(obj) in (bool, str):
            return obj
        if type(obj) is not list or not obj or type(obj[0]) is not str:
            raise BadValue(f"unexpected {type(obj).__name__} in the value")
        tag, rest = obj[0], obj[1:]
        try:
            if tag == "i" and len(rest) == 1 and type(rest[0]) is str and len(rest[0]) <= MAX_INT_HEX_DIGITS + 3:
                return int(rest[0], 16)
            if tag == "f" and len(rest) == 1 and type(rest[0]) is str and len(rest[0]) < 40:
                return float.fromhex(rest[0])
            if tag == "c" and len(rest) == 2 and all(type(x) is str and len(x) < 40 for x in rest):
                return complex(float.fromhex(rest[0]), float.fromhex(rest[1]))
            if tag in ("b", "ba") and len(rest) == 1 and type(rest[0]) is str:
                return (bytes if tag == "b" else bytearray)(bytes.fromhex(rest[0]))
            if tag in ("l", "t", "s", "fs") and len(rest) == 1 and type(rest[0]) is list:
                items = [self.decode(v, budget, depth + 1) for v in rest[0]]
                return {"l": list, "t": tuple, "s": set, "fs": frozenset}[tag](items)
            if tag == "d" and len(rest) == 1 and type(rest[0]) is list:
                pairs = rest[0]
                if not all(type(p) is list and len(p) == 2 for p in pairs):
                    raise BadValue("malformed dict")
                return {self.decode(k, budget, depth + 1): self.decode(v, budget, depth + 1) for k, v in pairs}
            if tag == "h" and len(rest) == 2 and type(rest[0]) is int and type(rest[1]) is str:
                return Remote(self, ["h", rest[0]], f"{rest[1][:60]} object")
        except (ValueError, TypeError, OverflowError) as exc:  # bad hex, unhashable set members
            raise BadValue(f"malformed {tag!r} value: {exc}") from exc
        raise BadValue(f"unknown or malformed tag {tag!r}")


# --- grading --------------------------------------------------------------------------------------
def _check(value: Any) -> None:
    if not value:
        raise _Failed


def grade(sandbox: Sandbox, program: str, plan: TestPlan, timeout_s: float = 5.0, memory_mb: int = 1024) -> Verdict:
    """Run `program` (and the setup) in the sandbox, then every test here. Never raises on what the program does."""
    n = len(plan.sources)
    encoder = _Connection(None)
    prefetch = [{"op": "call", "ref": ["g", name], "args": [encoder.encode(a) for a in args],
                 "kwargs": [[k, encoder.encode(v)] for k, v in kwargs]} for name, args, kwargs in plan.prefetch]
    try:
        with sandbox.serve(program, setup=plan.setup, prefetch=prefetch, prefetch_only=plan.prefetch_only,
                           timeout_s=timeout_s, memory_mb=memory_mb) as session:
            try:
                verdict = _run_tests(session, plan)
            except SessionEnded:
                verdict = None
            except (ProgramError, BadValue) as exc:
                verdict = Verdict("failed", f"in the setup code: {exc}")
            session.keep_result = verdict is None  # with a verdict, the zygote's clean-up need not be awaited
        result = session.result
    except OSError as exc:  # the sandbox itself failed (not the program)
        return Verdict("error", f"sandbox failed: {exc}")
    if verdict is not None:
        return verdict
    assert result is not None
    if result.status == "error":
        return Verdict("error", result.detail)
    if result.status == "timeout":
        return Verdict("timeout", f"program exceeded {timeout_s:g}s")
    reason = result.detail or f"exit code {result.returncode}"
    last = (result.stderr.strip().splitlines() or [""])[-1]
    return Verdict("failed", f"the program ended before all {n} tests ran ({reason})" + (f": {last}" if last else ""))


def _run_tests(session: Session, plan: TestPlan) -> Verdict:
    first = session.receive()
    if "raise" in first:
        return Verdict("failed", f"the program raised {str(first['raise'])[:250]} before the tests ran")
    if "exit" in first:
        return Verdict("failed", f"the program exited ({str(first['exit'])[:50]}) before the tests ran")
    if first.get("ready") is not True or not isinstance(first.get("prefetched", []), list):
        return Verdict("failed", "the program did not start the tests")
    conn = _Connection(session)
    conn.replies = first.get("prefetched", [])
    session.exiting = first.get("exiting") is True
    env: dict[str, Any] = {"__builtins__": builtins, _CHECK: _check, _PREFETCHED: conn.prefetched, "__name__": "__rlvr_tests__"}
    for name in plan.modules:
        env[name] = importlib.import_module(name)
    for name in plan.program_names:
        env[name] = Remote(conn, ["g", name], name)
    if plan.setup_code is not None:
        try:
            exec(plan.setup_code, env)  # noqa: S102 - dataset code, trusted; program names are Remotes
        except (SessionEnded, ProgramError, BadValue):
            raise
        except Exception as exc:  # noqa: BLE001
            return Verdict("error", f"the setup code failed in the grader: {type(exc).__name__}: {exc}"[:300])
        for name, value in list(env.items()):
            if not isinstance(value, Remote) and not _is_plain(value) and name not in ("__builtins__", _CHECK, _PREFETCHED):
                conn.setup_objects[id(value)] = name
    n = len(plan.sources)
    for index, (source, code) in enumerate(zip(plan.sources, plan.codes)):
        where = f"test {index + 1} of {n} ({source.strip()[:120]})"
        try:
            exec(code, env)  # noqa: S102 - dataset code, trusted
        except _Failed:
            return Verdict("failed", f"{where} is false")
        except SessionEnded:
            raise
        except (ProgramError, BadValue) as exc:
            return Verdict("failed", f"{where}: {exc}"[:300])
        except Exception as exc:  # noqa: BLE001 - e.g. comparing a handle with <
            return Verdict("failed", f"{where} raised {type(exc).__name__}: {exc}"[:300])
    return Verdict("passed", f"all {n} asserts passed")


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict,
                                               set, frozenset, type(math)))
