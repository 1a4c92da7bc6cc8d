"""Checkpoint events sent on a websocket of their own, so they leave while the API stalls.

Why not `prefect.events.emit_event`: it queues the event for Prefect's
process-wide events worker, which first looks up the run's flow, deployment
and work pool over HTTP to attach them as related resources, and sends
events one after another. When the API stalls, the task-run events queued
ahead of a checkpoint event wait on those lookups, and the checkpoint event
(whose trigger starts the checkpoint's evaluation) waits behind them, for
minutes under a stalled API.

`EventSender` holds one events websocket in a daemon thread. `emit` only
queues (a bounded queue: past `max_queued` the oldest waiting event is
dropped and counted); the related resources are taken from the run context
in hand (flow run, task run, flow, deployment, tags), with no API call.
The connection is opened when the sender starts (waiting at most
`connect_wait_s`, before the trainer is launched); a connection that breaks
is reopened and the event that failed is sent again.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import threading
import time
from types import TracebackType
from typing import Any

from prefect.events import Event, RelatedResource
from prefect.events.clients import get_events_client

log = logging.getLogger(__name__)

RECONNECT_DELAY_S = 2.0


class EventSender:
    """A bounded queue of events and the thread that sends them over its own websocket (a context manager)."""

    def __init__(self, max_queued: int = 1000, connect_wait_s: float = 10.0) -> None:
        self.max_queued, self.connect_wait_s = max_queued, connect_wait_s
        self.sent = 0
        self.dropped = 0
        self._queue: collections.deque[Event] = collections.deque()
        self._lock = threading.Lock()
        self._connected = threading.Event()
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._idle = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def __enter__(self) -> EventSender:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> bool:
        """Start the sender thread; True once its websocket is open (False after `connect_wait_s`: it keeps trying)."""
        context = contextvars.copy_context()  # the caller's Prefect settings (API URL, auth) go with the thread
        self._thread = threading.Thread(target=context.run, args=(asyncio.run, self._main()), daemon=True,
                                        name="rlvr-event-sender")
        self._thread.start()
        return self._connected.wait(self.connect_wait_s)

    def emit(self, event: str, resource: dict[str, str], payload: dict[str, Any]) -> Event:
        """Queue an event (related to the current flow and task run); returns at once."""
        built = Event(event=event, resource=resource, related=related_to_current_run(), payload=payload)
        with self._lock:
            if len(self._queue) >= self.max_queued:
                self._queue.popleft()
                self.dropped += 1
                log.warning("event queue full (%d): dropped the oldest waiting event", self.max_queued)
            self._queue.append(built)
        self._notify()
        return built

    def waiting(self) -> list[Event]:
        """The events queued and not yet sent, oldest first."""
        with self._lock:
            return list(self._queue)

    def close(self, drain_s: float = 10.0) -> bool:
        """Send what is queued (waiting at most `drain_s`), then close the websocket; True when nothing was left."""
        deadline = time.monotonic() + drain_s
        with self._lock:
            while self._queue and time.monotonic() < deadline:
                self._idle.wait(max(0.0, deadline - time.monotonic()))
            left = len(self._queue)
            self._closing = True
        self._notify()
        if self._thread is not None:
            self._thread.join(max(0.1, deadline - time.monotonic()))
        if left:
            log.warning("%d checkpoint event(s) not sent: the events API was unreachable", left)
        return left == 0

    def _notify(self) -> None:
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _main(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        while not self._closing:
            try:
                async with get_events_client(reconnection_attempts=2) as client:
                    self._connected.set()
                    await self._send_all(client)
                    return
            except Exception as err:  # the websocket broke or never opened: reopen it and resend
                self._connected.clear()
                log.warning("events websocket failed (%s: %s); reconnecting in %g s", type(err).__name__, err,
                            RECONNECT_DELAY_S)
                await asyncio.sleep(RECONNECT_DELAY_S)

    async def _send_all(self, client: Any) -> None:
        assert self._wake is not None
        while True:
            with self._lock:
                event = self._queue[0] if self._queue else None
                if event is None:
                    self._idle.notify_all()
                    if self._closing:
                        return
            if event is None:
                await self._wake.wait()
                self._wake.clear()
                continue
            await client.emit(event)  # on failure the event stays first in the queue
            with self._lock:
                if self._queue and self._queue[0] is event:
                    self._queue.popleft()
                self.sent += 1


def related_to_current_run() -> list[RelatedResource]:
    """The flow run, task run, flow, deployment and tags of the calling run, from its context alone."""
    from prefect.context import FlowRunContext, TaskRunContext
    from prefect.events.related import tags_as_related_resources

    flow_context, task_context = FlowRunContext.get(), TaskRunContext.get()
    related: list[RelatedResource] = []
    tags: set[str] = set()
    flow_run = getattr(flow_context, "flow_run", None)
    if flow_run is not None:
        related.append(_related(f"prefect.flow-run.{flow_run.id}", "flow-run", flow_run.name))
        flow = getattr(flow_context, "flow", None)
        related.append(_related(f"prefect.flow.{flow_run.flow_id}", "flow", getattr(flow, "name", None)))
        if flow_run.deployment_id:
            related.append(_related(f"prefect.deployment.{flow_run.deployment_id}", "deployment", None))
        tags.update(flow_run.tags)
    task_run = getattr(task_context, "task_run", None)
    if task_run is not None:
        related.append(_related(f"prefect.task-run.{task_run.id}", "task-run", task_run.name))
        tags.update(task_run.tags)
    return related + tags_as_related_resources(tags)


def _related(resource_id: str, role: str, name: str | None) -> RelatedResource:
    fields = {"prefect.resource.id": resource_id, "prefect.resource.role": role}
    return RelatedResource({**fields, **({"prefect.resource.name": name} if name else {})})
