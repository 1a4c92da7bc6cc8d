"""Removing what a run left on a shared file system: iterative, bounded in time, never following a link.

Used by the zygote (`zygote.py`) where runs have no tmpfs of their own
(host mode without namespaces; bwrap without root). Why not
`shutil.rmtree`: it recursed (a 3,000-deep directory nest raised
RecursionError and took the sandbox down for good), follows paths that can
exceed PATH_MAX, and has no time bound. Here one directory is open at a
time, by descriptor, and going back up is `..`. A run's scrub has a time
budget; when it runs out the uid is retired and `scrub_owner` finishes the
job in the background (`host.UidLease.retire`), so no later run spends its
time on an earlier run's flood. Standard library only; read as text into the
zygote's source and the background scrubber's, and importable on its own.
"""

import os
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


def scrub(top, owner, deadline):
    """Remove the entries of `top` that `owner` (a uid) owns, or all of them when `owner` is None. False if
    time ran out first."""
    try:
        top_fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return True
    try:
        with os.scandir(top_fd) as entries:
            names = [e.name for e in entries]
        for name in names:
            try:
                st = os.lstat(name, dir_fd=top_fd)
                if owner is not None and st.st_uid != owner:
                    continue
                if time.monotonic() > deadline:
                    return False
                if stat.S_ISDIR(st.st_mode):
                    if not remove_tree(top_fd, name, deadline):
                        return False
                else:
                    os.unlink(name, dir_fd=top_fd)
            except OSError:
                pass  # gone meanwhile, or not ours to remove
        return True
    finally:
        os.close(top_fd)


def scrub_run(run_dir, tops, owner, budget_s):
    """A run's own folder, then what `owner` left in `tops`, within `budget_s` seconds: True when all of it
    is gone, False when the time ran out first."""
    deadline = time.monotonic() + budget_s
    try:
        parent, name = os.path.split(run_dir)
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if not remove_tree(parent_fd, name, deadline):
                return False
        finally:
            os.close(parent_fd)
    except OSError:
        pass
    return all(scrub(top, owner, deadline) for top in tops)


def scrub_owner(owner, tops):
    """Everything `owner` (a retired uid) left in `tops`, however long it takes: the background scrubber."""
    for top in tops:
        scrub(top, owner, float("inf"))
