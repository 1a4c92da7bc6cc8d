"""One webextract episode's environment: the site, the current page, the tools, the limits.

`step` reads a model turn: tool calls are executed in order (at most
`max_calls_per_turn`; malformed or unknown ones get an error message as their
output), and their outputs go back as one tool message. A turn without any
tool call ends the episode, with or without a final answer (the verifier
decides what it is worth). On the last allowed turn a tool call is not run:
the episode ends "max_turns". When one turn is left, the tool message says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rlvr_core.data.schema import Problem
from rlvr_core.envs.chat import Message, tool_message
from rlvr_core.envs.episode import StepResult
from rlvr_core.envs.web import protocol, tools


@dataclass(frozen=True)
class EpisodeLimits:
    """What bounds one episode; recorded in the evaluation key and summary."""

    max_turns: int = 8  # model messages per episode
    max_calls_per_turn: int = 3  # tool calls executed from one message
    max_output_chars: int = 3000  # per tool output, after which it is cut with a note
    run_timeout_s: float = 10.0  # wall clock per run_python program
    run_memory_mb: int = 512  # address space per run_python program
    max_context_tokens: int = 4096  # prompt + generation per model turn (the enforced max_model_len)

    def __post_init__(self) -> None:
        if self.max_turns < 1 or self.max_calls_per_turn < 1 or self.max_output_chars < 100:
            raise ValueError(f"EpisodeLimits: max_turns and max_calls_per_turn must be >= 1 and max_output_chars "
                             f">= 100; got {self}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class WebExtractEnv:
    """The environment of one `webextract` problem (the site travels in `problem.extra["site"]`)."""

    stop_strings = protocol.STOP_STRINGS
    separator = protocol.TURN_SEPARATOR

    def __init__(self, problem: Problem, limits: EpisodeLimits | None = None) -> None:
        self.problem = problem
        self.id = problem.id
        self.limits = limits or EpisodeLimits()
        self.site = problem.extra["site"]
        self.current = self.site["start"]
        self.turn = 0

    def initial_messages(self) -> list[Message]:
        system = protocol.system_prompt(max_turns=self.limits.max_turns, max_output_chars=self.limits.max_output_chars,
                                        run_timeout_s=self.limits.run_timeout_s)
        return [{"role": "system", "content": system}, {"role": "user", "content": self.problem.prompt}]

    def canonical(self, text: str, finish_reason: str) -> str:
        return protocol.restore_closer(text, finish_reason)

    def step(self, text: str, finish_reason: str, *, last_turn: bool) -> StepResult:
        self.turn += 1
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
            else:
                output = self._run(call)
            outputs.append(output)
            record = call.to_record()
            if call.name == "run_python" and isinstance(call.arguments.get("code"), str):
                record["arguments"] = {"code_chars": len(call.arguments["code"])}  # the code is in the turn's text
            records.append({**record, "output": output, "page": page})
        left = self.limits.max_turns - self.turn
        if left == 1:
            outputs[-1] += "\n[1 message left: reply with your final <answer> or <abstain> now]"
        return StepResult(False, tool_message(outputs), "", {"calls": records})

    def _run(self, call: protocol.ToolCall) -> str:
        if call.error:
            return f"error: {call.error}"
        if call.name == "navigate":
            path, why = tools.resolve(self.site, self.current, call.arguments["url"])
            if path is None:
                return why
            self.current = path
            html = self.site["pages"][path]
            return (f"Opened {self.site['base_url']}{path} (title: {tools.page_title(html)!r}, {len(html)} characters). "
                    "HTML now holds this page.")
        html = self.site["pages"][self.current]
        return tools.run_python(call.arguments["code"], html, self.site["base_url"] + self.current,
                                timeout_s=self.limits.run_timeout_s, memory_mb=self.limits.run_memory_mb,
                                max_output_chars=self.limits.max_output_chars)
