"""Grade MBPP-style asserts in this (trusted) process on plain data that the sandboxed program returns.

Why the asserts never run next to the program: a program that shares an
interpreter with its tests can reach them (read the expected constant from
the caller's frame, patch `traceback`, return an object whose `__eq__` is
always true). So `Sandbox.serve` runs the program (and the setup code), and
each test runs here, where the program is nothing but its entry functions.

What a test may use:
- the entry functions (`EntryFunction`, `calls.py`): the names the dataset
  declares (for MBPP the `def` names of the reference solution, so an entry
  named like a builtin, `sum` or `pow`, is the program's); a call sends
  copies of its arguments and gets back plain data (`sandbox/codec.py`);
- every other name from trusted code only: the builtins, the prelude (the
  imports, classes and constants of the reference solution), the setup code,
  standard-library modules, and names the common standard-library modules
  export (`isclose`, `Counter`). A program that defines `isclose` or
  `Counter` changes nothing here.
What a returned value can do: nothing. It is a list, a str, a Counter, an
OrderedDict, a namedtuple, a record of a trusted class...: `==`, `in`,
`.startswith`, `next()` all run this process's own code on it.

All tests run, every time, in order, each with its branches evaluated eagerly
(`eager.py`), so the calls the program answers never depend on whether an
earlier test, or an earlier comparison, held: the program cannot learn which
tests passed. The verdict counts them (`Verdict.passed` of `total`); the
reward is all of them (or the fraction, if the verifier is set so).

Legacy answers that name no entry: the entries are the names the tests call
that nothing trusted defines (a builtin-named function cannot be graded
then: declare the entry).

Not covered: a value crafted to make this process's own work slow (hash
collisions in a set the test builds, a huge int raised to a power) is
bounded only by the verifier pool's item timeout; it scores 0, never 1.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import itertools
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from types import CodeType
from typing import Any, Literal

from rlvr_core.sandbox.channel import Session, SessionEnded
from rlvr_core.sandbox.runner import Sandbox
from rlvr_core.sandbox.codec import ReplayIterator
from rlvr_core.verifiers.code.calls import BadValue, Connection, EntryFunction, ProgramError, ProgramIterator
from rlvr_core.verifiers.code.eager import CALLS_CAP, Failed, Speculation, compile_test, runtime

_BUILTIN_NAMES = frozenset(dir(builtins))
# Standard-library names MBPP's tests use bare, as they could once the program had imported them: resolved
# here, never from the program (a program that defines `isclose` changes nothing).
STDLIB_NAMES = {
    "isclose": "math", "sqrt": "math", "pi": "math", "inf": "math", "Counter": "collections",
    "OrderedDict": "collections", "defaultdict": "collections", "deque": "collections",
    "namedtuple": "collections", "reduce": "functools", "Fraction": "fractions", "Decimal": "decimal",
}

VerdictStatus = Literal["passed", "failed", "timeout", "error"]


@dataclass(frozen=True)
class Verdict:
    """`passed` only if every test ran here and held; `error` when the sandbox or the dataset's code failed.

    `passed`/`total` count the tests that held, for a fractional reward."""

    status: VerdictStatus
    detail: str
    passed: int = 0
    total: int = 0


@dataclass(frozen=True)
class TestPlan:
    """Tests compiled for this process, and which names are the program's."""

    sources: tuple[str, ...]
    codes: tuple[CodeType, ...]
    setup: str
    setup_code: CodeType | None
    prelude_code: CodeType | None
    entries: frozenset[str]
    modules: frozenset[str]
    stdlib_names: frozenset[str]
    trusted_classes: frozenset[str]


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(textwrap.dedent(source), mode="exec")
    except SyntaxError as exc:
        raise ValueError(f"{what} does not parse: {exc.msg} ({source[:80]!r})") from exc


@functools.lru_cache(maxsize=4096)
def plan_tests(tests: tuple[str, ...], setup: str = "", entry: str | tuple[str, ...] | None = None,
               prelude: str = "") -> TestPlan:
    """Parse and compile the tests once per problem; ValueError names the test that does not parse.

    `entry`: the program's function names (one name or several); None infers
    them (see the module docstring). `prelude`: trusted code run here before
    the setup (the reference solution's imports, classes and constants).
    """
    setup_tree, prelude_tree = _parse(setup, "the setup code"), _parse(prelude, "the prelude")
    trees = [_parse(source, f"test {i + 1}") for i, source in enumerate(tests)]
    loads, bare = set(), set()
    stores = _top_level_names(setup_tree) | _top_level_names(prelude_tree)
    for tree in (setup_tree, *trees):
        attr_bases = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
                if id(node) not in attr_bases:
                    bare.add(node.id)  # used as a value itself, not as `name.attr`: not a module
            else:
                stores |= _bound_names(node)
    declared = {entry} if isinstance(entry, str) else set(entry or ())
    modules = {n for n in loads if n in sys.stdlib_module_names and n not in bare and n not in declared}
    stdlib_names = {n for n in loads - stores - declared if n in STDLIB_NAMES}
    entries = declared or (loads - stores - modules - stdlib_names - _BUILTIN_NAMES)
    codes = tuple(compile_test(tree, f"<test {i + 1}>") for i, tree in enumerate(trees))
    setup_code = compile(setup_tree, "<setup>", "exec", dont_inherit=True) if setup.strip() else None
    prelude_code = compile(prelude_tree, "<prelude>", "exec", dont_inherit=True) if prelude.strip() else None
    classes = {s.name for t in (prelude_tree, setup_tree) for s in t.body if isinstance(s, ast.ClassDef)}
    return TestPlan(tuple(tests), codes, setup, setup_code, prelude_code, frozenset(entries), frozenset(modules),
                    frozenset(stdlib_names), frozenset(classes))


def _bound_names(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
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


class SetupFailed(Exception):
    """The dataset's own prelude or setup code raised here: the problem's fault, not the program's."""


def test_globals(plan: TestPlan, conn: Connection | None) -> dict[str, Any]:
    """The namespace the tests run in: builtins, modules, stdlib names, the prelude, the entries, the setup
    (which may call the entries), then the entries again (an entry is the program's whatever the setup binds)."""
    speculation = conn.speculation if conn is not None else Speculation()
    env: dict[str, Any] = {"__builtins__": builtins, "__name__": "__rlvr_tests__", **runtime(speculation)}
    env.update({name: importlib.import_module(name) for name in plan.modules})
    env.update({name: getattr(importlib.import_module(STDLIB_NAMES[name]), name) for name in plan.stdlib_names})
    entries = {name: EntryFunction(conn, name) for name in plan.entries} if conn is not None else {}
    for what, code in (("prelude", plan.prelude_code), ("setup code", plan.setup_code)):
        env.update(entries)
        if code is None:
            continue
        try:
            exec(code, env)  # noqa: S102 - dataset code, trusted; the program's names are EntryFunctions
        except (SessionEnded, ProgramError, BadValue):
            raise
        except Exception as exc:  # noqa: BLE001
            raise SetupFailed(f"the {what} failed in the grader: {type(exc).__name__}: {exc}"[:300]) from exc
    env.update(entries)
    return env


def _trusted(plan: TestPlan, env: dict[str, Any], name: str) -> type | None:
    """The class a record named `name` is rebuilt as: one the prelude or setup code defines, else None."""
    value = env.get(name) if name in plan.trusted_classes else None
    return value if isinstance(value, type) else None


def grade(sandbox: Sandbox, program: str, plan: TestPlan, timeout_s: float = 5.0, memory_mb: int = 1024) -> Verdict:
    """Run `program` (and the setup) in the sandbox, then every test here. Never raises on what the program does."""
    try:
        with sandbox.serve(program, setup=plan.setup, timeout_s=timeout_s, memory_mb=memory_mb) as session:
            verdict = run_tests(session, plan)
        result = session.result
    except OSError as exc:  # the sandbox itself failed (not the program)
        return Verdict("error", f"sandbox failed: {exc}", 0, len(plan.sources))
    if verdict.status != "ended":
        return verdict
    assert result is not None
    n = len(plan.sources)
    if result.status == "error":
        return Verdict("error", result.detail, verdict.passed, n)
    if result.status == "timeout":
        return Verdict("timeout", f"program exceeded {timeout_s:g}s; {verdict.detail}", verdict.passed, n)
    reason = result.detail or f"exit code {result.returncode}"
    last = (result.stderr.strip().splitlines() or [""])[-1]
    return Verdict("failed", f"the program ended ({reason}){': ' + last if last else ''}; {verdict.detail}",
                   verdict.passed, n)


@dataclass(frozen=True)
class _Partial:
    """What `_run_tests` saw: a verdict, or "ended" (the program went away; the run's result says why)."""

    status: VerdictStatus | Literal["ended"]
    detail: str
    passed: int = 0
    total: int = 0


def run_tests(session: Session, plan: TestPlan) -> Verdict | _Partial:
    """Every test against the program `session` serves (what `grade` does inside `Sandbox.serve`): a Verdict,
    or a partial one with status "ended" when the program went away (its run's result says why)."""
    n = len(plan.sources)
    try:
        first = session.receive()
    except SessionEnded:
        return _Partial("ended", f"0 of {n} tests ran", 0, n)
    if "raise" in first:
        return Verdict("failed", f"the program raised {str(first['raise'])[:250]} before the tests ran", 0, n)
    if "exit" in first:
        return Verdict("failed", f"the program exited ({str(first['exit'])[:50]}) before the tests ran", 0, n)
    if first.get("ready") is not True:
        return Verdict("failed", "the program did not start the tests", 0, n)
    env: dict[str, Any] = {}
    conn = Connection(session, lambda name: _trusted(plan, env, name))
    try:
        env.update(test_globals(plan, conn))
    except SetupFailed as exc:
        return Verdict("error", str(exc), 0, n)
    except SessionEnded:
        return _Partial("ended", f"the setup code's call ended the program; 0 of {n} tests ran", 0, n)
    except (ProgramError, BadValue) as exc:
        return Verdict("failed", f"in the setup code: {exc}"[:300], 0, n)
    passed, failures = 0, []
    for index, (source, code) in enumerate(zip(plan.sources, plan.codes)):
        conn.speculation.too_large = None
        try:
            exec(code, env)  # noqa: S102 - dataset code, trusted
            if conn.speculation.too_large is None:
                passed += 1
                continue
            why = "exceeded a bound"
        except Failed:
            why = "is false"
        except SessionEnded:
            return _Partial("ended", f"{passed} of {n} tests held before test {index + 1}", passed, n)
        except (ProgramError, BadValue) as exc:
            why = str(exc)
        except Exception as exc:  # noqa: BLE001 - e.g. comparing a returned str with <
            why = f"raised {type(exc).__name__}: {exc}"
        failures.append(f"test {index + 1} ({source.strip()[:100]}) {conn.speculation.too_large or why}"[:240])
    if not failures:
        return Verdict("passed", f"all {n} tests passed", n, n)
    return Verdict("failed", f"{passed} of {n} tests passed; first failure: {failures[0]}", passed, n)


def evaluate(sandbox: Sandbox, program: str, plan: TestPlan, expressions: Sequence[str], timeout_s: float = 5.0,
             memory_mb: int = 1024) -> list[tuple[str, Any]]:
    """Each expression's value, computed here with the program's entries served as in `grade`: ("value", v)
    or ("error", why); an iterator the program returns is read here, up to CALLS_CAP items (a `ReplayIterator`).
    Expressions after one that ended the program are ("error", "ended"). For tools that need a trusted
    program's answers (the hidden-test generator), not for grading."""
    out: list[tuple[str, Any]] = []
    with sandbox.serve(program, setup=plan.setup, timeout_s=timeout_s, memory_mb=memory_mb) as session:
        try:
            first = session.receive()
            if first.get("ready") is not True:
                raise SessionEnded(f"the program did not start: {str(first)[:200]}")
            env: dict[str, Any] = {}
            conn = Connection(session, lambda name: _trusted(plan, env, name))
            env.update(test_globals(plan, conn))
            for expression in expressions:
                try:
                    value = eval(compile(expression, "<expression>", "eval"), env)  # noqa: S307
                    if isinstance(value, ProgramIterator):  # read now: it ends with the session
                        value = ReplayIterator([*itertools.islice(value, CALLS_CAP)], value.finished())
                    out.append(("value", value))
                except (SessionEnded, SetupFailed):
                    raise
                except Exception as exc:  # noqa: BLE001
                    out.append(("error", f"{type(exc).__name__}: {exc}"[:300]))
        except (SessionEnded, SetupFailed, ProgramError, BadValue) as exc:
            out += [("error", f"ended: {exc}"[:300])] * (len(expressions) - len(out))
    return out
