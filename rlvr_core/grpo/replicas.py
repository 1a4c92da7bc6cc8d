"""The trainer as the driver calls it: one actor, or `training.data_parallel` colocated replicas kept in step.

Every call a replica group needs goes through here, so the session loop is
the same for one trainer and for N: an update is split into shares of whole
groups and its metrics are added back up (`data_parallel.py`), state is
loaded into every replica, and checkpoints, weights and log-prob scoring
come from the first. After each update the driver checks that every replica
holds the version it expects and, with several, that all hold the same
weights (a checksum each replica returns with its metrics): colocated
generators are the trainers, so this is their whole weight sync.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rlvr_core.grpo.data_parallel import combine_metrics, shard_rows


class ReplicasDiverged(RuntimeError):
    """A replica's weights are not the ones the driver expects (version or checksum): a bug, never expected."""


@dataclass
class TrainerReplicas:
    actors: list[Any]   # Ray actor handles; one unless training.data_parallel > 1
    group_size: int     # rows per group in a training batch (sampling.group_size)

    @property
    def lead(self) -> Any:
        """The replica that publishes checkpoints, ships weights and scores log-probs."""
        return self.actors[0]

    def submit_train_step(self, batch: dict[str, np.ndarray] | None, owners: Sequence[int] | None = None) -> list[Any]:
        """Start one update on every replica, each on its share of `batch` (group g on replica `owners[g]`, the
        one that sampled it, when given); `train_metrics` waits for it."""
        if len(self.actors) == 1 or batch is None:
            return [actor.train_step.remote(batch) for actor in self.actors]
        tokens = float(batch["completion_mask"].sum())
        shares = shard_rows(batch, len(self.actors), self.group_size, owners)
        return [actor.train_step.remote(share, tokens) for actor, share in zip(self.actors, shares)]

    def train_metrics(self, update: list[Any], version: int) -> dict[str, float]:
        """Wait for `update`; check every replica now holds `version` and the same weights; combined metrics."""
        import ray

        per_replica = ray.get(update)
        held = [metrics.pop("version") for metrics in per_replica]
        if any(v != version for v in held):
            raise ReplicasDiverged(f"after the update the trainer replicas hold versions {held}, the driver expects "
                                   f"{version}; the run stops rather than train on weights it cannot name")
        sums = [metrics.pop("weights_checksum", None) for metrics in per_replica]
        if any(s != sums[0] for s in sums[1:]):
            raise ReplicasDiverged("data-parallel replicas hold different weights after the same updates "
                                   f"(checksums {sums}); the run stops rather than train replicas that disagree")
        return combine_metrics(per_replica)

    def load_state(self, state: dict[str, Any]) -> None:
        import ray

        ray.get([actor.load_state.remote(state) for actor in self.actors])


def start_replicas(actor_class: Any, count: int, group_size: int, *args: Any, **kwargs: Any) -> TrainerReplicas:
    """`count` actors of `actor_class(*args, **kwargs)`, joined in one data-parallel group when more than one."""
    import ray

    actors = [actor_class.remote(*args, **kwargs) for _ in range(count)]
    if count > 1:
        host, port = ray.get(actors[0].open_rendezvous.remote())
        ray.get([actor.join_replicas.remote(host, port, rank, count) for rank, actor in enumerate(actors)])
    return TrainerReplicas(actors, group_size)
