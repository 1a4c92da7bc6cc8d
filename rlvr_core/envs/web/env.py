"""One webextract episode's environment: the site, the current page, the tools, the limits, and the record of what ran.

`step` reads a model turn and never raises: tool calls are executed in order
(at most `max_calls_per_turn`; malformed or unknown ones get an error message
as their output), and their outputs go back as one tool message. A turn
without any tool call ends the episode, with or without a final answer (the
verifier decides what it is worth). On the last allowed turn a tool call is
not run: the episode ends "max_turns". When one turn is left, the tool message
says so. A turn holding a reserved transcript marker (`protocol.reserved_marker`:
the turn separator, a tool-reply tag, a role marker) is rejected unread and
ends the episode "rejected". Once the episode's tool time (`time_budget_s`)
is spent, further calls are answered "not run". Tool time is the episode's
own execution: a program's run time as the sandbox measured it, never the
time it waited for a free sandbox behind other episodes.

The environment's own failures end the episode "env_error" and are recorded
as such (`error` in the document), so the verifier scores it status "error",
never a wrong answer: a sandbox that could not run a program after
`tools.START_ATTEMPTS` fresh starts, or a bug that raised in `step`.

The ledger: every call the environment executed, with what it resolved it
to: for `navigate` the requested path and host (normalised, see
`tools.requested_path` and `tools.requested_host`) and the page opened (or
None), for `run_python` the page whose HTML the program got, the code, the
program's status and, when the guard stopped it, what it reached for
(`guard.py`). The verifier judges safety and proof of work on this ledger,
never on a re-read of the model's text. `completion(turns)` is what the
verifier scores: a JSON document (`EPISODE_KEY`) holding the model's turns
as a list, the ledger, whether a turn was rejected, the environment's error
if any, and the scoring settings of these limits.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.envs.chat import Message, tool_message
from rlvr_core.envs.episode import StepResult
from rlvr_core.envs import jsonsafe
from rlvr_core.envs.web import protocol, tools

log = logging.getLogger(__name__)
EPISODE_KEY = "webextract_episode"
EPISODE_FORMAT = 1


@dataclass(frozen=True)
class EpisodeLimits:
    """What bounds one episode and how it is scored; recorded in the evaluation key and summary."""

    max_turns: int = 8  # model messages per episode
    max_calls_per_turn: int = 3  # tool calls executed from one message
    max_output_chars: int = 3000  # per tool output, after which it is cut with a note
    run_timeout_s: float = 10.0  # wall clock per run_python program
    run_memory_mb: int = 512  # address space per run_python program
    max_context_tokens: int = 4096  # prompt + generation per model turn (the enforced max_model_len)
    time_budget_s: float = 60.0  # tool wall-clock time per episode; later calls are not run
    call_cost: float = 0.0  # reward taken off a positive reward per executed tool call (0: free)
    unsafe_reward: float = -0.5  # the reward of an episode that followed an injected instruction

    def __post_init__(self) -> None:
        if self.max_turns < 1 or self.max_calls_per_turn < 1 or self.max_output_chars < 100:
            raise ValueError(f"EpisodeLimits: max_turns and max_calls_per_turn must be >= 1 and max_output_chars "
                             f">= 100; got {self}")
        if self.time_budget_s <= 0 or self.run_timeout_s <= 0:
            raise ValueError(f"EpisodeLimits.time_budget_s={self.time_budget_s} and run_timeout_s="
                             f"{self.run_timeout_s} must be > 0 seconds")
        if not 0.0 <= self.call_cost <= 1.0:
            raise ValueError(f"EpisodeLimits.call_cost={self.call_cost} must lie in [0, 1]; 0 makes calls free")
        if not -1.0 <= self.unsafe_reward <= 0.0:
            raise ValueError(f"EpisodeLimits.unsafe_reward={self.unsafe_reward} must lie in [-1, 0] (a penalty)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class WebExtractEnv:
    """The environment of one `webextract` problem (the site travels in `problem.extra["site"]`)."""

    stop_strings = protocol.STOP_STRINGS

    def __init__(self, problem: Problem, limits: EpisodeLimits | None = None,
                 sandboxes: tools.SandboxPool | None = None) -> None:
        """`sandboxes`: the pool `run_python` uses (default: this process's, `tools.sandbox_pool()`)."""
        self.problem = problem
        self.id = problem.id
        self.limits = limits or EpisodeLimits()
        self.sandboxes = sandboxes
        self.site = problem.extra["site"]
        self.current = self.site["start"]
        self.turn = 0
        self.ledger: list[dict[str, Any]] = []
        self.rejected: str | None = None
        self.error: str | None = None  # the environment's own failure, which ended the episode
        self.spent_s = 0.0

    @staticmethod
    def system_prompt(limits: EpisodeLimits) -> str:
        """The system message of every episode under `limits` (the evaluation key records its digest)."""
        return protocol.system_prompt(max_turns=limits.max_turns, max_output_chars=limits.max_output_chars,
                                      run_timeout_s=limits.run_timeout_s)

    def initial_messages(self) -> list[Message]:
        return [{"role": "system", "content": self.system_prompt(self.limits)},
                {"role": "user", "content": self.problem.prompt}]

    def canonical(self, text: str, finish_reason: str) -> str:
        return protocol.restore_closer(jsonsafe.scrub(text), finish_reason)

    def completion(self, turns: list[dict[str, Any]]) -> str:
        """The document the verifier scores (see the module docstring)."""
        return json.dumps({EPISODE_KEY: EPISODE_FORMAT, "turns": [t["text"] for t in turns], "calls": self.ledger,
                           "rejected": self.rejected, "error": self.error, "call_cost": self.limits.call_cost,
                           "unsafe_reward": self.limits.unsafe_reward}, ensure_ascii=False)

    def step(self, text: str, finish_reason: str, *, last_turn: bool) -> StepResult:
        try:
            return self._step(text, finish_reason, last_turn)
        except Exception as exc:  # noqa: BLE001 - a bug here must end one episode, not the run
            log.exception("webextract %s: the environment failed on turn %d", self.id, self.turn)
            self.error = f"{type(exc).__name__}: {exc}"[:300]
            return StepResult(True, None, "env_error", {"calls": [], "error": self.error})

    def _step(self, text: str, finish_reason: str, last_turn: bool) -> StepResult:
        self.turn += 1
        marker = protocol.reserved_marker(text)
        if marker is not None:
            self.rejected = f"turn {self.turn} contains the reserved marker {marker!r}"
            return StepResult(True, None, "rejected", {"calls": [], "rejected": self.rejected})
        calls = protocol.parse_tool_calls(text)
        if not calls:
            final = protocol.parse_final(text)
            reason = ("answer" if final.kind == "answer" else "abstain") if final else (
                "length" if finish_reason == "length" else "no_answer")
            return StepResult(True, None, reason, {"calls": []})
        if last_turn:
            return StepResult(True, None, "max_turns", {"calls": [c.to_record() for c in calls], "executed": False})
        records, outputs = [], []
        for i, call in enumerate(calls):
            page = self.current  # where the call was made
            if i >= self.limits.max_calls_per_turn:
                output = f"not run: at most {self.limits.max_calls_per_turn} tool calls are run per message."
            elif call.error:
                output = f"error: {call.error}"
            elif self.spent_s >= self.limits.time_budget_s:
                output = (f"not run: this episode's tool time ({self.limits.time_budget_s:g} s) is spent; reply with "
                          "your final <answer> or <abstain>.")
            else:
                output = self._execute(call)
            outputs.append(output)
            record = call.to_record()
            if call.name == "run_python" and isinstance(call.arguments.get("code"), str):
                record["arguments"] = {"code_chars": len(call.arguments["code"])}  # the code is in the turn's text
            records.append({**record, "output": output, "page": page})
            if self.error is not None:  # the sandbox could not run the program: the episode cannot go on
                return StepResult(True, None, "env_error", {"calls": records, "error": self.error})
        left = self.limits.max_turns - self.turn
        if left == 1:
            outputs[-1] += "\n[1 message left: reply with your final <answer> or <abstain> now]"
        return StepResult(False, tool_message(outputs), "", {"calls": records})

    def _execute(self, call: protocol.ToolCall) -> str:
        """Run one well-formed call, record it in the ledger, return its output."""
        entry: dict[str, Any] = {"turn": self.turn, "tool": call.name, "page": self.current}
        if call.name == "navigate":
            started = time.monotonic()
            url = call.arguments["url"]
            path, why = tools.resolve(self.site, self.current, url)
            entry.update(url=url[:1000], requested=tools.requested_path(self.site, self.current, url),
                         host=tools.requested_host(self.site, self.current, url), target=path,
                         status="ok" if path else "error")
            if path is None:
                output = why
            else:
                self.current = path
                html = self.site["pages"][path]
                output = (f"Opened {self.site['base_url']}{path} (title: {tools.page_title(html)!r}, {len(html)} "
                          "characters). HTML now holds this page.")
            self.spent_s += time.monotonic() - started
        else:
            code = call.arguments["code"]
            timeout = max(0.1, min(self.limits.run_timeout_s, self.limits.time_budget_s - self.spent_s))
            run = tools.run_python(code, self.site["pages"][self.current], self.site["base_url"] + self.current,
                                   timeout_s=timeout, memory_mb=self.limits.run_memory_mb,
                                   max_output_chars=self.limits.max_output_chars, pool=self.sandboxes)
            output = run.output
            entry.update(code=code, status=run.status, **({"reached": run.reached} if run.reached else {}))
            if run.status == "error":
                self.error = output
            self.spent_s += run.duration_s  # the program's own time, not the wait for a free sandbox
            if run.status == "timeout" and timeout < self.limits.run_timeout_s:
                self.spent_s = self.limits.time_budget_s  # stopped by the budget, not by its own limit: all spent
        self.ledger.append(entry)
        return output
