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
value and exception are discarded, its calls do not write changed arguments
back, and the items it reads from an iterator the program returned are kept
for the test (`Speculation`, `calls.ProgramIterator`), so it cannot alter
what the test decides.

Bounded consumption (issue 41: an eager `any()` over range(100000) ran out
of time where Python stops at the first true item). `all()`, `any()` and
`x in iterator` consume their iterable to its end, or to a fixed bound,
ITEMS_CAP items or CALLS_CAP requests to the program, whichever comes first,
and never stop earlier, whatever they decided. Why this cannot leak: how far
the consumption goes depends on the iterable only (its length, the calls
each item makes, which eager evaluation makes whatever the answers), never
on a decision, so the calls the program answers are the same whether its
answers were right or wrong. Past the bound a decision Python had taken
stands, so a correct program's early answer is still graded as Python would;
an undecided one fails the test as "too large", and even then the test goes
on evaluating as before (the consumer returns as if the remaining items did
not change the result) and only counts as failed at its end, so the failure
changes no later call either. A program cannot move the bound: it is a count
of items and requests, not of time.
"""

from __future__ import annotations

import ast
import contextlib
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
}


class Failed(Exception):
    """An assert evaluated to a false value."""


ITEMS_CAP = 1_000_000  # items one all()/any()/`in` consumes at most
CALLS_CAP = 1_000  # requests to the program one all()/any()/`in` makes at most


class Speculation:
    """What eager evaluation shares with the grader's calls to the program: whether the test is evaluating an
    operand Python would have skipped (`active`: calls then leave the test's objects as they are), how many
    requests the program has answered (`calls`), which speculative episode this is (`episode`), and why the
    current test exceeded a bound (`too_large`, set only outside speculation; the grader fails the test)."""

    def __init__(self) -> None:
        self.depth = 0
        self.calls = 0
        self.episode = 0
        self.too_large: str | None = None

    @property
    def active(self) -> bool:
        return self.depth > 0

    def exceeded(self, why: str) -> None:
        """A bound was reached where Python would have gone on: the current test fails (unless this is an
        operand Python would have skipped, whose outcome is not used)."""
        if not self.active and self.too_large is None:
            self.too_large = why

    def __enter__(self) -> "Speculation":
        if self.depth == 0:
            self.episode += 1
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
            result = contains(speculation, left, right) if op in ("In", "NotIn") else _COMPARISONS[op](left, right)
            if op == "NotIn":
                result = not result
            if not result:
                for rest in thunks[index + 2:]:
                    _speculatively(speculation, rest)
                return result
            left = right
        return result

    return {CHECK: check, BOOL: boolean, IF: conditional, COMPARE: compare,
            "all": lambda iterable: not consume(speculation, iterable, lambda item: not item),
            "any": lambda iterable: consume(speculation, iterable, bool)}


def consume(speculation: Speculation, iterable: Iterable[Any], decides: Callable[[Any], Any]) -> bool:
    """Whether some item of `iterable` `decides`, read to its end or to the bound (see the module docstring),
    never to the first deciding item only: past it the reading goes on as one speculative branch. At the
    bound one more item is read, whatever was decided, to see whether the iterable ended there. An exception
    before the decision is raised, as Python would; one after it ends the reading (a generator that raised is
    finished)."""
    iterator, found, items, start = iter(iterable), False, 0, speculation.calls
    with contextlib.ExitStack() as past_the_decision:
        while True:
            last = items >= ITEMS_CAP or speculation.calls - start >= CALLS_CAP
            items += 1
            try:
                item = next(iterator)
            except StopIteration:
                return found
            except Exception:  # noqa: BLE001
                if found:
                    return found
                if last:
                    break
                raise
            if last:
                break
            if not found and decides(item):
                found = True
                past_the_decision.enter_context(speculation)
    if not found:
        speculation.exceeded(f"too large: all(), any() or `in` undecided at its bound ({ITEMS_CAP} items or "
                             f"{CALLS_CAP} calls to the program)")
    return found


def contains(speculation: Speculation, value: Any, container: Any) -> bool:
    """`value in container`, with an iterator (which Python reads up to the first equal item) read as `any()`
    reads it; a container answers by its own `__contains__`, which asks the program nothing."""
    if hasattr(type(container), "__next__"):
        return consume(speculation, container, lambda item: item is value or item == value)
    return value in container


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
