"""Whether the current flow run has a process of its own: the one a worker started for it.

A flow run a worker (or `flow.serve`) starts runs in `python -m prefect.engine`,
alone. The same flow called in-process (a subflow, a test, `make demo`)
shares its process with its caller. What may only be done to a process the
run owns goes through `in_own_process`: ending it on a bad parameter
(`orchestration.bad_input`), lowering its CPU priority for compute (`eval-checkpoint`).
"""

from __future__ import annotations

import sys


def in_own_process() -> bool:
    """True in the `python -m prefect.engine` process started for the current flow run (its top level, not a
    subflow of it); False outside a flow run."""
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return False
    main = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(main, "name", None) == "prefect.engine" and context.flow_run.parent_task_run_id is None
