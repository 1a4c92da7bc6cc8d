"""Which failures are worth a retry.

Network and storage hiccups are transient: a retry after a delay usually
succeeds. A bad config, a missing offline dataset or a programming error
fails the same way every time, so retrying only delays the message the user
needs to see. `retry_transient` is the `retry_condition_fn` every retrying
task uses.
"""

from __future__ import annotations

from typing import Any

# Exception class names (not classes: checking them must not import botocore or the storage stack).
_TRANSIENT_NAMES = {
    "StorageError", "ConnectionError", "TimeoutError", "ConnectTimeoutError", "ReadTimeoutError",
    "EndpointConnectionError", "HTTPError", "ConnectError", "ReadTimeout", "RemoteDisconnected",
    "HfHubHTTPError", "RayActorError", "WorkerCrashedError", "NodeDiedError", "OutOfMemoryError",
}
# File-system errors that name a path problem (missing, not allowed, wrong kind) repeat on every attempt;
# other OSErrors (disk full, a reset socket, a stale NFS handle) may not.
_PERMANENT_BASES = (ValueError, TypeError, KeyError, ImportError, NotImplementedError, FileNotFoundError,
                    PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError)


def is_transient(exc: BaseException) -> bool:
    """True for failures a later attempt may not repeat (network, storage, a lost worker, OOM)."""
    for kind in type(exc).__mro__:
        if kind.__name__ in _TRANSIENT_NAMES:
            return True
    if isinstance(exc, _PERMANENT_BASES):
        return False
    return isinstance(exc, OSError)


def retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect `retry_condition_fn`: retry only when the failure is transient."""
    try:
        state.result(raise_on_failure=True)
    except Exception as exc:  # the task's own exception, re-raised by the state
        return is_transient(exc)
    return False
