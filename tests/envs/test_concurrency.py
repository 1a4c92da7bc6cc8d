"""Tool calls of different episodes run concurrently: the episode loop steps the environments of one round in
parallel, and the sandbox pool lends up to its size at once (never more). Barriers make each test a property,
not a timing: run one at a time, they would wait forever (and fail at their timeout)."""

from __future__ import annotations

import threading

import pytest

from rlvr_core.envs.chat import tool_message
from rlvr_core.envs.episode import StepResult, run_episodes
from rlvr_core.envs.web.tools import SandboxPool, sandbox_workers
from tests.envs.conftest import Replay

BARRIER_TIMEOUT_S = 60.0


class MeetingEnv:
    """An environment whose first step waits until every episode of the round is stepping at the same time."""

    stop_strings = ()

    def __init__(self, ident: str, barrier: threading.Barrier) -> None:
        self.id, self.barrier = ident, barrier

    def initial_messages(self):
        return [{"role": "user", "content": "go"}]

    def canonical(self, text, finish_reason):
        return text

    def completion(self, turns):
        return "\n".join(t["text"] for t in turns)

    def step(self, text, finish_reason, *, last_turn):
        if text == "call":
            self.barrier.wait(BARRIER_TIMEOUT_S)
            return StepResult(False, tool_message(["met"]), "", {"calls": [{"met": True}]})
        return StepResult(True, None, "answer", {"calls": []})


class BrokenEnv(MeetingEnv):
    def step(self, text, finish_reason, *, last_turn):
        raise RuntimeError("a bug in the environment")


def test_the_environments_of_one_round_step_concurrently():
    barrier = threading.Barrier(3)
    envs = [MeetingEnv(f"e{i}", barrier) for i in range(3)]
    episodes = run_episodes(Replay(["call", "done"]), envs, max_turns=3, max_new_tokens=8)
    assert [e.end_reason for e in episodes] == ["answer"] * 3
    assert all(e.turns[0]["calls"] == [{"met": True}] for e in episodes)


def test_an_environment_that_raises_ends_its_own_episode_not_the_run():
    barrier = threading.Barrier(1)
    episodes = run_episodes(Replay(["call", "done"]), [BrokenEnv("bad", barrier), MeetingEnv("good", barrier)],
                            max_turns=3, max_new_tokens=8)
    assert [e.end_reason for e in episodes] == ["env_error", "answer"]
    assert "a bug in the environment" in episodes[0].turns[0]["error"]


def test_the_sandbox_pool_runs_up_to_its_size_of_jobs_at_once_each_on_a_sandbox_of_its_own():
    pool = SandboxPool(3, make=object)
    barrier = threading.Barrier(3)
    used: list[object] = []

    def job(box):
        used.append(box)
        barrier.wait(BARRIER_TIMEOUT_S)
        return threading.current_thread().name

    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(pool.submit(job))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert pool.peak == 3 and len({id(b) for b in used}) == 3 and all(r.startswith("sandbox-") for r in results)


def test_the_sandbox_pool_never_starts_more_than_its_size_and_reuses_its_sandboxes():
    made: list[object] = []
    pool = SandboxPool(2, make=lambda: made.append(object()) or made[-1])
    barrier = threading.Barrier(6)

    def churn():
        barrier.wait(BARRIER_TIMEOUT_S)
        for _ in range(30):
            pool.submit(lambda box: box)

    threads = [threading.Thread(target=churn) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert 1 <= len(made) <= 2 and pool.peak <= 2


def test_a_sandbox_outlives_the_thread_that_first_asked_for_it():
    """bwrap's --die-with-parent binds a zygote to the thread that started it: that thread must be the pool's."""
    pool = SandboxPool(1, make=lambda: threading.current_thread())
    asker = threading.Thread(target=lambda: pool.submit(lambda owner: owner))
    asker.start()
    asker.join()
    owner = pool.submit(lambda owner: owner)
    assert owner is not asker and owner.name.startswith("sandbox-") and owner.is_alive()


def test_a_failing_job_raises_in_the_caller_and_the_pool_goes_on():
    pool = SandboxPool(1, make=object)
    with pytest.raises(ZeroDivisionError):
        pool.submit(lambda box: 1 / 0)
    assert pool.submit(lambda box: 42) == 42


def test_the_pool_size_comes_from_the_environment_or_the_cpus(monkeypatch):
    monkeypatch.setenv("RLVR_WEBEXTRACT_SANDBOXES", "3")
    assert sandbox_workers() == 3
    monkeypatch.setenv("RLVR_WEBEXTRACT_SANDBOXES", "many")
    with pytest.raises(ValueError, match="RLVR_WEBEXTRACT_SANDBOXES='many' must be a positive integer"):
        sandbox_workers()
    monkeypatch.delenv("RLVR_WEBEXTRACT_SANDBOXES")
    assert 1 <= sandbox_workers() <= 4
