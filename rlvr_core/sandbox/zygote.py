"""The long-lived process that forks one contained run per program.

Runs as `python -S -I -c <codec.py + harness.py + scrub.py + mounts.py + this source> <config json>`,
as root inside the sandbox's namespaces when the host allows them (see
`runner.py` for the modes). Standard library only; read as text by
`sandbox/host.py`, never imported by the parent (it acts on import).

Control channel: a unix socket (fd `control_fd`), frames of a 4-byte
big-endian length + JSON. First frame from here: {"ready": ...} or
{"error": ...}. Then one request {"program", "timeout_s", "memory_mb",
"harness": "exec"|"serve", "setup"} -> one reply {"returncode", "stdout",
"stdout_truncated", "stderr", "duration_s", "killed":
null|"timeout"|"memory"|"finished", "oom_kills"}; while a program runs, the
parent may send {"op": "finish"} to end it early. A "serve" request carries
two pipe ends as SCM_RIGHTS (the child reads requests on one, answers on the
other): the parent talks to the child directly, this process never reads
that traffic.

Nothing carries from one run to the next. With `fresh_ns` (root in
namespaces) this process enters new mount, IPC and PID namespaces for each
run, mounts size- and inode-capped tmpfs on /tmp and /dev/shm, forks the
program (the first process of the new PID namespace, with its own /proc; it
sets up its containment, then reads its request), and returns to its own
namespaces. Killing the program ends every process of
the run; the namespaces, the tmpfs and every SysV and POSIX IPC object go
with the last of them. A run the caller ends ("finish") is killed and
answered at once, and reaped before the next request is read; any other, and
one that filled its tmpfs, is reaped (and so torn down) before the reply, so
no clean-up weighs on the next run.
Without `fresh_ns` the run's processes are swept and its files scrubbed
(iteratively, within a time budget, never by recursion) before the reply.

This process joins the sandbox's cgroups once (fds opened by the parent), so
every run is born inside them, and sets its own oom_score_adj to -1000 where
the host allows it (the programs take 1000): the kernel's OOM killer picks
a program, not the zygote. Each program: new session; stdin /dev/null, stdout and stderr on
two memfds that only this process reads back, by descriptor (never by path);
rlimits; a fresh working directory and TMPDIR; drops to the sandbox uid;
no_new_privs; the seccomp filter built by the parent; then the harness
(`sandbox/harness.py`), which shares the program's interpreter, so nothing
it says is trusted by the parent: "exec" only runs the program (the exit
status is the result); "serve" runs it, then answers calls with plain data,
which the parent decodes strictly (`sandbox/codec.py`).
"""

import builtins
import ctypes
import fcntl
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import tempfile
import time
import types

CONFIG = json.loads(sys.argv[1])
UID = CONFIG["uid"]  # -1: keep the current user (not root: nothing to switch to)
PID_NS = CONFIG["pid_ns"]  # True: every other process in this pid namespace is the sandbox's
FRESH_NS = CONFIG["fresh_ns"]  # True: each run in new mount, IPC and PID namespaces of its own
CGROUP_FDS = CONFIG["cgroup_fds"]  # cgroup.procs files the child joins; [] without cgroups
ACCOUNTING = not CGROUP_FDS  # without a cgroup, poll the tree's resident memory instead
OOM_EVENTS_FD = CONFIG["oom_events_fd"]  # memory.oom_control (v1) / memory.events (v2), or -1
OUTPUT_CAP = CONFIG["output_cap"]
FSIZE_CAP = CONFIG["fsize_cap"]
NPROC_CAP = CONFIG["nproc_cap"]
TMPFS = f"size={CONFIG['tmpfs_bytes']},nr_inodes={CONFIG['tmpfs_inodes']},mode=1777"
PRIVATE_TMP = CONFIG["private_tmp"]  # True: /tmp and /dev/shm are this sandbox's own tmpfs
SCRUB_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")  # world-writable places on a shared host
SCRUB_BUDGET_S = 2.0  # per run; what is left is scrubbed after the next one
HEAVY_TMPFS_BYTES, HEAVY_TMPFS_FILES = 4 << 20, 256  # a run's tmpfs beyond this is freed before the reply
LIBC = ctypes.CDLL(None, use_errno=True)
CTL = socket.socket(fileno=CONFIG["control_fd"])
sys.path[:0] = CONFIG["extra_paths"]
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000

# --- seccomp: the parent builds the filter (`sandbox/seccomp.py`); here it is only installed ----
class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


SECCOMP = bytes.fromhex(CONFIG["seccomp"]) if CONFIG["seccomp"] else None
_SECCOMP_BUFFER = ctypes.create_string_buffer(SECCOMP or b"", len(SECCOMP or b""))


def _install_seccomp(program):
    prog = _SockFprog(len(program) // 8, ctypes.addressof(_SECCOMP_BUFFER))
    if LIBC.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "seccomp filter refused")


def _oom_score_adj(value):
    """-1000: never the OOM killer's pick; 1000: its first. Lowering needs CAP_SYS_RESOURCE: False without."""
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write(str(value))
        return True
    except OSError:
        return False

def _recv_request():
    """One control frame and the descriptors sent with it; (None, []) when the parent is gone."""
    header, fds, _, _ = socket.recv_fds(CTL, 4, 4)
    while header and len(header) < 4:
        more = CTL.recv(4 - len(header))
        if not more:
            break
        header += more
    if len(header) < 4:
        for fd in fds:
            os.close(fd)
        return None, []
    body = read_exact(CTL.fileno(), struct.unpack(">I", header)[0])
    return (None, fds) if body is None else (json.loads(body), fds)


# --- the program ---------------------------------------------------------------------------------
def _contain(run_dir, stdout_fd, stderr_fd, keep):
    """Everything about the program's process that does not depend on the request: session, /proc, output on
    fds 1 and 2, fixed rlimits, working directory, uid, no_new_privs, seccomp. The fds in `keep` stay open,
    as 3, 4...; every other is closed."""
    CTL.detach()  # the fd is closed below; the object must not close a reused number later
    os.setsid()
    if FRESH_NS:  # in the run's PID namespace: a /proc that shows only the run
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _oom_score_adj(1000)
    _place_fds([os.open("/dev/null", os.O_RDONLY), stdout_fd, stderr_fd, *keep], 0)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_CAP, FSIZE_CAP))
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC_CAP, NPROC_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    os.chdir(run_dir)
    if UID >= 0:
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
    if LIBC.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS: setuid binaries gain nothing
        raise OSError(ctypes.get_errno(), "no_new_privs refused")
    if SECCOMP is not None:
        _install_seccomp(SECCOMP)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    os.environ["TMPDIR"] = run_dir


def _place_fds(fds, first):
    """Put `fds` at `first`, `first` + 1... and close every other descriptor from `first` up."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 32) for fd in fds]  # above the targets, below RLIMIT_NOFILE (64)
    for number, fd in enumerate(high, start=first):
        os.dup2(fd, number)
    os.closerange(first + len(high), 65536)


def _start(request, rpc_fds):
    """The request's limits (lowering only: allowed without privileges), its channels on fds 3 and 4, then the
    harness. Never returns."""
    cpu = int(float(request["timeout_s"])) + 1
    memory = int(request["memory_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _place_fds(rpc_fds, 3)
    main = types.ModuleType("__main__")  # a fresh __main__, so pickling the program's functions works
    sys.modules["__main__"] = main
    namespace = main.__dict__
    namespace["__builtins__"] = builtins
    if request["harness"] == "serve":
        serve(request["program"], request.get("setup") or "", namespace)
    run_program(request["program"], namespace)


def _child(run_dir, stdout_fd, stderr_fd, request, rpc_fds):
    """The program's process: containment, then the harness. Never returns."""
    try:
        _contain(run_dir, stdout_fd, stderr_fd, rpc_fds)
    except BaseException as exc:  # containment could not be set up: do not run the program
        os.write(2, f"sandbox: setup failed: {exc}\n".encode())
        os._exit(125)
    _start(request, range(3, 3 + len(rpc_fds)))


# --- a run in namespaces of its own (FRESH_NS) ---------------------------------------------------
OWN_NAMESPACES = {}  # CLONE_* flag -> fd of this process's own namespace, to return to after making a run's


class _Run:
    """A program in new mount, IPC and PID namespaces with private tmpfs. This process enters the namespaces,
    forks their init (pid 1: it only reaps orphans) and the program (pid 2, so the kernel does not shield it
    from its own signals as it would pid 1), and returns to its own. Killing the init ends every process of
    the run; the namespaces, the tmpfs and every SysV and POSIX IPC object go with the last of them."""

    def __init__(self, request, fds):
        self.stdout_fd, self.stderr_fd = os.memfd_create("stdout"), os.memfd_create("stderr")
        self.init = self.pid = self.pidfd = -1
        try:
            _enter_run_namespaces()
            self.init = os.fork()
            if self.init == 0:
                _reap_forever()
            self.pid = os.fork()
            if self.pid == 0:
                _child("/tmp/run", self.stdout_fd, self.stderr_fd, request, fds)
        except OSError as exc:
            os.write(self.stderr_fd, f"sandbox: setup failed: {exc}\n".encode())
        finally:
            _leave_run_namespaces()
            for fd in fds:
                os.close(fd)
        if self.pid > 0:
            self.pidfd = os.pidfd_open(self.pid)

    def kill(self):
        """SIGKILL the program, and the init (back at normal priority: its exit tears the run down): the kernel
        then kills every other process of the namespace."""
        for pid in (self.pid, self.init):
            if pid > 0:
                try:
                    if pid == self.init:
                        os.setpriority(os.PRIO_PROCESS, pid, 0)
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def status(self):
        """The program's wait status (it is dead or dying). Reap it first: the init's exit waits until every
        pid of its namespace is released."""
        if self.pid <= 0:
            return 125 << 8
        os.close(self.pidfd)
        status, self.pid = _wait_status(self.pid), -1
        return status

    def reap(self):
        """Once every process of the run is gone (and with the last, its namespaces and tmpfs)."""
        self.status()
        if self.init > 0:
            _wait_status(self.init)
            self.init = -1


def _reap_forever():
    """The init of a run's PID namespace, at the lowest priority: it only reaps orphans, and must not take
    the CPU from the program it was made with. Never returns."""
    try:
        os.nice(19)
        CTL.detach()
        os.closerange(0, 65536)
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                signal.pause()
    finally:
        os._exit(0)


def _tmpfs_in_use(pid):
    """Whether the run left more than a little in its private /tmp or /dev/shm (seen through its program)."""
    for top in ("/tmp", "/dev/shm"):
        try:
            st = os.statvfs(f"/proc/{pid}/root{top}")
        except OSError:
            return False  # gone: nothing left to free
        if (st.f_blocks - st.f_bfree) * st.f_frsize > HEAVY_TMPFS_BYTES or st.f_files - st.f_ffree > HEAVY_TMPFS_FILES:
            return True
    return False


def _run_in_namespaces(request, fds):
    """One run in namespaces of its own: (reply, what is left to do once it is sent)."""
    timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
    oom_before = _oom_kills()
    start = time.monotonic()
    run = _Run(request, fds)
    killed = _wait(run.pidfd, run.kill, timeout_s, memory_mb) if run.pid > 0 else None
    duration = time.monotonic() - start
    heavy = run.init > 0 and _tmpfs_in_use(run.init)
    run.kill()  # and with it the daemons and children the program left: none runs after the reply
    if killed == "finished" and not heavy:  # the caller ended it: reply now, reap while it reads the reply
        return _reply(None, run.stdout_fd, run.stderr_fd, duration, killed, oom_before), run.reap
    status = run.status()
    run.reap()  # every process gone, its tmpfs freed: within this run's time, never the next one's
    return _reply(status, run.stdout_fd, run.stderr_fd, duration, killed, oom_before), None


# --- a run on a shared file system or pid namespace ----------------------------------------------
def _sandbox_processes():
    """(pid, state, parent pid) of every process of the sandbox but this one and the namespace's init."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            if not PID_NS and _real_uid(name) != UID:  # not st_uid: a process that left root is owned by root there
                continue
            with open(f"/proc/{name}/stat", "rb") as fh:
                state, parent = fh.read().rsplit(b")", 1)[1].split()[:2]
            found.append((int(name), state, int(parent)))
        except (OSError, ValueError):
            pass
    return found


def _sandbox_pids():
    """Every live (not zombie) process of the sandbox but this one (and the namespace's init)."""
    return [pid for pid, state, _ in _sandbox_processes() if state != b"Z"]


def _real_uid(pid):
    with open(f"/proc/{pid}/status", "rb") as fh:
        for line in fh:
            if line.startswith(b"Uid:"):
                return int(line.split()[1])
    return -1


def _kill_leftovers(pgid):
    """SIGKILL whatever the program left running, however it daemonised, then reap."""
    if pgid:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    if PID_NS or UID >= 0:
        for attempt in range(500):  # a fork bomb is capped by pids.max / RLIMIT_NPROC, so this converges
            processes = _sandbox_processes()
            alive = [pid for pid, state, _ in processes if state != b"Z"]
            # Dead but unreaped children of this process or of a sandbox process about to die (they come back
            # here, the subreaper): wait for them too, or they outlive the run as zombies until the next one.
            ours = {os.getpid(), *alive}
            if not alive and not any(state == b"Z" and parent in ours for _, state, parent in processes):
                break
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            _reap()
            if attempt:
                time.sleep(0.002)  # killed but not yet dead; they are not all our children to wait for
    _reap()


REAPED = {}  # pid -> wait status of children reaped while sweeping, so the run's own status is not lost


def _reap():
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        REAPED[pid] = status


def _wait_status(pid):
    if pid in REAPED:
        return REAPED.pop(pid)
    return os.waitpid(pid, 0)[1]


def _clean_up(run_dir):
    """What a run on a shared file system or pid namespace leaves: its files (`scrub.py`) and SysV IPC
    objects. Never raises: the zygote outlives whatever a program left behind."""
    try:
        if PID_NS or UID >= 0:
            _scrub_ipc()
        scrub_run(run_dir, ("/tmp", "/dev/shm") if PRIVATE_TMP else SCRUB_DIRS, None if PRIVATE_TMP else UID,
                  SCRUB_BUDGET_S)
    except Exception as exc:  # noqa: BLE001
        os.write(2, f"sandbox: clean-up stopped: {type(exc).__name__}: {exc}\n".encode())


def _scrub_ipc():
    """Remove the SysV shared memory, queues and semaphores the program created: all of them in the
    sandbox's own ipc namespace, those of the sandbox uid on a shared host."""
    for kind, remove in (("shm", lambda i: LIBC.shmctl(i, 0, None)), ("msg", lambda i: LIBC.msgctl(i, 0, None)),
                         ("sem", lambda i: LIBC.semctl(i, 0, 0, 0))):  # IPC_RMID = 0
        try:
            with open(f"/proc/sysvipc/{kind}") as fh:
                header, *rows = [line.split() for line in fh]
        except (OSError, ValueError):
            continue
        for row in rows:
            if len(row) == len(header) and (PID_NS or int(row[header.index("uid")]) == UID):
                remove(int(row[1]))


# --- one run -------------------------------------------------------------------------------------
def _tree_rss():
    total = 0
    for pid in _sandbox_pids():
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * resource.getpagesize()
        except (OSError, IndexError, ValueError):
            pass
    return total


def _wait(ended, kill, timeout_s, memory_mb):
    """Block until `ended` is readable (the program is gone), the time is up, the tree outgrows its memory,
    or the parent says finish; `kill` ends the run when the parent is gone."""
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        ready = select.select([ended, CTL], [], [], min(remaining, 0.05) if ACCOUNTING else remaining)[0]
        if ended in ready:
            return None
        if CTL in ready:
            message, fds = _recv_request()
            for fd in fds:
                os.close(fd)
            if message is None:  # the parent is gone: end everything
                kill()
                os._exit(0)
            if message.get("op") == "finish":
                return "finished"
        if ACCOUNTING and _tree_rss() > memory_mb << 20:
            return "memory"


def _read_output(fd, tail):
    size = os.fstat(fd).st_size
    data = os.pread(fd, OUTPUT_CAP, max(0, size - OUTPUT_CAP) if tail else 0)
    os.close(fd)
    return data.decode(errors="replace"), size > OUTPUT_CAP


def _oom_kills():
    """The cgroup's count of processes killed by its memory limit (0 without a cgroup)."""
    if OOM_EVENTS_FD < 0:
        return 0
    for line in os.pread(OOM_EVENTS_FD, 4096, 0).split(b"\n"):
        if line.startswith(b"oom_kill "):
            return int(line.split()[1])
    return 0


def _reply(status, stdout_fd, stderr_fd, duration, killed, oom_before):
    """The reply to a run; `status` None when the caller ended it and its exit status is not waited for."""
    stdout, stdout_cut = _read_output(stdout_fd, tail=False)
    stderr, _ = _read_output(stderr_fd, tail=True)
    return {"returncode": None if status is None else os.waitstatus_to_exitcode(status), "stdout": stdout,
            "stdout_truncated": stdout_cut, "stderr": stderr, "duration_s": duration, "killed": killed,
            "oom_kills": _oom_kills() - oom_before}


def _run_on_host(request, fds):
    """One run forked straight from here (no namespaces of its own): swept and scrubbed before the reply."""
    timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
    oom_before = _oom_kills()
    stdout_fd, stderr_fd = os.memfd_create("stdout"), os.memfd_create("stderr")
    run_dir = tempfile.mkdtemp(prefix="run-", dir="/tmp")
    if UID >= 0:
        os.chown(run_dir, UID, UID)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(run_dir, stdout_fd, stderr_fd, request, fds)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    killed = _wait(pidfd, lambda: _kill_leftovers(pid), timeout_s, memory_mb)
    duration = time.monotonic() - start
    if killed:
        for target, kill in ((pid, os.killpg), (pid, os.kill)):
            try:
                kill(target, signal.SIGKILL)
            except OSError:
                pass
    status = _wait_status(pid)  # a SIGKILLed child of ours: block until it is gone rather than poll
    os.close(pidfd)
    _kill_leftovers(pid)  # what it left behind: daemons, other process groups
    REAPED.clear()
    _clean_up(run_dir)  # first: tmpfs pages count against the cgroup this process shares with the program
    return _reply(status, stdout_fd, stderr_fd, duration, killed, oom_before), None


def _main():
    try:
        if CONFIG["view"]:
            _enter_view(CONFIG["view"])
        os.chdir("/tmp")
        for key in list(os.environ):  # bwrap adds PWD; programs get PATH, LANG and their own TMPDIR only
            if key not in ("PATH", "LANG"):
                del os.environ[key]
        LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come back here to be reaped
        oom_protected = _oom_score_adj(-1000)
        for fd in CGROUP_FDS:  # join once: children are born inside (moving each child would cost ms)
            os.write(fd, b"0")  # "0": this process; the fd was opened by the parent, outside any view
            os.close(fd)
    except BaseException as exc:
        write_frame(CTL.fileno(), {"error": f"{type(exc).__name__}: {exc}"})
        return
    if UID >= 0 and not PID_NS:
        try:
            _kill_leftovers(None)  # what a crashed sandbox with this uid may have left
            _clean_up(tempfile.mkdtemp(prefix="run-", dir="/tmp"))
        except Exception as exc:  # noqa: BLE001 - leftovers never stop the sandbox from starting
            os.write(2, f"sandbox: clean-up at start stopped: {type(exc).__name__}: {exc}\n".encode())
    write_frame(CTL.fileno(), {"ready": True, "pid": os.getpid(), "seccomp": SECCOMP is not None,
                               "oom_protected": oom_protected})
    while True:
        request, fds = _recv_request()
        if request is None:
            return
        if request.get("op") == "finish":  # a finish that crossed the reply of a run that had ended
            continue
        reply, then = (_run_in_namespaces if FRESH_NS else _run_on_host)(request, fds)
        write_frame(CTL.fileno(), reply)
        if then is not None:  # reaping a run the caller ended, while the caller reads the verdict
            then()


_main()
