"""Artifact updates sent from a background thread, so the work they describe never waits on the API.

Why: an artifact update is a synchronous API call, and the server it goes to
can stall for a minute (a locked database, a busy host). Made from the loop
that reads the trainer's output, such a call stopped the loop, the trainer's
stdout pipe filled, and training itself paused. Here a caller only records
what it wants shown; one daemon thread per process makes the calls.

Updates are keyed (one key per artifact). A newer update for a key replaces
the one still waiting, so a stalled API costs one pending update per
artifact, never a backlog, and the update that finally goes out shows the
latest state (what the user should see); stale ones are dropped unsent. The
queue holds at most `max_pending` keys: past that the oldest waiting update
is dropped (and counted). A failed call is logged and dropped: the next
update of that artifact carries the state again.

Each call gets a Prefect client of its own: the one in its caller's context
belongs to the run and is closed when the flow ends, which a queued update
(the last table and the 100 % of a training the stalled API held back) may
well outlive.

Where it stops: checkpoint events do not come here (they must not wait
behind an artifact call); `orchestration.event_sender` sends them on a websocket of
their own.
"""

from __future__ import annotations

import atexit
import collections
import contextvars
import functools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

DRAIN_AT_EXIT_S = 30.0


class Outbox:
    """Keyed, merging, bounded queue of zero-argument calls, run in order of first arrival by one daemon thread."""

    def __init__(self, max_pending: int = 64) -> None:
        self.max_pending = max_pending
        self.dropped = 0  # updates never sent because a newer one replaced them or the queue was full
        self.failed = 0
        self._pending: collections.OrderedDict[str, Callable[[], object]] = collections.OrderedDict()
        self._busy = False
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None

    def put(self, key: str, send: Callable[[], object]) -> None:
        """Queue `send` for `key`, replacing the call still waiting for that key; returns at once.

        `send` runs in the caller's context (a copy taken now): Prefect links an artifact to the flow and
        task run of its context and reads the API URL from it.
        """
        context = contextvars.copy_context()
        send = functools.partial(context.run, _with_own_client, send)
        with self._lock:
            if key in self._pending:
                self.dropped += 1
                self._pending[key] = send  # keeps its place: the artifact is not starved by newer keys
            else:
                if len(self._pending) >= self.max_pending:
                    oldest, _ = self._pending.popitem(last=False)
                    self.dropped += 1
                    log.warning("artifact outbox full (%d waiting): dropped the update of %s", self.max_pending, oldest)
                self._pending[key] = send
            self._ensure_thread()
            self._lock.notify()

    def drain(self, timeout_s: float) -> bool:
        """Wait until every queued call has been made (or `timeout_s` passes); True when nothing is left."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while self._pending or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="rlvr-artifact-outbox", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                self._busy = False
                self._lock.notify_all()
                while not self._pending:
                    self._lock.wait()
                key, send = self._pending.popitem(last=False)
                self._busy = True
            try:
                send()
            except Exception as err:  # the API is down or refused it: the next update of `key` tries again
                self.failed += 1
                log.warning("artifact update %s failed (%s: %s); the next update carries its state",
                            key, type(err).__name__, err)


def _with_own_client(send: Callable[[], object]) -> object:
    """Run `send` (in its caller's copied context) with a fresh API client in place of the caller's, which may
    be closed by now; a caller without one (no Prefect run) is left as it is."""
    from prefect.context import SyncClientContext

    if SyncClientContext.get() is None:
        return send()
    SyncClientContext.__var__.set(None)  # in this copy of the caller's context only
    with SyncClientContext():
        return send()


_OUTBOX: Outbox | None = None
_OUTBOX_LOCK = threading.Lock()


def outbox() -> Outbox:
    """The process's outbox; at exit, what is still queued gets up to DRAIN_AT_EXIT_S to go out."""
    global _OUTBOX
    with _OUTBOX_LOCK:
        if _OUTBOX is None:
            _OUTBOX = Outbox()
            atexit.register(_OUTBOX.drain, DRAIN_AT_EXIT_S)
        return _OUTBOX
