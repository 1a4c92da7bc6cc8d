"""The training prompt stream: a deterministic, resumable sequence of problems.

Position p of the stream is problem `epoch_list(p // E)[p % E]`, where each
epoch list (E problems) is the configured mix (weighted: `mix_by_weight`
with a per-epoch seed; sequential: the parts in order), reordered by the
curriculum file when one is set. So the stream is a pure function of the
config and the seed: its whole state is the next position plus the
positions handed back for another try (prompts whose samples were too stale),
which come out first. That state goes into every checkpoint.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from rlvr_core.problem import Problem

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig
    from rlvr_core.storage import Store


class PromptStream:
    def __init__(self, parts: dict[str, list[Problem]], weights: dict[str, float], *, mixing: str, seed: int,
                 curriculum: list[str] | None = None) -> None:
        if not parts or not any(parts.values()):
            raise ValueError("data.train yielded no problems; check data.train names, splits and limits")
        self._parts, self._weights, self._mixing = parts, weights, mixing
        self._seed, self._curriculum = seed, curriculum
        self.epoch_size = sum(len(p) for p in parts.values())
        self._epochs: dict[int, list[Problem]] = {}
        self.next_position = 0
        self.requeued: deque[int] = deque()

    def _epoch(self, epoch: int) -> list[Problem]:
        if epoch not in self._epochs:
            from rlvr_core.data.curriculum import apply_curriculum
            from rlvr_core.data.mixing import mix_by_weight, mix_in_sequence

            if self._mixing == "sequential":
                problems = mix_in_sequence([self._parts[k] for k in self._parts])
            else:
                problems = mix_by_weight(self._parts, self._weights, n=self.epoch_size, seed=self._seed * 1000 + epoch)
            if self._curriculum:
                problems = apply_curriculum(problems, self._curriculum, origin="data.curriculum")
            self._epochs = {epoch: problems}  # keep one epoch in memory
        return self._epochs[epoch]

    def problem(self, position: int) -> Problem:
        return self._epoch(position // self.epoch_size)[position % self.epoch_size]

    def take(self, n: int) -> list[tuple[int, Problem]]:
        """The next `n` (position, problem) pairs: re-queued positions first, then fresh ones."""
        out = []
        while len(out) < n:
            if self.requeued:
                position = self.requeued.popleft()
            else:
                position, self.next_position = self.next_position, self.next_position + 1
            out.append((position, self.problem(position)))
        return out

    def requeue(self, positions: list[int]) -> None:
        """Hand positions back (in order) to be drawn before any fresh one."""
        self.requeued.extend(positions)

    def state(self, in_flight: list[int] = ()) -> dict[str, Any]:
        """Resumable state; `in_flight` positions (drawn but not yet trained on) are re-queued on resume."""
        return {"next_position": self.next_position, "requeued": list(in_flight) + list(self.requeued)}

    def load_state(self, state: dict[str, Any]) -> None:
        self.next_position = int(state["next_position"])
        self.requeued = deque(int(p) for p in state["requeued"])


def build_prompt_stream(config: "ExperimentConfig", store: "Store") -> PromptStream:
    """The stream for `config.data` (datasets via the store cache; offline datasets need no network)."""
    from rlvr_core.data.curriculum import read_order_file
    from rlvr_core.data.loader import load_problems

    parts: dict[str, list[Problem]] = {}
    weights: dict[str, float] = {}
    for i, spec in enumerate(config.data.train):
        key = f"{i}:{spec.name}:{spec.split}"
        parts[key] = load_problems(spec.name, spec.split, store=store, limit=spec.limit)
        weights[key] = spec.weight
    curriculum = None
    if config.data.curriculum:
        curriculum = read_order_file(config.data.curriculum, endpoint_url=config.storage.endpoint_url)
    return PromptStream(parts, weights, mixing=config.data.mixing, seed=config.run.seed, curriculum=curriculum)
