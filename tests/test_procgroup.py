"""A training process group never outlives its owner: not on exit, not on error, not on SIGKILL of the owner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlvr_core.procgroup import ProcessGroup, group_alive

# A stand-in for training: a parent that spawns a grandchild (as verifier pools and Ray do), prints, and sleeps.
SPAWNER = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "print('started', child.pid, flush=True)\n"
    "time.sleep(120)\n"
)


def wait_gone(pgid: int, timeout_s: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return True
        time.sleep(0.1)
    return False


def test_lines_are_streamed_and_exit_status_reported() -> None:
    with ProcessGroup([sys.executable, "-c", "print('a'); print('b'); raise SystemExit(3)"]) as group:
        lines = list(group.lines())
        status = group.wait()
    assert lines == ["a", "b"]
    assert status == 3


def test_an_error_in_the_owner_kills_the_whole_group() -> None:
    with pytest.raises(RuntimeError, match="evaluation failed"):
        with ProcessGroup([sys.executable, "-c", SPAWNER]) as group:
            first = next(group.lines())
            grandchild = int(first.split()[1])
            pgid = group.pgid
            raise RuntimeError("evaluation failed")
    assert wait_gone(pgid, timeout_s=2), "a member of the training group survived the owner's exception"
    assert not Path(f"/proc/{grandchild}").exists() or "Z" in Path(f"/proc/{grandchild}/stat").read_text().split()[2]


def test_a_command_stopped_from_outside_never_reports_success() -> None:
    """A cancelled training must not look finished: the watchdog's status says it was terminated."""
    quiet_on_term = ("import signal, sys, time\n"
                     "signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))\n"
                     "print('ready', flush=True)\n"
                     "time.sleep(120)\n")
    group = ProcessGroup([sys.executable, "-c", quiet_on_term]).start()
    assert next(group.lines()) == "ready"
    group.kill()
    assert group.wait() == 128 + signal.SIGTERM


def test_a_command_killed_by_a_signal_reports_it() -> None:
    with ProcessGroup([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]) as group:
        status = group.wait()
    assert status == 128 + signal.SIGKILL  # the shell's convention, as the watchdog reports it


@pytest.mark.slow
def test_sigkill_of_the_owner_kills_the_group_through_the_watchdog(tmp_path: Path) -> None:
    owner_script = tmp_path / "owner.py"
    owner_script.write_text(
        "import sys\n"
        "from rlvr_core.procgroup import ProcessGroup\n"
        f"group = ProcessGroup([sys.executable, '-c', {SPAWNER!r}]).start()\n"
        "next(group.lines())\n"
        "print(group.pgid, flush=True)\n"
        "import time; time.sleep(120)\n"
    )
    owner = subprocess.Popen([sys.executable, str(owner_script)], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[1])
    pgid = int(owner.stdout.readline())
    assert group_alive(pgid)
    owner.send_signal(signal.SIGKILL)  # no cleanup code runs in the owner
    owner.wait()
    assert wait_gone(pgid, timeout_s=10), "the training group outlived a SIGKILLed owner"


def test_empty_command_is_refused() -> None:
    with pytest.raises(ValueError, match="argv is empty"):
        ProcessGroup([])
