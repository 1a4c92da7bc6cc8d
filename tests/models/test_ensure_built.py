"""A model missing from the store is built once, however many processes ask for it at the same time."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

KEY = "models/fake/0123"
# A stand-in recipe (the build is not under test here): it logs that it ran, takes a while, writes its record.
ASK = '''
import json, sys, time
from pathlib import Path
from rlvr_core.filehash import hash_files
from rlvr_core.models.tiny import RECORD, ensure_built
from rlvr_core.storage import open_store

store_root, log, go, ready = sys.argv[1:5]

def slow_build(folder):
    with open(log, "a") as out:
        out.write("built\\n")
    time.sleep(1.0)
    (folder / "weights.bin").write_bytes(b"w" * 1000)
    record = {"files": hash_files(folder)}
    (folder / RECORD).write_text(json.dumps(record))
    return record

Path(ready).touch()
while not Path(go).exists():
    time.sleep(0.01)
print(ensure_built(open_store(store_root), "%s", slow_build))
''' % KEY


def test_processes_that_find_the_model_missing_at_once_build_it_once(tmp_path: Path) -> None:
    store_root, log, go = tmp_path / "store", tmp_path / "builds.log", tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(3)]
    askers = [subprocess.Popen([sys.executable, "-c", ASK, str(store_root), str(log), str(go), str(flag)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for flag in ready]
    deadline = time.monotonic() + 120
    while not all(flag.exists() for flag in ready):  # all three imported: they look for the model at once
        assert time.monotonic() < deadline and all(asker.poll() is None for asker in askers)
        time.sleep(0.05)
    go.touch()
    outputs = [asker.communicate(timeout=120) for asker in askers]
    assert all(asker.returncode == 0 for asker in askers), [err[-2000:] for _, err in outputs]
    assert {out.strip() for out, _ in outputs} == {str(store_root / KEY)}
    assert log.read_text() == "built\n"
