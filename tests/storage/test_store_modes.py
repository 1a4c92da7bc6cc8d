"""A local store is its owner's alone: a sandboxed program running as another uid cannot read a dataset's answers.

Issue 41: in the code sandbox's host mode without namespaces the programs
see the host's file system; the dataset store (reference solutions, hidden
tests) was world-readable, so a program scored 1.0 by reading its answers.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from rlvr_core.storage import Store
from tests.sandbox.modes import open_sandbox, root_only


def modes(root: Path) -> set[tuple[str, int]]:
    """("dir" | "file", permission bits) of everything under `root`, the root itself included."""
    found = {("dir", stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        found.add(("dir" if path.is_dir() else "file", stat.S_IMODE(path.stat().st_mode)))
    return found


def test_what_a_local_store_writes_is_readable_by_its_owner_only(tmp_path) -> None:
    source = tmp_path / "source"
    (source / "nested").mkdir(parents=True)
    (source / "nested" / "weights.bin").write_bytes(b"w")
    os.chmod(source / "nested" / "weights.bin", 0o644)
    local = tmp_path / "local.bin"
    local.write_bytes(b"x")
    store = Store(str(tmp_path / "deep" / "store"))
    old_umask = os.umask(0)  # the most permissive umask: the modes must not come from it
    try:
        store.write_json("datasets/mbpp/train/manifest.json", {"rows": 1})
        store.write_bytes("datasets/mbpp/train/part-0.parquet", b"answers")
        store.put_file(local, "models/tiny/file.bin")
        store.put_dir(source, "models/tiny/folder")
    finally:
        os.umask(old_umask)
    assert modes(tmp_path / "deep") == {("dir", 0o700), ("file", 0o600)}


def test_a_sandboxed_program_cannot_read_a_dataset_in_the_store() -> None:
    """Host mode without namespaces: the program sees this file system, as a uid of its own."""
    root_only()
    folder = Path(tempfile.mkdtemp(prefix="rlvr-store-", dir="/var/tmp"))  # as open as a checkout's folder
    os.chmod(folder, 0o755)
    store = Store(str(folder / "store"))
    store.write_text("datasets/mbpp/train/answers.json", "SECRET-ANSWERS")
    target = folder / "store" / "datasets" / "mbpp" / "train" / "answers.json"
    read = f"try:\n    print(open({str(target)!r}).read())\nexcept OSError as exc:\n    print('refused', exc.errno)\n"
    sandbox = open_sandbox("host-plain")
    try:
        assert sandbox.run(read).stdout.strip() == "refused 13"
        for path in target.parents:  # the guard: with the modes of before, the same program reads the answers
            if path == folder:
                break
            os.chmod(path, 0o755)
        os.chmod(target, 0o644)
        assert sandbox.run(read).stdout.strip() == "SECRET-ANSWERS"
    finally:
        sandbox.close()
        shutil.rmtree(folder)
