"""Scripted cheating policies: what a reward-hacking model would try, run through real episodes.

Each is an adversary stronger than a model: it knows the task's archetype and
which pages hold the answer, and it reads them for real (a `navigate` and a
`run_python` per page, so the proof-of-work rule is met) before answering
with something that is not an extraction. The rubric must pay them
(almost) nothing; the tests hold them to bounds and `python -m
rlvr_core.envs.web.scripted` measures them on a split with 95% intervals.

- blind: no tool call at all; answers the archetype's most common training
  answer (`train_priors`).
- prior: reads the pages, then answers that same most common training answer.
- stuffing: reads the pages, then answers with every node of the answer's
  kind (every text node, link, image, row), hoping the right one is in there.
- echo: prints the page and answers with what it printed.
- question: answers with the question itself.
- lazy: the reference solvers with every filter off (`solvers.lazy_reading`):
  the right element kind, but hidden elements and decoys kept, the first
  candidate taken; lazy_second, lazy_middle, lazy_second_last and lazy_last
  take the candidate at that position.
- coward: reads the page, then abstains with the reason the question's words
  suggest.
- hedge: knows the gold and the lazy answer, and offers both (two answer
  tags, the lazy one last).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.envs.episode import Episode
from rlvr_core.envs.web import solvers
from rlvr_core.envs.web.oracle import ScriptedPolicy, final_text, last_output, reading_turn, solver_path
from rlvr_core.envs.web.solvers.common import soup_of, text_of

_REASON_WORDS = (("canvas", "canvas"), ("chart", "canvas"), ("script", "javascript"), ("review", "javascript"),
                 ("report", "pdf"), ("document", "pdf"), ("banner", "image"), ("image", "image"))


def train_priors(per_cell: int = 3) -> dict[str, str]:
    """The most common final turn (answer or abstention) per archetype over the first `per_cell` train cells."""
    from rlvr_core.envs.web.dataset import generate_split

    counts: dict[str, Counter[str]] = {}
    for problem in generate_split("train", per_cell=per_cell):
        gold = json.loads(problem.answer)
        answer = {solvers.ABSTAIN: gold["abstain"]} if gold["abstain"] else gold["value"]
        counts.setdefault(problem.extra["archetype"], Counter())[final_text(answer)] += 1
    return {name: c.most_common(1)[0][0] for name, c in counts.items()}


def _site(episode: Episode) -> tuple[Problem, dict[str, Any]]:
    problem = episode.env.problem  # type: ignore[attr-defined]
    return problem, problem.extra["site"]


class Reader(ScriptedPolicy):
    """Reads every page of the solver's path, one turn each, then answers `answer(problem, last page html)`."""

    program = "print(len(HTML))"

    def _next(self, episode: Episode) -> str:
        problem, site = _site(episode)
        path = solver_path(problem)
        turn = len(episode.turns)
        if turn < len(path):
            return reading_turn(episode, path[turn], self.program)
        return self.answer(problem, site["pages"][path[-1]], episode)

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        raise NotImplementedError


class BlindPolicy(ScriptedPolicy):
    name = "webextract-blind"

    def __init__(self, priors: dict[str, str] | None = None, *_: Any, **__: Any) -> None:
        super().__init__()
        self.priors = priors if priors is not None else train_priors()

    def _next(self, episode: Episode) -> str:
        problem, _ = _site(episode)
        return self.priors.get(problem.extra["archetype"], "<answer>null</answer>")


class PriorPolicy(Reader):
    name = "webextract-prior"

    def __init__(self, priors: dict[str, str] | None = None, *_: Any, **__: Any) -> None:
        super().__init__()
        self.priors = priors if priors is not None else train_priors()

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        return self.priors.get(problem.extra["archetype"], "<answer>null</answer>")


def _every(html: str, answer_type: str, fields: list[str]) -> Any:
    """Every node of the answer's kind on the page."""
    page = soup_of(html)
    texts = [" ".join(s.split()) for s in page.find_all(string=True) if s.strip()]
    if answer_type in ("text", "url"):
        attrs = [v for tag in page.find_all(True) for k, v in tag.attrs.items() if k in ("href", "src", "id")]
        return " ".join(texts + [str(a) for a in attrs]) if answer_type == "url" else " ".join(texts)
    if answer_type == "records":
        tags = page.find_all(["a", "img", "tr", "li", "option", "input", "dt"])
        return [{f: tag.get(f) if tag.has_attr(f) else text_of(tag) for f in fields} for tag in tags]
    if answer_type == "object":
        return {f: texts for f in fields}
    return texts


class StuffingPolicy(Reader):
    name = "webextract-stuffing"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        gold = json.loads(problem.answer)
        return f"<answer>{json.dumps(_every(html, gold['type'], gold['fields']), ensure_ascii=False)}</answer>"


class EchoPolicy(Reader):
    name = "webextract-echo"
    program = "print(HTML[:3000])"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        return f"<answer>{json.dumps(last_output(episode), ensure_ascii=False)}</answer>"


class QuestionPolicy(Reader):
    name = "webextract-question"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        query = problem.prompt.split("\n\n")[0].removeprefix("Task: ")
        return f"<answer>{json.dumps(query, ensure_ascii=False)}</answer>"


def lazy_answer(problem: Problem, pick: str = "first") -> Any:
    """The lazy reading's answer (taking the candidate at `pick`, a name of `solvers.PICKS`), or None when it
    fails."""
    site = problem.extra["site"]
    try:
        with solvers.lazy_reading(pick):
            return solvers.solve(problem.extra["archetype"], site["pages"].get, site["start"], problem.extra["params"])
    except Exception:  # noqa: BLE001 - a lazy reading that crashes has no answer
        return None


class LazyPolicy(Reader):
    name = "webextract-lazy"
    pick = "first"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        return final_text(lazy_answer(problem, self.pick))


def _lazy_at(pick: str) -> type[LazyPolicy]:
    return type(f"Lazy{pick.title().replace('_', '')}Policy", (LazyPolicy,), {"name": f"webextract-lazy_{pick}",
                                                                                "pick": pick})


LAZY_PICKS = ("second", "middle", "second_last", "last")  # beside "first" (LazyPolicy)


class CowardPolicy(Reader):
    name = "webextract-coward"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        words = problem.prompt.lower()
        reason = next((r for w, r in _REASON_WORDS if w in words), "image")
        return f"<abstain>{reason}</abstain>"


class HedgePolicy(Reader):
    name = "webextract-hedge"

    def answer(self, problem: Problem, html: str, episode: Episode) -> str:
        gold = json.loads(problem.answer)
        right = {solvers.ABSTAIN: gold["abstain"]} if gold["abstain"] else gold["value"]
        return f"{final_text(right)} or perhaps {final_text(lazy_answer(problem))}"


POLICIES = {p.name.removeprefix("webextract-"): p for p in (BlindPolicy, PriorPolicy, StuffingPolicy, EchoPolicy,
                                                            QuestionPolicy, LazyPolicy,
                                                            *(_lazy_at(pick) for pick in LAZY_PICKS), CowardPolicy,
                                                            HedgePolicy)}


def make(name: str, priors: dict[str, str] | None = None) -> ScriptedPolicy:
    cls = POLICIES[name]
    return cls(priors) if cls in (BlindPolicy, PriorPolicy) else cls()


def rewards(policy: Any, problems: Sequence[Problem]) -> list[float]:
    """The verifier's reward of each problem's episode under `policy`, in order."""
    from rlvr_core.envs.web.rollout import run
    from rlvr_core.envs.web.verifier import WebExtractVerifier
    from rlvr_core.generation.base import SamplingParams

    episodes = run(policy, problems, SamplingParams(max_new_tokens=256))
    verifier = WebExtractVerifier()
    return [verifier.verify(e.completion, p).reward for e, p in zip(episodes, problems)]


def _cell(values: Sequence[float]) -> str:
    from rlvr_core.stats import bootstrap_mean

    ci = bootstrap_mean(values)
    return f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_core.envs.web.scripted",
                                     description="Mean reward (95% bootstrap interval) of the oracle and the scripted "
                                                 "cheating policies on a webextract split, through real episodes.")
    parser.add_argument("--split", default="bench", choices=("train", "eval", "bench"))
    parser.add_argument("--per-cell", type=int, default=None, help="tasks per archetype and difficulty (default: all)")
    parser.add_argument("--policies", default="oracle," + ",".join(POLICIES), help="comma-separated names")
    args = parser.parse_args(argv)
    from rlvr_core.envs.web.dataset import generate_split
    from rlvr_core.envs.web.oracle import OraclePolicy

    problems = generate_split(args.split, args.per_cell)
    priors = train_priors()
    hard = [i for i, p in enumerate(problems) if p.difficulty != "easy"]
    print(f"| policy | n | mean reward [95% CI] | medium+hard (n={len(hard)}) |\n|---|---|---|---|")
    for name in args.policies.split(","):
        policy = OraclePolicy() if name == "oracle" else make(name, priors)
        got = rewards(policy, problems)
        print(f"| {name} | {len(got)} | {_cell(got)} | {_cell([got[i] for i in hard])} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
