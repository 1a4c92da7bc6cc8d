"""What the host lends the sandbox: a uid of its own, cgroups, the launch command and the file-system view.

Used by `sandbox.py` in the (trusted) verifier process; nothing here runs
inside the sandbox. Every helper reports what it could not get instead of
raising, so `Sandbox` can decide per its setting whether to go on without it.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SANDBOX_UID_BASE = 61000
SANDBOX_UID_COUNT = 4096
SANDBOX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")
BWRAP_PATHS = ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap")
UNSHARE_PATHS = ("/usr/bin/unshare", "/bin/unshare")
SCRUB_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock")  # world-writable places a run on a shared host scrubs


def _zygote_source() -> str:
    """One script: the codec, the child-side harness, the scrub and the mounts first (the zygote and its
    children call them), then the zygote. Their imports of each other are dropped: concatenated, the names
    are defined."""
    names = ("codec.py", "harness.py", "scrub.py", "mounts.py", "zygote.py")
    texts = ((Path(__file__).parent / name).read_text() for name in names)
    return "\n".join(line for text in texts for line in text.splitlines() if not line.startswith("from rlvr_core."))


_ZYGOTE_SOURCE = _zygote_source()
_names = itertools.count()


class UidLease:
    """One uid in [SANDBOX_UID_BASE, +4096) held by this sandbox alone, via a flock per uid.

    Two sandboxes never share a uid, so RLIMIT_NPROC, `kill(-1)` from the uid
    and the file scrub of one never touch the other's processes or files. A
    uid whose files could not all be removed in a run's time is `retire`d: a
    background scrubber holds its lock until they are gone, so a uid is only
    ever leased clean (a killed sandbox's leftovers excepted: the zygote
    removes those at start, or reports them and the uid is retired in turn).
    """

    def __init__(self) -> None:
        folder = Path("/run/rlvr-sandbox-uids") if os.access("/run", os.W_OK) else Path(tempfile.gettempdir()) / "rlvr-sandbox-uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        start = os.getpid() % SANDBOX_UID_COUNT
        for step in range(SANDBOX_UID_COUNT):
            uid = SANDBOX_UID_BASE + (start + step) % SANDBOX_UID_COUNT
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError(f"all {SANDBOX_UID_COUNT} sandbox uids are in use (locks in {folder})")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def retire(self, tops: tuple[str, ...]) -> subprocess.Popen:
        """Give the uid up while a detached scrubber removes what it owns in `tops`; the scrubber inherits the
        lock and holds it until it is done (returned, for whoever wants to wait). The caller leases another uid."""
        source = (Path(__file__).parent / "scrub.py").read_text() + f"\nscrub_owner({self.uid}, {list(tops)!r})\n"
        scrubber = subprocess.Popen([os.path.realpath(sys.executable), "-S", "-I", "-c", source], pass_fds=[self._fd],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=dict(SANDBOX_ENV), start_new_session=True)
        self.release()
        return scrubber


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(root, mount point, fs type, super options) of every mount, from /proc/self/mountinfo."""
    out = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3:
            out.append((fields[3], fields[4], tail[0], set(tail[2].split(","))))
    return out


def _own_cgroups() -> dict[str, str]:
    """Controller ("" for cgroup v2) -> this process's cgroup path, from /proc/self/cgroup."""
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            own[name] = path
    return own


def _under(mount_root: str, mount_point: str, path: str) -> Path | None:
    if mount_root == "/":
        return Path(mount_point + path)
    if path == mount_root or path.startswith(mount_root + "/"):
        return Path(mount_point + path[len(mount_root):])
    return None


def _end_members(group: Path, passes: int = 100) -> None:
    """SIGKILL every process left in the cgroup of a sandbox whose owner died.

    Where the sandbox had no pid namespace (host-plain), nothing else ends them: a program running when its
    sandbox's process was killed (a verifier worker past its item timeout, an OOM kill) lives on, and a fork
    bomb keeps refilling its cgroup up to pids.max for good. Each pass kills what the group lists (a bomb forks
    between the read and the kills, so it takes a few); v2's cgroup.kill does it in one write.
    """
    if (group / "cgroup.kill").exists():
        with contextlib.suppress(OSError):
            (group / "cgroup.kill").write_text("1")
    for _ in range(passes):
        try:
            members = [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        if not members:
            return
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)  # the killed are reaped, and leave the group, by the time of the next read


class Cgroup:
    """A memory + pids cgroup holding one sandbox's zygote and so every program it forks.

    v2 where this process's cgroup delegates both controllers, else v1 (memory
    and pids hierarchies); `create` returns None where neither is writable.
    The parent writes the limits before each run; the zygote joins once by
    writing "0" to the cgroup.procs fds it inherits, from inside any view.
    (Moving each child instead costs milliseconds per run: the kernel's
    cgroup migration lock waits for an RCU grace period.)
    """

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version, self.dirs = version, dirs
        self._fds: list[int] = []
        self._events_fd = -1
        self._limits: tuple[int, int] | None = None

    @classmethod
    def create(cls) -> "Cgroup | None":
        name = f"rlvr-sandbox-{os.getpid()}-{next(_names)}"
        try:
            mounts, own = _mounts(), _own_cgroups()
        except OSError:
            return None
        for root, point, fstype, _ in mounts:  # v2
            if fstype == "cgroup2" and "" in own and (parent := _under(root, point, own[""])) is not None:
                group = cls._make(parent, name)
                if group is None:
                    continue
                if {"memory", "pids"} <= set((group / "cgroup.controllers").read_text().split()):
                    return cls(2, {"memory": group, "pids": group})
                group.rmdir()
        dirs = {}
        for root, point, fstype, options in mounts:  # v1
            for controller in ("memory", "pids"):
                if fstype == "cgroup" and controller in options and controller in own and controller not in dirs:
                    parent = _under(root, point, own[controller])
                    group = cls._make(parent, name) if parent is not None else None
                    if group is not None:
                        dirs[controller] = group
        if set(dirs) == {"memory", "pids"}:
            return cls(1, dirs)
        for group in dirs.values():
            group.rmdir()
        return None

    @staticmethod
    def _make(parent: Path, name: str) -> Path | None:
        try:
            for stale in parent.glob("rlvr-sandbox-*"):  # left by sandboxes whose process was killed
                match = re.fullmatch(r"rlvr-sandbox-(\d+)-\d+", stale.name)
                if match and not Path(f"/proc/{match.group(1)}").exists():
                    _end_members(stale)
                    try:
                        stale.rmdir()
                    except OSError:
                        pass
            group = parent / name
            group.mkdir()
            return group
        except OSError:
            return None

    def procs_fds(self) -> list[int]:
        """Write-only descriptors of cgroup.procs, one per hierarchy, for the zygote to inherit."""
        if not self._fds:
            paths = {d / "cgroup.procs" for d in self.dirs.values()}
            self._fds = [os.open(p, os.O_WRONLY) for p in sorted(paths)]
        return self._fds

    def limit(self, memory_mb: int, nproc: int) -> None:
        """Memory and task limits for the whole tree of the next program (tmpfs pages included)."""
        if self._limits == (memory_mb, nproc):
            return
        self._limits = None
        mem, pids = self.dirs["memory"], self.dirs["pids"]
        if self.version == 2:
            self._write(mem / "memory.max", str(memory_mb << 20))
            self._write(mem / "memory.swap.max", "0", optional=True)
        else:
            self._write(mem / "memory.limit_in_bytes", str(memory_mb << 20))
        self._write(pids / "pids.max", str(nproc))
        self._limits = (memory_mb, nproc)

    @staticmethod
    def _write(path: Path, value: str, optional: bool = False) -> None:
        try:
            path.write_text(value)
        except OSError:
            if not optional:
                raise

    def events_fd(self) -> int:
        """A read-only descriptor of the file whose "oom_kill N" line counts the memory limit's kills."""
        if self._events_fd < 0:
            name = "memory.events" if self.version == 2 else "memory.oom_control"
            self._events_fd = os.open(self.dirs["memory"] / name, os.O_RDONLY)
        return self._events_fd

    def oom_kills(self) -> int:
        """How many processes the memory limit has killed in this cgroup so far."""
        for line in os.pread(self.events_fd(), 4096, 0).split(b"\n"):
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        for fd in [*self._fds, *([self._events_fd] if self._events_fd >= 0 else [])]:
            os.close(fd)
        self._fds, self._events_fd = [], -1
        for group in set(self.dirs.values()):
            for _ in range(50):  # the killed zygote may take a moment to leave
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def find_tool(candidates: tuple[str, ...], name: str) -> str | None:
    """An absolute path to `name`: the first standard location that exists, else the caller's PATH."""
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    return os.path.realpath(found) if found else None


def _others_can_read(path: str) -> bool:
    """True if every directory down to `path` is traversable by any user."""
    current = Path(path).resolve()
    return all(p.stat().st_mode & 0o001 for p in [current, *current.parents])


def our_interpreter() -> tuple[str, str]:
    """(interpreter, prefix) of this Python, for views that bind the prefix in."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable)), sys.base_prefix


@functools.cache
def shared_interpreter() -> str | None:
    """An interpreter the sandbox uid can run in the host's own file system, or None.

    Ours when every directory down to it is world-traversable, else the first
    system python3 >= 3.9 (programs need only the standard library).
    """
    ours, prefix = our_interpreter()
    if _others_can_read(prefix) and _others_can_read(ours):
        return ours
    for candidate in SYSTEM_PYTHONS:
        path = os.path.realpath(candidate)
        if not os.path.isfile(path) or not _others_can_read(path):
            continue
        probe = subprocess.run([path, "-S", "-I", "-c", "import sys; print(sys.version_info >= (3, 9), sys.prefix)"],
                               capture_output=True, text=True, env=dict(SANDBOX_ENV), timeout=30)
        ok, _, found_prefix = probe.stdout.strip().partition(" ")
        if probe.returncode == 0 and ok == "True" and _others_can_read(found_prefix):
            return path
    return None


HIDDEN_ROOTS = ("tmp", "dev", "proc")  # the sandbox mounts its own: a host folder there would be covered


def sandbox_path(path: str, index: int) -> str:
    """Where extra path number `index` appears inside a namespaced sandbox: where it is on the host, unless
    the sandbox's own /tmp, /dev or /proc would cover it (a checkout under /tmp), then /opt/rlvr-extra/<index>."""
    return f"/opt/rlvr-extra/{index}" if path.split("/")[1] in HIDDEN_ROOTS else path


def view(prefix: str, extra_paths: list[str], tmpfs_bytes: int) -> list[list]:
    """The file system a program sees: read-only /usr, /etc, the interpreter's prefix and `extra_paths`
    (at `sandbox_path`); fresh /proc and /dev; private, size-capped /tmp and /dev/shm. Nothing else (no
    /root, /home, project)."""
    spec: list[list] = [["ro-bind", "/usr", "/usr"], ["ro-bind", "/etc", "/etc"]]
    for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        path = "/" + name
        if os.path.islink(path):
            spec.append(["symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            spec.append(["ro-bind", path, path])
    for path, target in [(prefix, prefix), *((p, sandbox_path(p, i)) for i, p in enumerate(extra_paths))]:
        if path.startswith("/usr/") or not os.path.exists(path):
            continue
        spec += [["dir", "", str(p)] for p in list(Path(target).parents)[::-1][1:]]
        spec.append(["ro-bind", path, target])
    return spec + [["proc", "", "/proc"], ["dev", "", "/dev"], ["tmpfs", tmpfs_bytes, "/tmp"], ["tmpfs", tmpfs_bytes, "/dev/shm"]]


def bwrap_args(spec: list[list]) -> list[str]:
    """`view` as bubblewrap arguments."""
    args: list[str] = []
    for kind, source, target in spec:
        args += {
            "ro-bind": ["--ro-bind", source, target], "symlink": ["--symlink", source, target],
            "proc": ["--proc", target], "dev": ["--dev", target], "dir": ["--perms", "0755", "--dir", target],
            "tmpfs": ["--perms", "01777", "--size", str(source), "--tmpfs", target],
        }[kind]
    return args


def host_view(spec: list[list]) -> list[list]:
    """`view` for the zygote's own builder: "dev" becomes a small tmpfs with the harmless device nodes."""
    out: list[list] = []
    for kind, source, target in spec:
        if kind != "dev":
            out.append([kind, source, target])
            continue
        out.append(["devfs", 65536, target])
        out += [["dev-bind", f"/dev/{n}", f"{target}/{n}"] for n in ("null", "zero", "full", "random", "urandom")]
        out += [["symlink", f"/proc/self/fd{suffix}", f"{target}/{n}"]
                for n, suffix in (("fd", ""), ("stdin", "/0"), ("stdout", "/1"), ("stderr", "/2"))]
    return out


def zygote_argv(interpreter: str, config: dict) -> list[str]:
    return [interpreter, "-S", "-I", "-c", _ZYGOTE_SOURCE, json.dumps(config)]
