"""Colocated mode: the trainer and the generator are one actor holding one copy of the weights.

On one device the split layout (a trainer actor, a rollout actor, weights
shipped between them through Ray's object store after every update) pays
for a second model copy, a state-dict copy per sync and two processes
competing for the same cores, and buys nothing: there is no second device
to generate on while the trainer steps. Here the generator samples from the
trainer's own `nn.Module` (as TRL's colocate mode and veRL's hybrid engine
do), so a "sync" is only the version check.

The driver (`session.py`) is the same for both layouts: this actor answers
the trainer calls (`PolicyTrainer`) and the rollout-worker calls
(`generate`, `episodes`, `load_weights`, `version`, `pid`), and is the
rollout pool's only worker. Ray runs an actor's calls one at a time, in
order, so a generation submitted after `train_step` samples from the
updated weights, as the staleness rule in `loop.py` expects.

It cannot be restarted in place: a restart would lose the optimizer state,
so a failure stops the run, which resumes from its last checkpoint.
"""

from __future__ import annotations

from typing import Any

from rlvr_core.grpo.actors import ServesRollouts
from rlvr_core.grpo.trainer import PolicyTrainer


class ColocatedTrainer(PolicyTrainer, ServesRollouts):
    """A `PolicyTrainer` that also generates rollouts with its own policy (see the module docstring)."""

    def __init__(self, model_path: str, *, generation_batch_size: int, trust_remote_code: bool = False,
                 **trainer_options: Any) -> None:
        from rlvr_core.generation.hf import HFBackend

        super().__init__(model_path, **trainer_options)
        self.backend = HFBackend.sharing(self.model, model_path, seed=trainer_options.get("seed", 0),
                                         batch_size=generation_batch_size, trust_remote_code=trust_remote_code)

    def _generation_context(self):
        """Eval mode (no dropout) and the trainer's autocast, so sampling and training compute alike."""
        self.model.eval()
        self.backend.weight_version = self.version
        return self._autocast()

    def load_weights(self, weights: object, version: int) -> int:
        """The sync of the split layout is a no-op here; only `None` (no weights to ship) makes sense."""
        if weights is not None:
            raise ValueError("a colocated trainer generates with its own weights; sync it with weights=None")
        if version != self.version:
            raise ValueError(f"sync to version {version}, but the colocated trainer is at {self.version}")
        return self.version
