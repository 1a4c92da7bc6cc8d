"""Removing what a run left where runs share the host: processes, SysV objects, files.

Used by the zygote's cleaner (a throwaway fork of the template, `zygote.py`)
where runs have no namespaces of their own (host mode without namespaces;
bwrap without root), and by the background scrubber of a retired uid. Why
not `shutil.rmtree`: it recursed (a 3,000-deep directory nest raised
RecursionError and took the sandbox down for good), follows paths that can
exceed PATH_MAX, and has no time bound. Here one directory is open at a
time, by descriptor, and going back up is `..`. A run's scrub has a time
budget; when it runs out the uid is retired and `scrub_owner` finishes the
job in the background (`host.UidLease.retire`), so no later run spends its
time on an earlier run's flood. Standard library only; read as text into the
zygote's source and the background scrubber's, and importable on its own.
"""

import ctypes
import os
import signal
import stat
import time


def remove_tree(parent_fd, name, deadline):
    """Remove the directory `name` (relative to `parent_fd`) and everything in it. False if time ran out before
    all of it was gone (the deadline is checked before each removal and each descent, so an empty directory
    is removed whatever the time)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    names, current = [name], os.open(name, flags, dir_fd=parent_fd)
    try:
        while names:
            child = None
            with os.scandir(current) as entries:
                for entry in entries:
                    if time.monotonic() > deadline:
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    try:
                        os.unlink(entry.name, dir_fd=current)
                    except FileNotFoundError:
                        pass
            if child is not None:
                descended = os.open(child, flags, dir_fd=current)
                os.close(current)
                current = descended
                names.append(child)
                continue
            up = os.open("..", flags, dir_fd=current)
            os.close(current)
            current = up
            os.rmdir(names.pop(), dir_fd=current)
        return True
    finally:
        os.close(current)


def scrub(top, owner, deadline, prefix=""):
    """Remove the entries of `top` whose name starts with `prefix` that `owner` (a uid) owns, or all of them
    when `owner` is None. False if time ran out first."""
    try:
        top_fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return True
    try:
        with os.scandir(top_fd) as entries:
            names = [e.name for e in entries if e.name.startswith(prefix)]
        for name in names:
            try:
                st = os.lstat(name, dir_fd=top_fd)
                if owner is not None and st.st_uid != owner:
                    continue
                if stat.S_ISDIR(st.st_mode):  # checks the time itself: an empty folder goes whatever the time
                    if not remove_tree(top_fd, name, deadline):
                        return False
                elif time.monotonic() > deadline:
                    return False
                else:
                    os.unlink(name, dir_fd=top_fd)
            except OSError:
                pass  # gone meanwhile, or not ours to remove
        return True
    finally:
        os.close(top_fd)


def scrub_owner(owner, tops):
    """Everything `owner` (a retired uid) left in `tops`, however long it takes: the background scrubber."""
    for top in tops:
        scrub(top, owner, float("inf"))


def _processes(uid, every, keep):
    """(pid, state) of the processes of `uid` (or `every` process this one sees, its own pid namespace's), but
    those in `keep`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in keep:
            continue
        try:
            if not every:
                with open(f"/proc/{name}/status", "rb") as fh:  # not st_uid: a process that left root is root's there
                    if next(int(line.split()[1]) for line in fh if line.startswith(b"Uid:")) != uid:
                        continue
            with open(f"/proc/{name}/stat", "rb") as fh:
                found.append((int(name), fh.read().rsplit(b")", 1)[1].split()[0]))
        except (OSError, ValueError, StopIteration):
            pass
    return found


def sweep(uid, every, keep):
    """SIGKILL the processes a run left (see `_processes`) until none is left, zombies included (the template,
    their subreaper, reaps them meanwhile). A fork bomb is capped by pids.max / RLIMIT_NPROC: this converges."""
    for attempt in range(500):
        processes = _processes(uid, every, keep)
        if not processes:
            return True
        for pid, state in processes:
            if state != b"Z":
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.002 if attempt else 0.0005)
    return False


def scrub_ipc(uid):
    """Remove the SysV shared memory, queues and semaphores of `uid`, or all of them when `uid` is None (a
    sandbox's own IPC namespace)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, remove in (("shm", lambda i: libc.shmctl(i, 0, None)), ("msg", lambda i: libc.msgctl(i, 0, None)),
                         ("sem", lambda i: libc.semctl(i, 0, 0, 0))):  # IPC_RMID = 0
        try:
            with open(f"/proc/sysvipc/{kind}") as fh:
                header, *rows = [line.split() for line in fh]
        except (OSError, ValueError):
            continue
        for row in rows:
            if len(row) == len(header) and (uid is None or int(row[header.index("uid")]) == uid):
                remove(int(row[1]))


def clean(uid, own_namespaces, tops, budget_s, keep):
    """Everything the last run left where runs share a pid namespace or file system: its processes, its SysV
    objects, its files in `tops` (within `budget_s`). `own_namespaces`: the sandbox's pid and IPC namespaces and
    /tmp are its own (bwrap without root): all of it is the runs'; else only `uid`'s (with no uid to switch
    to, only the run folders, `run-*`, of this process's own uid). True when all of it is gone."""
    swept = sweep(uid, own_namespaces, keep) if own_namespaces or uid >= 0 else True
    if own_namespaces or uid >= 0:
        scrub_ipc(None if own_namespaces else uid)
    owner, prefix = (None, "") if own_namespaces else (uid, "") if uid >= 0 else (os.getuid(), "run-")
    deadline = time.monotonic() + budget_s
    return all([scrub(top, owner, deadline, prefix) for top in tops]) and swept
