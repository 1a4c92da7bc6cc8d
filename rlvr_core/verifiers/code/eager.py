"""Compile a test so that which program calls it makes never depends on whether a comparison held.

Why: the program sees every call it is asked to answer. If `assert f(1) == 2
and f(2) == 3` asked for `f(2)` only when `f(1) == 2` held, the arrival of
that request would tell the program its first answer was right, and a
program that can pass a note to a later run (a file, a counter) could learn
the expected values across samples. So here `and`, `or`, `x if c else y` and
every comparison evaluate all their operands first, then combine them with
Python's own short-circuit rules on the values; `all()` and `any()` consume
their whole argument; an assert's message is dropped (it ran only on
failure). The program's calls then come in the same order whatever it
answers. What stays conditional: the filter of a comprehension, and the rest
of a test after an exception.

The result a test computes is the one Python would: an operand that would
not have run is evaluated anyway, but its value (or exception) is discarded.
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable, Iterable
from typing import Any

CHECK = "__rlvr_check__"
BOOL = "__rlvr_bool__"
IF = "__rlvr_if__"
COMPARE = "__rlvr_compare__"

_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt,
    "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
}


class Failed(Exception):
    """An assert evaluated to a false value."""


class _Outcome:
    """The value an operand gave, or the exception it raised, kept until it is known whether it counts."""

    __slots__ = ("value", "error")

    def __init__(self, thunk: Callable[[], Any]) -> None:
        self.value, self.error = None, None
        try:
            self.value = thunk()
        except Exception as exc:  # noqa: BLE001 - re-raised if this operand turns out to be reached
            self.error = exc

    def get(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def _check(value: Any) -> None:
    if not value:
        raise Failed


def _bool(kind: str, *thunks: Callable[[], Any]) -> Any:
    outcomes = [_Outcome(t) for t in thunks]
    for outcome in outcomes[:-1]:
        value = outcome.get()
        if (not value) if kind == "and" else bool(value):
            return value
    return outcomes[-1].get()


def _if(test: Callable[[], Any], body: Callable[[], Any], orelse: Callable[[], Any]) -> Any:
    outcomes = [_Outcome(t) for t in (test, body, orelse)]
    return outcomes[1].get() if outcomes[0].get() else outcomes[2].get()


def _compare(thunks: tuple[Callable[[], Any], ...], ops: tuple[str, ...]) -> Any:
    outcomes = [_Outcome(t) for t in thunks]
    left = outcomes[0].get()
    result: Any = True
    for op, outcome in zip(ops, outcomes[1:]):
        right = outcome.get()
        result = _COMPARISONS[op](left, right)
        if not result:
            return result
        left = right
    return result


def _all(iterable: Iterable[Any]) -> bool:
    return builtins.all(list(iterable))


def _any(iterable: Iterable[Any]) -> bool:
    return builtins.any(list(iterable))


def runtime() -> dict[str, Any]:
    """The names a compiled test calls (and eager `all`/`any`), to put in its globals."""
    return {CHECK: _check, BOOL: _bool, IF: _if, COMPARE: _compare, "all": _all, "any": _any}


def _thunk(node: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.copy_location(ast.Lambda(args, node), node)


def _call(name: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), args, []), like)


class _Eager(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert) -> ast.Expr:
        return ast.copy_location(ast.Expr(_call(CHECK, [self.visit(node.test)], node)), node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.Call:
        kind = ast.Constant("and" if isinstance(node.op, ast.And) else "or")
        return _call(BOOL, [kind, *(_thunk(self.visit(v)) for v in node.values)], node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.Call:
        return _call(IF, [_thunk(self.visit(n)) for n in (node.test, node.body, node.orelse)], node)

    def visit_Compare(self, node: ast.Compare) -> ast.Call:
        thunks = ast.Tuple([_thunk(self.visit(n)) for n in (node.left, *node.comparators)], ast.Load())
        ops = ast.Tuple([ast.Constant(type(op).__name__) for op in node.ops], ast.Load())
        return _call(COMPARE, [thunks, ops], node)


def compile_test(tree: ast.Module, name: str = "<test>") -> Any:
    """`tree` with its asserts as checks `python -O` cannot drop and its branches evaluated eagerly.

    A test with an assignment expression keeps its own branches (a thunk
    would give the name a scope of its own), its asserts still checked."""
    if any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree)):
        class _AssertsOnly(_Eager):
            visit_BoolOp = visit_IfExp = visit_Compare = ast.NodeTransformer.generic_visit  # type: ignore[assignment]

        transformed = _AssertsOnly().visit(tree)
    else:
        transformed = _Eager().visit(tree)
    return compile(ast.fix_missing_locations(transformed), name, "exec", dont_inherit=True, optimize=0)
