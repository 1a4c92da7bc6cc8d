"""The oracle: a scripted policy that solves every task with the reference solvers, through the real episode.

It drives the same machinery a model does (tool-call text, parser, sandbox,
navigate, limits, verifier, evaluation files), so an oracle evaluation
scoring 1.0 everywhere shows that golds, tools and rubric agree. What it does:

- one-page tasks: one `run_python` call whose code is the source of
  `solvers.py` plus a line printing the solver's answer as JSON, run in the
  sandbox on the page's HTML; the final turn answers with what was printed
  (so a sandbox, parser or output-cap fault shows up as a lost point);
- multi-page tasks: a `navigate` call to each page the solver reads, in
  order; the final answer is the solver's, computed in this process (a
  program in the sandbox sees only the current page).

Use it as `evaluate("oracle", "webextract", backend="webextract-oracle")`.

`AbstainPolicy` is the floor: it abstains at once on every task, so its
score is what abstention alone earns under the rubric (the limit tasks
only); a model below it has learned nothing a constant reply does not do.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from typing import Any

from rlvr_core.envs.chat import Message, PlainTranscript
from rlvr_core.envs.episode import Episode, ModelTurn, Segment
from rlvr_core.envs.web import solvers


def _call(name: str, arguments: dict[str, Any]) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments}, ensure_ascii=False)}</tool_call>"


def final_text(answer: Any) -> str:
    """The final turn for a solver answer: `<abstain>` for `{"$abstain": reason}`, else `<answer>`."""
    if isinstance(answer, dict) and solvers.ABSTAIN in answer:
        return f"<abstain>{answer[solvers.ABSTAIN]}</abstain>"
    return f"<answer>{json.dumps(answer, ensure_ascii=False)}</answer>"


def solver_program(archetype: str, start: str, params: dict[str, Any]) -> str:
    """Python that prints the solver's answer for the page in HTML as one JSON line."""
    return (inspect.getsource(solvers) + "\n\nimport json as _json\n"
            f"print(_json.dumps(solve({archetype!r}, lambda path: HTML, {start!r}, _json.loads({json.dumps(params)!r})), "
            "ensure_ascii=False))\n")


def visits(archetype: str, site: dict[str, Any], params: dict[str, Any]) -> tuple[list[str], Any]:
    """The pages the solver reads after the start page (in order, without repeats in a row) and its answer."""
    seen: list[str] = []

    def fetch(path: str) -> str | None:
        if not seen or seen[-1] != path:
            seen.append(path)
        return site["pages"].get(path)

    answer = solvers.solve(archetype, fetch, site["start"], params)
    return [p for i, p in enumerate(seen) if i > 0 or p != site["start"]], answer


def _last_output(episode: Episode) -> str:
    content = episode.messages[-1]["content"] if episode.messages[-1]["role"] == "user" else ""
    return content.removeprefix("<tool_response>\n").removesuffix("\n</tool_response>")


class OraclePolicy:
    """A `Policy` (see `rlvr_core/envs/episode.py`) that needs no model; accepts and ignores backend options."""

    name = "webextract-oracle"
    tokenizer = None
    weight_version = 0

    def __init__(self, *_: Any, **__: Any) -> None:
        self._plain = PlainTranscript()

    def start(self, episode: Episode) -> None:
        episode.segments.append(Segment("prompt", self._plain.prompt(episode.messages)))

    def extend(self, episode: Episode, reply: Message) -> None:
        episode.segments.append(Segment("env", self._plain.tail(reply)))

    def act(self, episodes: Sequence[Episode], max_new_tokens: int, temperature: float, seed: int | None,
            stop: tuple[str, ...]) -> list[ModelTurn | None]:
        return [ModelTurn(self._next(e), "stop") for e in episodes]

    def _next(self, episode: Episode) -> str:
        problem = episode.env.problem  # type: ignore[attr-defined]
        archetype, params, site = problem.extra["archetype"], problem.extra["params"], problem.extra["site"]
        turn = len(episode.turns)
        if len(site["pages"]) == 1:
            if turn == 0:
                return _call("run_python", {"code": solver_program(archetype, site["start"], params)})
            printed = _last_output(episode).strip()
            try:
                return final_text(json.loads(printed))
            except json.JSONDecodeError:
                return f"<answer>{json.dumps(printed, ensure_ascii=False)}</answer>"
        pages, answer = visits(archetype, site, params)
        if turn < len(pages):
            return _call("navigate", {"url": pages[turn]})
        return final_text(answer)

    def close(self) -> None:
        pass


class AbstainPolicy(OraclePolicy):
    """Abstains on the first turn of every task, always citing an image ("webextract-abstain")."""

    name = "webextract-abstain"

    def _next(self, episode: Episode) -> str:
        return "<abstain>image</abstain>"
