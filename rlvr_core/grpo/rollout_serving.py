"""`ServesRollouts`: the rollout calls the driver makes on any actor that samples.

Shared by the split layout's rollout worker (actors.py) and the colocated
trainer (colocated.py); actors.py chooses among the trainer classes, so it
lives below both rather than in either.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any


class ServesRollouts:
    """The rollout calls the driver makes, over `self.backend` inside `_generation_context()`: shared by the
    split layout's `RolloutWorker` and the colocated trainer (colocated.py). Results are plain dicts, so
    they cross processes cheaply."""

    backend: Any

    def _generation_context(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def generate(self, prompts: list[str], params: dict[str, Any]) -> list[dict[str, Any]]:
        from rlvr_core.generation import SamplingParams

        with self._generation_context():
            # A shallow dict per sample: `dataclasses.asdict` deep-copies every list (6 ms for 128 samples).
            return [dict(vars(g)) for g in self.backend.generate(prompts, SamplingParams(**params))]

    def episodes(self, problems: list[Any], params: dict[str, Any]) -> list[dict[str, Any]]:
        """Multi-turn datasets: `params["n"]` episodes per problem, played here (model turns and tool calls)
        so they overlap training like single-turn generation; each is one sample with a loss mask."""
        from rlvr_core.envs.sampling import episode_samples
        from rlvr_core.generation import SamplingParams

        with self._generation_context():
            return episode_samples(self.backend, problems, SamplingParams(**params))

    def pid(self) -> int:
        return os.getpid()
