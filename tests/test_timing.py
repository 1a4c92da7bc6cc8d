"""Phase timing (`rlvr_core.timing.timed`): what the demo and the overhead benchmark print as where time went."""

from __future__ import annotations

import time

import pytest

from rlvr_core.timing import timed


def test_a_phase_entered_twice_adds_up_and_others_stay_apart() -> None:
    seconds: dict[str, float] = {}
    for _ in range(2):
        with timed(seconds, "training"):
            time.sleep(0.01)
    with timed(seconds, "report"):
        pass
    assert set(seconds) == {"training", "report"}
    assert seconds["training"] >= 0.02 and 0 <= seconds["report"] < seconds["training"]


def test_a_phase_that_raises_is_still_timed() -> None:
    seconds: dict[str, float] = {}
    with pytest.raises(RuntimeError), timed(seconds, "training"):
        raise RuntimeError("training failed")
    assert "training" in seconds
