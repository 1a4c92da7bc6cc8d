"""Step 2c of math verification: exact symbolic equality with sympy, guarded.

`latex2sympy2_extended` (the parser math-verify uses) turns one normalised
leaf into a sympy object; equality is then proved, never estimated:

- decimals are rewritten as exact fractions before parsing (`10.5` -> 21/2),
  so `\\frac{10\\sqrt{10.5}}{27}` equals `\\frac{5\\sqrt{42}}{27}` exactly and no
  float tolerance is ever applied;
- two expressions are equal only when `simplify(a - b)` is zero, with the
  variables taken as real numbers where that matters (`\\sqrt{x^2}` is `|x|`).
  A numeric evaluation may prove them *different* (and so skip `simplify`),
  never equal;
- anything that evaluates to nan, zoo, or an infinity (`\\frac{0}{0}`,
  `\\infty - \\infty`, `12:00` read as 12/0) equals nothing here;
  `\\infty` as an answer or an interval end is matched as text earlier;
- the input is refused before parsing when it could make sympy hang or
  allocate without bound: longer than `MAX_LEAF_CHARS`, an exponent holding a
  exponent inside an exponent (`2^{2^{100}}`), exponents adding up to more
  than 10^4, a factorial of an expression or above 9999, a binomial of a
  power or of five-digit numbers, braces or parentheses nested deeper than 12,
  integrals, limits and sums with numeric bounds;
- parsing and comparison run under a `time_limit` of CPU time (SIGPROF, only
  on a main thread; elsewhere the `VerifierPool` item timeout is the limit).

Symbols are case-sensitive; `i` is the imaginary unit and `e` Euler's number.
"""

from __future__ import annotations

import random
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache

MAX_LEAF_CHARS = 400
MAX_NESTING = 12
_SCREEN_TOLERANCE = 1e-12  # numeric screening only ever concludes "different"

_DECIMAL = re.compile(r"(?<![0-9.])([0-9]*)\.([0-9]+)(?![0-9.])")
_CARET = re.compile(r"\^\s*")
_EXPONENT_TOKEN = re.compile(r"[0-9]+|\\?[A-Za-z]+")
_INTEGER = re.compile(r"[0-9]+")
_FACTORIAL_OF_EXPRESSION = re.compile(r"[)}\]]\s*!")
_FACTORIAL = re.compile(r"([0-9]+)\s*!")
_BIG_INT = re.compile(r"[0-9]{5,}")
_ELLIPSIS = re.compile(r"\\[lc]?dots(?![A-Za-z])|\.\.\.|\u2026")
_REFUSED = re.compile(r"\\(?:int|iint|oint|lim|prod)(?![A-Za-z])|\\sum_\{[^{}]*\}\^\{?[0-9]")


class NotMath(ValueError):
    """The text cannot be read as (finite) mathematics, or reading it is refused."""


class NotFinite(NotMath):
    """The text is mathematics, but its value is nan, zoo or an infinity."""


class Refused(NotMath):
    """The text is refused before parsing (too long, exponents or factorials too large, integrals)."""


class SymbolicTimeout(Exception):
    """The symbolic step ran past its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `SymbolicTimeout` after `seconds` of this process's CPU time (main thread only; a no-op elsewhere).

    CPU time (ITIMER_PROF), not wall time: on a loaded machine a comparison
    that waits for a core is not cut short, while a runaway one still is. The
    `VerifierPool` item timeout (wall time, in the parent) stays the hard limit.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise SymbolicTimeout(f"symbolic comparison exceeded {seconds:g}s of CPU time")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


_warm = False


def warm_up() -> None:
    """Load the LaTeX parser and sympy's simplifier once per process, with the `time_limit` clock paused.

    The first conversion costs seconds (parser construction, lazy sympy
    imports); counted against the per-comparison limit it would time out a
    correct answer. Called by `to_sympy`, so numeric-only workloads never pay it.
    """
    global _warm
    if _warm:
        return
    import sympy
    from latex2sympy2_extended.latex2sympy2 import latex2sympy

    paused = 0.0
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        paused, _ = signal.setitimer(signal.ITIMER_PROF, 0)  # stop a running `time_limit` clock
    try:
        latex2sympy("\\frac{\\sqrt{3}}{3}")
        sympy.simplify(sympy.sqrt(8) - 2 * sympy.sqrt(2) + sympy.sin(sympy.Symbol("x")) ** 2)
        _warm = True
    finally:
        if paused > 0:
            signal.setitimer(signal.ITIMER_PROF, paused)  # and restart it with the time it had left


def guard(latex: str) -> None:
    """Raise `Refused` for input sympy could hang or explode on (checked before parsing)."""
    from rlvr_core.verifiers.math.scan import matching_braces

    if len(latex) > MAX_LEAF_CHARS:
        raise Refused(f"longer than {MAX_LEAF_CHARS} characters")
    if _REFUSED.search(latex):
        raise Refused("integrals, limits, products and numeric sums are not compared")
    depth = deepest = 0
    for char in latex:
        if char in "{(":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "})":
            depth -= 1
    if deepest > MAX_NESTING:
        raise Refused(f"nested deeper than {MAX_NESTING}")
    braces = matching_braces(latex)
    exponent_total = 0
    for caret in _CARET.finditer(latex):
        after = caret.end()
        if latex.startswith("{", after) and after in braces:
            exponent = latex[after + 1 : braces[after]]
        else:
            token = _EXPONENT_TOKEN.match(latex, after)
            exponent = token.group(0) if token else ""
        if "^" in exponent or "!" in exponent:
            raise Refused("nested exponent")
        exponent_total += sum(int(n) for n in _INTEGER.findall(exponent) if len(n) <= 6) + 10**6 * any(
            len(n) > 6 for n in _INTEGER.findall(exponent)
        )
    if exponent_total > 10_000:
        raise Refused("exponents too large")
    if _FACTORIAL_OF_EXPRESSION.search(latex) or any(len(n) > 4 for n in _FACTORIAL.findall(latex)):
        raise Refused("factorial too large")
    if "\\binom" in latex and ("^" in latex or _BIG_INT.search(latex)):
        raise Refused("binomial too large")


def exact_decimals(latex: str) -> str:
    """`10.5` -> `(\\frac{105}{10})`: decimals become exact fractions before parsing."""

    def fraction(match: re.Match[str]) -> str:
        whole, frac = match.group(1), match.group(2)
        return "(\\frac{%s}{1%s})" % (int(whole + frac), "0" * len(frac))

    return _DECIMAL.sub(fraction, latex)


@lru_cache(maxsize=4096)
def to_sympy(latex: str):  # noqa: ANN201 - a sympy Basic or Matrix
    """The finite sympy value of one leaf; raises `NotMath` (cached per distinct leaf)."""
    import sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig, latex2sympy

    guard(latex)
    if _ELLIPSIS.search(latex):
        raise NotMath("an ellipsis states no exact value (`5\\ldots`, `3.14159...`)")
    warm_up()
    config = ConversionConfig(lowercase_symbols=False)
    try:
        value = latex2sympy(exact_decimals(latex), conversion_config=config)
    except SymbolicTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 - the parser raises many types on model text
        raise NotMath(f"{type(exc).__name__}: {exc}") from None
    if isinstance(value, (list, tuple)) or not isinstance(value, (sympy.Basic, sympy.MatrixBase)):
        raise NotMath(f"parsed to {type(value).__name__}")
    try:
        value = value.doit()  # canonical form: latex2sympy builds unevaluated trees
    except SymbolicTimeout:
        raise
    except Exception:  # noqa: BLE001
        pass
    if isinstance(value, sympy.Basic):
        imaginary = [s for s in value.free_symbols if getattr(s, "name", "") == "i"]
        if imaginary:
            value = value.subs(imaginary[0], sympy.I)
    if not _finite(value):
        raise NotFinite("not a finite value (nan, zoo or an infinity)")
    return value


def _finite(value) -> bool:  # noqa: ANN001
    import sympy

    bad = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
    if isinstance(value, sympy.MatrixBase):
        return all(_finite(entry) for entry in value)
    if not isinstance(value, sympy.Expr):  # sets, relations, logic: not a value
        return False
    try:
        return not value.has(*bad) and not value.has(sympy.AccumBounds)
    except Exception:  # noqa: BLE001
        return False


def equal(gold, pred) -> bool:  # noqa: ANN001
    """Whether two finite sympy values are provably equal."""
    import sympy

    g_matrix, p_matrix = isinstance(gold, sympy.MatrixBase), isinstance(pred, sympy.MatrixBase)
    if g_matrix or p_matrix:
        if not (g_matrix and p_matrix) or gold.shape != pred.shape:
            return False
        return all(equal(a, b) for a, b in zip(gold, pred))
    if gold == pred:
        return True
    try:
        diff = gold - pred
        if _clearly_nonzero(diff):
            return False
        simplified = sympy.simplify(diff)
        if simplified == 0 or simplified.is_zero is True:
            return True
        return _zero_over_the_reals(simplified)
    except SymbolicTimeout:
        raise
    except Exception:  # noqa: BLE001 - sympy fails in many ways on odd input; unproved is not equal
        return False


def _zero_over_the_reals(expr) -> bool:  # noqa: ANN001
    """`expr` is zero once its variables are real: `\\sqrt{x^2}` is `|x|` (contest variables are real numbers).

    Only tried where real variables can matter (a root, an absolute value, a
    logarithm); never assumes positive, so `\\sqrt{x^2}` is still not `x`.
    """
    import sympy

    symbols = expr.free_symbols
    if not symbols or not expr.has(sympy.Abs, sympy.log, sympy.sign) and not any(
        not power.exp.is_integer for power in expr.atoms(sympy.Pow)
    ):
        return False
    real = expr.subs({s: sympy.Symbol(s.name, real=True) for s in symbols})
    simplified = sympy.simplify(real)
    return simplified == 0 or simplified.is_zero is True


def _clearly_nonzero(expr) -> bool:  # noqa: ANN001
    """A numeric screen: True only when evaluation shows `expr` is not zero."""
    import sympy

    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    rng = random.Random(1234)
    for _ in range(2 if symbols else 1):
        point = {s: sympy.Rational(rng.randint(13, 97), rng.randint(7, 19)) for s in symbols}
        try:
            value = complex(expr.subs(point).evalf(30))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if value != value:  # nan at this point: no conclusion
            return False
        if abs(value) > _SCREEN_TOLERANCE:
            return True
    return False


def decimal_matches(decimal: str, value) -> bool:  # noqa: ANN001
    """Whether a long decimal states the irrational or non-terminating `value`: right to its last digit.

    Only for decimals with at least 10 significant digits (`0.0833333333333333`
    for 1/12, `4.123105625617661` for sqrt(17)): ten correct digits are the
    answer, fewer may be a lucky rounding. A value that a decimal can write
    exactly (5, 1/4) must be written exactly. The value must be a real constant.
    """
    import sympy

    if not re.fullmatch(r"-?[0-9]*\.[0-9]+", decimal):
        return False
    places = len(decimal.split(".", 1)[1])
    digits = decimal.lstrip("-").replace(".", "").lstrip("0")
    if len(digits) < 10 or not isinstance(value, sympy.Expr) or value.free_symbols:
        return False
    if value.is_rational:
        q = sympy.Rational(value).q
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if q == 1:
            return False  # a terminating value: only its exact decimal states it
    elif value.is_real is not True:
        return False
    try:
        error = abs(complex((sympy.Rational(Fraction(decimal)) - value).evalf(max(40, len(digits) + 20))))
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return error <= 10.0 ** (-places)
