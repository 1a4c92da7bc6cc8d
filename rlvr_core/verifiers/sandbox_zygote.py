"""The long-lived process that forks one sandboxed child per program.

Runs as `python -S -I -c <this source> <config json>`, normally as root inside
a bubblewrap sandbox (fresh pid, net, mount, ipc and uts namespaces, read-only
root, private /tmp). It imports only the standard library, so a fork costs
about a millisecond instead of a full interpreter start-up per program.

Protocol on stdin/stdout: 4-byte big-endian length + JSON, one request
{"program", "timeout_s", "memory_mb", "nonce"} -> one reply {"status",
"returncode", "output", "duration_s"}. Kept dependency-free on purpose: it is
read as text by `sandbox.py` and never imported by the parent.
"""

import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback

CONFIG = json.loads(sys.argv[1])
UID, GID = CONFIG["uid"], CONFIG["gid"]  # -1: keep the current user
IN_NAMESPACE = CONFIG["in_namespace"]  # True: every other pid here is ours to kill
OUTPUT_CAP = CONFIG["output_cap"]
FSIZE_CAP = CONFIG["fsize_cap"]
NPROC_CAP = CONFIG["nproc_cap"]
BLOCKED_EVENTS = frozenset(CONFIG["blocked_audit_events"])


def _audit(event, args):
    # Defence in depth, not the boundary: the namespaces and the uid switch are.
    if event in BLOCKED_EVENTS:
        raise PermissionError(f"sandbox: {event} is not allowed")


def _child(program, timeout_s, memory_mb, nonce, run_dir, out_fd, result_fd):
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.closerange(3, result_fd)
    os.closerange(result_fd + 1, 4096)
    cpu = int(timeout_s) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_CAP, FSIZE_CAP))
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC_CAP, NPROC_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    os.chdir(run_dir)
    if UID >= 0:
        os.setgroups([])
        os.setgid(GID)
        os.setuid(UID)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    sys.addaudithook(_audit)
    try:
        exec(compile(program, "<program>", "exec"), {"__name__": "__main__"})
        sys.stdout.flush()
        os.write(result_fd, nonce.encode())
        os._exit(0)
    except SystemExit as exc:  # exiting before the asserts ran is not a pass
        print(f"program exited early: SystemExit({exc.code!r})", file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(1)


def _kill_leftovers(pgid):
    """SIGKILL whatever the program left running, however it daemonised."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    if IN_NAMESPACE:
        me = os.getpid()
        for _ in range(200):  # a fork bomb is capped by NPROC, so this converges fast
            alive = []
            for name in os.listdir("/proc"):
                if not name.isdigit() or int(name) in (1, me):
                    continue
                try:
                    with open(f"/proc/{name}/stat", "rb") as fh:
                        if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                            continue
                    os.kill(int(name), signal.SIGKILL)
                    alive.append(name)
                except OSError:
                    pass
            if not alive:
                return
            time.sleep(0.002)
    elif UID >= 0:
        # kill(-1) from a process running as the sandbox uid reaches exactly its processes.
        for _ in range(3):
            helper = os.fork()
            if helper == 0:
                try:
                    os.setuid(UID)
                    os.kill(-1, signal.SIGKILL)
                finally:
                    os._exit(0)
            os.waitpid(helper, 0)


def _run(request):
    timeout_s = float(request["timeout_s"])
    run_dir = tempfile.mkdtemp(prefix="run-")
    out_path = os.path.join(run_dir, ".output")
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if UID >= 0:
        os.chown(run_dir, UID, GID)
    result_r, result_w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(request["program"], timeout_s, int(request["memory_mb"]), request["nonce"], run_dir, out_fd, result_w)
    os.close(result_w)
    os.close(out_fd)
    pidfd = os.pidfd_open(pid)
    timed_out = not select.select([pidfd], [], [], timeout_s)[0]
    if timed_out:
        _kill_leftovers(pid)
    _, status = os.waitpid(pid, 0)
    duration = time.monotonic() - start
    os.close(pidfd)
    _kill_leftovers(pid)
    os.set_blocking(result_r, False)
    try:
        marker = os.read(result_r, 256).decode(errors="replace")
    except BlockingIOError:
        marker = ""
    os.close(result_r)
    with open(out_path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(max(0, size - OUTPUT_CAP))
        output = fh.read(OUTPUT_CAP).decode(errors="replace")
    shutil.rmtree(run_dir, ignore_errors=True)
    if IN_NAMESPACE:  # /tmp is this sandbox's private tmpfs: leave nothing for the next program
        for name in os.listdir("/tmp"):
            shutil.rmtree(os.path.join("/tmp", name), ignore_errors=True)
    code = os.waitstatus_to_exitcode(status)
    if timed_out:
        verdict = "timeout"
    elif code == 0 and marker == request["nonce"]:
        verdict = "passed"
    else:
        verdict = "failed"
    return {"status": verdict, "returncode": code, "output": output, "duration_s": duration}


def _main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.read(4)
        if len(header) < 4:
            return
        request = json.loads(stdin.read(struct.unpack(">I", header)[0]))
        reply = json.dumps(_run(request)).encode()
        stdout.write(struct.pack(">I", len(reply)) + reply)
        stdout.flush()


_main()
