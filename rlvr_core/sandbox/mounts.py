"""Mounts the zygote makes: the file-system view (host mode in fresh namespaces; bwrap builds its own) and
each run's namespaces with their private tmpfs.

Read as text into the zygote's source (`host.py`), after the zygote's
settings are defined and before `zygote.py`'s main loop runs; never
imported (it uses the zygote's globals: LIBC, UID, TMPFS, OWN_NAMESPACES).
"""

import ctypes
import os

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


def _mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    if LIBC.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise OSError(ctypes.get_errno(), f"mount {target}: {os.strerror(ctypes.get_errno())}")


def _enter_view(view):
    """Build a root of read-only binds and private tmpfs from `view`, pivot into it, drop the host's.

    Same view as the bwrap arguments (`host.view`): [kind, source, target]
    with kind ro-bind, dev-bind, symlink, tmpfs or devfs (source: size in bytes), proc, dir.
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    base = "/sys"  # never part of the view, so it can hold the new root while it is built
    _mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for kind, source, target in view:
        path = base + target
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        if kind == "symlink":
            os.symlink(source, path)
        elif kind in ("ro-bind", "dev-bind"):
            if os.path.isdir(source):
                os.makedirs(path, mode=0o755, exist_ok=True)
            else:
                open(path, "a").close()
            _mount(source, path, None, MS_BIND | MS_REC)
            extra = 0 if kind == "dev-bind" else MS_RDONLY | MS_NODEV
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_NOSUID | extra)
        elif kind in ("tmpfs", "devfs"):  # devfs: the root-owned /dev that holds the bound device nodes
            os.makedirs(path, mode=0o755, exist_ok=True)
            mode, flags = ("1777", MS_NOSUID | MS_NODEV) if kind == "tmpfs" else ("0755", MS_NOSUID)
            _mount("tmpfs", path, "tmpfs", flags, f"size={source},mode={mode}")
        elif kind == "proc":
            os.makedirs(path, mode=0o755, exist_ok=True)
            _mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "dir":
            os.makedirs(path, mode=0o755, exist_ok=True)
    os.makedirs(base + "/.old", mode=0o700)
    if LIBC.syscall(PIVOT_ROOT[os.uname().machine], base.encode(), (base + "/.old").encode()) != 0:
        raise OSError(ctypes.get_errno(), "pivot_root failed")
    os.chdir("/")
    if LIBC.umount2(b"/.old", 2) != 0:  # MNT_DETACH: the host's tree is gone from this namespace
        raise OSError(ctypes.get_errno(), "umount of the old root failed")
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _enter_run_namespaces():
    """New mount, IPC and PID (for the next child) namespaces, with size- and inode-capped tmpfs on /tmp and
    /dev/shm and the run's folder in /tmp."""
    if not OWN_NAMESPACES:
        for flag, name in ((CLONE_NEWNS, "mnt"), (CLONE_NEWIPC, "ipc"), (CLONE_NEWPID, "pid")):
            OWN_NAMESPACES[flag] = os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
    if LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "unshare failed")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    for top in ("/tmp", "/dev/shm"):
        _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, TMPFS)
    os.mkdir("/tmp/run", 0o700)
    if UID >= 0:
        os.chown("/tmp/run", UID, UID)


def _leave_run_namespaces():
    for flag, fd in OWN_NAMESPACES.items():
        if LIBC.setns(fd, flag) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the zygote's own namespaces failed")
    os.chdir("/tmp")
