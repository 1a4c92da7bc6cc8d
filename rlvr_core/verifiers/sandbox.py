"""Run untrusted Python (model-written programs plus their asserts) contained.

How a program runs: a small "zygote" interpreter (`sandbox_zygote.py`,
standard library only, `python -S -I`) is started once per `Sandbox`; it
forks one child per program, so a run costs a fork, not an interpreter
start-up. Each child:

- runs in its own session/process group, in a fresh temp working directory
  that is deleted afterwards, with stdin from /dev/null and stdout/stderr sent
  to a file whose size is capped (RLIMIT_FSIZE) and read back only in its last
  `output_cap` bytes;
- has rlimits on CPU time, address space, processes (RLIMIT_NPROC), file size,
  open files and core dumps;
- switches to an unprivileged uid/gid when the zygote runs as root. This
  matters because RLIMIT_NPROC is not enforced for root (the kernel exempts
  uid 0), and because root could read host files. Each `Sandbox` takes its own
  uid (`SANDBOX_UID_BASE` + pid % 4096) so one program's fork bomb cannot use
  up another's process quota;
- starts with an empty environment (PATH and LANG only: no AWS_*, no tokens);
- has a wall-clock timeout (default 5 s) after which its process group and,
  inside the namespace, every other process but the zygote is SIGKILLed; the
  zygote checks none is left before it answers;
- passes only if it exits 0 *and* writes a per-run random nonce on a private
  pipe after the last assert, so `sys.exit(0)` / `os._exit(0)` before the
  asserts do not count as a pass.

Where bubblewrap (`bwrap`) is installed and we are root (the normal case on
our machines: `apt-get install bubblewrap`), the zygote runs inside fresh pid,
network, mount, ipc and uts namespaces with a read-only view of /usr, /etc and
the interpreter only (no /root, no home directories, no project files), a
private size-capped tmpfs /tmp and no network interfaces but a loopback of its
own. When the zygote or the worker dies, the pid namespace dies with it.

Fallback without bwrap ("host" mode, logged once): no namespaces; an audit
hook in the child refuses socket creation, subprocesses, fork/exec, signals to
other processes and ctypes. That blocks the usual Python routes but is not a
security boundary (C extensions can bypass audit hooks), and the host file
system is visible with the sandbox uid's permissions. As root, host mode still
switches uid, so it needs an interpreter every user can run: ours when its
whole path is world-traversable (not the case for a pyenv under /root), else
the system `python3`; with neither it refuses to run programs at all rather
than run them as root (where `os.kill(-1, SIGKILL)` would end every process
on the machine). Without root there is no uid switch, so RLIMIT_NPROC applies
to the whole user and leftover daemons are only killed by process group.

Not covered, in any mode: CPU or memory side channels, kernel exploits, denial
of service through the shared page cache or disk I/O bandwidth, and a program
that reads the nonce out of its own interpreter's memory to fake a pass. It is
meant for reward hacking by a policy model and careless code, like nanochat's
execution.py, not for adversaries with kernel 0-days.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import secrets
import select
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

SANDBOX_UID_BASE = 61000
SANDBOX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
HOST_MODE_BLOCKED_EVENTS = (
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.fork", "os.forkpty", "os.kill", "os.killpg", "ctypes.dlopen", "ctypes.dlsym",
)
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")
ROOT_REFUSAL = ("sandbox refused to run the program: bubblewrap is not installed and no python3 (>= 3.9) that "
                "every user can run was found, so the program would have run as root. Fix: `apt-get install "
                "bubblewrap`, or install a system python3 (e.g. `apt-get install python3`).")
_ZYGOTE_SOURCE = (Path(__file__).parent / "sandbox_zygote.py").read_text()

ExecStatus = Literal["passed", "failed", "timeout", "error"]


@dataclass(frozen=True)
class ExecResult:
    """What happened to one program: `status` "passed" only on exit 0 after the last line ran."""

    status: ExecStatus
    returncode: int | None
    output: str
    duration_s: float


def _bwrap_command(interpreter: str, prefix: str, tmpfs_bytes: int) -> list[str]:
    """bwrap arguments exposing /usr, /etc and the interpreter's prefix read-only, nothing else."""
    cmd = [
        "bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--die-with-parent", "--new-session", "--clearenv",
        "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
        "--proc", "/proc", "--dev", "/dev", "--size", str(tmpfs_bytes), "--tmpfs", "/tmp",
    ]
    for name in ("bin", "lib", "lib64", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            cmd += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            cmd += ["--ro-bind", str(path), str(path)]
    if not prefix.startswith("/usr/"):
        parents = list(Path(prefix).parents)[::-1][1:]  # "/" itself exists already
        for parent in parents:
            cmd += ["--perms", "0755", "--dir", str(parent)]
        cmd += ["--ro-bind", prefix, prefix]
    for key, value in SANDBOX_ENV.items():
        cmd += ["--setenv", key, value]
    return cmd + ["--chdir", "/tmp", interpreter]


def _others_can_read(path: str) -> bool:
    """True if every directory down to `path` is traversable by any user."""
    current = Path(path).resolve()
    return all(p.stat().st_mode & 0o001 for p in [current, *current.parents])


@functools.cache
def _host_interpreter() -> str | None:
    """An interpreter the unprivileged sandbox uid can run (and import the standard library with), or None.

    Ours when every directory down to its prefix is world-traversable, else the
    first system python3 >= 3.9 (the zygote and MBPP programs need only the
    standard library, so its version need not match ours).
    """
    ours = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    if _others_can_read(sys.base_prefix) and _others_can_read(ours):
        return ours
    for candidate in SYSTEM_PYTHONS:
        path = os.path.realpath(candidate)
        if not os.path.isfile(path) or not _others_can_read(path):
            continue
        probe = subprocess.run([path, "-S", "-I", "-c", "import sys; print(sys.version_info >= (3, 9), sys.prefix)"],
                               capture_output=True, text=True, env=dict(SANDBOX_ENV), timeout=30)
        ok, _, prefix = probe.stdout.strip().partition(" ")
        if probe.returncode == 0 and ok == "True" and _others_can_read(prefix):
            return path
    return None


def isolation_mode() -> Literal["namespace", "host"]:
    """"namespace" when bwrap can run as root here, else the weaker "host" fallback."""
    return "namespace" if os.geteuid() == 0 and shutil.which("bwrap") else "host"


class Sandbox:
    """One zygote and the programs it runs, one at a time (thread-safe).

    Use one per process; `run` restarts the zygote if it died or hung.
    """

    def __init__(
        self,
        *,
        mode: Literal["namespace", "host"] | None = None,
        output_cap: int = 4096,
        fsize_cap: int = 16 << 20,
        nproc_cap: int = 32,
        tmpfs_bytes: int = 64 << 20,
    ) -> None:
        self.mode = mode or isolation_mode()
        self._output_cap = output_cap
        self._fsize_cap = fsize_cap
        self._nproc_cap = nproc_cap
        self._tmpfs_bytes = tmpfs_bytes
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._interpreter = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
        self._refusal: str | None = None
        if self.mode == "host":
            log.warning("sandbox: bwrap or root unavailable; using host mode (audit-hook fallback, weaker)")
            if os.geteuid() == 0:
                interpreter = _host_interpreter()
                if interpreter is None:
                    self._refusal = ROOT_REFUSAL
                    log.error(ROOT_REFUSAL)
                else:
                    self._interpreter = interpreter

    def _start(self) -> subprocess.Popen[bytes]:
        # As root, programs always run as the sandbox uid (never root); as another user there is nothing to switch to.
        uid = SANDBOX_UID_BASE + os.getpid() % 4096 if os.geteuid() == 0 else -1
        config = {
            "uid": uid, "gid": uid, "in_namespace": self.mode == "namespace",
            "output_cap": self._output_cap, "fsize_cap": self._fsize_cap, "nproc_cap": self._nproc_cap,
            "blocked_audit_events": [] if self.mode == "namespace" else list(HOST_MODE_BLOCKED_EVENTS),
        }
        argv = ["-S", "-I", "-c", _ZYGOTE_SOURCE, json.dumps(config)]
        if self.mode == "namespace":
            cmd = _bwrap_command(self._interpreter, sys.base_prefix, self._tmpfs_bytes) + argv
        else:
            cmd = [self._interpreter, *argv]
        return subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=dict(SANDBOX_ENV), start_new_session=True, close_fds=True,
        )

    def close(self) -> None:
        """Kill the zygote and everything under it."""
        with self._lock:
            self._kill()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def run(self, program: str, timeout_s: float = 5.0, memory_mb: int = 1024) -> ExecResult:
        """Run `program` to completion or `timeout_s`; never raises on what the program does."""
        request = {"program": program, "timeout_s": timeout_s, "memory_mb": memory_mb, "nonce": secrets.token_hex(16)}
        payload = json.dumps(request).encode()
        if self._refusal is not None:
            return ExecResult("error", None, self._refusal, 0.0)
        with self._lock:
            for attempt in range(2):  # a dead zygote is restarted once
                if self._proc is None or self._proc.poll() is not None:
                    self._kill()
                    self._proc = self._start()
                try:
                    return self._exchange(self._proc, payload, timeout_s + 5.0)
                except (OSError, ValueError, EOFError) as exc:
                    self._kill()
                    if attempt == 1:
                        return ExecResult("error", None, f"sandbox failed: {exc}", 0.0)
                except TimeoutError:
                    self._kill()
                    return ExecResult("timeout", None, "sandbox zygote did not answer; restarted", timeout_s)
        raise AssertionError("unreachable")

    @staticmethod
    def _exchange(proc: subprocess.Popen[bytes], payload: bytes, deadline_s: float) -> ExecResult:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(struct.pack(">I", len(payload)) + payload)
        proc.stdin.flush()
        end = time.monotonic() + deadline_s
        if not select.select([proc.stdout], [], [], deadline_s)[0]:
            raise TimeoutError
        header = proc.stdout.read(4)
        if len(header) < 4:
            raise EOFError("zygote closed its pipe")
        size = struct.unpack(">I", header)[0]
        if time.monotonic() > end:
            raise TimeoutError
        reply = json.loads(proc.stdout.read(size))
        return ExecResult(reply["status"], reply["returncode"], reply["output"], reply["duration_s"])


_default: tuple[int, Sandbox] | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """This process's shared sandbox, started on first use (a forked child gets its own)."""
    global _default
    with _default_lock:
        if _default is None or _default[0] != os.getpid():
            _default = (os.getpid(), Sandbox())
        return _default[1]


def run_program(program: str, timeout_s: float = 5.0, memory_mb: int = 1024) -> ExecResult:
    """Run one program in this process's default sandbox."""
    return default_sandbox().run(program, timeout_s=timeout_s, memory_mb=memory_mb)
