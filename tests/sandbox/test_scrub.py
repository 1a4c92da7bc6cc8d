"""The clean-up of runs without a tmpfs of their own: iterative, bounded in time, never following a link."""

from __future__ import annotations

import os

import pytest

from rlvr_core.sandbox.scrub import remove_tree, scrub, scrub_run


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
    scrub_run(str(tmp_path / "run"), (str(tmp_path),), os.getuid(), budget_s=600)
    assert os.listdir(tmp_path) == [] and os.path.isdir("/etc")
    parent = os.open(tmp_path, os.O_RDONLY)
    with pytest.raises(FileNotFoundError):
        remove_tree(parent, "missing", deadline=0)
    os.close(parent)


def test_the_scrub_stops_at_its_time_budget_and_finishes_later(tmp_path) -> None:
    (tmp_path / "run").mkdir()
    for i in range(50):
        (tmp_path / "run" / str(i)).write_text("x")
    scrub_run(str(tmp_path / "run"), (), None, budget_s=-1)  # no time at all: nothing removed, nothing raised
    assert len(os.listdir(tmp_path / "run")) == 50
    scrub_run(str(tmp_path / "run"), (), None, budget_s=600)
    assert not (tmp_path / "run").exists()


def test_the_scrub_keeps_what_another_uid_owns(tmp_path) -> None:
    (tmp_path / "mine").write_text("x")
    scrub(str(tmp_path), os.getuid() + 1, deadline=float("inf"))
    assert (tmp_path / "mine").exists()
