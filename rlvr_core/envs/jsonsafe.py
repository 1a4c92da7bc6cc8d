"""JSON from model output, parsed totally: bounded nesting, bounded integers, text that always encodes as UTF-8.

`json.loads` raises RecursionError on arrays nested a thousand deep (which
fit in a thousand tokens) and ValueError on an integer of more than 4,300
digits; an escaped lone surrogate ("\\ud800") parses into a str that cannot
be written as UTF-8, so the record write after it fails. `loads` turns each
of these into `JsonRejected` with the reason, and `scrub` makes any text
(or JSON-like value) UTF-8 safe, replacing lone surrogates with U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 32  # arrays and objects inside one another; real answers and tool calls need 4
MAX_INT_DIGITS = 64  # an integer literal longer than this is not a page value
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonRejected(ValueError):
    """The text is not JSON this project accepts from a model; the message says why (shown to the model)."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of [ and { outside strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonRejected(f"an integer of {len(literal)} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(literal)


def _reject_constant(name: str) -> float:
    raise JsonRejected(f"{name} is not a JSON number")


def scrub(value: Any) -> Any:
    """`value` with every string made UTF-8 safe (lone surrogates become U+FFFD); containers copied."""
    stack: list[tuple[Any, Any]] = []
    root = _scrub_scalar(value)
    if isinstance(value, (list, dict)):
        root = [] if isinstance(value, list) else {}
        stack.append((value, root))
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            copy = _scrub_scalar(item)
            if isinstance(item, (list, dict)):
                copy = [] if isinstance(item, list) else {}
                stack.append((item, copy))
            if isinstance(target, dict):
                target[_scrub_scalar(key)] = copy
            else:
                target.append(copy)
    return root


def _scrub_scalar(value: Any) -> Any:
    if isinstance(value, str) and _SURROGATE.search(value):
        return _SURROGATE.sub("\ufffd", value)
    return value


def loads(text: str) -> Any:
    """The JSON value of `text` (strict=False: raw newlines inside strings are accepted), scrubbed.

    Raises `JsonRejected` (a ValueError) for anything else: malformed JSON (the message carries the
    decoder's line and column), nesting deeper than `MAX_DEPTH`, an integer longer than
    `MAX_INT_DIGITS` digits, NaN or Infinity.
    """
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise JsonRejected(f"nested {depth} levels deep (at most {MAX_DEPTH} are accepted)")
    try:
        value = json.loads(text, strict=False, parse_int=_bounded_int, parse_constant=_reject_constant)
    except JsonRejected:
        raise
    except json.JSONDecodeError as err:
        raise JsonRejected(f"{err.msg} at line {err.lineno} column {err.colno}") from None
    except (ValueError, RecursionError, OverflowError) as err:  # defence in depth: never out of here
        raise JsonRejected(f"{type(err).__name__}: {str(err)[:120]}") from None
    return scrub(value)
