"""Evaluations take devices from the plan, one evaluation per device, in the order they were submitted.

While training runs only the plan's `evaluators` are handed out; when
training ends its devices join them, so every queued evaluation runs
eventually and none ever lands on a GPU that trains or generates. Without
any GPU there is one CPU slot (`None`): evaluations on the CPU, one at a time.

`enter(label)` puts an evaluation in line; `take(label)` gives it a device
once it is first in line and one is free (never blocks: the flow's threads
wait in `acquire`, a simulation steps it by hand); `release` returns the
device. `waiting()` is the visible "waiting for a device" state.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from rlvr_core.devices.plan import Device, DevicePlan

CPU_SLOT = None


class QueueClosed(RuntimeError):
    """The run stopped (training failed, the flow was cancelled) while an evaluation waited for a device."""


class DeviceQueue:
    def __init__(self, plan: DevicePlan) -> None:
        self.plan = plan
        self._free: list[Device | None] = [CPU_SLOT] if plan.evaluates_on_cpu else list(plan.evaluators)
        self._line: list[str] = []
        self._held: dict[str, Device | None] = {}
        self.training = bool(plan.training_devices)
        self.closed = False
        self._changed = threading.Condition()

    @property
    def capacity(self) -> int:
        """Evaluations at once once training has ended."""
        return 1 if self.plan.evaluates_on_cpu else len(self.plan.all_devices)

    def enter(self, label: str) -> None:
        with self._changed:
            if label in self._line or label in self._held:
                raise ValueError(f"{label} is already queued or holds a device")
            self._line.append(label)

    def take(self, label: str) -> tuple[bool, Device | None]:
        """(True, device) when `label` is first in line and a device is free (it leaves the line);
        else (False, None)."""
        with self._changed:
            if not self._line or self._line[0] != label or not self._free:
                return False, None
            self._line.pop(0)
            device = self._free.pop(0)
            self._held[label] = device
            self._changed.notify_all()  # the next in line may take another free device
            return True, device

    def release(self, label: str) -> None:
        with self._changed:
            self._free.append(self._held.pop(label))
            self._free.sort(key=_order)
            self._changed.notify_all()

    def training_ended(self) -> None:
        """Training's devices join the evaluators (idempotent)."""
        with self._changed:
            if self.training:
                self.training = False
                self._free = sorted([*self._free, *self.plan.training_devices], key=_order)
                self._changed.notify_all()

    def close(self) -> None:
        """Stop handing out devices: every waiting `acquire` raises QueueClosed."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def waiting(self) -> list[str]:
        with self._changed:
            return list(self._line)

    def held(self) -> dict[str, Device | None]:
        with self._changed:
            return dict(self._held)

    def why_waiting(self) -> str:
        if self.training and not self.plan.evaluators:
            return "the device plan gives evaluations no GPU while training runs; it starts when training ends"
        return "every evaluation device is busy; it starts when one frees"

    def acquire(self, label: str, on_wait: Callable[[str], None] | None = None, poll_s: float = 30.0) -> Device | None:
        """Block until `label` holds a device; `on_wait(reason)` is called once if it has to wait."""
        self.enter(label)
        told = False
        with self._changed:
            while True:
                if self.closed:
                    self._line.remove(label)
                    raise QueueClosed(f"{label} never got a device: the run stopped while it waited")
                ok, device = self.take(label)
                if ok:
                    return device
                if not told and on_wait is not None:
                    told = True
                    on_wait(self.why_waiting())
                self._changed.wait(timeout=poll_s)

    @contextlib.contextmanager
    def device(self, label: str, on_wait: Callable[[str], None] | None = None) -> Iterator[Device | None]:
        device = self.acquire(label, on_wait)
        try:
            yield device
        finally:
            self.release(label)


def _order(device: Device | None) -> tuple[int, int]:
    return (-1, -1) if device is None else (device.node, device.gpu)
