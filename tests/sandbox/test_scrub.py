"""The clean-up of runs that share the host: iterative, bounded in time, never following a link."""

from __future__ import annotations

import os
import time

import pytest

from rlvr_core.sandbox.scrub import remove_tree, scrub


def test_the_scrub_removes_a_nest_deeper_than_recursion_or_path_max_allow(tmp_path) -> None:
    """A 3,000-deep nest made the old recursive clean-up raise RecursionError; its paths exceed PATH_MAX."""
    (tmp_path / "run").mkdir()
    fd = os.open(tmp_path / "run", os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(3000):
        os.mkdir("d", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.symlink("/etc", "link", dir_fd=fd)  # removed, never followed
    os.close(fd)
    (tmp_path / "left").mkdir()
    assert scrub(str(tmp_path), os.getuid(), deadline=time.monotonic() + 600)
    assert os.listdir(tmp_path) == [] and os.path.isdir("/etc")
    parent = os.open(tmp_path, os.O_RDONLY)
    with pytest.raises(FileNotFoundError):
        remove_tree(parent, "missing", deadline=0)
    os.close(parent)


def test_the_scrub_stops_at_its_time_budget_and_says_so(tmp_path) -> None:
    """Out of time it removes nothing more and returns False (the sandbox then retires the uid); an empty
    folder, the run folder of a program that left nothing, is removed whatever the time."""
    (tmp_path / "run").mkdir()
    for i in range(50):
        (tmp_path / "run" / str(i)).write_text("x")
    assert scrub(str(tmp_path), None, deadline=time.monotonic() - 1) is False
    assert len(os.listdir(tmp_path / "run")) == 50
    (tmp_path / "empty").mkdir()
    parent = os.open(tmp_path, os.O_RDONLY)
    assert remove_tree(parent, "empty", deadline=0) is True and not (tmp_path / "empty").exists()
    os.close(parent)
    assert scrub(str(tmp_path), None, deadline=time.monotonic() + 600) is True and os.listdir(tmp_path) == []


def test_the_scrub_keeps_what_another_uid_owns_and_names_outside_its_prefix(tmp_path) -> None:
    (tmp_path / "mine").write_text("x")
    (tmp_path / "run-1").write_text("x")
    assert scrub(str(tmp_path), os.getuid() + 1, deadline=float("inf"))
    assert scrub(str(tmp_path), os.getuid(), deadline=float("inf"), prefix="run-")
    assert os.listdir(tmp_path) == ["mine"]
