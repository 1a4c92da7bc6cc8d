"""Compile a test so that which program calls it makes never depends on whether a comparison held.

Why: the program sees every call it is asked to answer. If `assert f(1) == 2
and f(2) == 3` asked for `f(2)` only when `f(1) == 2` held, the arrival of
that request would tell the program its first answer was right, and a
program that can pass a note to a later run (a file, a counter) could learn
the expected values across samples. So here `and`, `or`, `x if c else y`,
every comparison, `all()` and `any()` evaluate all their operands, always in
the same order; an assert's message is dropped (it ran only on failure). The
program's calls then come in the same order whatever it answers. What stays
conditional: the filter of a comprehension, and the rest of a test after an
exception.

The result is the one Python would compute: each decision (the truth of an
`and` operand, of a comparison) is taken at the moment Python takes it, and
an operand Python would not have reached is evaluated speculatively: its
value and exception are discarded, and its calls do not write changed
arguments back (`Speculation`), so it cannot alter what the test decides.
"""

from __future__ import annotations

import ast
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


class Speculation:
    """Whether the test is evaluating an operand Python would have skipped (the grader's calls then leave the
    test's objects as they are)."""

    def __init__(self) -> None:
        self.depth = 0

    @property
    def active(self) -> bool:
        return self.depth > 0

    def __enter__(self) -> "Speculation":
        self.depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1


def _speculatively(speculation: Speculation, thunk: Callable[[], Any]) -> None:
    with speculation:
        try:
            thunk()
        except Exception:  # noqa: BLE001, S110 - an operand Python would not have reached: its outcome is not used
            pass


def runtime(speculation: Speculation) -> dict[str, Any]:
    """The names a compiled test calls (and eager `all`/`any`), to put in its globals."""

    def check(value: Any) -> None:
        if not value:
            raise Failed

    def boolean(kind: str, *thunks: Callable[[], Any]) -> Any:
        result, decided = None, False
        for thunk in thunks:
            if decided:
                _speculatively(speculation, thunk)
                continue
            result = thunk()
            decided = (not result) if kind == "and" else bool(result)
        return result

    def conditional(test: Callable[[], Any], body: Callable[[], Any], orelse: Callable[[], Any]) -> Any:
        taken = bool(test())
        if taken:
            value = body()
            _speculatively(speculation, orelse)
            return value
        _speculatively(speculation, body)
        return orelse()

    def compare(thunks: tuple[Callable[[], Any], ...], ops: tuple[str, ...]) -> Any:
        left, result = thunks[0](), True
        for index, (op, thunk) in enumerate(zip(ops, thunks[1:])):
            right = thunk()
            result = _COMPARISONS[op](left, right)
            if not result:
                for rest in thunks[index + 2:]:
                    _speculatively(speculation, rest)
                return result
            left = right
        return result

    def consume(iterable: Iterable[Any], stop_at: bool) -> bool:
        iterator, found = iter(iterable), False
        while True:
            try:
                if found:
                    with speculation:
                        next(iterator)
                    continue
                found = bool(next(iterator)) is stop_at
            except StopIteration:
                return found
            except Exception:  # noqa: BLE001
                if not found:
                    raise

    return {CHECK: check, BOOL: boolean, IF: conditional, COMPARE: compare,
            "all": lambda iterable: not consume(iterable, False), "any": lambda iterable: consume(iterable, True)}


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


class _AssertsOnly(_Eager):
    visit_BoolOp = visit_IfExp = visit_Compare = ast.NodeTransformer.generic_visit  # type: ignore[assignment]


def compile_test(tree: ast.Module, name: str = "<test>") -> Any:
    """`tree` with its asserts as checks `python -O` cannot drop and its branches evaluated eagerly.

    A test with an assignment expression keeps its own branches (a thunk
    would give the name a scope of its own), its asserts still checked."""
    walker = _AssertsOnly() if any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree)) else _Eager()
    return compile(ast.fix_missing_locations(walker.visit(tree)), name, "exec", dont_inherit=True, optimize=0)
