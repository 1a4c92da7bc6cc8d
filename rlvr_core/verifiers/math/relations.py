"""Step 2d of math verification: equations and inequalities, compared as relations.

A relation chain `a op b op c` is a list of links `a op b`. Each link becomes
`(E, kind)` with `E` on the left of zero: `a < b` -> `(a - b, "<")`, `a > b`
-> `(b - a, "<")`, `a \\le b` -> `(a - b, "<=")`, `a = b` -> `(a - b, "=")`,
`a \\ne b` -> `(a - b, "!=")`. Two links are the same relation when their
kinds agree and `E1 / E2` simplifies to a constant: any non-zero constant for
`=` and `!=`, a positive one for `<` and `<=`. So `y = 2` and `x = 2` differ,
`2x+4y-3=0` and `y=-x/2+3/4` agree, and `x<1` and `-x>-1` agree. A link whose
`E` is zero (`x = x`, `0 = 0`) equals nothing.

Two equations that are not constant multiples may still have the same
solutions: `\\frac1y+\\frac1x=2` and `y=\\frac{x}{2x-1}`. They agree when, for a
variable both contain, sympy's `solve` gives each the same finite set of
solutions (at most `MAX_SOLVE_SYMBOLS` variables, under the comparison's time
limit; anything sympy cannot solve is unproved, so not equal), and both are
defined over the reals at the same points of those solutions: `x = y` and
`\\sqrt{x} = \\sqrt{y}` differ (the second needs x >= 0), and so do `x = y`
and `\\ln x = \\ln y` (`_same_real_domain`).

`false_link` checks that a prediction is true as written: in an equality
chain, every side without a variable must have the same value
(`2 + 2 = 5` and `x = 6 = 5` are false; `x = 5+5+1 = 11` is true). A side
after `\\approx` is an approximation and is not checked.

A gold inequality in one variable also equals a predicted set of reals
(interval, union, finite set): `-2 \\le x \\le 7` and `x \\in [-2,7]`. The
reverse (a gold interval, a predicted inequality) is wrong, as in
math-verify's default.
"""

from __future__ import annotations

import random

import re
from fractions import Fraction

from rlvr_core.verifiers.math.literals import as_number, states_value
from rlvr_core.verifiers.math.parse import Assign, Bracketed, Collection, Leaf, Node, Union, split_relations, split_top
from rlvr_core.verifiers.math.symbolic import NotMath, SymbolicTimeout, decimal_matches, equal, to_sympy

MAX_SOLVE_SYMBOLS = 3
_LETTER = re.compile(r"[A-Za-z]")
_COMMAND = re.compile(r"\\[A-Za-z]+")

_KINDS = {"=": ("=", False), "<": ("<", False), ">": ("<", True), "\\le": ("<=", False), "\\ge": ("<=", True), "\\ne": ("!=", False)}


def links_equal(g_sides: tuple[str, ...], g_ops: tuple[str, ...], p_sides: tuple[str, ...], p_ops: tuple[str, ...]) -> bool:
    """Whether two relation chains state the same links (in any order)."""
    if len(g_ops) != len(p_ops):
        return False
    try:
        gold, pred = _links(g_sides, g_ops), _links(p_sides, p_ops)
    except NotMath:
        return False
    unmatched = list(pred)
    for g_link in gold:
        match = next((p for p in unmatched if _same_link(g_link, p)), None)
        if match is None:
            return False
        unmatched.remove(match)
    return True


def relation_equals_set(sides: tuple[str, ...], ops: tuple[str, ...], pred: Node) -> bool:
    """Whether a gold inequality (chain) in one variable describes the predicted set of reals."""
    import sympy

    if any(op not in ("<", ">", "\\le", "\\ge") for op in ops):
        return False
    try:
        values = [to_sympy(side) for side in sides]
        relations = []
        for (a, b), op in zip(zip(values, values[1:]), ops):
            relations.append({"<": sympy.Lt, ">": sympy.Gt, "\\le": sympy.Le, "\\ge": sympy.Ge}[op](a, b))
        from sympy.core.function import AppliedUndef

        # f(x) in "0 < f(x) < 1" is the quantity the set describes: a symbol of its own
        relations = [r.replace(lambda e: isinstance(e, AppliedUndef), lambda e: sympy.Symbol(str(e))) for r in relations]
        symbols = set().union(*(r.free_symbols for r in relations))
        if len(symbols) != 1:
            return False
        (symbol,) = symbols
        real = sympy.Symbol(symbol.name, real=True)
        gold_set = sympy.And(*[r.subs(symbol, real) for r in relations]).as_set()
        if isinstance(pred, Assign):
            if pred.op != "\\in" or pred.name.replace(" ", "") != symbol.name.replace(" ", ""):
                return False
            pred = pred.value
        pred_set = _as_set(pred)
    except SymbolicTimeout:
        raise
    except Exception:  # noqa: BLE001 - NotMath, or sympy failing to solve: unproved is not equal
        return False
    if pred_set is None:
        return False
    if gold_set == pred_set:
        return True
    try:
        return gold_set.symmetric_difference(pred_set).is_empty is True
    except SymbolicTimeout:
        raise
    except Exception:  # noqa: BLE001
        return False


def _as_set(node: Node):  # noqa: ANN202 - a sympy Set or None
    import sympy

    if isinstance(node, Bracketed) and len(node.items) == 2 and all(isinstance(i, Leaf) for i in node.items):
        start, end = (_endpoint(i.text) for i in node.items)  # type: ignore[union-attr]
        return sympy.Interval(start, end, left_open=node.opening == "(", right_open=node.closing == ")")
    if isinstance(node, Union):
        parts = [_as_set(part) for part in node.parts]
        return None if any(p is None for p in parts) else sympy.Union(*parts)
    if isinstance(node, Collection) and node.braces and all(isinstance(i, Leaf) for i in node.items):
        return sympy.FiniteSet(*(to_sympy(i.text) for i in node.items))  # type: ignore[union-attr]
    return None


def _endpoint(text: str):  # noqa: ANN202
    import sympy

    if text == "\\infty":
        return sympy.oo
    if text == "-\\infty":
        return -sympy.oo
    return to_sympy(text)


def _links(sides: tuple[str, ...], ops: tuple[str, ...]) -> list[tuple[object, str]]:
    if any(op not in _KINDS for op in ops):
        raise NotMath("relation operator not compared")
    values = [to_sympy(side) for side in sides]
    links = []
    for (a, b), op in zip(zip(values, values[1:]), ops):
        kind, flip = _KINDS[op]
        links.append(((b - a) if flip else (a - b), kind))
    return links


def _same_link(gold: tuple[object, str], pred: tuple[object, str]) -> bool:
    (g_expr, g_kind), (p_expr, p_kind) = gold, pred
    if g_kind != p_kind or g_expr == 0 or p_expr == 0:
        return False
    if g_expr == p_expr:
        return True
    return _constant_multiple(g_expr, p_expr, g_kind) or g_kind == "=" and _same_solutions(g_expr, p_expr)


def _same_solutions(g_expr, p_expr) -> bool:  # noqa: ANN001
    """Whether `g_expr = 0` and `p_expr = 0` have the same solutions for a variable both contain."""
    import sympy

    symbols = sorted(g_expr.free_symbols | p_expr.free_symbols, key=lambda s: s.name)
    if not symbols or len(symbols) > MAX_SOLVE_SYMBOLS or g_expr.free_symbols != p_expr.free_symbols:
        return False
    for symbol in symbols[::-1]:  # y before x: the solved-for variable of "y = f(x)" first
        try:
            g_solutions = sympy.solve(g_expr, symbol, dict=False)
            p_solutions = sympy.solve(p_expr, symbol, dict=False)
        except SymbolicTimeout:
            raise
        except Exception:  # noqa: BLE001 - not solvable for this variable: try the next
            continue
        if not g_solutions or not p_solutions:
            if g_solutions or p_solutions:
                return False  # one has solutions for this variable, the other none
            continue
        # solved for one variable, the two solution sets decide: the other variables need not be tried
        same = len(g_solutions) == len(p_solutions) and all(any(equal(a, b) for b in p_solutions) for a in g_solutions) \
            and all(any(equal(a, b) for a in g_solutions) for b in p_solutions)
        return same and _same_real_domain(g_expr, p_expr, symbol, g_solutions)
    return False


_SAMPLES = ("-7/3", "-5", "-1/2", "2/5", "3", "11/4")  # values of the other variables, of both signs


def _same_real_domain(g_expr, p_expr, symbol, solutions) -> bool:  # noqa: ANN001
    """Whether the two equations are defined, over the reals, at the same points of their common solutions.

    `\\sqrt{x} = \\sqrt{y}` has the solutions of `x = y` only where x >= 0: at a sampled point of the
    solution curve (the other variables at values of both signs) where one side of either equation takes
    a root of a negative number, the logarithm of a non-positive one or an inverse sine outside [-1, 1]
    and the other's does not, they differ. A denominator that vanishes on isolated points is not
    detected (`\\frac1y+\\frac1x=2` and `y=\\frac{x}{2x-1}` differ only at the origin).
    """
    import sympy

    others = sorted((g_expr.free_symbols | p_expr.free_symbols) - {symbol}, key=lambda s: s.name)
    for k, sample in enumerate(_SAMPLES):
        point = {s: sympy.Rational(_SAMPLES[(k + i) % len(_SAMPLES)]) for i, s in enumerate(others)}
        for solution in solutions:
            try:
                value = complex(solution.subs(point).evalf(30))
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            if abs(value.imag) > 1e-12:
                continue  # no real solution here
            full = {**point, symbol: sympy.nsimplify(solution.subs(point))}
            if _real_defined(g_expr, full) != _real_defined(p_expr, full):
                return False
    return True


def _real_defined(expr, point) -> bool:  # noqa: ANN001
    """Whether every root, logarithm and inverse sine or cosine in `expr` is real at `point`."""
    import sympy

    for sub in sympy.preorder_traversal(expr):
        if isinstance(sub, sympy.Pow) and not sub.exp.is_integer:
            argument, low, high = sub.base, 0, None
        elif isinstance(sub, sympy.log):
            argument, low, high = sub.args[0], 0, None
        elif isinstance(sub, (sympy.asin, sympy.acos)):
            argument, low, high = sub.args[0], -1, 1
        else:
            continue
        try:
            value = complex(argument.subs(point).evalf(30))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if abs(value.imag) > 1e-12 or value.real < low or (high is not None and value.real > high):
            return False
        if isinstance(sub, sympy.log) and value.real == 0:
            return False
    return True


def _constant_multiple(g_expr, p_expr, kind: str) -> bool:  # noqa: ANN001
    import sympy

    try:
        if not _constant_at_points(g_expr, p_expr):
            return False
        ratio = sympy.simplify(g_expr / p_expr)  # type: ignore[operator]
        if ratio.free_symbols or ratio == 0 or ratio.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return False
        if kind in ("<", "<="):
            return ratio.is_positive is True
        return ratio.is_zero is False
    except SymbolicTimeout:
        raise
    except Exception:  # noqa: BLE001 - unproved is not equal
        return False


def _constant_at_points(a, b) -> bool:  # noqa: ANN001
    """A numeric screen: False when a/b visibly takes two values (never proves constancy)."""
    import sympy

    symbols = sorted((a.free_symbols | b.free_symbols), key=lambda s: s.name)  # type: ignore[attr-defined]
    if not symbols:
        return True
    rng = random.Random(4321)
    seen = []
    for _ in range(2):
        point = {s: sympy.Rational(rng.randint(13, 97), rng.randint(7, 19)) for s in symbols}
        try:
            value = complex((a / b).subs(point).evalf(30))  # type: ignore[operator]
        except (TypeError, ValueError, ZeroDivisionError):
            return True
        seen.append(value)
    return abs(seen[0] - seen[1]) <= 1e-9 * max(1.0, abs(seen[0]))


def false_link(text: str) -> str | None:
    """The first pair of variable-free sides of an equality chain that differ ("2+2 = 5"), or None."""
    for solution in split_top(text, ";"):
        for item in split_top(solution, ","):
            sides, ops = split_relations(item)
            if "\\approx" in ops:
                cut = ops.index("\\approx")
                sides, ops = sides[: cut + 1], ops[:cut]
            if not ops or any(op != "=" for op in ops):
                continue
            constant = [side for side in sides if side and not _LETTER.search(_COMMAND.sub("", side))]
            for side in constant[:-1]:
                if not _same_value(side, constant[-1]):
                    return f"{side} = {constant[-1]}"
    return None


def _same_value(a: str, b: str) -> bool:
    """Whether two variable-free sides have the same value; unreadable sides are not judged (True)."""
    x, y = as_number(a), as_number(b)
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x == y or states_value(a, y) or states_value(b, x)
    try:
        u, v = to_sympy(a), to_sympy(b)
    except NotMath:
        return True
    return equal(u, v) or decimal_matches(a, v) or decimal_matches(b, u)
