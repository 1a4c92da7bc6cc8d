"""Run a long command (training) as its own process group that never outlives its owner.

Why: training spawns children (verifier pools, a Ray raylet, Ray worker
processes). Killing only the direct child leaves those running and holding
GPUs. The command therefore starts in a new session (`start_new_session=True`)
*through this module's watchdog* (`python -m rlvr_core.procgroup --owner PID
-- CMD...`), the session's leader and a child subreaper, which kills every
descendant — including Ray workers that moved to their own process group and
daemons orphaned by a crashed trainer — when
- the owner dies without cleaning up (SIGKILL of a cancelled flow run, an OOM
  kill): the watchdog notices within a second;
- the owner asks (`ProcessGroup.kill`, run on exit of the `with` block, so an
  exception or a cancellation signal in the owner ends training);
- the command itself exits, leaving stragglers behind.

Standard library only; no Prefect here.
"""

from __future__ import annotations

import contextlib
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
        """Ask the watchdog to end the command and everything it started; SIGKILL the group if it cannot."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=self.grace_s + 15)
            except subprocess.TimeoutExpired:
                kill_group(self.pgid, 0)
                self.proc.wait()
        if group_alive(self.pgid):
            kill_group(self.pgid, self.grace_s)
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
    """Run the command; when it ends, is told to stop, or the owner dies, kill everything it started."""
    if len(argv) < 4 or argv[0] != "--owner" or argv[2] != "--":
        print("usage: python -m rlvr_core.procgroup --owner PID -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    owner = int(argv[1])
    _become_subreaper()
    child = subprocess.Popen(argv[3:])
    stop = threading.Event()

    def on_term(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    # An owner that died (even one not yet reaped) no longer is our parent.
    while child.poll() is None and not stop.wait(POLL_S) and os.getppid() == owner:
        _reap_orphans(child.pid)
    interrupted = child.poll() is None
    _kill_descendants(grace_s=10.0 if interrupted else 3.0, keep=child.pid)
    status = child.wait()
    if interrupted:
        # Stopped from outside: never report success, even if the command exited 0 on SIGTERM.
        return 128 + signal.SIGTERM
    return 128 - status if status < 0 else status  # shell convention for a signal


def _become_subreaper() -> None:
    """Orphaned descendants (a Ray raylet whose driver crashed) are re-parented to us, not to init,
    so `_kill_descendants` still finds them; processes that leave the group (Ray workers call
    setpgid) are found through the parent tree instead. Linux only; elsewhere only the group is killed."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def _kill_descendants(grace_s: float, keep: int) -> None:
    """SIGTERM every descendant (with the subreaper, that includes every member of our group), then
    SIGKILL what is left after `grace_s`. `keep` (the command) is left for its Popen to reap, so
    its exit status is not lost."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    me, pgid = os.getpid(), os.getpgrp()
    targets = _descendants(me)
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        targets |= _descendants(me)
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            _reap_orphans(keep)
            targets = {pid for pid in targets if _live(pid)}
            if not targets and not group_alive(pgid, exclude=me):
                return
            time.sleep(0.1)


def _descendants(root: int) -> set[int]:
    """Live descendants of `root`, from the parent pids in /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields and fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def _reap_orphans(keep: int | None) -> None:
    """Wait for exited orphans re-parented to us (a subreaper must), leaving `keep` to its Popen."""
    for pid in list(Path("/proc").iterdir()):
        if pid.name.isdigit() and int(pid.name) != keep:
            fields = _stat_fields(int(pid.name))
            if fields and fields[0] == "Z" and int(fields[1]) == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(int(pid.name), os.WNOHANG)


def _stat_fields(pid: int) -> list[str] | None:
    """[state, ppid, pgrp, ...] of a process, or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _live(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


if __name__ == "__main__":
    sys.exit(_watchdog_main(sys.argv[1:]))
