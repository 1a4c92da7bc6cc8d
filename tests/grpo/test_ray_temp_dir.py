"""Ray's temp folder: short enough for its unix sockets wherever the checkout is, per user, never someone else's."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlvr_core.grpo.cluster import (AF_UNIX_MAX_BYTES, RAY_SOCKET_SUFFIX, TEMP_DIR_ENV, RayTempDirError,
                                    fits_ray_sockets, ray_temp_dir)


@pytest.fixture
def short_root() -> Iterator[Path]:
    """A system-temp-like folder short enough to hold Ray's sockets (pytest's tmp_path is too long)."""
    folder = Path(tempfile.mkdtemp(prefix="r-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_folder_is_per_user_under_the_system_temp_folder_and_private(short_root: Path) -> None:
    folder = ray_temp_dir({}, temp_root=short_root)
    assert folder == short_root / f"rlvr-ray-{os.getuid()}"
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700


def test_the_folder_does_not_depend_on_the_working_folder(tmp_path: Path, monkeypatch) -> None:
    deep = tmp_path / ("d" * 100) / ("e" * 100)
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert fits_ray_sockets(ray_temp_dir({}))


def test_a_long_system_temp_folder_falls_back_to_tmp(tmp_path: Path) -> None:
    long_root = tmp_path / ("t" * (AF_UNIX_MAX_BYTES - RAY_SOCKET_SUFFIX))
    assert ray_temp_dir({}, temp_root=long_root) == Path("/tmp") / f"rlvr-ray-{os.getuid()}"


def test_a_too_long_folder_set_by_the_user_is_refused_with_the_fix(tmp_path: Path) -> None:
    long_folder = tmp_path / ("x" * 60)
    with pytest.raises(RayTempDirError, match=rf"Fix: set {TEMP_DIR_ENV} to a short folder"):
        ray_temp_dir({TEMP_DIR_ENV: str(long_folder)})


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_owned_by_another_user_is_refused(short_root: Path) -> None:
    theirs = short_root / "theirs"
    theirs.mkdir()
    os.chown(theirs, 54321, 54321)
    with pytest.raises(RayTempDirError, match="belongs to uid 54321"):
        ray_temp_dir({TEMP_DIR_ENV: str(theirs)})
