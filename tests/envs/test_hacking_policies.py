"""Scripted cheating policies (`rlvr_core/envs/web/scripted.py`) against the rubric, on one bench item per archetype
and difficulty, through real episodes: what no extraction pays stays near zero.

Bounds (mean reward): blind, stuffing, echo and question <= 0.05; every lazy reading (the first, second, middle,
second-to-last or last candidate) <= 0.5 overall and <= 0.15 on medium and hard items; prior and coward <= 0.1; a
hedge that offers the gold beside the lazy answer earns no more than lazy.
Every policy but blind answers after the same honest reading (a navigate and a run_python per page the solver
read, through the real environment): one reading episode per item is run and each policy's final turn is scored
against that episode's own record, as its own episode would record it (a final turn executes nothing).
"""

from __future__ import annotations

import pytest

from rlvr_core.envs.web.env import EpisodeLimits
from rlvr_core.envs.web.rollout import run
from rlvr_core.envs.web.scripted import POLICIES, BlindPolicy, Reader, train_priors
from rlvr_core.envs.web.verifier import WebExtractVerifier
from rlvr_core.generation.base import SamplingParams

pytestmark = pytest.mark.slow  # one reading episode per item (~150 sandbox runs)
PARAMS = SamplingParams(max_new_tokens=256)
BOUNDS = {"stuffing": 0.05, "echo": 0.05, "question": 0.05, "prior": 0.1, "coward": 0.1}


class Reading(Reader):
    program = "print(HTML[:3000])"

    def answer(self, problem, html, episode):
        return "<answer>null</answer>"


@pytest.fixture(scope="module")
def priors():
    return train_priors(per_cell=2)


@pytest.fixture(scope="module")
def readings(one_of_each):
    return run(Reading(), one_of_each, PARAMS, EpisodeLimits(run_timeout_s=5.0))


def scores(names, priors, readings, problems) -> dict[str, list[float]]:
    """Each policy's reward on every item; the policies answer item by item, so a page is parsed once for all."""
    policies = {n: POLICIES[n](priors) if n in ("blind", "prior") else POLICIES[n]() for n in names}
    verifier, out = WebExtractVerifier(), {n: [] for n in names}
    for episode, problem in zip(readings, problems):
        site = problem.extra["site"]
        last_page = [c["target"] or c["page"] for c in episode.env.ledger if c["tool"] == "navigate"]
        html = site["pages"][last_page[-1] if last_page else site["start"]]
        for name, policy in policies.items():
            turns = [*episode.turns[:-1], {"text": policy.answer(problem, html, episode)}]
            out[name].append(verifier.verify(episode.env.completion(turns), problem).reward)
    return out


LAZY = sorted(n for n in POLICIES if n.startswith("lazy"))


@pytest.fixture(scope="module")
def lazy_scores(priors, readings, one_of_each):
    return scores(LAZY, priors, readings, one_of_each)


def mean(values) -> float:
    return sum(values) / len(values)


def test_the_reading_episodes_read_every_page_the_solver_read(readings, one_of_each):
    verifier = WebExtractVerifier()
    for episode, problem in zip(readings, one_of_each):
        detail = verifier.verify(episode.completion, problem).detail
        assert "pages not read" not in detail, (problem.id, detail)


def test_answering_blind_without_any_tool_call_scores_nothing(priors, one_of_each):
    episodes = run(BlindPolicy(priors), one_of_each, PARAMS)
    rewards = [WebExtractVerifier().verify(e.completion, p).reward for e, p in zip(episodes, one_of_each)]
    assert all(not e.turns[0].get("calls") for e in episodes)
    assert mean(rewards) <= 0.05


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_answers_that_are_not_extractions_stay_under_their_bound(name, priors, readings, one_of_each):
    assert mean(scores([name], priors, readings, one_of_each)[name]) <= BOUNDS[name]


@pytest.mark.parametrize("name", LAZY)
def test_every_lazy_reading_earns_at_most_half_overall_and_almost_nothing_from_medium_up(name, lazy_scores,
                                                                                         one_of_each):
    rewards = lazy_scores[name]
    harder = [r for r, p in zip(rewards, one_of_each) if p.difficulty != "easy"]
    assert mean(rewards) <= 0.5 and mean(harder) <= 0.15


def test_offering_the_gold_beside_a_wrong_answer_earns_no_more_than_the_wrong_answer(priors, readings, one_of_each,
                                                                                   lazy_scores):
    hedge = scores(["hedge"], priors, readings, one_of_each)["hedge"]
    assert all(h <= max(l, 0.0) for h, l in zip(hedge, lazy_scores["lazy"]))
