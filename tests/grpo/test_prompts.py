"""The prompt stream is a pure function of config and seed, and its state resumes it exactly."""

from __future__ import annotations

from rlvr_core.data.arith import generate_arith
from rlvr_core.grpo.prompts import PromptStream


def _stream(seed=0):
    return PromptStream({"a": generate_arith("train", 5, seed=1)}, {"a": 1.0}, mixing="weighted", seed=seed)


def test_same_seed_same_order_across_epochs():
    a, b = _stream(), _stream()
    assert [p.id for _, p in a.take(12)] == [p.id for _, p in b.take(12)]
    ids = [p.id for _, p in _stream().take(10)]
    assert sorted(ids[:5]) == sorted(ids[5:])  # each epoch is a permutation of the part


def test_requeued_positions_come_first_and_state_round_trips():
    s = _stream()
    first = s.take(4)
    s.requeue([first[1][0]])
    state = s.state(in_flight=[first[3][0]])
    resumed = _stream()
    resumed.load_state(state)
    assert [pos for pos, _ in resumed.take(3)] == [first[3][0], first[1][0], 4]
