"""A bad parameter ends a flow run Failed with its one-line message, not with tracebacks.

Prefect logs an exception raised by a flow with its full traceback, twice
(engine and state). For a config or parameter the user has to fix, the
traceback says nothing the message does not: `fails_cleanly` turns those
errors into a `Failed` state whose message is the error text, so the UI shows
one line naming the field and the fix. Every other exception is a defect or
an outage and keeps its traceback.

A returned Failed state is not enough in a flow-run process a worker started
(`python -m prefect.engine`): after the run, the engine asks the final state
for its result, which raises, and logs "Engine execution exited with
unexpected exception" with a traceback into the run's log, then exits 1, which
the worker reports as an error in the same log. There, the Failed state is
set on the server and the run ends with Prefect's `Abort` signal, which the
engine answers with an exit 0 and one console line. Called any other way (a
subflow, a test, `make demo`), the flow returns the Failed state as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect.states import Failed, State

from orchestration.run_process import in_own_process
from rlvr_core.config import ConfigError

P = ParamSpec("P")
R = TypeVar("R")


class BadParameter(ValueError):
    """A flow parameter the user must change; the message says which and how."""


def fails_cleanly(fn: Callable[P, R]) -> Callable[P, R | State[Any]]:
    """Wrap a flow function (below `@flow`) so ConfigError and BadParameter end the run Failed with their message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | State[Any]:
        try:
            return fn(*args, **kwargs)
        except (ConfigError, BadParameter) as err:
            return fail_run(str(err))

    return wrapper


def fail_run(message: str) -> State[Any]:
    """A Failed state with `message`; in a worker's flow-run process, set it on the server and end the run there."""
    from prefect.context import FlowRunContext
    from prefect.exceptions import Abort

    state = Failed(message=message)
    if not in_own_process():
        return state
    context = FlowRunContext.get()
    accepted = context.client.set_flow_run_state(context.flow_run.id, state, force=True).state or state
    stop = Abort(f"flow run failed on its parameters: {message}")
    stop.state = accepted  # type: ignore[attr-defined]  # the engine records it as the run's final state
    raise stop
