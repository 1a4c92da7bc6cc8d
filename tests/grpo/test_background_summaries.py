"""The run's curve and RESULTS.md are drawn in a thread beside the training loop, in order, errors not lost."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rlvr_core.grpo.trace import BackgroundSummaries


def step(n: int, accuracy: float | None = None) -> dict:
    return {"step": n, "reward_mean": n / 10, "samples": 128, "stale_dropped": 0, "staleness": {"0": 128},
            "seconds": {"total": 0.1}, "heldout_accuracy": accuracy}


def test_the_last_snapshot_asked_for_is_what_the_files_show(tmp_path: Path) -> None:
    summaries = BackgroundSummaries(tmp_path)
    summaries.submit([step(1, 0.2)], checkpoints=[], events=[])
    summaries.submit([step(1, 0.2), step(2), step(3, 0.4)], checkpoints=["step_000003"], events=["resumed"])
    summaries.wait()
    summaries.close()
    results = (tmp_path / "RESULTS.md").read_text()
    assert "0.200 (step 1) -> 0.400 (step 3)" in results and "- step_000003" in results and "- resumed" in results
    assert (tmp_path / "reward_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_drawing_happens_off_the_calling_thread(tmp_path: Path) -> None:
    summaries = BackgroundSummaries(tmp_path)
    busy = threading.Event()
    summaries._worker.submit(busy.wait, 60)  # the worker is busy with an earlier drawing
    summaries.submit([step(1, 0.2)], checkpoints=[], events=[])  # returns at once: the loop goes on
    assert not (tmp_path / "RESULTS.md").exists()
    busy.set()
    summaries.wait()
    summaries.close()
    assert (tmp_path / "RESULTS.md").is_file() and (tmp_path / "reward_curve.png").is_file()


def test_a_failed_drawing_is_raised_by_the_next_request(tmp_path: Path) -> None:
    summaries = BackgroundSummaries(tmp_path)
    summaries.submit([{"step": 1}], checkpoints=[], events=[])  # no reward_mean/seconds: RESULTS.md cannot be built
    with pytest.raises(KeyError):
        summaries.submit([step(1)], checkpoints=[], events=[])
    summaries.close()
