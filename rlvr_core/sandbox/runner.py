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
standard library only), the template, forks one run process per program,
made before the program's request is read, which reads its own request and
becomes the program: a run costs one fork, not an interpreter start, and
starts from memory that never held another run's data (issue 41: no
earlier request, source, argument or output to find in it). This process
supervises each run through a pidfd the run process sends it
(`sandbox/supervise.py`): its deadline, its kill, its memory where no cgroup
limits it; its output is on memfds this process made, its exit status comes
through the zygote's status pipe. Grading traffic goes straight between this
process and the program; a request is sent once, to a run process that said
it was ready. Each program:
its own session; stdin /dev/null; a fresh working directory and TMPDIR;
environment PATH and LANG only; rlimits on CPU time, address space
(`memory_mb`), processes, file size (16 MB), open files (64), core dumps; as
root, a uid of its own (a flock lease on 61000-65095 makes it unique on the
machine) with no supplementary groups; no_new_privs; the seccomp filter of
`sandbox/seccomp.py` (x86_64, aarch64: no new sockets, ptrace, process_vm_*,
pidfds, io_uring, namespaces, mounts, keyrings, BPF, perf, modules, POSIX
message queues, page-cache probes); where a cgroup (v2, else v1) is
writable, `memory_mb` and 32 tasks for its whole process tree, tmpfs pages
included (the zygote lives in that cgroup too, so runs are born inside it,
with 16 MB and one task of its own on top); oom_score_adj 1000 for programs,
-1000 for the zygote where the host allows it.

Nothing carries from one run to the next. As root in namespaces (bwrap, or
host with `unshare`) each program is the first process (pid 1) of new PID,
IPC (SysV and POSIX) and mount namespaces, with its own /proc (its processes
only, where the kernel mounts `subset=pid`) and size- and inode-capped tmpfs
on /tmp and /dev/shm; the same pids in every run. Killing it ends the run:
the kernel kills every process of its namespace, and namespaces, tmpfs and
IPC objects go with them before the zygote reaps it (a run the caller ends
is answered first and torn down before the next one starts). Without
namespaces the zygote's cleaner, a throwaway fork, SIGKILLs every process of
the run's uid and scrubs its files and SysV objects before its status is
sent (`sandbox/scrub.py`: iterative, within a time budget; past it the uid
is retired to a background scrubber and the next run gets a clean one).

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
  /dev/shm, /dev/mqueue, /run/lock and SysV IPC after each run;
  `Sandbox.lacks` then lists what is missing: other processes visible in
  /proc, world-readable host files (the checkout; not a dataset store the
  project wrote: its files are 0600) readable, no total disk quota on /tmp
  during a run, files left in other world-writable folders, pid numbers
  shared with the host. Host
  mode needs root (else the program would act as the caller) and a closed
  network (seccomp or a network namespace), else it refuses.
- "auto" (default): bwrap if its probe passes, else host, logged as a
  warning with the reason; else refuse.
- "host-unsafe": explicit opt-in to run with whatever this machine allows
  (not root: no uid switch), every gap in `lacks` and the log.

Refusing: every run returns status "error" with the reasons and the fix;
nothing runs as root or unconfined by accident.

Not covered, in any mode: kernel exploits, CPU and cache side channels,
timing (of the page cache among them), global kernel counters that no
namespace separates (pipe, socket and /proc inode numbers), denial of
service through the shared page cache or disk I/O bandwidth, and the CPU a
program burns within its limits (docs/SECURITY.md says what bits such
channels carry and why no verdict travels through them). A program is pid 1
of its namespace: the kernel ignores the signals it sends itself with their
default action (it dies by returning, exiting or this process's SIGKILL).
Without a writable cgroup the tree's memory is polled every 50 ms (a fast
allocation can overshoot in between), and processes are capped per uid by
RLIMIT_NPROC. Without root there is no uid switch: a program can reach the
caller's files (host-unsafe) and, in bwrap, signal the zygote. Meant for a
policy model hacking its reward and for careless code, like nanochat's
execution.py, not for adversaries with kernel 0-days.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Literal, get_args

from rlvr_core.sandbox import host, supervise
from rlvr_core.sandbox.channel import ExecResult, Session, SessionEnded, send_frame
from rlvr_core.sandbox.host import SANDBOX_UID_BASE, SCRUB_DIRS, Cgroup, UidLease
from rlvr_core.sandbox.launch import (START_TIMEOUT_S, Launcher, Zygote, candidates, close_zygote, lacks, start_zygote,
                                      stderr_tail)
from rlvr_core.sandbox.seccomp import filter_program

log = logging.getLogger(__name__)

SandboxSetting = Literal["auto", "bwrap", "host", "host-unsafe"]
SETTINGS: tuple[str, ...] = get_args(SandboxSetting)
PROBE = ("import os, socket\ntry:\n    socket.socket().close()\n    net = 'open'\nexcept OSError:\n    net = 'blocked'\n"
         "print(os.getuid(), net, sum(range(5)))")
REPLY_SLACK_S = 30.0  # past the program's own limit, for the zygote's clean-up under load
ZYGOTE_MEMORY_MB = 16  # what the zygote may allocate inside the cgroup it shares with the program
OWN_TASKS = 2  # tasks of the cgroup that are not the program's: the zygote, and the run's init or cleaner
TMPFS_INODES = 16384  # files a run may create in its private /tmp or /dev/shm: bounds the teardown
MAX_RETIREMENTS = 3  # uids retired in a row at a zygote's start (each held a killed sandbox's flood) before going on

__all__ = ["SANDBOX_UID_BASE", "SETTINGS", "ExecResult", "Sandbox", "SandboxSetting", "SandboxUnavailable",
           "Session", "SessionEnded", "check_sandbox", "default_sandbox", "run_program", "sandbox_guarantees"]


class SandboxUnavailable(RuntimeError):
    """No mode the setting allows works on this machine; the message says why and how to fix it."""


class _Resources:
    """What a Sandbox holds, released together (by `close` or when the Sandbox is collected)."""

    def __init__(self) -> None:
        self.zygote: Zygote | None = None
        self.cgroup: Cgroup | None = None
        self.lease: UidLease | None = None
        self.scrubbers: list[subprocess.Popen] = []  # background scrubbers of the uids this sandbox retired
        self.owner = os.getpid()

    def release(self) -> None:
        if os.getpid() != self.owner:  # a forked child exiting must not kill its parent's zygote or cgroup
            return
        close_zygote(self.zygote)
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
        self._launcher: Launcher | None = None
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
    def _choose(self) -> None:
        failures = []
        for candidate in candidates(self.setting, self._root, self._extra_paths, self._tmpfs_bytes):
            if isinstance(candidate, str):
                failures.append(candidate)
                continue
            self._launcher = candidate
            why = self._probe(candidate)
            if why is None:
                self.mode = candidate.mode
                zygote = self._res.zygote
                self.lacks = lacks(candidate, self.uid, self._res.cgroup is not None, zygote.ready if zygote else {})
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

    def _probe(self, launcher: Launcher) -> str | None:
        """None if a trivial program runs and is contained as this setting requires, else why not."""
        uid = self.uid  # the probe's own (a run that leaves files retires it: the next run has another)
        result = self._execute({"harness": "exec", "timeout_s": 30.0, "memory_mb": 256}, {"program": PROBE})
        fields = result.stdout.split()
        if result.status != "ok" or len(fields) != 3 or fields[2] != "10":
            return f"probe program gave {result.status} ({result.detail or result.stderr.strip()[-300:]})"
        if uid >= 0 and fields[0] not in (str(uid), str(self.uid)):
            return f"probe program ran as uid {fields[0]}, not the sandbox uid {uid}"
        if launcher.mode == "host" and fields[1] != "blocked" and not launcher.namespaces:
            return "the network is open: no seccomp filter and no network namespace"
        return None

    # --- the zygote --------------------------------------------------------------------------
    def _start(self, launcher: Launcher) -> Zygote:
        cgroup = self._res.cgroup
        cgroup_fds = cgroup.procs_fds() if cgroup else []
        config = {
            "cgroup_fds": cgroup_fds, "uid": self.uid, "pid_ns": launcher.namespaces, "view": launcher.view,
            "fresh_ns": launcher.namespaces and self._root, "tmpfs_bytes": self._tmpfs_bytes,
            "tmpfs_inodes": TMPFS_INODES, "scrub_dirs": SCRUB_DIRS, "scrub_budget_s": self._scrub_budget_s,
            "seccomp": (filter_program(platform.machine()) or b"").hex() or None, "fsize_cap": self._fsize_cap,
            "nproc_cap": self._nproc_cap, "relayed": supervise.RELAYED,
            # In namespaces a folder under /tmp is bound elsewhere (see host.sandbox_path); without, it is where it is.
            "extra_paths": [host.sandbox_path(p, i) for i, p in enumerate(self._extra_paths)]
            if launcher.namespaces else self._extra_paths,
        }
        return start_zygote(launcher, config, cgroup_fds)

    def _start_clean(self, launcher: Launcher) -> Zygote:
        """A zygote whose uid holds nothing of an earlier sandbox: one that found more leftovers than it could
        remove in its time budget (a killed sandbox's flood) is stopped and its uid retired, a few times."""
        for _ in range(MAX_RETIREMENTS):
            zygote = self._start(launcher)
            if zygote.ready.get("clean", True) or self._res.lease is None:
                return zygote
            close_zygote(zygote)
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
        close_zygote(self._res.zygote)
        self._res.zygote = None

    def close(self) -> None:
        """Kill the zygote and everything under it; release the uid and the cgroup."""
        with self._lock:
            self._finalizer()

    # --- running -----------------------------------------------------------------------------
    def _settle(self, zygote: Zygote) -> bool:
        """Read the statuses of runs the caller ended (their teardown overlapped the caller's grading). False
        when one left more than its scrub budget removes: the uid is retired, the zygote stopped. OSError if
        the zygote died."""
        while zygote.unread:
            statuses = supervise.read_statuses(zygote.status, time.monotonic() + REPLY_SLACK_S)
            if statuses is None:
                raise OSError("the sandbox zygote died after a run")
            zygote.unread -= 1
            if statuses[1] != 0 and self._res.lease is not None:
                self._retire_uid()
                return False
        return True

    def _next_run(self) -> tuple[Zygote, supervise.Run]:
        """The run process that takes the next request, from a live zygote (started if needed). OSError if
        none would take it."""
        assert self._launcher is not None
        for attempt in range(3):
            zygote = self._res.zygote
            try:
                if zygote is None or zygote.proc.poll() is not None:
                    self._stop()
                    zygote = self._res.zygote = self._start_clean(self._launcher)
                if not self._settle(zygote):
                    continue  # retired with its uid: the next attempt starts a zygote with a clean one
                got = supervise.receive_run(zygote.ctl, time.monotonic() + START_TIMEOUT_S)
                if got is None:
                    raise OSError(stderr_tail(zygote) or "the sandbox zygote made no run process")
                pidfd, frame = got
                if "error" in frame:
                    os.close(pidfd)
                    zygote.unread += 1
                    raise OSError(str(frame["error"])[:300])
                run = supervise.Run(pidfd, supervise.pid_of(pidfd), -1, -1)
                zygote.template = zygote.template or supervise.parent_of(run.pid)
                return zygote, run
            except OSError:
                self._stop()
                if attempt == 2:
                    raise
        raise OSError("the sandbox's uid was retired three times in a row")

    def _begin(self, request: dict, payload: dict, fds: Sequence[int]) -> tuple[Zygote, supervise.Run] | ExecResult:
        """Set the limits and hand one run process its request (the program and setup code in a memfd it
        reads, its output on memfds this process reads): (zygote, run), or an "error" result. A request is
        sent once: to a run process that has said it is ready, never again."""
        cgroup = self._res.cgroup
        own: list[int] = []
        run = None
        try:
            if cgroup is not None:  # the zygote shares the cgroup: room for its own small allocations and tasks
                cgroup.limit(int(request["memory_mb"]) + ZYGOTE_MEMORY_MB, self._nproc_cap + OWN_TASKS)
            own = [os.memfd_create("payload"), os.memfd_create("stdout"), os.memfd_create("stderr")]
            os.write(own[0], json.dumps(payload).encode())
            zygote, run = self._next_run()
            run.oom_before = cgroup.oom_kills() if cgroup is not None else 0
            send_frame(zygote.ctl, request, [*own, *fds])
            run.stdout_fd, run.stderr_fd = own[1], own[2]
            own = [own[0]]  # ours to read once the run is over
            run.started = time.monotonic()
            return zygote, run
        except OSError as exc:
            if run is not None:
                os.close(run.pidfd)
            self._stop()
            return ExecResult("error", None, "", "", 0.0, detail=f"sandbox could not start the program: {exc}")
        finally:
            for fd in [*own, *fds]:
                os.close(fd)

    def _watch(self, zygote: Zygote, memory_mb: int) -> Callable[[], str | None] | None:
        """Where no cgroup limits the tree's memory, a poll of it: "memory" once it outgrew `memory_mb`."""
        if self._res.cgroup is not None:
            return None
        return lambda: "memory" if supervise.tree_rss(zygote.template) > memory_mb << 20 else None

    def _end(self, zygote: Zygote, run: supervise.Run, request: dict, killed: str | None) -> ExecResult:
        """Kill the run if `killed` says why, then its result: status, output, what ended it."""
        timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
        if killed is not None:
            supervise.kill(run)
        duration = time.monotonic() - run.started
        returncode, dirty = None, False
        # With namespaces of its own, a run the caller ended is torn down while the caller grades, and read
        # before the next run; without, its clean-up belongs to its own time: its status comes after it.
        if killed != "finished" or not self.fresh_namespaces:
            statuses = supervise.read_statuses(zygote.status, time.monotonic() + REPLY_SLACK_S)
            if statuses is None:
                supervise.kill(run)
                why = stderr_tail(zygote)
                self._stop()
                return ExecResult("error", None, "", "", timeout_s, detail="the sandbox zygote did not answer; it was "
                                  "restarted" + (f" ({why})" if why else ""))
            returncode = None if killed == "finished" else os.waitstatus_to_exitcode(statuses[0])
            dirty = statuses[1] != 0
        else:
            zygote.unread += 1
        os.close(run.pidfd)
        oom = self._res.cgroup is not None and self._res.cgroup.oom_kills() > run.oom_before
        stdout, cut = supervise.read_output(run.stdout_fd, self._output_cap, tail=False)
        stderr, _ = supervise.read_output(run.stderr_fd, self._output_cap, tail=True)
        if dirty and self._res.lease is not None:
            self._retire_uid()  # before the next run, which would otherwise start among this one's files
        return self._result(returncode, killed, stdout, cut, stderr, duration, timeout_s, memory_mb, oom)

    def _execute(self, request: dict, payload: dict) -> ExecResult:
        started = self._begin(request, payload, [])
        if isinstance(started, ExecResult):
            return started
        zygote, run = started
        watch = self._watch(zygote, int(request["memory_mb"]))
        killed = supervise.wait(run, zygote.status, run.started + float(request["timeout_s"]), watch)
        return self._end(zygote, run, request, killed)

    @staticmethod
    def _result(code: int | None, killed: str | None, stdout: str, cut: bool, stderr: str, duration: float,
                timeout_s: float, memory_mb: int, oom: bool) -> ExecResult:
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
        return ExecResult(status, code, stdout, stderr, duration, detail, cut)

    def run(self, program: str, timeout_s: float = 5.0, memory_mb: int = 1024) -> ExecResult:
        """Run `program` as `python program.py` would, to its end or `timeout_s`; never raises on what it does."""
        if self.refusal is not None:
            return ExecResult("error", None, "", "", 0.0, detail=self.refusal)
        with self._lock:
            return self._execute({"harness": "exec", "timeout_s": timeout_s, "memory_mb": memory_mb},
                                 {"program": program})

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
        request = {"harness": "serve", "timeout_s": timeout_s, "memory_mb": memory_mb}
        with self._lock:
            req_r, req_w = os.pipe()
            resp_r, resp_w = os.pipe()
            session = Session(req_w, resp_r, 0.0)
            started = self._begin(request, {"program": program, "setup": setup}, [req_r, resp_w])
            session.deadline = time.monotonic() + timeout_s + 0.5  # after a zygote (re)start, not before
            if isinstance(started, ExecResult):
                session.close()
                session._ended, session.result = started.detail, started
                yield session
                return
            zygote, run = started
            session.watch = self._watch(zygote, memory_mb)
            try:
                yield session
            finally:
                session.close()
                if supervise.ended(run):  # by itself: its own status says how
                    killed = None
                else:  # by its session's deadline or memory watch, or else by the caller, done with it
                    killed = session._ended if session._ended in ("timeout", "memory") else "finished"
                session.result = self._end(zygote, run, request, killed)


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
