"""Run untrusted Python contained: for tools (bounded output and a status) and for grading.

Entry points. `Sandbox.run(program)` / `run_program(...)` runs a program as
`python program.py` would and returns status, exit code, the first 4 KB of
stdout and the last 4 KB of stderr (for model-code tools, e.g. a
`run_python` tool: give `extra_paths=[site-packages]` to make bs4 importable,
read-only). `Sandbox.serve(program)` runs a program and keeps it alive to
answer calls over two pipes, with plain data only (`sandbox/codec.py`);
`verifiers/code/grader.py` uses it so that MBPP asserts are evaluated in the
caller, never inside the sandbox. `check_sandbox()` raises
`SandboxUnavailable` when no allowed mode works: call it at start to fail
fast; `Sandbox.describe()` says which guarantees a run has (for run.json).
docs/SECURITY.md lists the attack classes and the test of each.

How a program runs (every mode). A long-lived zygote (`sandbox/zygote.py`,
standard library only) forks each program, so a run costs a fork, not an
interpreter start. The zygote never opens a path the program can name:
output goes to memfds it holds; grading traffic goes straight to the caller;
a run is never re-sent once the zygote may have received it. Each program:
its own session; stdin /dev/null; a fresh working directory and TMPDIR;
environment PATH and LANG only; rlimits on CPU time, address space
(`memory_mb`), processes, file size (16 MB), open files (64), core dumps; as
root, a uid of its own (a flock lease on 61000-65095 makes it unique on the
machine) with no supplementary groups; no_new_privs; the seccomp filter of
`sandbox/seccomp.py` (x86_64, aarch64: no new sockets, ptrace, process_vm_*,
pidfds, io_uring, namespaces, mounts, keyrings, BPF, perf, modules, POSIX
message queues); where a cgroup (v2, else v1) is writable, `memory_mb` and
32 tasks for its whole process tree, tmpfs pages included (the zygote lives
in that cgroup too, so runs are born inside it, with 16 MB and one task of
its own on top); oom_score_adj 1000 for programs, -1000 for the zygote where
the host allows it.

Nothing carries from one run to the next. As root in namespaces (bwrap, or
host with `unshare`) each run has new PID, IPC (SysV and POSIX) and mount
namespaces: the zygote enters them, forks their init (pid 1, it only reaps
orphans) and the program (pid 2) with its own /proc and size- and
inode-capped tmpfs on /tmp and /dev/shm, and returns to its own. Killing the init ends the run; namespaces, tmpfs and IPC objects go
with it, within the run's own time (a run the caller ends is answered first
and reaped before the next request is read). Without namespaces every
process of the run's uid is SIGKILLed and its files and SysV objects scrubbed
before the reply (`sandbox/scrub.py`: iterative, within a time budget).

Modes, picked once per `Sandbox` by a setting (the argument, else
RLVR_SANDBOX, else "auto") and each checked by a probe program (uid, network
closed, output) before any real one runs:

- "bwrap": bubblewrap, by absolute path, with new pid, network, mount, ipc
  and uts namespaces. The program sees read-only /usr, /etc and the
  interpreter's prefix (plus `extra_paths`), its own /proc and minimal /dev,
  private size-capped (64 MB) /tmp and /dev/shm, a loopback of its own.
- "host": no bubblewrap. As root where `unshare` may create namespaces, the
  zygote starts in the same five namespaces and builds the same view itself
  (mount + pivot_root): the same guarantees as bwrap. Where the host forbids
  namespaces (Docker's default seccomp profile) it runs on the host file
  system with the uid, seccomp, cgroup and a scrub of /tmp, /var/tmp,
  /dev/shm, /dev/mqueue and SysV IPC after each run; `Sandbox.lacks` then
  lists what is missing: other processes visible in /proc, world-readable
  host files (the checkout, a dataset store) readable, no total disk quota
  on /tmp during a run, files left in other world-writable folders, pid
  numbers shared with the host. Host
  mode needs root (else the program would act as the caller) and a closed
  network (seccomp or a network namespace), else it refuses.
- "auto" (default): bwrap if its probe passes, else host, logged as a
  warning with the reason; else refuse.
- "host-unsafe": explicit opt-in to run with whatever this machine allows
  (not root: no uid switch), every gap in `lacks` and the log.

Refusing: every run returns status "error" with the reasons and the fix;
nothing runs as root or unconfined by accident.

Not covered, in any mode: kernel exploits, CPU and cache side channels,
denial of service through the shared page cache or disk I/O bandwidth, and
the CPU a program burns within its limits. Without a writable cgroup the
tree's memory is polled every 50 ms (a fast allocation can overshoot in
between), and processes are capped per uid by RLIMIT_NPROC. Without root
there is no uid switch: a program can reach the caller's files (host-unsafe)
and, in bwrap, signal the zygote. Meant for a policy model hacking its reward
and for careless code, like nanochat's execution.py, not for adversaries with
kernel 0-days.
"""

from __future__ import annotations

import contextlib
import getpass
import logging
import os
import platform
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from rlvr_core.sandbox import host
from rlvr_core.sandbox.channel import ExecResult, Session, SessionEnded, recv_frame, send_frame
from rlvr_core.sandbox.host import SANDBOX_ENV, SANDBOX_UID_BASE, SCRUB_DIRS, Cgroup, UidLease
from rlvr_core.sandbox.seccomp import SYSCALLS, filter_program

log = logging.getLogger(__name__)

SandboxSetting = Literal["auto", "bwrap", "host", "host-unsafe"]
SETTINGS: tuple[str, ...] = get_args(SandboxSetting)
PROBE = ("import os, socket\ntry:\n    socket.socket().close()\n    net = 'open'\nexcept OSError:\n    net = 'blocked'\n"
         "print(os.getuid(), net, sum(range(5)))")
START_TIMEOUT_S = 60.0  # an interpreter start on a loaded 2-core machine
REPLY_SLACK_S = 30.0  # past the program's own limit, for the zygote's clean-up under load
ZYGOTE_MEMORY_MB = 16  # what the zygote may allocate inside the cgroup it shares with the program
OWN_TASKS = 1  # tasks of the cgroup that are not the program's: the zygote
TMPFS_INODES = 16384  # files a run may create in its private /tmp or /dev/shm: bounds the teardown
MAX_RETIREMENTS = 3  # uids retired in a row at a zygote's start (each held a killed sandbox's flood) before going on

__all__ = ["SANDBOX_UID_BASE", "SETTINGS", "ExecResult", "Sandbox", "SandboxSetting", "SandboxUnavailable",
           "Session", "SessionEnded", "check_sandbox", "default_sandbox", "run_program", "sandbox_guarantees"]


class SandboxUnavailable(RuntimeError):
    """No mode the setting allows works on this machine; the message says why and how to fix it."""


@dataclass(frozen=True)
class _Launcher:
    mode: str  # "bwrap", "host" or "host-unsafe"
    prefix: tuple[str, ...]  # command before the interpreter (bwrap or unshare and their arguments)
    interpreter: str
    view: list | None  # built by the zygote itself (host mode in fresh namespaces)
    namespaces: bool
    description: str


@dataclass
class _Zygote:
    proc: subprocess.Popen
    ctl: socket.socket
    stderr: object
    ready: dict  # its first frame: pid, seccomp, oom_protected


def _close_zygote(zygote: _Zygote | None) -> None:
    if zygote is None:
        return
    try:
        os.killpg(zygote.proc.pid, 9)
    except OSError:
        pass
    zygote.proc.wait()
    zygote.ctl.close()
    zygote.stderr.close()


def _stderr_tail(zygote: _Zygote) -> str:
    """The last lines the zygote (or bwrap/unshare) wrote to its stderr: why it failed to start or died."""
    with contextlib.suppress(OSError, ValueError):
        zygote.stderr.seek(0)
        return zygote.stderr.read()[-400:].decode(errors="replace").strip()
    return ""


class _Resources:
    """What a Sandbox holds, released together (by `close` or when the Sandbox is collected)."""

    def __init__(self) -> None:
        self.zygote: _Zygote | None = None
        self.cgroup: Cgroup | None = None
        self.lease: UidLease | None = None
        self.scrubbers: list[subprocess.Popen] = []  # background scrubbers of the uids this sandbox retired
        self.owner = os.getpid()

    def release(self) -> None:
        if os.getpid() != self.owner:  # a forked child exiting must not kill its parent's zygote or cgroup
            return
        _close_zygote(self.zygote)
        self.zygote = None
        if self.cgroup is not None:
            self.cgroup.close()
        if self.lease is not None:
            self.lease.release()


class Sandbox:
    """One zygote and the programs it runs, one at a time (thread-safe); use one per process.

    The constructor picks the mode (see the module docstring) and runs a probe;
    `mode` is then "bwrap", "host" or "host-unsafe", or None with `refusal`
    set. `lacks` names each guarantee this mode does not give on this machine,
    `fallback_from` why the modes tried before it were not used.

    `output_cap`: bytes of stdout (first) and stderr (last) kept per run;
    `fsize_cap`: largest file a program may write; `nproc_cap`: processes and
    threads of one program's tree; `tmpfs_bytes`: size of the private /tmp and
    /dev/shm; `extra_paths`: folders bound read-only and put on sys.path;
    `scrub_budget_s`: time a run without namespaces spends removing its files
    before its reply (past it the uid is retired to a background scrubber).
    `fresh_namespaces`: whether each run gets namespaces of its own (root in
    namespaces), else runs share the zygote's and are scrubbed.
    """

    def __init__(
        self,
        setting: SandboxSetting | None = None,
        *,
        output_cap: int = 4096,
        fsize_cap: int = 16 << 20,
        nproc_cap: int = 32,
        tmpfs_bytes: int = 64 << 20,
        extra_paths: Sequence[str] = (),
        scrub_budget_s: float = 2.0,
    ) -> None:
        self.setting = setting or os.environ.get("RLVR_SANDBOX") or "auto"
        if self.setting not in SETTINGS:
            raise ValueError(f"sandbox setting {self.setting!r} (argument or RLVR_SANDBOX) must be one of {SETTINGS}")
        self._output_cap, self._fsize_cap, self._nproc_cap = output_cap, fsize_cap, nproc_cap
        self._tmpfs_bytes, self._scrub_budget_s = tmpfs_bytes, scrub_budget_s
        self._extra_paths = [os.path.realpath(p) for p in extra_paths]
        self._lock = threading.Lock()
        self._res = _Resources()
        self._finalizer = weakref.finalize(self, self._res.release)
        self._root = os.geteuid() == 0
        if self._root:
            self._res.lease = UidLease()
            self._res.cgroup = Cgroup.create()
        self.uid = self._res.lease.uid if self._res.lease else -1
        self._launcher: _Launcher | None = None
        self.mode: str | None = None
        self.lacks: tuple[str, ...] = ()
        self.fallback_from: tuple[str, ...] = ()  # why the modes tried before this one were not used
        self.refusal: str | None = None
        self._choose()

    @property
    def fresh_namespaces(self) -> bool:
        return self._launcher is not None and self._launcher.namespaces and self._root

    def describe(self) -> dict:
        """The setting, the mode picked, what it lacks and why other modes were not used: what a run records
        (run.json) and logs at its start, so a user knows the guarantees of the run they started."""
        return {"setting": self.setting, "mode": self.mode, "lacks": list(self.lacks),
                "fallback_from": list(self.fallback_from), "refusal": self.refusal}

    # --- choosing a mode --------------------------------------------------------------------
    def _candidates(self) -> list[_Launcher | str]:
        """Launchers to try in order, or a string saying why one is not available here."""
        interpreter, prefix = host.our_interpreter()
        spec = host.view(prefix, self._extra_paths, self._tmpfs_bytes)
        bwrap, unshare = host.find_tool(host.BWRAP_PATHS, "bwrap"), host.find_tool(host.UNSHARE_PATHS, "unshare")
        out: list[_Launcher | str] = []
        if self.setting in ("auto", "bwrap"):
            if bwrap is None:
                out.append("bwrap: not installed (apt-get install bubblewrap)")
            else:
                prefix_args = (bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                               "--die-with-parent", "--new-session", "--clearenv", *host.bwrap_args(spec),
                               *[a for k, v in SANDBOX_ENV.items() for a in ("--setenv", k, v)], "--chdir", "/tmp")
                out.append(_Launcher("bwrap", prefix_args, interpreter, None, True, f"bubblewrap ({bwrap})"))
        if self.setting == "bwrap":
            return out
        mode = "host-unsafe" if self.setting == "host-unsafe" else "host"
        if not self._root and mode == "host":
            out.append("host: needs root, to run programs as a uid of their own")
            return out
        if self._root and unshare is not None:
            ns_prefix = (unshare, "--pid", "--fork", "--kill-child", "--net", "--ipc", "--uts", "--mount", "--propagation", "private")
            out.append(_Launcher(mode, ns_prefix, interpreter, host.host_view(spec), True, f"unshare namespaces ({unshare})"))
        shared = host.shared_interpreter() if self._root else interpreter
        if shared is None:
            out.append("host without namespaces: no python3 that the sandbox uid can run (apt-get install python3)")
        else:
            out.append(_Launcher(mode, (), shared, None, False, f"host file system, {shared}"))
        return out

    def _choose(self) -> None:
        failures = []
        for candidate in self._candidates():
            if isinstance(candidate, str):
                failures.append(candidate)
                continue
            self._launcher = candidate
            why = self._probe(candidate)
            if why is None:
                self.mode = candidate.mode
                self.lacks = self._lacks(candidate)
                self.fallback_from = tuple(failures)
                quiet = candidate.mode == "bwrap" and not self.lacks
                (log.info if quiet else log.warning)(
                    "sandbox: %s mode via %s%s%s", candidate.mode, candidate.description,
                    "".join(f"\n  not available: {item}" for item in failures),
                    "".join(f"\n  lacks: {item}" for item in self.lacks))
                return
            failures.append(f"{candidate.mode} via {candidate.description}: {why}")
            self._stop()
        self._launcher = None
        self.refusal = (f"sandbox refused to run programs (setting {self.setting!r}): "
                        + "; ".join(failures)
                        + ". Fix: apt-get install bubblewrap on a host that allows namespaces, run the verifier as root "
                          "for host mode, or set RLVR_SANDBOX=host-unsafe to accept weaker containment.")
        log.error(self.refusal)

    def _probe(self, launcher: _Launcher) -> str | None:
        """None if a trivial program runs and is contained as this setting requires, else why not."""
        result = self._execute({"program": PROBE, "harness": "exec", "timeout_s": 30.0, "memory_mb": 256})
        fields = result.stdout.split()
        if result.status != "ok" or len(fields) != 3 or fields[2] != "10":
            return f"probe program gave {result.status} ({result.detail or result.stderr.strip()[-300:]})"
        if self.uid >= 0 and fields[0] != str(self.uid):
            return f"probe program ran as uid {fields[0]}, not the sandbox uid {self.uid}"
        if launcher.mode == "host" and fields[1] != "blocked" and not launcher.namespaces:
            return "the network is open: no seccomp filter and no network namespace"
        return None

    def _lacks(self, launcher: _Launcher) -> tuple[str, ...]:
        out = []
        if self.uid < 0:
            out.append(f"no uid switch (not root): programs run as {getpass.getuser()}, with its file access, and can "
                       "signal its processes outside the pid namespace")
            if launcher.namespaces:
                out.append("no namespaces per run (not root): runs share the zygote's; /tmp and /dev/shm are scrubbed "
                           "after each run and pid numbers carry over")
        if self._res.cgroup is None:
            out.append("no writable cgroup: memory is limited per process (RLIMIT_AS) and polled for the whole tree every "
                       "50 ms; processes by RLIMIT_NPROC")
        zygote = self._res.zygote
        if zygote is not None and not zygote.ready.get("proc_private", True):
            out.append("no private /proc (the kernel mounts no `subset=pid` /proc, Linux < 5.8): host-wide counters such "
                       "as /proc/stat's fork count are readable in a run")
        if zygote is not None and not zygote.ready.get("fixed_pids", True):
            out.append("no fixed pids per run (ns_last_pid is not writable): the zygote's memory, which every run "
                       "inherits, holds the previous run's pid in the sandbox's namespace, a count of the processes "
                       "earlier runs started")
        if zygote is not None and not zygote.ready.get("oom_protected"):
            out.append("no OOM protection for the zygote (the host refuses oom_score_adj -1000: no CAP_SYS_RESOURCE): "
                       "programs (1000) go first, the zygote (0) could go once they are gone")
        if platform.machine() not in SYSCALLS:
            out.append(f"no seccomp filter on {platform.machine()}: sockets, ptrace, io_uring, namespaces are not refused")
        if not launcher.namespaces:
            out += ["no pid namespace: other processes are visible in /proc (not signalable: another uid)",
                    "no mount namespace: host files are readable with the sandbox uid's permissions (world-readable "
                    "project files and dataset stores included)",
                    "no private /tmp: world-writable directories are shared during a run; /tmp, /var/tmp, /dev/shm and "
                    "/dev/mqueue are scrubbed after it (up to 2 s per run; a run that leaves more has its uid retired to a "
                    "background scrubber and the next run gets a clean uid), files left in other world-writable "
                    "directories survive",
                    "no network namespace: the network is closed by the seccomp filter alone",
                    "no IPC namespace: SysV objects are scrubbed after each run; POSIX message queues are refused by "
                    "seccomp",
                    "pid numbers and kernel counters are shared with the host: a later run can see how many processes "
                    "an earlier one started (the grader never tells a program which tests passed)",
                    "no disk quota: files in /tmp are limited to 16 MB each (RLIMIT_FSIZE), not in total, until the scrub"]
        return tuple(out)

    # --- the zygote --------------------------------------------------------------------------
    def _start(self, launcher: _Launcher) -> _Zygote:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cgroup = self._res.cgroup
        cgroup_fds = cgroup.procs_fds() if cgroup else []
        events_fd = cgroup.events_fd() if cgroup else -1
        config = {
            "control_fd": theirs.fileno(), "cgroup_fds": cgroup_fds, "oom_events_fd": events_fd, "uid": self.uid,
            "pid_ns": launcher.namespaces, "view": launcher.view, "private_tmp": launcher.namespaces,
            "fresh_ns": launcher.namespaces and self._root, "tmpfs_bytes": self._tmpfs_bytes,
            "tmpfs_inodes": TMPFS_INODES, "scrub_dirs": SCRUB_DIRS, "scrub_budget_s": self._scrub_budget_s,
            "seccomp": (filter_program(platform.machine()) or b"").hex() or None,
            "output_cap": self._output_cap, "fsize_cap": self._fsize_cap, "nproc_cap": self._nproc_cap,
            # In namespaces a folder under /tmp is bound elsewhere (see host.sandbox_path); without, it is where it is.
            "extra_paths": [host.sandbox_path(p, i) for i, p in enumerate(self._extra_paths)]
            if launcher.namespaces else self._extra_paths,
        }
        stderr = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen([*launcher.prefix, *host.zygote_argv(launcher.interpreter, config)],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                    env=dict(SANDBOX_ENV), start_new_session=True,
                                    pass_fds=[theirs.fileno(), *cgroup_fds, *([events_fd] if cgroup else [])])
        except OSError as exc:
            ours.close()
            stderr.close()
            raise OSError(f"could not start {launcher.description}: {exc}") from exc
        finally:
            theirs.close()
        zygote = _Zygote(proc, ours, stderr, {})
        first = recv_frame(ours, time.monotonic() + START_TIMEOUT_S)
        if not first or not first.get("ready"):
            why = (first or {}).get("error") or _stderr_tail(zygote) or "the zygote exited before it was ready"
            _close_zygote(zygote)
            raise OSError(why)
        zygote.ready = first
        return zygote

    def _start_clean(self, launcher: _Launcher) -> _Zygote:
        """A zygote whose uid holds nothing of an earlier sandbox: one that found more leftovers than it could
        remove in its time budget (a killed sandbox's flood) is stopped and its uid retired, a few times."""
        for _ in range(MAX_RETIREMENTS):
            zygote = self._start(launcher)
            if zygote.ready.get("clean", True) or self._res.lease is None:
                return zygote
            _close_zygote(zygote)
            self._retire_uid()
        return self._start(launcher)

    def _retire_uid(self) -> None:
        """Hand this sandbox's uid to a background scrubber (what a run left was more than its scrub budget
        removes) and lease a clean one; the next run starts a zygote with it."""
        assert self._res.lease is not None
        self._stop()
        self._res.scrubbers = [p for p in self._res.scrubbers if p.poll() is None]
        self._res.scrubbers.append(self._res.lease.retire(SCRUB_DIRS))
        self._res.lease = UidLease()
        self.uid = self._res.lease.uid

    def _stop(self) -> None:
        _close_zygote(self._res.zygote)
        self._res.zygote = None

    def close(self) -> None:
        """Kill the zygote and everything under it; release the uid and the cgroup."""
        with self._lock:
            self._finalizer()

    # --- running -----------------------------------------------------------------------------
    def _send(self, request: dict, fds: Sequence[int]) -> _Zygote:
        """Hand one request to a live zygote, starting one if needed. Raises OSError if none would take it.

        A request is resent only when the zygote could not have received it
        whole, so a program never runs twice.
        """
        assert self._launcher is not None
        for attempt in range(2):
            zygote = self._res.zygote
            if zygote is None or zygote.proc.poll() is not None:
                self._stop()
                zygote = self._res.zygote = self._start_clean(self._launcher)
            try:
                send_frame(zygote.ctl, request, fds)
                return zygote
            except OSError:
                self._stop()
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def _begin(self, request: dict, fds: Sequence[int]) -> _Zygote | ExecResult:
        """Set the limits and send one run: the zygote it went to, or an "error" result."""
        cgroup = self._res.cgroup
        try:
            if cgroup is not None:  # the zygote shares the cgroup: room for its own small allocations and tasks
                cgroup.limit(int(request["memory_mb"]) + ZYGOTE_MEMORY_MB, self._nproc_cap + OWN_TASKS)
            return self._send(request, fds)
        except OSError as exc:
            return ExecResult("error", None, "", "", 0.0, detail=f"sandbox could not start the program: {exc}")
        finally:
            for fd in fds:
                os.close(fd)

    def _collect(self, zygote: _Zygote, request: dict) -> ExecResult:
        """The zygote's reply to a run `_begin` sent."""
        timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
        reply = recv_frame(zygote.ctl, time.monotonic() + timeout_s + REPLY_SLACK_S)
        if reply is None:
            why = _stderr_tail(zygote)
            self._stop()
            return ExecResult("error", None, "", "", timeout_s,
                              detail="the sandbox zygote did not answer; it was restarted" + (f" ({why})" if why else ""))
        if reply.get("dirty") and self._res.lease is not None:
            self._retire_uid()  # before the next run, which would otherwise start among this one's files
        return self._result(reply, timeout_s, memory_mb, reply.get("oom_kills", 0) > 0)

    def _execute(self, request: dict) -> ExecResult:
        started = self._begin(request, [])
        return started if isinstance(started, ExecResult) else self._collect(started, request)

    @staticmethod
    def _result(reply: dict, timeout_s: float, memory_mb: int, oom: bool) -> ExecResult:
        code, killed, stderr = reply["returncode"], reply["killed"], reply["stderr"]
        if killed == "timeout":
            status, detail = "timeout", f"wall-clock limit of {timeout_s:g}s"
        elif killed == "memory" or oom:
            status, detail = "failed", f"killed by the memory limit of {memory_mb} MB for the whole process tree"
        elif killed == "finished":
            status, detail = "ok", "ended by the caller"
        elif code == 125 and stderr.startswith("sandbox: setup failed"):
            status, detail = "error", stderr.strip()[:300]
        elif code == 0:
            status, detail = "ok", ""
        else:
            status, detail = "failed", f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
        return ExecResult(status, code, reply["stdout"], stderr, reply["duration_s"], detail, reply["stdout_truncated"])

    def run(self, program: str, timeout_s: float = 5.0, memory_mb: int = 1024) -> ExecResult:
        """Run `program` as `python program.py` would, to its end or `timeout_s`; never raises on what it does."""
        if self.refusal is not None:
            return ExecResult("error", None, "", "", 0.0, detail=self.refusal)
        with self._lock:
            return self._execute({"program": program, "harness": "exec", "timeout_s": timeout_s, "memory_mb": memory_mb})

    @contextlib.contextmanager
    def serve(self, program: str, *, setup: str = "", timeout_s: float = 5.0, memory_mb: int = 1024) -> Iterator[Session]:
        """Run `program` then `setup`, and keep it alive to answer the caller's calls until the block ends.

        The program's first message is {"ready": true}, or {"raise": ...} /
        {"exit": ...}; then each `Session.request` gets one reply (the protocol
        is `harness.py`'s). `timeout_s` bounds the whole conversation. When
        the block ends the run is always ended by this side ("finish": whatever
        the program says about itself is not trusted) and its clean-up is
        waited for, so it never runs inside the next caller's time;
        `session.result` then holds the ExecResult (status "ok" when the
        caller ended it).
        """
        if self.refusal is not None:
            yield Session(-1, -1, 0.0, ExecResult("error", None, "", "", 0.0, detail=self.refusal), self.refusal)
            return
        request = {"program": program, "setup": setup, "harness": "serve", "timeout_s": timeout_s, "memory_mb": memory_mb}
        with self._lock:
            req_r, req_w = os.pipe()
            resp_r, resp_w = os.pipe()
            session = Session(req_w, resp_r, 0.0)
            started = self._begin(request, [req_r, resp_w])
            session.deadline = time.monotonic() + timeout_s + 0.5  # after a zygote (re)start, not before
            if isinstance(started, ExecResult):
                session.close()
                session._ended, session.result = started.detail, started
                yield session
                return
            try:
                yield session
            finally:
                session.close()
                with contextlib.suppress(OSError):
                    send_frame(started.ctl, {"op": "finish"})
                session.result = self._collect(started, request)


_default: tuple[int, Sandbox] | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """This process's shared sandbox (setting from RLVR_SANDBOX), started and probed on first use."""
    global _default
    with _default_lock:
        if _default is None or _default[0] != os.getpid():
            _default = (os.getpid(), Sandbox())
        return _default[1]


def check_sandbox() -> Sandbox:
    """The default sandbox, or SandboxUnavailable with the reason and the fix: call at start to fail fast."""
    sandbox = default_sandbox()
    if sandbox.refusal is not None:
        raise SandboxUnavailable(sandbox.refusal)
    return sandbox


def sandbox_guarantees() -> dict:
    """Probe the sandbox this process's settings give (then release it): `Sandbox.describe()`, logged with
    every lack as a warning. What a run calls at its start when its rewards run code."""
    sandbox = Sandbox()
    try:
        info = sandbox.describe()
    finally:
        sandbox.close()
    for lack in info["lacks"]:
        log.warning("sandbox (%s mode) lacks: %s", info["mode"], lack)
    if info["refusal"]:
        log.error("%s", info["refusal"])
    return info


def run_program(program: str, timeout_s: float = 5.0, memory_mb: int = 1024) -> ExecResult:
    """Run one program in this process's default sandbox (see `Sandbox.run`)."""
    return default_sandbox().run(program, timeout_s=timeout_s, memory_mb=memory_mb)
