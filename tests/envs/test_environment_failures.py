"""What the environment owes an episode: a sandbox that fails to start is the environment's error (retried, then
status "error"), never a wrong answer; and the tool-time budget counts the episode's own programs, not the time
they waited for a sandbox behind other episodes.

Round 3 of the red team saw a sandbox fail to start once under load (`OSError: [Errno 19] No such device`) and
every episode of the batch, the oracle's too, score 0 as a wrong answer; and episodes lose a large share of their
budget waiting in the pool's queue. The failures here are real sandboxes behind a factory that fails the way the
host did (the pool's `make`, the seam the environment is given); everything after it is the real code.
"""

from __future__ import annotations

import errno
import json
import threading

from rlvr_core.envs.web import tools
from rlvr_core.envs.web.env import EpisodeLimits, WebExtractEnv
from rlvr_core.envs.web.oracle import OraclePolicy, call, final_text
from rlvr_core.envs.episode import run_episodes
from rlvr_core.envs.web.verifier import WebExtractVerifier
from tests.envs.conftest import Replay, gold, problem

LIMITS = EpisodeLimits(run_timeout_s=5.0)


class FlakyStarts:
    """A sandbox factory whose first `failures` starts fail as the host's did; later starts give real sandboxes."""

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise OSError(errno.ENODEV, "No such device")
        return tools._new_sandbox()


def play(p, policy, pool: tools.SandboxPool, limits: EpisodeLimits = LIMITS):
    env = WebExtractEnv(p, limits, sandboxes=pool)
    [e] = run_episodes(policy, [env], max_turns=limits.max_turns, max_new_tokens=256)
    return e, WebExtractVerifier().verify(e.completion, p)


def test_a_sandbox_that_never_starts_ends_the_episode_as_an_error_not_a_wrong_answer():
    p = problem("text_by_id", "medium", 1)
    e, s = play(p, OraclePolicy(), tools.SandboxPool(1, FlakyStarts(failures=10**6)))
    assert e.end_reason == "env_error" and len(e.turns) == 1  # stopped, not carried on without its program
    assert [c["status"] for c in json.loads(e.completion)["calls"]] == ["error"]
    assert s.status == "error" and json.loads(s.detail)["match"] == "environment error"
    assert "No such device" in json.loads(s.detail)["note"]


def test_a_sandbox_that_fails_to_start_is_replaced_and_the_program_runs():
    p = problem("text_by_id", "medium", 1)
    starts = FlakyStarts(failures=tools.START_ATTEMPTS - 1)
    e, s = play(p, OraclePolicy(), tools.SandboxPool(1, starts))
    assert (s.reward, s.status) == (1.0, "correct") and starts.calls == tools.START_ATTEMPTS


def test_an_environment_error_after_a_violation_still_scores_the_violation():
    p = problem("injection_navigate", "medium", 1)
    doc = json.loads(WebExtractEnv(p).completion([{"text": final_text(gold(p)["value"])}]))
    doc["calls"] = [{"turn": 1, "tool": "navigate", "page": "/index.html", "requested": "/account/close",
                     "status": "ok"}]
    doc["error"] = "the sandbox could not run the program"
    s = WebExtractVerifier().verify(json.dumps(doc), p)
    assert s.reward == LIMITS.unsafe_reward


def test_time_spent_waiting_for_a_sandbox_is_not_the_episodes_tool_time():
    """One sandbox, held by another episode's job for 3 s while this episode's first program waits for it: with a
    1.5 s budget, both of its programs still run, and the budget counts only what they ran."""
    pool = tools.SandboxPool(1, tools._new_sandbox)
    pool.submit(lambda box: box.run("print(1)"))  # the sandbox is up before the race starts
    holding, release = threading.Event(), threading.Event()

    def hold(box):
        holding.set()
        release.wait(3.0)  # another episode's program, as far as this one can tell

    blocker = threading.Thread(target=lambda: pool.submit(hold))
    blocker.start()
    holding.wait(60)
    p = problem("text_by_id", "medium", 1)
    turns = [call("run_python", {"code": "print(1)"}), call("run_python", {"code": "print(2)"}), '<answer>"x"</answer>']
    e, _ = play(p, Replay(turns), pool, EpisodeLimits(run_timeout_s=1.0, time_budget_s=1.5))
    blocker.join()
    calls = json.loads(e.completion)["calls"]
    assert [c["status"] for c in calls] == ["ok", "ok"]
    assert e.env.spent_s < 1.5
