"""The sandbox's long-lived process (the template) and the run processes it forks, each of which becomes a program.

Runs as `python -S -I -c <codec.py + harness.py + scrub.py + mounts.py + this source> <config json>`, as
root inside the sandbox's namespaces when the host allows them (see
`runner.py` for the modes). Standard library only; read as text by
`sandbox/host.py`, never imported by the parent (it acts on import).

Channels. The control socket (fd `control_fd`), frames of a 4-byte
big-endian length + JSON: first the template says {"ready": ...} or
{"error": ...}; then, for each run, the run process says {"run": true} with
a pidfd of itself (SCM_RIGHTS) once it is prepared, and reads one request
{"timeout_s", "memory_mb", "harness": "exec"|"serve"} with its descriptors:
the payload (a memfd holding {"program", "setup"}), stdout, stderr, and for
"serve" the two pipe ends of the grader's calls. The status pipe (fd
`status_fd`): the template writes each run process's wait status there, 4
raw bytes, once it has reaped it. The parent supervises each run through
its pidfd (waits, kills) and reads its output from the memfds it made
(`sandbox/supervise.py`): nothing here reads a program's output, and
nothing here but the run process itself reads its request.

No run starts from memory that held another run's data (issue 41). The
template sets itself up (view, cgroups, OOM score, warm caches, a frozen
heap), says it is ready, and from then on only forks and reaps: it never
reads a request, a program, an output, a file name a program chose, and it
holds no value a program chose (a status crosses from the kernel to the pipe
through a fixed buffer that is cleared, never as a Python object). Each run
process is a fresh fork of it, made before its request is read; it reads
its own request and becomes the program. So a program's address space holds
the template's and its own request, never an earlier run's.

Nothing else carries from one run to the next. With `fresh_ns` (root in
namespaces) the run process is the first process (pid 1) of a PID namespace
of its own (the template unshares one for each fork, and sets the
namespace's last pid first, so every run gets the same pids); before its
request arrives it enters new mount and IPC namespaces with size- and
inode-capped tmpfs on /tmp and /dev/shm and a /proc that shows the run's
processes only (`subset=pid` where the kernel has it: no host-wide counter
such as /proc/stat's fork count). Killing it ends the run: the kernel kills
every process of the namespace, and the tmpfs, the IPC objects and the
namespaces go before the template can reap it, so before its status is
written. Without `fresh_ns` the cleaner sweeps the run's processes and
scrubs its SysV objects and files before the status is written.

The template joins the sandbox's cgroups once (fds opened by the parent),
so every run is born inside them, and sets its own oom_score_adj to -1000
where the host allows it (programs take 1000). Each program: new session;
stdin /dev/null, stdout and stderr on the parent's memfds; rlimits; a fresh
working directory and TMPDIR; drops to the sandbox uid; no_new_privs; the
seccomp filter built by the parent; then the harness (`sandbox/harness.py`),
which shares the program's interpreter, so nothing it says is trusted by the
parent: "exec" only runs the program (the exit status is the result);
"serve" runs it, then answers calls with plain data, which the parent
decodes strictly (`sandbox/codec.py`).
"""

import builtins
import ctypes
import fcntl
import gc
import json
import os
import resource
import signal
import socket
import struct
import sys
import time
import types

CONFIG = json.loads(sys.argv[1])
UID = CONFIG["uid"]  # -1: keep the current user (not root: nothing to switch to)
FRESH_NS = CONFIG["fresh_ns"]  # True: each run in new mount, IPC and PID namespaces of its own
CGROUP_FDS = CONFIG["cgroup_fds"]  # cgroup.procs files the template joins; [] without cgroups
FSIZE_CAP = CONFIG["fsize_cap"]
NPROC_CAP = CONFIG["nproc_cap"]
TMPFS = f"size={CONFIG['tmpfs_bytes']},nr_inodes={CONFIG['tmpfs_inodes']},mode=1777"
LIBC = ctypes.CDLL(None, use_errno=True)
CTL = socket.socket(fileno=CONFIG["control_fd"])
STATUS_FD = CONFIG["status_fd"]
TEMPLATE_PID = os.getpid()
sys.path[:0] = CONFIG["extra_paths"]
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
PROC_OPTIONS = None  # the run's /proc mount options, set by the template's probe ("subset=pid" where the kernel has it)
LAST_PID = b"1000"  # this namespace's last pid before each run process (it gets 1001, its first child 1002...)
RELAYED = CONFIG["relayed"]  # second word of a status a tool's run process relays (never a wait status)


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


# --- the run process: prepared before its request, then the program ------------------------------
def _contain(run_dir, stdout_fd, stderr_fd, keep):
    """Everything about the program's process that does not depend on the request: session, output on fds 1
    and 2, fixed rlimits, working directory, uid, no_new_privs, seccomp. The fds in `keep` stay open, as 3,
    4...; every other is closed (the control socket with them)."""
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


def _start(request, payload, rpc_fds):
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
        serve(payload["program"], payload.get("setup") or "", namespace)
    run_program(payload["program"], namespace)


def _recv_request():
    """The run's request frame and the descriptors sent with it; (None, []) when the parent is gone."""
    header, fds, _, _ = socket.recv_fds(CTL, 4, 8)
    while header and len(header) < 4:
        more = CTL.recv(4 - len(header))
        if not more:
            break
        header += more
    body = read_exact(CTL.fileno(), struct.unpack(">I", header)[0]) if len(header) == 4 else None
    if body is None:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(body), fds


def _read_payload(fd):
    """The program and the setup code, from the memfd the parent wrote them to (then closed)."""
    data, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        data.append(chunk)
        offset += len(chunk)
    os.close(fd)
    return json.loads(b"".join(data))


def _run_dir():
    """A fresh folder in the shared /tmp, named unpredictably (a program of another sandbox cannot plant it)."""
    path = f"/tmp/run-{os.urandom(8).hex()}"
    os.mkdir(path, 0o700)
    if UID >= 0:
        os.chown(path, UID, UID)
    return path


def _become_program():
    """The run process: prepare what needs no request (namespaces, tmpfs, /proc), tell the parent (with a pidfd
    of itself, its handle on the run), read the request, become the program. Returns only when the parent is
    gone or the run could not be prepared."""
    try:
        if FRESH_NS:
            _prepare_namespaces(PROC_OPTIONS)
    except OSError as exc:  # the parent reports it as the run's error, and starts a new sandbox
        frame = json.dumps({"error": f"the run's namespaces could not be made: {exc}"}).encode()
        socket.send_fds(CTL, [struct.pack(">I", len(frame)) + frame], [os.pidfd_open(os.getpid())])
        return
    socket.send_fds(CTL, [struct.pack(">I", 13) + b'{"run": true}'], [os.pidfd_open(os.getpid())])
    request, fds = _recv_request()
    if request is None or len(fds) < 3:
        return
    payload, stdout_fd, stderr_fd, rpc_fds = fds[0], fds[1], fds[2], fds[3:]
    if FRESH_NS and request["harness"] == "exec" and _as_init_of(stdout_fd, stderr_fd):
        return
    try:
        payload = _read_payload(payload)
        # Shared /tmp: made only now, once the cleaner has removed what the previous run left of this uid.
        run_dir = "/tmp/run" if FRESH_NS else _run_dir()
        _contain(run_dir, stdout_fd, stderr_fd, rpc_fds)
    except BaseException as exc:  # containment could not be set up: do not run the program
        os.write(stderr_fd, f"sandbox: setup failed: {exc}\n".encode())
        os._exit(125)
    _start(request, payload, range(3, 3 + len(rpc_fds)))


def _as_init_of(stdout_fd, stderr_fd):
    """For a program run as a tool ("exec"): stay the namespace's init and let the program run as pid 2, so that
    the signals it sends itself act as they would anywhere (the kernel ignores those a pid 1 sends itself with
    the default action, SIGKILL included). True here, once the program's wait status is written to the status
    pipe (with `RELAYED` as its second word); False in the program, which goes on."""
    status = ctypes.c_int()
    try:
        pid = os.fork()
    except OSError as exc:  # exits as a program whose containment failed does: the parent reports an error
        os.write(stderr_fd, f"sandbox: setup failed: {exc}\n".encode())
        os._exit(125)
    if pid == 0:
        return False
    for fd in (stdout_fd, stderr_fd):
        os.close(fd)
    while LIBC.waitpid(pid, ctypes.byref(status), 0) != pid and ctypes.get_errno() == 4:  # EINTR
        pass
    LIBC.write(STATUS_FD, ctypes.byref((ctypes.c_int * 2)(status.value, RELAYED)), 8)
    return True


# --- the template ----------------------------------------------------------------------------------
class _Status(ctypes.Structure):
    """What the template writes to the status pipe for each run: the run process's wait status and its
    cleaner's (0 where runs have namespaces of their own: nothing to clean). Filled and sent by C calls and
    cleared, so no Python object (no local a later fork could reach) ever holds a value a program chose."""
    _fields_ = [("run", ctypes.c_int), ("clean", ctypes.c_int)]


_STATUS, _SCRATCH = _Status(), ctypes.c_int()


def _reap_until(pid, into):
    """Reap children (the orphans of a run end here too) until `pid`; its wait status goes to the c_int at
    `into`. False if it cannot be (never: only this process reaps its children)."""
    while (done := LIBC.waitpid(-1, ctypes.byref(_SCRATCH), 0)) != pid:
        if done < 0 and ctypes.get_errno() != 4:  # not EINTR
            return False
    ctypes.memmove(into, ctypes.byref(_SCRATCH), 4)
    _SCRATCH.value = 0
    return True


def _clean():
    """In a throwaway fork of the template: remove what the last run left (`scrub.clean`); exit 0 when all of
    it is gone, 1 when the time budget ran out (the parent then retires the uid)."""
    try:
        done = clean(UID, CONFIG["pid_ns"], tuple(CONFIG["scrub_dirs"]), CONFIG["scrub_budget_s"],
                     {1, TEMPLATE_PID, os.getpid()})
    except BaseException:  # noqa: BLE001 - not clean: the uid is retired
        done = False
    os._exit(0 if done else 1)


def _fixed_pids():
    """An fd of this pid namespace's ns_last_pid, or -1 where it cannot be written. Set to the same value before
    each run process is forked, every run gets the same pids here, so the pids this process holds say
    nothing of how many processes an earlier run started."""
    try:
        fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
        os.pwrite(fd, LAST_PID, 0)
        return fd
    except OSError:
        return -1


def _serve_runs(last_pid):
    """Fork a run process (the pid 1 of a new PID namespace with `FRESH_NS`); once it is reaped, clean up
    after it where runs share the host, send the statuses, fork the next; until the parent is gone.
    `last_pid`: `_fixed_pids`'s fd, or -1."""
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if FRESH_NS else -1
    run, cleaner = ctypes.addressof(_STATUS) + _Status.run.offset, ctypes.addressof(_STATUS) + _Status.clean.offset
    while True:
        if FRESH_NS and LIBC.unshare(CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), "unshare of a run's pid namespace failed")
        if last_pid >= 0:
            os.pwrite(last_pid, LAST_PID, 0)
        pid = _fork()
        if pid == 0:
            try:
                for fd in (own_pid_ns, last_pid):  # the status pipe stays: a tool's run relays its program's status
                    if fd >= 0:
                        os.close(fd)
                _become_program()
            finally:
                os._exit(0)
        if FRESH_NS and LIBC.setns(own_pid_ns, CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the template's pid namespace failed")
        if not _reap_until(pid, run):
            return
        if not FRESH_NS:
            pid = _fork()
            if pid == 0:
                _clean()
            if not _reap_until(pid, cleaner):
                return
        sent = LIBC.write(STATUS_FD, ctypes.byref(_STATUS), 8) == 8
        ctypes.memset(ctypes.byref(_STATUS), 0, 8)
        if not sent:  # the parent is gone
            return


def _fork():
    """os.fork, waiting out a full pids.max for a while: a run's leftovers hold tasks until they are swept."""
    for attempt in range(400):
        try:
            return os.fork()
        except BlockingIOError:
            if attempt == 399:
                raise
            time.sleep(0.005)


def _in_child(work):
    """Run `work()` in a fork and return whether it returned true, so that what it touches stays out of this
    process's memory."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if work() else 1)
        except BaseException:  # noqa: BLE001 - the answer is "no"
            os._exit(2)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def _warm():
    """Make here, once, the state Python builds lazily on first use (the compiler's AST types, the codec's and
    json's caches), so that no run pays for it: run a fixed program and round-trip a fixed value."""
    exec(compile("def f(x):\n    return [x, str(x)]\n", "<warm>", "exec"), {"__builtins__": builtins})
    wire = Encoder(lambda iterator: 0).encode([1, 2.5, "a", b"b", (None,), {"k": [1]}, {1}, iter(())])
    Decoder(iterator=lambda number: None).decode(json.loads(json.dumps(wire)))


def _main():
    global PROC_OPTIONS
    try:
        if CONFIG["view"]:
            _enter_view(CONFIG["view"])
        os.chdir("/")
        for key in list(os.environ):  # bwrap adds PWD; programs get PATH, LANG and their own TMPDIR only
            if key not in ("PATH", "LANG"):
                del os.environ[key]
        LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: the orphans of a run come back here to be reaped
        oom_protected = _oom_score_adj(-1000)
        for fd in CGROUP_FDS:  # join once: children are born inside (moving each child would cost ms)
            os.write(fd, b"0")  # "0": this process; the fd was opened by the parent, outside any view
            os.close(fd)
        data_limit = resource.getrlimit(resource.RLIMIT_DATA)[1]  # the verifier worker's own bound is not a run's
        resource.setrlimit(resource.RLIMIT_DATA, (data_limit, data_limit))
        if FRESH_NS:
            PROC_OPTIONS = "subset=pid" if _in_child(lambda: _probe_proc("subset=pid")) else None
        last_pid = _fixed_pids() if FRESH_NS else -1  # never on a shared pid namespace: it is the host's counter
        _warm()
    except BaseException as exc:
        write_frame(CTL.fileno(), {"error": f"{type(exc).__name__}: {exc}"})
        return
    clean_at_start = FRESH_NS or _in_child(lambda: clean(UID, CONFIG["pid_ns"], tuple(CONFIG["scrub_dirs"]),
                                                         CONFIG["scrub_budget_s"], {1, TEMPLATE_PID, os.getpid()}))
    write_frame(CTL.fileno(), {"ready": True, "seccomp": SECCOMP is not None, "oom_protected": oom_protected,
                               "proc_private": not FRESH_NS or PROC_OPTIONS is not None,
                               "fixed_pids": not FRESH_NS or last_pid >= 0, "clean": clean_at_start})
    gc.freeze()  # every object so far: never traversed again, so no fork copies a page for the collector
    _serve_runs(last_pid)


_main()
