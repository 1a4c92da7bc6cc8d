"""The one atomic write: the old file or the new one, never half of either; durable once it returns."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rlvr_core.rundir.atomic import TMP_MARK, atomic_file, pid_alive, write_atomic, write_json_atomic

ROOT = Path(__file__).resolve().parents[2]


def test_a_write_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_text("old")
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["run.json"]


def test_json_is_written_indented_with_a_final_newline(tmp_path: Path) -> None:
    path = write_json_atomic(tmp_path / "summary.json", {"b": 1, "a": [2]})
    assert path.read_text() == '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n'


def test_an_error_inside_the_block_keeps_the_previous_file_and_removes_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"previous")
    with pytest.raises(RuntimeError, match="producer failed"):
        with atomic_file(target) as handle:
            handle.write(b"half of the new")
            raise RuntimeError("producer failed")
    assert target.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["summary.json"]


def test_the_file_and_its_folder_are_fsynced_before_the_write_returns(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    write_atomic(tmp_path / "checkpoint.json", b"{}")
    assert synced == ["file", "folder"]


KILLED_WRITER = """
import sys, time
from rlvr_core.rundir.atomic import atomic_file

with atomic_file(sys.argv[1]) as handle:
    handle.write(b"new-bytes-" * 1000)
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def test_a_killed_writer_leaves_the_previous_file_and_only_a_hidden_marked_temporary(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_bytes(b"previous")
    child = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"writing"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)
    assert target.read_bytes() == b"previous"
    leftovers = [name for name in os.listdir(tmp_path) if name != "run.json"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".run.json") and TMP_MARK in leftovers[0]


def test_pid_alive_is_true_for_this_process_and_false_for_a_reaped_one() -> None:
    reaped = subprocess.Popen([sys.executable, "-c", "pass"])
    reaped.wait()
    assert pid_alive(os.getpid())
    assert not pid_alive(reaped.pid)
    assert not pid_alive(0) and not pid_alive(-1)
