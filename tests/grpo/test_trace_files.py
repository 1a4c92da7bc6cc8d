"""The trace files after a crash: torn last lines are dropped, rows past the checkpoint are cut, damage is named.

A crash (kill -9 mid-write, power cut before an fsync) can only leave the
last line of an append-only file incomplete; anything malformed before it
was damaged some other way and must stop a resume with the file and line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rlvr_core.grpo.trace import FILES, CorruptJsonlError, TraceWriter, read_trace


def rows(name: str, step: int) -> list[dict]:
    """What a step writes to each file: many rollouts, a few samples, one trace record."""
    count = {"rollouts.jsonl": 8, "samples.jsonl": 2, "trace.jsonl": 1}[name]
    return [{"step": step, "i": i, "text": f"step {step} row {i}"} for i in range(count)]


def written(tmp_path: Path, steps: int) -> TraceWriter:
    writer = TraceWriter(tmp_path)
    for step in range(1, steps + 1):
        for name in FILES:
            writer.append(name, rows(name, step))
        writer.sync()
    writer.close()
    return writer


def steps_in(path: Path) -> list[int]:
    return [json.loads(line)["step"] for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", FILES)
def test_torn_last_line_and_rows_past_the_checkpoint_are_cut(tmp_path: Path, name: str) -> None:
    writer = written(tmp_path, steps=5)  # the checkpoint is at step 3; steps 4-5 ran after it
    with open(writer.traces / name, "a") as f:
        f.write('{"step": 6, "text": "cut sho')
    dropped = writer.truncate_after(3)
    assert dropped[name] == 2 * len(rows(name, 1))  # the torn line is not a row
    for step in (4, 5):  # the resumed run writes them again
        for other in FILES:
            writer.append(other, rows(other, step))
    writer.close()
    for other in FILES:
        got = steps_in(writer.traces / other)
        assert got == sorted(got) and len(got) == 5 * len(rows(other, 1)), other  # each step once
    assert [r["step"] for r in read_trace(tmp_path)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("name", FILES)
def test_a_file_that_is_only_a_torn_line_is_emptied(tmp_path: Path, name: str) -> None:
    writer = TraceWriter(tmp_path)
    (writer.traces / name).write_text('{"step": 1, "te')
    assert writer.truncate_after(0)[name] == 0
    assert (writer.traces / name).read_bytes() == b""


def test_readers_drop_the_torn_last_line(tmp_path: Path) -> None:
    writer = written(tmp_path, steps=2)
    with open(writer.traces / "trace.jsonl", "a") as f:
        f.write('{"step": 3, "reward_mean": 0.')
    assert [r["step"] for r in read_trace(tmp_path)] == [1, 2]


@pytest.mark.parametrize("name", FILES)
def test_garbage_in_the_middle_names_the_file_and_line(tmp_path: Path, name: str) -> None:
    writer = written(tmp_path, steps=3)
    path = writer.traces / name
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(1, "this is not json\n")
    path.write_text("".join(lines))
    before = path.read_bytes()
    with pytest.raises(CorruptJsonlError, match=rf"{name}:2: not valid JSON \(.*\); only the last line can be cut "
                                                rf"short by a crash, so this one was damaged some other way\. Fix: "
                                                rf"remove or repair that line, then resume again"):
        writer.truncate_after(1)
    assert path.read_bytes() == before  # nothing is cut from a file that cannot be trusted


def test_a_line_that_is_json_but_not_a_record_is_damage(tmp_path: Path) -> None:
    writer = written(tmp_path, steps=2)
    with open(writer.traces / "trace.jsonl", "a") as f:
        f.write('[1, 2]\n{"step": 3}\n')
    with pytest.raises(CorruptJsonlError, match=r"trace\.jsonl:3: not a JSON object \(a list\)"):
        read_trace(tmp_path)


def test_restart_from_step_0_empties_every_file_whatever_it_holds(tmp_path: Path) -> None:
    writer = written(tmp_path, steps=2)
    (writer.traces / "samples.jsonl").write_text("damaged\n" + '{"step": 1}\n' + "torn")
    dropped = writer.truncate_after(-1)
    assert dropped == {"trace.jsonl": 2, "samples.jsonl": 2, "rollouts.jsonl": 16}
    assert all((writer.traces / name).read_bytes() == b"" for name in FILES)


def test_rows_out_of_step_order_are_rewritten_keeping_only_earlier_steps(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path)
    (writer.traces / "trace.jsonl").write_text("".join(json.dumps({"step": s}) + "\n" for s in (1, 3, 2, 4)))
    assert writer.truncate_after(2)["trace.jsonl"] == 2
    assert steps_in(writer.traces / "trace.jsonl") == [1, 2]


def test_appends_are_fsynced_once_per_file_per_step_not_per_line(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    writer = TraceWriter(tmp_path)
    for name in FILES:
        writer.append(name, rows(name, 1))
    created = len(synced)  # the traces folder, once per new file, so the files themselves survive a power cut
    writer.sync()
    assert len(synced) - created == len(FILES)
    writer.sync()  # nothing new: no fsync
    assert len(synced) - created == len(FILES)
    writer.close()
