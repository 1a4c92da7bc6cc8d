"""The oracle: a scripted policy that solves every task with the reference solvers, through the real episode.

It drives the same machinery a model does (tool-call text, parser, sandbox,
navigate, limits, ledger, verifier, evaluation files), so an oracle
evaluation scoring 1.0 everywhere shows that golds, tools and rubric agree.
For each page the reference solver reads, in order, one turn: a `navigate`
call to it (unless it is the current page) and a `run_python` call in the
sandbox on its HTML. On a one-page task that program is the solver package
itself (`solvers.source_files`, rebuilt in the sandbox's working folder)
printing the solver's answer as JSON, and the final turn answers with what
was printed (so a sandbox, parser or output-cap fault shows up as a lost
point); on a multi-page task the program only reads the page (a program sees
one page) and the final answer is the solver's, computed in this process.

Use it as `evaluate("oracle", "webextract", backend="webextract-oracle")`.

`AbstainPolicy` is the floor: it abstains at once on every task, reading
nothing, so it scores 0 everywhere (an abstention counts only after the page
was read); a model at that level has learned nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rlvr_core.envs.chat import Message, PlainTranscript
from rlvr_core.envs.episode import Episode, ModelTurn, Segment
from rlvr_core.envs.web import solvers

READ_PROGRAM = "print(len(HTML))"


def call(name: str, arguments: dict[str, Any]) -> str:
    """One tool call as the model writes it."""
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments}, ensure_ascii=False)}</tool_call>"


def final_text(answer: Any) -> str:
    """The final turn for a solver answer: `<abstain>` for `{"$abstain": reason}`, else `<answer>`."""
    if isinstance(answer, dict) and solvers.ABSTAIN in answer:
        return f"<abstain>{answer[solvers.ABSTAIN]}</abstain>"
    return f"<answer>{json.dumps(answer, ensure_ascii=False)}</answer>"


def solver_program(archetype: str, start: str, params: dict[str, Any]) -> str:
    """Python that rebuilds the solver package in the working folder and prints its answer for HTML as JSON."""
    return ("import json as _json, os as _os, sys as _sys\n"
            f"_files = {solvers.source_files()!r}\n"
            "_os.makedirs('websolvers', exist_ok=True)\n"
            "for _name, _source in _files.items():\n"
            "    with open(_os.path.join('websolvers', _name), 'w', encoding='utf-8') as _f:\n"
            "        _f.write(_source)\n"
            "_sys.path.insert(0, _os.getcwd())\n"
            "import websolvers\n"
            f"print(_json.dumps(websolvers.solve({archetype!r}, lambda path: HTML, {start!r}, "
            f"_json.loads({json.dumps(params)!r})), ensure_ascii=False))\n")


def solver_path(problem: Any) -> list[str]:
    """The pages the reference solver reads, in order (the gold spec's `reads`)."""
    return list(json.loads(problem.answer).get("reads") or [problem.extra["site"]["start"]])


def reading_turn(episode: Episode, path: str, program: str = READ_PROGRAM) -> str:
    """One turn that opens `path` (unless it is the current page) and runs `program` on it."""
    current = getattr(episode.env, "current", None)
    opening = call("navigate", {"url": path}) if path != current else ""
    return opening + call("run_python", {"code": program})


def last_output(episode: Episode) -> str:
    """The output of the last tool call of the previous turn."""
    content = episode.messages[-1]["content"] if episode.messages[-1]["role"] == "user" else ""
    blocks = content.split("<tool_response>\n")
    return blocks[-1].removesuffix("\n</tool_response>").split("\n[1 message left")[0] if len(blocks) > 1 else ""


class ScriptedPolicy:
    """A `Policy` (see `rlvr_core/envs/episode.py`) that needs no model: `_next` writes each turn.

    Accepts and ignores backend options, so the evaluation runner can build it like a backend."""

    name = "webextract-scripted"
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
        raise NotImplementedError

    def close(self) -> None:
        pass


class OraclePolicy(ScriptedPolicy):
    """Reads every page the solver reads and answers the solver's answer ("webextract-oracle")."""

    name = "webextract-oracle"

    def _next(self, episode: Episode) -> str:
        problem = episode.env.problem  # type: ignore[attr-defined]
        archetype, params, site = problem.extra["archetype"], problem.extra["params"], problem.extra["site"]
        path, turn = solver_path(problem), len(episode.turns)
        if len(site["pages"]) == 1:
            if turn == 0:
                return reading_turn(episode, site["start"], solver_program(archetype, site["start"], params))
            printed = last_output(episode).strip()
            try:
                return final_text(json.loads(printed))
            except json.JSONDecodeError:
                return f"<answer>{json.dumps(printed, ensure_ascii=False)}</answer>"
        if turn < len(path):
            return reading_turn(episode, path[turn])
        return final_text(solvers.solve(archetype, site["pages"].get, site["start"], params))


class AbstainPolicy(ScriptedPolicy):
    """Abstains on the first turn of every task, citing an image, without reading ("webextract-abstain")."""

    name = "webextract-abstain"

    def _next(self, episode: Episode) -> str:
        return "<abstain>image</abstain>"
