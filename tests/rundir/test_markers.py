"""Trainer marker lines: structured events and progress among ordinary log lines."""

from __future__ import annotations

from rlvr_core.rundir import markers


def test_markers_are_parsed_and_malformed_ones_ignored() -> None:
    event = markers.parse_marker('@@rlvr-event {"event": "rlvr.checkpoint.saved", "path": "/r/checkpoints/step-000002", "step": 2}')
    assert event == markers.Marker("event", {"event": "rlvr.checkpoint.saved", "path": "/r/checkpoints/step-000002", "step": 2})
    assert markers.parse_marker('@@rlvr-progress {"step": 3, "max_steps": 9}').kind == "progress"
    assert markers.parse_marker("@@rlvr-event {not json") is None
    assert markers.parse_marker("@@rlvr-event [1, 2]") is None
    assert markers.parse_marker("step 3 loss 0.1") is None
