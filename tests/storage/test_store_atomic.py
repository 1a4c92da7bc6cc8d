"""Interrupted writes leave the previous file intact (local folder; S3 PUTs are atomic by design)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from rlvr_core.storage import Store

ROOT = Path(__file__).resolve().parents[2]


def _chunks_then_fail():
    yield b"partial new bytes"
    raise RuntimeError("producer failed")


def test_exception_while_producing_bytes_keeps_previous_file(tmp_path) -> None:
    store = Store(str(tmp_path))
    store.write_bytes("data.bin", b"previous")
    with pytest.raises(RuntimeError, match="producer failed"):
        store.write_stream("data.bin", _chunks_then_fail())
    assert store.read_bytes("data.bin") == b"previous"
    assert store.list() == ["data.bin"]
    assert sorted(os.listdir(tmp_path)) == ["data.bin"]  # the temporary file was removed


def test_failed_parquet_serialisation_keeps_previous_file(tmp_path) -> None:
    store = Store(str(tmp_path))
    good = pd.DataFrame({"x": [1, 2]})
    store.write_parquet("t.parquet", good)
    unserialisable = pd.DataFrame({"x": [1, object()]})
    with pytest.raises(ValueError):  # pyarrow.ArrowInvalid
        store.write_parquet("t.parquet", unserialisable)
    pd.testing.assert_frame_equal(store.read_parquet("t.parquet"), good)


CHILD = """
import sys, time
from rlvr_core.storage import Store

def chunks():
    yield b"new-bytes-" * 1000
    print("writing", flush=True)
    time.sleep(60)
    yield b"never"

Store(sys.argv[1]).write_stream("data.bin", chunks())
"""


def test_killed_writer_leaves_previous_file_and_no_listed_temp(tmp_path) -> None:
    store = Store(str(tmp_path))
    store.write_bytes("data.bin", b"previous")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert store.read_bytes("data.bin") == b"previous"
    leftovers = [name for name in os.listdir(tmp_path) if name != "data.bin"]
    assert len(leftovers) == 1, "the killed writer was mid-write in a temporary file"
    assert store.list() == ["data.bin"]


def test_put_dir_over_existing_folder_never_mixes_old_and_new(tmp_path) -> None:
    store = Store(str(tmp_path / "store"))
    old = tmp_path / "old"
    old.mkdir()
    (old / "a.txt").write_text("old")
    (old / "only-old.txt").write_text("old")
    store.put_dir(old, "ckpt")
    new = tmp_path / "new"
    new.mkdir()
    (new / "a.txt").write_text("new")
    store.put_dir(new, "ckpt")
    assert store.list("ckpt") == ["ckpt/a.txt"]
    assert store.read_text("ckpt/a.txt") == "new"
    assert sorted(os.listdir(tmp_path / "store")) == ["ckpt"]
