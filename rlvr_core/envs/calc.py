"""`arith-calc`: three-digit addition with a calculator tool, the smallest environment that needs a tool.

The tiny model adds two-digit numbers (`arith`) and fails at three digits,
so the calculator is worth using: a turn `<calc>347+812</calc>` gets back the
tool message `1159`, and the next turn answers `#### 1159`. A turn without a
call ends the episode; the math verifier scores the model's turns joined by
newlines, so only the model's own `#### N` counts (the tool output is not part
of the completion).

`transcript` renders a correct episode exactly as a policy renders one; the
tool-using start point `tiny:arith-calc` (`rlvr_core/models/tiny_calc.py`)
is trained on such transcripts. `no_tool_accuracy` is the baseline the tool
has to beat: the same model answering in one turn, the call ruled out.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.envs.chat import Message, PlainTranscript, tool_message
from rlvr_core.envs.episode import StepResult

SOURCE = "arith-calc"
LOW, HIGH = 100, 999
SPLIT_SIZES = {"train": 20000, "test": 2000}
_CALL = re.compile(r"<calc>(.*?)</calc>", re.DOTALL)
_EXPRESSION = re.compile(r"\s*\d{1,6}(\s*[-+*]\s*\d{1,6}){0,3}\s*")


def _split_of(a: int, b: int) -> str:
    return "test" if hashlib.sha256(f"{a}+{b}".encode()).digest()[0] % 10 == 0 else "train"


def generate(split: str) -> list[Problem]:
    """`SPLIT_SIZES[split]` distinct problems "What is a + b?" (a, b in 100..999), train and test disjoint."""
    if split not in SPLIT_SIZES:
        raise ValueError(f"{SOURCE}: unknown split {split!r}; choose one of {sorted(SPLIT_SIZES)}")
    rng = random.Random(f"{SOURCE}|{split}")
    seen: set[tuple[int, int]] = set()
    problems = []
    while len(problems) < SPLIT_SIZES[split]:
        a, b = rng.randint(LOW, HIGH), rng.randint(LOW, HIGH)
        if (a, b) in seen or _split_of(a, b) != split:
            continue
        seen.add((a, b))
        problems.append(Problem(id=f"{SOURCE}-{split}-{a}+{b}", source=SOURCE, prompt=f"What is {a} + {b}?",
                                answer=str(a + b), verifier="math", category="addition"))
    return problems


def calculate(expression: str) -> str:
    """The value of an integer expression with + - * (at most four numbers), or an error message."""
    if not _EXPRESSION.fullmatch(expression):
        return "error: the calculator takes integers joined by + - *, e.g. <calc>347+812</calc>"
    total, sign, term = 0, 1, None
    for token in re.findall(r"\d+|[-+*]", expression):
        if token.isdigit():
            term = int(token) if term is None else term * int(token)
        elif token == "*":
            continue
        else:
            total, sign, term = total + sign * (term or 0), 1 if token == "+" else -1, None
    return str(total + sign * (term or 0))


class CalcEnv:
    """One `arith-calc` episode: at most one `<calc>` call per turn; a turn without one ends the episode."""

    stop_strings = ("</calc>",)

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.id = problem.id

    def initial_messages(self) -> list[Message]:
        return [{"role": "user", "content": self.problem.prompt}]

    def completion(self, turns: list[dict[str, Any]]) -> str:
        """The turns joined by newlines: the math verifier reads the last `#### N`."""
        return "\n".join(t["text"] for t in turns)

    def canonical(self, text: str, finish_reason: str) -> str:
        opened = text.rfind("<calc>")
        if finish_reason == "stop" and opened >= 0 and "</calc>" not in text[opened:]:
            return text + "</calc>"  # generation stopped at "</calc>" and left it out
        return text

    def step(self, text: str, finish_reason: str, *, last_turn: bool) -> StepResult:
        call = _CALL.search(text)
        if call is None:
            return StepResult(True, None, "answer" if "####" in text else "no_answer", {"calls": []})
        if last_turn:
            return StepResult(True, None, "max_turns", {"calls": [{"expression": call.group(1)}], "executed": False})
        output = calculate(call.group(1))
        return StepResult(False, tool_message([output]), "", {"calls": [{"expression": call.group(1), "output": output}]})


def transcript(problem: Problem, *, use_tool: bool) -> list[tuple[str, bool]]:
    """A correct episode as (text, is_model_text) pieces, rendered exactly as a `TextPolicy` renders it."""
    plain = PlainTranscript()
    env = CalcEnv(problem)
    pieces = [(plain.prompt(env.initial_messages()), False)]
    if use_tool:
        a, b = re.findall(r"\d+", problem.prompt)
        call = f"<calc>{a}+{b}</calc>"
        result = env.step(call, "stop", last_turn=False)
        pieces += [(call, True), (plain.tail(result.reply), False)]
    return pieces + [(f"#### {problem.answer}", True)]


def no_tool_accuracy(backend: Any, problems: list[Problem], max_new_tokens: int = 8) -> float:
    """Greedy accuracy of `backend`'s model answering in one turn without the tool: the prompt is rendered as an
    episode's first turn with `#### ` already written, so the model's reply can only be its own sum."""
    from rlvr_core.envs.chat import renderer_for
    from rlvr_core.generation.base import SamplingParams
    from rlvr_core.verifiers.math.verifier import MathVerifier

    renderer = renderer_for(getattr(backend, "tokenizer", None))
    prompts = [renderer.prompt(CalcEnv(p).initial_messages()) + "#### " for p in problems]
    gens = backend.generate(prompts, SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0))
    verifier = MathVerifier()
    return sum(verifier.verify("#### " + g.text, p).reward for g, p in zip(gens, problems)) / len(problems)
