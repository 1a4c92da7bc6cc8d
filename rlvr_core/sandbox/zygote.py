"""The sandbox's long-lived process (the template) and the run supervisors it forks.

Runs as `python -S -I -c <codec.py + harness.py + scrub.py + mounts.py + this source> <config json>`,
as root inside the sandbox's namespaces when the host allows them (see
`runner.py` for the modes). Standard library only; read as text by
`sandbox/host.py`, never imported by the parent (it acts on import).

Control channel: a unix socket (fd `control_fd`), frames of a 4-byte
big-endian length + JSON. First frame from here: {"ready": ...} or
{"error": ...}. Then one request {"program", "timeout_s", "memory_mb",
"harness": "exec"|"serve", "setup"} -> one reply {"returncode", "stdout",
"stdout_truncated", "stderr", "duration_s", "killed":
null|"timeout"|"memory"|"finished", "oom_kills", "dirty"}; while a program
runs, the parent may send {"op": "finish"} to end it early. A "serve" request
carries two pipe ends as SCM_RIGHTS (the child reads requests on one, answers
on the other): the parent talks to the child directly, nothing here reads
that traffic.

No run starts from memory that held another run's data. This process, the
template, sets itself up (view, cgroups, OOM score, a frozen heap), says it
is ready, and from then on only forks and reaps: it never reads a request, a
program's source or output, a file name a program chose, or anything a run
wrote. Each run is served by a fresh fork of it, the run's supervisor, made
before that run's request is read: the supervisor reads the request, forks
the program, waits, kills, reads the output, replies and exits; the template
reaps it and forks the next one. So a program's address space holds the
template's and its own request, never an earlier run's source, arguments
(those never pass through here) or output.

Nothing else carries from one run to the next. With `fresh_ns` (root in
namespaces) the supervisor is the first process (pid 1) of a PID namespace of
its own (the template unshares one for each fork); before its request arrives
it enters new mount and IPC namespaces with size- and inode-capped tmpfs on
/tmp and /dev/shm and a /proc that shows the run's processes only (no
host-wide counter such as /proc/stat's fork count, where the kernel has
`subset=pid`). Killing every process of the namespace ends the run; the
tmpfs, the IPC objects and the namespaces go with the supervisor. A run the
caller ends ("finish") is answered at once and torn down before the next
request is read; any other, and one that filled its tmpfs, is torn down
before the reply, so no clean-up weighs on the next run. Without `fresh_ns`
the run's processes are swept and its files scrubbed (iteratively, within a
time budget, never by recursion) before the reply; "dirty" says the budget
ran out, and the parent then retires the uid (`runner.py`).

The template joins the sandbox's cgroups once (fds opened by the parent), so
every run is born inside them, and sets its own oom_score_adj to -1000 where
the host allows it (the programs take 1000): the kernel's OOM killer picks a
program, not a sandbox process. Each program: new session; stdin /dev/null,
stdout and stderr on two memfds that only its supervisor reads back, by
descriptor (never by path); rlimits; a fresh working directory and TMPDIR;
drops to the sandbox uid; no_new_privs; the seccomp filter built by the
parent; then the harness (`sandbox/harness.py`), which shares the program's
interpreter, so nothing it says is trusted by the parent: "exec" only runs
the program (the exit status is the result); "serve" runs it, then answers
calls with plain data, which the parent decodes strictly (`sandbox/codec.py`).
"""

import builtins
import ctypes
import fcntl
import gc
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
import traceback
import types

CONFIG = json.loads(sys.argv[1])
UID = CONFIG["uid"]  # -1: keep the current user (not root: nothing to switch to)
PID_NS = CONFIG["pid_ns"]  # True: every other process in this pid namespace is the sandbox's
FRESH_NS = CONFIG["fresh_ns"]  # True: each run in new mount, IPC and PID namespaces of its own
CGROUP_FDS = CONFIG["cgroup_fds"]  # cgroup.procs files the template joins; [] without cgroups
ACCOUNTING = not CGROUP_FDS  # without a cgroup, poll the tree's resident memory instead
OOM_EVENTS_FD = CONFIG["oom_events_fd"]  # memory.oom_control (v1) / memory.events (v2), or -1
OUTPUT_CAP = CONFIG["output_cap"]
FSIZE_CAP = CONFIG["fsize_cap"]
NPROC_CAP = CONFIG["nproc_cap"]
TMPFS = f"size={CONFIG['tmpfs_bytes']},nr_inodes={CONFIG['tmpfs_inodes']},mode=1777"
PRIVATE_TMP = CONFIG["private_tmp"]  # True: /tmp and /dev/shm are this sandbox's own tmpfs
SCRUB_DIRS = tuple(CONFIG["scrub_dirs"])  # world-writable places on a shared host
SCRUB_BUDGET_S = CONFIG["scrub_budget_s"]  # per run; past it the reply says "dirty" and the parent retires the uid
HEAVY_TMPFS_BYTES, HEAVY_TMPFS_FILES = 4 << 20, 256  # a run's tmpfs beyond this is freed before the reply
LIBC = ctypes.CDLL(None, use_errno=True)
CTL = socket.socket(fileno=CONFIG["control_fd"])
sys.path[:0] = CONFIG["extra_paths"]
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
RUN_SERVED, PARENT_GONE = 0, 3  # a supervisor's exit status: go on, or stop (the parent closed the channel)
TEMPLATE_PID = os.getpid()
PROC_OPTIONS = None  # the run's /proc mount options, set by the template's probe ("subset=pid" where the kernel has it)
LAST_PID = b"1000"  # the pid this namespace hands out before each supervisor (it gets 1001, its program 1002...)


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
    """Everything about the program's process that does not depend on the request: session, output on fds 1
    and 2, fixed rlimits, working directory, uid, no_new_privs, seccomp. The fds in `keep` stay open, as 3,
    4...; every other is closed."""
    CTL.detach()  # the fd is closed below; the object must not close a reused number later
    os.setsid()
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


def _fork_program(run_dir, stdout_fd, stderr_fd, request, fds):
    """The program's process (containment, then the harness): its pid, or -1 when it could not be made."""
    try:
        pid = os.fork()
    except OSError as exc:
        os.write(stderr_fd, f"sandbox: setup failed: {exc}\n".encode())
        pid = -1
    if pid == 0:
        try:
            _contain(run_dir, stdout_fd, stderr_fd, fds)
        except BaseException as exc:  # containment could not be set up: do not run the program
            os.write(2, f"sandbox: setup failed: {exc}\n".encode())
            os._exit(125)
        _start(request, range(3, 3 + len(fds)))
    for fd in fds:
        os.close(fd)
    return pid


# --- a run in namespaces of its own (FRESH_NS): the supervisor is the namespace's pid 1 ------------
def _kill_namespace():
    """SIGKILL every process of the run's PID namespace but this one (its pid 1). Only ever called there: on
    a shared pid namespace kill(-1) would reach the host's processes."""
    assert FRESH_NS and os.getpid() == 1
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass  # nothing left to kill


def _reap_namespace():
    """Kill and reap until this pid 1 has no process left (orphans of the run come back to it)."""
    while True:
        _kill_namespace()
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _tmpfs_in_use():
    """Whether the run left more than a little in its private /tmp or /dev/shm."""
    for top in ("/tmp", "/dev/shm"):
        st = os.statvfs(top)
        if (st.f_blocks - st.f_bfree) * st.f_frsize > HEAVY_TMPFS_BYTES or st.f_files - st.f_ffree > HEAVY_TMPFS_FILES:
            return True
    return False


def _run_in_namespaces(request, fds, stdout_fd, stderr_fd):
    """One run in the namespaces `_prepare_namespaces` made: (reply, what is left to do once it is sent)."""
    timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
    oom_before = _oom_kills()
    start = time.monotonic()
    pid = _fork_program("/tmp/run", stdout_fd, stderr_fd, request, fds)
    killed = None
    if pid > 0:
        pidfd = os.pidfd_open(pid)
        killed = _wait(pidfd, timeout_s, memory_mb)
        os.close(pidfd)
    duration = time.monotonic() - start
    heavy = _tmpfs_in_use()
    _kill_namespace()  # and with it the daemons and children the program left: none runs after the reply
    if killed == "gone":
        return None, None
    if killed == "finished" and not heavy:  # the caller ended it: reply now, tear down while it reads the reply
        return _reply(None, stdout_fd, stderr_fd, duration, killed, oom_before), _reap_namespace
    status = _wait_status(pid) if pid > 0 else 125 << 8
    _reap_namespace()
    if heavy:  # free its pages now, within this run's time (nothing holds them once every process is gone)
        for top in ("/tmp", "/dev/shm"):
            LIBC.umount2(top.encode(), 2)  # MNT_DETACH
    return _reply(status, stdout_fd, stderr_fd, duration, killed, oom_before), None


# --- a run on a shared file system or pid namespace ----------------------------------------------
def _sandbox_processes():
    """(pid, state, parent pid) of every process of the sandbox but this one, the template and the pid
    namespace's init."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me, TEMPLATE_PID):
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
    """Every live (not zombie) process of the sandbox but this one, the template (and the namespace's init)."""
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
            # here, the subreaper): wait for them too, or they outlive the run as zombies.
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
    objects. True when nothing is left (False: the time budget ran out). Never raises: the sandbox outlives
    whatever a program left behind."""
    try:
        if PID_NS or UID >= 0:
            _scrub_ipc()
        return scrub_run(run_dir, ("/tmp", "/dev/shm") if PRIVATE_TMP else SCRUB_DIRS, None if PRIVATE_TMP else UID,
                         SCRUB_BUDGET_S)
    except Exception as exc:  # noqa: BLE001
        os.write(2, f"sandbox: clean-up stopped: {type(exc).__name__}: {exc}\n".encode())
        return False


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


def _run_dir():
    """A fresh folder in the shared /tmp, named unpredictably (a program of another sandbox cannot plant it)."""
    path = f"/tmp/run-{os.urandom(8).hex()}"
    os.mkdir(path, 0o700)
    if UID >= 0:
        os.chown(path, UID, UID)
    return path


def _run_on_host(request, fds, stdout_fd, stderr_fd):
    """One run forked straight from the supervisor (no namespaces of its own): swept and scrubbed before the
    reply."""
    timeout_s, memory_mb = float(request["timeout_s"]), int(request["memory_mb"])
    oom_before = _oom_kills()
    run_dir = _run_dir()
    start = time.monotonic()
    pid = _fork_program(run_dir, stdout_fd, stderr_fd, request, fds)
    killed = None
    if pid > 0:
        pidfd = os.pidfd_open(pid)
        killed = _wait(pidfd, timeout_s, memory_mb)
        os.close(pidfd)
    duration = time.monotonic() - start
    if pid > 0:
        for target, kill in ((pid, os.killpg), (pid, os.kill)):
            try:
                kill(target, signal.SIGKILL)
            except OSError:
                pass
    status = _wait_status(pid) if pid > 0 else 125 << 8  # a SIGKILLed child of ours: block until it is gone
    _kill_leftovers(pid if pid > 0 else None)  # what it left behind: daemons, other process groups
    REAPED.clear()
    clean = _clean_up(run_dir)  # first: tmpfs pages count against the cgroup the sandbox shares with the program
    if killed == "gone":
        return None, None
    reply = _reply(status, stdout_fd, stderr_fd, duration, killed, oom_before)
    reply["dirty"] = not clean
    return reply, None


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


def _wait(ended, timeout_s, memory_mb):
    """Block until `ended` is readable (the program is gone: None), the time is up ("timeout"), the tree
    outgrows its memory ("memory"), the parent says finish ("finished") or is gone ("gone")."""
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
            if message is None:
                return "gone"
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
            "oom_kills": _oom_kills() - oom_before, "dirty": False}


# --- the supervisor: one run, in a fresh fork of the template -------------------------------------
def _next_request():
    """The next run's request and descriptors, or (None, []) when the parent is gone. A finish that crossed
    the reply of a run that had already ended is skipped."""
    while True:
        request, fds = _recv_request()
        if request is None or request.get("op") != "finish":
            return request, fds
        for fd in fds:
            os.close(fd)


def _supervise():
    """Serve one run (see the module docstring); the exit status for the template. Everything that is done
    before the request arrives is, so the run starts at once."""
    stdout_fd, stderr_fd = os.memfd_create("stdout"), os.memfd_create("stderr")
    if FRESH_NS:
        _prepare_namespaces(PROC_OPTIONS)
    else:
        LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: the program's orphans come back here to be swept
    request, fds = _next_request()
    if request is None:
        return PARENT_GONE
    reply, then = (_run_in_namespaces if FRESH_NS else _run_on_host)(request, fds, stdout_fd, stderr_fd)
    if reply is None:
        return PARENT_GONE
    write_frame(CTL.fileno(), reply)
    if then is not None:  # tearing down a run the caller ended, while the caller reads the verdict
        then()
    return RUN_SERVED


def _in_child(work):
    """Run `work()` in a fork and return what it returned (a bool), so that what it reads (a previous
    sandbox's leftovers, a mount probe) never enters this process's memory."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if work() else 1)
        except BaseException:  # noqa: BLE001 - the answer is "no"; the reason goes to stderr
            traceback.print_exc()
            os._exit(2)
    return os.waitstatus_to_exitcode(_wait_for(pid)) == 0


def _wait_for(pid):
    """The wait status of child `pid`, reaping any other child (an orphan of a run) that ends first."""
    while True:
        done, status = os.waitpid(-1, 0)
        if done == pid:
            return status


def _clean_leftovers():
    """What a killed sandbox with this uid may have left: its processes, its files (True when all gone)."""
    _kill_leftovers(None)
    return _clean_up(_run_dir())


def _fixed_pids():
    """An fd of this pid namespace's ns_last_pid (or -1 where it cannot be written): set to the same value
    before each supervisor is forked, the supervisor and its program get the same pids here in every run, so
    the pids this process holds in memory (and its forks inherit) say nothing of how many processes an
    earlier run started."""
    try:
        fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
        os.pwrite(fd, LAST_PID, 0)
        return fd
    except OSError:
        return -1


def _serve_runs(last_pid):
    """The template's loop: fork a supervisor (the pid 1 of a new PID namespace with `FRESH_NS`), reap it,
    fork the next. `last_pid`: `_fixed_pids`'s fd, or -1. Returns when the parent is gone or a supervisor
    failed: the parent then sees the control channel close and starts a new sandbox."""
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if FRESH_NS else -1
    while True:
        if FRESH_NS and LIBC.unshare(CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), "unshare of a run's pid namespace failed")
        if last_pid >= 0:
            os.pwrite(last_pid, LAST_PID, 0)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for fd in (own_pid_ns, last_pid):
                    if fd >= 0:
                        os.close(fd)
                code = _supervise()
            except BaseException:  # noqa: BLE001 - reported, and the template stops: the parent restarts it
                traceback.print_exc()
            finally:
                os._exit(code)
        if FRESH_NS and LIBC.setns(own_pid_ns, CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the template's pid namespace failed")
        if os.waitstatus_to_exitcode(_wait_for(pid)) != RUN_SERVED:
            return


def _main():
    global PROC_OPTIONS
    try:
        if CONFIG["view"]:
            _enter_view(CONFIG["view"])
        os.chdir("/")
        for key in list(os.environ):  # bwrap adds PWD; programs get PATH, LANG and their own TMPDIR only
            if key not in ("PATH", "LANG"):
                del os.environ[key]
        LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans of a supervisor come back here to be reaped
        oom_protected = _oom_score_adj(-1000)
        for fd in CGROUP_FDS:  # join once: children are born inside (moving each child would cost ms)
            os.write(fd, b"0")  # "0": this process; the fd was opened by the parent, outside any view
            os.close(fd)
        data_limit = resource.getrlimit(resource.RLIMIT_DATA)[1]  # the verifier worker's own bound is not a run's
        resource.setrlimit(resource.RLIMIT_DATA, (data_limit, data_limit))
        if FRESH_NS:
            PROC_OPTIONS = "subset=pid" if _in_child(lambda: _probe_proc("subset=pid")) else None
        last_pid = _fixed_pids() if FRESH_NS else -1  # never on a shared pid namespace: it is the host's counter
    except BaseException as exc:
        write_frame(CTL.fileno(), {"error": f"{type(exc).__name__}: {exc}"})
        return
    clean = _in_child(_clean_leftovers) if UID >= 0 and not PID_NS else True
    write_frame(CTL.fileno(), {"ready": True, "pid": os.getpid(), "seccomp": SECCOMP is not None,
                               "oom_protected": oom_protected, "clean": clean,
                               "proc_private": not FRESH_NS or PROC_OPTIONS is not None,
                               "fixed_pids": not FRESH_NS or last_pid >= 0})
    gc.freeze()  # every object so far: never traversed again, so no fork copies a page for the collector
    _serve_runs(last_pid)


_main()
