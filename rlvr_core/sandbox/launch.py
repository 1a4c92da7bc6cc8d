"""Starting a sandbox: the launchers a setting tries, what each mode lacks on this machine, the zygote process.

Used by `runner.py` (the `Sandbox`) in the trusted process; the modes and
their guarantees are described there and in docs/SECURITY.md.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import platform
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

from rlvr_core.sandbox import host
from rlvr_core.sandbox.channel import recv_frame
from rlvr_core.sandbox.host import SANDBOX_ENV
from rlvr_core.sandbox.seccomp import SYSCALLS

START_TIMEOUT_S = 60.0  # an interpreter start on a loaded 2-core machine


@dataclass(frozen=True)
class Launcher:
    mode: str  # "bwrap", "host" or "host-unsafe"
    prefix: tuple[str, ...]  # command before the interpreter (bwrap or unshare and their arguments)
    interpreter: str
    view: list | None  # built by the zygote itself (host mode in fresh namespaces)
    namespaces: bool
    description: str


def candidates(setting: str, root: bool, extra_paths: list[str], tmpfs_bytes: int) -> list[Launcher | str]:
    """Launchers to try in order for `setting`, or a string saying why one is not available here."""
    interpreter, prefix = host.our_interpreter()
    spec = host.view(prefix, extra_paths, tmpfs_bytes)
    bwrap, unshare = host.find_tool(host.BWRAP_PATHS, "bwrap"), host.find_tool(host.UNSHARE_PATHS, "unshare")
    out: list[Launcher | str] = []
    if setting in ("auto", "bwrap"):
        if bwrap is None:
            out.append("bwrap: not installed (apt-get install bubblewrap)")
        else:
            prefix_args = (bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                           "--die-with-parent", "--new-session", "--clearenv", *host.bwrap_args(spec),
                           *[a for k, v in SANDBOX_ENV.items() for a in ("--setenv", k, v)], "--chdir", "/tmp")
            out.append(Launcher("bwrap", prefix_args, interpreter, None, True, f"bubblewrap ({bwrap})"))
    if setting == "bwrap":
        return out
    mode = "host-unsafe" if setting == "host-unsafe" else "host"
    if not root and mode == "host":
        out.append("host: needs root, to run programs as a uid of their own")
        return out
    if root and unshare is not None:
        ns_prefix = (unshare, "--pid", "--fork", "--kill-child", "--net", "--ipc", "--uts", "--mount", "--propagation", "private")
        out.append(Launcher(mode, ns_prefix, interpreter, host.host_view(spec), True, f"unshare namespaces ({unshare})"))
    shared = host.shared_interpreter() if root else interpreter
    if shared is None:
        out.append("host without namespaces: no python3 that the sandbox uid can run (apt-get install python3)")
    else:
        out.append(Launcher(mode, (), shared, None, False, f"host file system, {shared}"))
    return out


def lacks(launcher: Launcher, uid: int, has_cgroup: bool, ready: dict) -> tuple[str, ...]:
    """Each guarantee the mode `launcher` runs in does not give on this machine (`ready`: the zygote's first
    frame, which says what it could set up)."""
    out = []
    if uid < 0:
        out.append(f"no uid switch (not root): programs run as {getpass.getuser()}, with its file access, and can "
                   "signal its processes outside the pid namespace")
        if launcher.namespaces:
            out.append("no namespaces per run (not root): runs share the zygote's; /tmp and /dev/shm are scrubbed "
                       "after each run and pid numbers carry over")
    if not has_cgroup:
        out.append("no writable cgroup: memory is limited per process (RLIMIT_AS) and polled for the whole tree every "
                   "50 ms; processes by RLIMIT_NPROC")
    if not ready.get("proc_private", True):
        out.append("no private /proc (the kernel mounts no `subset=pid` /proc, Linux < 5.8): host-wide counters such "
                   "as /proc/stat's fork count are readable in a run")
    if not ready.get("fixed_pids", True):
        out.append("no fixed pids per run (ns_last_pid is not writable): the zygote's memory, which every run "
                   "inherits, holds the previous run's pid in the sandbox's namespace, a count of the processes "
                   "earlier runs started")
    if not ready.get("oom_protected"):
        out.append("no OOM protection for the zygote (the host refuses oom_score_adj -1000: no CAP_SYS_RESOURCE): "
                   "programs (1000) go first, the zygote (0) could go once they are gone")
    if platform.machine() not in SYSCALLS:
        out.append(f"no seccomp filter on {platform.machine()}: sockets, ptrace, io_uring, namespaces are not refused")
    if not launcher.namespaces:
        out += ["no pid namespace: other processes are visible in /proc (not signalable: another uid)",
                "no mount namespace: host files are readable with the sandbox uid's permissions (world-readable "
                "project files; a dataset store the project wrote is not: its files are 0600)",
                "no private /tmp: world-writable directories are shared during a run; /tmp, /var/tmp, /dev/shm, /run/lock and "
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


@dataclass
class Zygote:
    """A started zygote, from the parent: its process, control socket, status pipe and first frame."""

    proc: subprocess.Popen
    ctl: socket.socket
    status: int  # our end of its status pipe (8 bytes per run: `zygote.py`)
    stderr: object
    ready: dict  # its first frame: seccomp, oom_protected, clean...
    unread: int = 0  # runs ended by the caller whose statuses are read before the next run starts
    template: int = 0  # the template's pid here (the parent of its run processes)


def start_zygote(launcher: Launcher, config: dict, cgroup_fds: list[int]) -> Zygote:
    """Start the zygote with `config` (its control socket and status pipe added here) and wait for its first
    frame; OSError saying why it did not get ready."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    status_r, status_w = os.pipe()
    config = {**config, "control_fd": theirs.fileno(), "status_fd": status_w}
    stderr = tempfile.TemporaryFile()
    try:
        proc = subprocess.Popen([*launcher.prefix, *host.zygote_argv(launcher.interpreter, config)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                env=dict(SANDBOX_ENV), start_new_session=True,
                                pass_fds=[theirs.fileno(), status_w, *cgroup_fds])
    except OSError as exc:
        ours.close()
        os.close(status_r)
        stderr.close()
        raise OSError(f"could not start {launcher.description}: {exc}") from exc
    finally:
        theirs.close()
        os.close(status_w)
    zygote = Zygote(proc, ours, status_r, stderr, {})
    first = recv_frame(ours, time.monotonic() + START_TIMEOUT_S)
    if not first or not first.get("ready"):
        why = (first or {}).get("error") or stderr_tail(zygote) or "the zygote exited before it was ready"
        close_zygote(zygote)
        raise OSError(why)
    zygote.ready = first
    return zygote


def close_zygote(zygote: Zygote | None) -> None:
    """Kill the zygote's process group (its runs die with its pid namespace, or are swept at the next start)."""
    if zygote is None:
        return
    try:
        os.killpg(zygote.proc.pid, 9)
    except OSError:
        pass
    zygote.proc.wait()
    zygote.ctl.close()
    os.close(zygote.status)
    zygote.stderr.close()


def stderr_tail(zygote: Zygote) -> str:
    """The last lines the zygote (or bwrap/unshare) wrote to its stderr: why it failed to start or died."""
    with contextlib.suppress(OSError, ValueError):
        zygote.stderr.seek(0)
        return zygote.stderr.read()[-400:].decode(errors="replace").strip()
    return ""
