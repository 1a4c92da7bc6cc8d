"""A bad parameter ends a flow run Failed with its one-line message, not with tracebacks.

Prefect logs an exception raised by a flow with its full traceback, twice
(engine and state). For a config or parameter the user has to fix, the
traceback says nothing the message does not: `fails_cleanly` turns those
errors into a returned `Failed` state whose message is the error text, so the
UI shows one line naming the field and the fix. Every other exception is a
defect or an outage and keeps its traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect.states import Failed, State

from rlvr_core.config import ConfigError

P = ParamSpec("P")
R = TypeVar("R")


class BadParameter(ValueError):
    """A flow parameter the user must change; the message says which and how."""


def fails_cleanly(fn: Callable[P, R]) -> Callable[P, R | State[Any]]:
    """Wrap a flow function (below `@flow`) so ConfigError and BadParameter become a Failed state."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | State[Any]:
        try:
            return fn(*args, **kwargs)
        except (ConfigError, BadParameter) as err:
            return Failed(message=str(err))

    return wrapper
