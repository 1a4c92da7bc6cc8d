"""A problem's own asserts as templates for hidden tests: the entry call's literal arguments, and the assert
rewritten around new arguments and the reference's answer in the same form.

An assert is a template when it calls exactly one entry function, with
literal arguments (or builtin type names: `remove_datatype((4, 7.7), int)`),
in one of three forms: `probe == expected` (the probe is the part holding
the call: `f(x)`, `set(f(x))`, `len(f(x))`), `isclose(probe, expected, ...)`,
or `[not] probe`. A new assert keeps the form: the expected value becomes the
reference's, written as a literal that evaluates back to exactly that value
(a Counter or defaultdict compared with a dict literal is written as the dict
literal); a float compared with `==` becomes `math.isclose(..., rel_tol=1e-9)`;
other values holding floats cannot be written and are dropped.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rlvr_core.verifiers.code.domain import TYPE_NAMES, TypeName

MAX_LITERAL_CHARS = 2000  # a longer expected value is not kept (tests stay readable)
Kind = Literal["compare", "close", "truth"]


CALL, EXPECTED = "__rlvr_call__", "__rlvr_expected__"  # placeholders in a template's text


@dataclass(frozen=True)
class Template:
    """One assert that calls an entry function with literal arguments, as text with placeholders for the
    call and the expected value."""

    source: str
    entry: str
    args: tuple
    kwargs: tuple[tuple[str, Any], ...]
    kind: Kind
    text: str  # the assert's test with CALL for the entry call and EXPECTED for the expected value
    probe: str  # the probe (the part holding the call) with CALL
    atomic: bool  # the probe needs no parentheses after `not`
    dict_expected: bool  # the expected value is written as a dict literal

    @property
    def signature(self) -> tuple[str, int, tuple[str, ...]]:
        """Calls with one signature share a domain: the entry, the positional count, the keyword names."""
        return self.entry, len(self.args), tuple(k for k, _ in self.kwargs)

    @property
    def values(self) -> tuple:
        """The arguments as one tuple: positional, then keyword values."""
        return (*self.args, *(v for _, v in self.kwargs))

    def split(self, values: Sequence[Any]) -> tuple[tuple, tuple[tuple[str, Any], ...]]:
        n = len(self.args)
        return tuple(values[:n]), tuple((k, v) for (k, _), v in zip(self.kwargs, values[n:]))


class _Swap(ast.NodeTransformer):
    """Replaces given nodes (by identity) with placeholder names."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names

    def visit(self, node: ast.AST) -> ast.AST:
        name = self.names.get(id(node))
        if name is not None:
            return ast.copy_location(ast.Name(name, ast.Load()), node)
        return self.generic_visit(node)


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(node))


def _argument(node: ast.expr) -> Any:
    """A literal argument's value, or a builtin type name; ValueError for anything else."""
    if isinstance(node, ast.Name) and node.id in TYPE_NAMES:
        return TypeName(node.id)
    return ast.literal_eval(node)


def templates(tests: Sequence[str], entries: frozenset[str]) -> list[Template]:
    """The asserts among `tests` that are templates (the module docstring says which)."""
    out = []
    for source in tests:
        try:
            tree = ast.parse(source.strip())
        except SyntaxError:
            continue
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
            continue
        test = tree.body[0].test
        calls = [n for n in ast.walk(test) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in entries]
        if len(calls) != 1 or any(isinstance(a, ast.Starred) for a in calls[0].args) or any(
                k.arg is None for k in calls[0].keywords):
            continue
        call = calls[0]
        try:
            args = tuple(_argument(a) for a in call.args)
            kwargs = tuple((str(k.arg), _argument(k.value)) for k in call.keywords)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        shape = _shape(test, call)
        if shape is None:
            continue
        kind, probe, expected = shape
        names = {id(call): CALL, **({id(expected): EXPECTED} if expected is not None else {})}
        atomic = isinstance(probe, (ast.Call, ast.Name, ast.Attribute, ast.Subscript))
        text = ast.unparse(_Swap(names).visit(test))  # in place: the tree is this function's own
        probe_text = CALL if probe is call else ast.unparse(probe)
        assert isinstance(call.func, ast.Name)
        out.append(Template(source.strip(), call.func.id, args, kwargs, kind, text, probe_text, atomic,
                            isinstance(expected, ast.Dict)))
    return out


def _shape(test: ast.expr, call: ast.Call) -> tuple[Kind, ast.expr, ast.expr | None] | None:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        if _contains(left, call) != _contains(right, call):
            probe, expected = (left, right) if _contains(left, call) else (right, left)
            return "compare", probe, expected
    if isinstance(test, ast.Call) and len(test.args) >= 2 and ast.unparse(test.func) in ("isclose", "math.isclose"):
        first, second = test.args[0], test.args[1]
        if _contains(first, call) != _contains(second, call):
            probe, expected = (first, second) if _contains(first, call) else (second, first)
            return "close", probe, expected
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "truth", test.operand, None
    if test is call or isinstance(test, ast.Call):
        return "truth", test, None
    return None


# --- rendering --------------------------------------------------------------------------------------
def literal_text(value: Any) -> str | None:
    """A literal that evaluates back to exactly `value` (same types all the way down), or None."""
    if isinstance(value, TypeName):
        return value.name
    text = repr(value) if _writable(value) else None
    return text if text is not None and len(text) <= MAX_LITERAL_CHARS else None


def _writable(value: Any, depth: int = 0) -> bool:
    """Whether `repr(value)` is a literal of exactly `value`: plain scalars, finite floats, and lists, tuples,
    dicts and non-empty sets of them (`set()` and `frozenset(...)` are calls, nan and inf names)."""
    kind = type(value)
    if depth > 50:
        return False
    if kind in (int, bool, str, bytes, type(None)):
        return True
    if kind is float:
        return value == value and abs(value) != float("inf")
    if kind in (list, tuple):
        return all(_writable(v, depth + 1) for v in value)
    if kind is dict:
        return all(_writable(k, depth + 1) and _writable(v, depth + 1) for k, v in value.items())
    if kind is set:
        return bool(value) and all(_writable(v, depth + 1) for v in value)
    return False


def has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(has_float(k) or has_float(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(has_float(v) for v in value)
    return False


def _call(template: Template, args: tuple, kwargs: tuple) -> str | None:
    texts = [literal_text(a) for a in args] + [literal_text(v) for _, v in kwargs]
    if any(t is None for t in texts):
        return None
    written = texts[:len(args)] + [f"{k}={t}" for (k, _), t in zip(kwargs, texts[len(args):])]
    return f"{template.entry}({', '.join(written)})"  # type: ignore[arg-type]


def probe_source(template: Template, args: tuple, kwargs: tuple) -> str | None:
    """The probe expression with these arguments (what the reference is asked), or None if an argument cannot
    be written."""
    call = _call(template, args, kwargs)
    return None if call is None else template.probe.replace(CALL, call)


def form(template: Template) -> str:
    """The probe's shape without its arguments: templates of one form answer comparable values."""
    return template.probe.replace(CALL, f"{template.entry}(...)")


def render(template: Template, args: tuple, kwargs: tuple, value: Any) -> str | None:
    """The hidden assert for the new call whose probe gave `value`, or None when it cannot be written."""
    call = _call(template, args, kwargs)
    if call is None:
        return None
    probe = template.probe.replace(CALL, call)
    if template.kind == "truth":
        return f"assert {probe}" if value else f"assert not {probe if template.atomic else f'({probe})'}"
    if template.kind == "close" or isinstance(value, float):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value or abs(value) == float("inf"):
            return None
        if template.kind == "compare":
            return f"assert math.isclose({probe}, {value!r}, rel_tol=1e-09)"
    elif has_float(value):
        return None
    if template.dict_expected and isinstance(value, dict):
        value = dict(value)  # a Counter or defaultdict compared with a dict literal: the same comparison
    expected = literal_text(value)
    if expected is None:
        return None
    return "assert " + template.text.replace(CALL, call).replace(EXPECTED, expected)
