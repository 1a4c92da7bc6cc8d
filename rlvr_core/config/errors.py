"""Config errors as the user reads them: one line per problem, each naming the file, field, value and fix.

Line shape: `<file>: <dotted.field> = <value>: <what is wrong>. Fix: <what to do>`
(the `= <value>` part is left out where there is no single value, e.g. a
missing field). Values are rendered by `show`, which never calls `repr()` on
a container and caps every rendering, so an input of a billion aliased
nodes, a self-referencing list or a 5,000-digit integer still prints a short line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

MAX_LINES = 20  # beyond this many problems, the last line says how many more there are
MAX_TEXT = 60  # characters of a string value shown before it is cut
FIELDS_HINT = "`rlvr config fields` lists every field with its type and default"
_UNSET: Any = object()  # "no value to show" (None is a value: YAML's null)


class ConfigError(ValueError):
    """A config that cannot be used. `str(err)` is one line per problem, meant for the user as-is."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Violation:
    """One broken rule: the field (dotted, relative to the model that checks it; None: the model as a whole,
    and `what` names the fields), its value, what is wrong and the fix."""

    field: str | None
    value: Any
    what: str
    fix: str


class RuleViolation(ValueError):
    """Raised by a model's `validate_rules`: every rule it found broken, so the user sees them all at once."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = list(violations)
        super().__init__("; ".join(f"{v.what}. Fix: {v.fix}" for v in self.violations))


def raise_violations(violations: list[Violation | None]) -> None:
    """Raise RuleViolation for the non-None entries, if any."""
    found = [v for v in violations if v is not None]
    if found:
        raise RuleViolation(found)


def show(value: Any, *, depth: int = 0) -> str:
    """A short, safe rendering of a config value: scalars as YAML would read back, containers summarised."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 128:  # str() of a 4,300+ digit integer raises; long ones only need their size
            return f"<integer of {len(str(value)) if value.bit_length() < 10_000 else 'thousands of'} digits>"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= MAX_TEXT else value[:MAX_TEXT]
        rendered = repr(text)
        return rendered if len(value) <= MAX_TEXT else f"{rendered[:-1]}...{rendered[-1]} ({len(value)} characters)"
    if isinstance(value, (list, tuple)):
        if depth >= 1 or len(value) > 4:
            return f"<list of {len(value)} items>"
        return "[" + ", ".join(show(v, depth=depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        if depth >= 1 or len(value) > 4:
            return f"<mapping of {len(value)} keys>"
        return "{" + ", ".join(f"{show(k, depth=1)}: {show(v, depth=depth + 1)}" for k, v in value.items()) + "}"
    return f"<{type(value).__name__}>"


def clean(text: str, limit: int = 160) -> str:
    """`text` safe for one terminal line: control characters escaped, the middle cut when it is long."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[: limit * 4])
    return text if len(text) <= limit else f"{text[: limit - 40]}...{text[-37:]}"


def problem_line(source: str, field: str | None, what: str, fix: str, *, value: Any = _UNSET) -> str:
    """One problem as one line: `source: field = value: what. Fix: fix` (any line break becomes a space)."""
    field = clean(field) if field else field
    where = f"{field} = {show(value)}" if field and value is not _UNSET else (field or "")
    text = f"{clean(source)}: {where + ': ' if where else ''}{what.rstrip('.')}. Fix: {fix.rstrip('.')}"
    return " ".join(part.strip() for part in text.splitlines())


def cap_lines(lines: list[str], source: str) -> list[str]:
    """At most MAX_LINES lines; the last one counts the problems left out."""
    if len(lines) <= MAX_LINES:
        return lines
    rest = len(lines) - (MAX_LINES - 1)
    more = problem_line(source, None, f"{rest} more problems not shown", "correct the ones above and validate again")
    return [*lines[: MAX_LINES - 1], more]


def format_validation_error(err: ValidationError, source: str) -> list[str]:
    """One line per problem pydantic found (`source` is the config file the values came from)."""
    lines = []
    for problem in err.errors(include_url=False):
        field = ".".join(str(part) for part in problem["loc"])
        error = (problem.get("ctx") or {}).get("error")
        if isinstance(error, RuleViolation):
            for v in error.violations:
                full = ".".join(p for p in (field, v.field) if p) or "<top level>"
                value = {} if v.field is None else {"value": v.value}
                lines.append(problem_line(source, full, v.what, v.fix, **value))
            continue
        what, fix, with_value = _describe(problem, field)
        lines.append(problem_line(source, field or "<top level>", what, fix,
                                  **({"value": problem.get("input")} if with_value else {})))
    return cap_lines(lines, source)


_BOUNDS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}
_TYPES = {  # pydantic error type -> (what, fix)
    "int_type": ("must be a whole number", "write an integer, e.g. 3"),
    "int_parsing": ("must be a whole number", "write an integer, e.g. 3"),
    "int_from_float": ("must be a whole number, not a fraction", "write an integer, e.g. 3"),
    "float_type": ("must be a number", "write a number, e.g. 0.5 or 1.0e-4"),
    "float_parsing": ("must be a number", "write a number, e.g. 0.5 or 1.0e-4"),
    "finite_number": ("must be a finite number", "write a number; .inf and .nan are not allowed"),
    "bool_type": ("must be true or false", "write true or false"),
    "bool_parsing": ("must be true or false", "write true or false"),
    "string_type": ("must be a string", "write text (quote it if YAML reads it as a number, true/false, a date or a list)"),
    "list_type": ("must be a list", "write [a, b] or one `- item` line per entry"),
    "model_type": ("must be a mapping of fields", "write `field: value` lines under it"),
    "model_attributes_type": ("must be a mapping of fields", "write `field: value` lines under it"),
    "dict_type": ("must be a mapping of fields", "write `field: value` lines under it"),
    "invalid_key": ("is not a field name", "use a field name (text) as the key"),
    "recursion_loop": ("refers to itself", "write the value out instead of referring back to it"),
}


def _describe(problem: dict[str, Any], field: str) -> tuple[str, str, bool]:
    """(what is wrong, the fix, whether the value is worth showing) for a built-in pydantic error."""
    kind, ctx = problem["type"], problem.get("ctx") or {}
    if kind == "extra_forbidden":
        return "unknown field", f"remove it or check the spelling; {FIELDS_HINT}", True
    if kind == "missing":
        return "required field is missing", "add it to the file or an `extends:` parent", False
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}", f"use one of {ctx.get('expected')}", True
    if kind in _BOUNDS:
        bound = next(iter(ctx.values()))
        return f"must be {_BOUNDS[kind]} {bound}", f"set {field} {_BOUNDS[kind]} {bound}", True
    if kind in {"string_too_short", "too_short"}:
        least = ctx.get("min_length", 1)
        what = "must not be empty" if least == 1 else f"needs at least {least} {'characters' if 'string' in kind else 'items'}"
        return what, "fill it in, or remove the key to use the default", True
    if kind in {"string_too_long", "too_long"}:
        most = ctx.get("max_length")
        return f"is too long (at most {most} {'characters' if 'string' in kind else 'items'})", "shorten it", True
    if kind == "string_pattern_mismatch":
        return f"does not match the pattern {ctx.get('pattern')}", "change it to match", True
    if kind in _TYPES:
        what, fix = _TYPES[kind]
        return what, fix, True
    message = str(problem.get("msg", kind)).removeprefix("Value error, ")
    what, _, fix = message.partition("Fix:")
    return what.strip(), fix.strip() or FIELDS_HINT, True
