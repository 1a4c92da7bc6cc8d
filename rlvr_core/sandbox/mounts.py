"""Mounts the sandbox makes: the file-system view (host mode in fresh namespaces; bwrap builds its own) and
each run's namespaces with their private tmpfs and /proc.

Read as text into the zygote's source (`host.py`), after the zygote's
settings are defined and before `zygote.py`'s main loop runs; never
imported (it uses the zygote's globals: LIBC, UID, TMPFS, CLONE_*).
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


def _prepare_namespaces(proc_options):
    """Make this process's mount and IPC namespaces the run's own (it is already pid 1 of the run's PID
    namespace): size- and inode-capped tmpfs on /tmp and /dev/shm, the run's folder in /tmp, and a /proc of
    this namespace mounted with `proc_options` ("subset=pid": the run's processes only, no host-wide files)."""
    if LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0:
        raise OSError(ctypes.get_errno(), "unshare failed")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    for top in ("/tmp", "/dev/shm"):
        _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, TMPFS)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, proc_options)
    os.mkdir("/tmp/run", 0o700)
    if UID >= 0:
        os.chown("/tmp/run", UID, UID)


def _probe_proc(options):
    """Whether the kernel mounts /proc with `options` (in a private mount namespace; run in a throwaway fork)."""
    if LIBC.unshare(CLONE_NEWNS) != 0:
        return False
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    return LIBC.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, options.encode()) == 0
