"""Run a long command (training) as its own process group that never outlives its owner.

Why a process group plus a watchdog: training spawns children (verifier pools,
Ray workers). Killing only the direct child leaves those running and holding
GPUs. The command therefore starts in a new session (`start_new_session=True`)
so one `killpg` reaches all of it, and it starts *through this module's
watchdog* (`python -m rlvr_core.procgroup --owner PID -- CMD...`), which is
the group leader: when the owner dies without cleaning up (SIGKILL of a
cancelled flow run, an OOM kill), the watchdog notices within a second and
kills the group. An owner that exits normally or raises kills the group
itself (`ProcessGroup.__exit__`).

Standard library only; no Prefect here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

POLL_S = 0.5


class ProcessGroup:
    """A command in its own session, guarded by a watchdog; iterate it for its output lines.

    Use as a context manager: leaving the block (normally, by an exception, or
    by a termination signal turned into an exception) kills every process in
    the group.
    """

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                 cwd: str | Path | None = None, grace_s: float = 10.0) -> None:
        if not argv:
            raise ValueError("argv is empty: pass the command to run, e.g. [sys.executable, '-m', 'module']")
        self.argv = list(argv)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.grace_s = grace_s
        self.proc: subprocess.Popen[str] | None = None

    @property
    def pgid(self) -> int:
        if self.proc is None:
            raise RuntimeError("process group not started")
        return self.proc.pid  # the watchdog leads its own session, so its pid is the group id

    def start(self) -> "ProcessGroup":
        command = [sys.executable, "-m", "rlvr_core.procgroup", "--owner", str(os.getpid()), "--", *self.argv]
        self.proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env=self.env, cwd=self.cwd, start_new_session=True,
        )
        return self

    def lines(self) -> Iterator[str]:
        """Output lines (stdout and stderr merged) without trailing newlines, until the command ends."""
        if self.proc is None or self.proc.stdout is None:
            raise RuntimeError("call start() (or enter the context) before reading lines")
        for line in self.proc.stdout:
            yield line.rstrip("\n")

    def wait(self) -> int:
        """The command's exit status (negative for a signal, like subprocess)."""
        if self.proc is None:
            raise RuntimeError("process group not started")
        return self.proc.wait()

    def kill(self) -> None:
        """SIGTERM the whole group, then SIGKILL whatever is left after `grace_s`."""
        if self.proc is None:
            return
        kill_group(self.pgid, self.grace_s)
        if self.proc.poll() is None:
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> "ProcessGroup":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.kill()


def group_alive(pgid: int, exclude: int | None = None) -> bool:
    """Whether the group has a live member other than `exclude`.

    Zombies do not count: an orphan's zombie lingers wherever PID 1 does not
    reap (some containers), but it holds no memory or GPU.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == exclude:
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def kill_group(pgid: int, grace_s: float) -> None:
    """SIGTERM, wait up to `grace_s` for the group to vanish, then SIGKILL."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _watchdog_main(argv: list[str]) -> int:
    """Group leader: run the command, forward SIGTERM, and kill the group when the owner dies."""
    if len(argv) < 4 or argv[0] != "--owner" or argv[2] != "--":
        print("usage: python -m rlvr_core.procgroup --owner PID -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    owner = int(argv[1])
    child = subprocess.Popen(argv[3:])
    stop = threading.Event()

    def on_term(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    while child.poll() is None:
        # An owner that died (even one not yet reaped) no longer is our parent.
        if stop.wait(POLL_S) or os.getppid() != owner:
            _terminate_own_group(child)
            break
    status = child.wait()
    return 128 - status if status < 0 else status  # shell convention for a signal


def _terminate_own_group(child: subprocess.Popen[bytes]) -> None:
    """Kill every other member of this group; the watchdog survives to report the exit status."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pgid = os.getpgrp()
    os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and group_alive(pgid, exclude=os.getpid()):
        child.poll()
        time.sleep(0.1)
    if group_alive(pgid, exclude=os.getpid()):
        os.killpg(pgid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(_watchdog_main(sys.argv[1:]))
