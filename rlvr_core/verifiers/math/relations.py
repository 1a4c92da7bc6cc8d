"""Step 2d of math verification: equations and inequalities, compared as relations.

A relation chain `a op b op c` is a list of links `a op b`. Each link becomes
`(E, kind)` with `E` on the left of zero: `a < b` -> `(a - b, "<")`, `a > b`
-> `(b - a, "<")`, `a \\le b` -> `(a - b, "<=")`, `a = b` -> `(a - b, "=")`,
`a \\ne b` -> `(a - b, "!=")`. Two links are the same relation when their
kinds agree and `E1 / E2` simplifies to a constant: any non-zero constant for
`=` and `!=`, a positive one for `<` and `<=`. So `y = 2` and `x = 2` differ,
`2x+4y-3=0` and `y=-x/2+3/4` agree, and `x<1` and `-x>-1` agree. A link whose
`E` is zero (`x = x`, `0 = 0`) equals nothing.

A gold inequality in one variable also equals a predicted set of reals
(interval, union, finite set): `-2 \\le x \\le 7` and `x \\in [-2,7]`. The
reverse (a gold interval, a predicted inequality) is wrong, as in
math-verify's default.
"""

from __future__ import annotations

import random

from rlvr_core.verifiers.math.parse import Assign, Bracketed, Collection, Leaf, Node, Union
from rlvr_core.verifiers.math.symbolic import NotMath, SymbolicTimeout, to_sympy

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
    import sympy

    (g_expr, g_kind), (p_expr, p_kind) = gold, pred
    if g_kind != p_kind or g_expr == 0 or p_expr == 0:
        return False
    if g_expr == p_expr:
        return True
    try:
        if not _constant_at_points(g_expr, p_expr):
            return False
        ratio = sympy.simplify(g_expr / p_expr)  # type: ignore[operator]
        if ratio.free_symbols or ratio == 0 or ratio.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return False
        if g_kind in ("<", "<="):
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
