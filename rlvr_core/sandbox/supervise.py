"""The parent's side of one run: its handle, its deadline, its kill, its status, its output, its memory.

The zygote's run process becomes the program (`zygote.py`), so the trusted
process (the verifier worker) supervises it: through a pidfd the run process
sends when it is ready, which works across the sandbox's pid namespaces and
cannot be confused with a recycled pid. Output comes from memfds this
process made and passed in; the wait status comes through the zygote's
status pipe once the template has reaped the run, that is once the run's
namespaces and tmpfs are gone (where runs share the host, after the zygote's
cleaner removed what the run left: `scrub.clean`).

Nothing here trusts the program: it never reads a frame from it (the grader
talks to a served program through `Session`), only kernel objects.
"""

from __future__ import annotations

import array
import ctypes
import json
import os
import select
import signal
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

POLL_S = 0.05  # how often the tree's memory is read where no cgroup limits it


@dataclass
class Run:
    """One run process, from the parent: its pidfd, its pid here, its output memfds, when it got its request,
    the cgroup's OOM kills before it."""

    pidfd: int
    pid: int
    stdout_fd: int
    stderr_fd: int
    started: float = 0.0
    oom_before: int = 0


def receive_run(ctl: socket.socket, deadline: float) -> tuple[int, dict] | None:
    """The next run process's frame and pidfd from the zygote: (pidfd, {"run": true} or {"error": ...}), or None
    when the zygote closed the channel or sent nothing in time. Reads that frame exactly (the pidfd comes with
    its first byte), never into the next."""
    header, fds = b"", []
    while len(header) < 4:
        if not _readable(ctl, deadline):
            break
        try:
            data, ancillary, _, _ = ctl.recvmsg(4 - len(header), socket.CMSG_SPACE(4 * 4))
        except OSError:
            break
        if not data:
            break
        header += data
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += array.array("i", payload[: len(payload) - len(payload) % 4]).tolist()
    body = _read_exact(ctl, struct.unpack(">I", header)[0], deadline) if len(header) == 4 else None
    if body is None or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return None
    return fds[0], json.loads(body)


def _readable(sock: socket.socket, deadline: float) -> bool:
    remaining = deadline - time.monotonic()
    return remaining > 0 and bool(select.select([sock], [], [], remaining)[0])


def _read_exact(sock: socket.socket, n: int, deadline: float) -> bytes | None:
    data = b""
    while len(data) < n:
        if not _readable(sock, deadline):
            return None
        try:
            chunk = sock.recv(n - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


def pid_of(pidfd: int) -> int:
    """The pid, in this process's namespace, of the process `pidfd` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as fh:
        for line in fh:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(f"no pid in the fdinfo of pidfd {pidfd}")


def wait(run: Run, status_fd: int, deadline: float, watch: Callable[[], str | None] | None) -> str | None:
    """Block until the run process ended (None), its time is up ("timeout"), `watch` (a poll of its tree's
    memory where no cgroup limits it) gives a reason, or the zygote died ("zygote": its status pipe closed
    while the run lives; a status is only ever written after the run ended)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        ready = select.select([run.pidfd, status_fd], [], [], min(remaining, POLL_S) if watch else remaining)[0]
        if run.pidfd in ready:
            return None
        if ready:
            return "zygote"
        if watch is not None and (why := watch()):
            return why


def ended(run: Run) -> bool:
    return bool(select.select([run.pidfd], [], [], 0)[0])


def kill(run: Run) -> None:
    """SIGKILL the run process (in its own pid namespace, the kernel then kills every process of the run)."""
    try:
        signal.pidfd_send_signal(run.pidfd, signal.SIGKILL)
    except OSError:
        pass  # already gone


def read_status(status_fd: int, deadline: float) -> tuple[int, int] | None:
    """The next statuses the template relays: the run process's wait status and its cleaner's (0 where none
    ran), as two native ints; None when none comes in time or the zygote is gone."""
    buf = b""
    while len(buf) < 8:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([status_fd], [], [], remaining)[0]:
            return None
        chunk = os.read(status_fd, 8 - len(buf))
        if not chunk:
            return None
        buf += chunk
    return ctypes.c_int.from_buffer_copy(buf[:4]).value, ctypes.c_int.from_buffer_copy(buf[4:]).value


RELAYED = 0x7FFFFFFF  # `zygote.RELAYED`: a status a tool's run process relays for the program it ran as pid 2


def read_statuses(status_fd: int, deadline: float) -> tuple[int, int] | None:
    """(the program's wait status, the cleaner's) for one run: the template's record, with the program's status
    taken from the record its run process relayed before it where it ran the program as pid 2 (a tool's run).
    None when none comes in time or the zygote is gone."""
    relayed = None
    while (record := read_status(status_fd, deadline)) is not None:
        if record[1] != RELAYED:
            return (record[0] if relayed is None else relayed), record[1]
        relayed = record[0]
    return None


def read_output(fd: int, cap: int, tail: bool) -> tuple[str, bool]:
    """The first (or last, `tail`) `cap` bytes a memfd holds, decoded, and whether there was more; closes it."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, cap, max(0, size - cap) if tail else 0)
    os.close(fd)
    return data.decode(errors="replace"), size > cap


# --- memory of the run's process tree, where no cgroup limits it -------------------------------------
def run_pids(template: int) -> list[int]:
    """Every process of the current run: the descendants of the template (its run process and whatever that
    started; the orphans come back to the template, a subreaper)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    children.setdefault(int(fh.read().rsplit(b")", 1)[1].split()[1]), []).append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], list(children.get(template, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def tree_rss(template: int) -> int:
    """Bytes resident in every process of the current run."""
    total = 0
    for pid in run_pids(template):
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as fh:
        return int(fh.read().rsplit(b")", 1)[1].split()[1])
