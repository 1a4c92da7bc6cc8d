"""Rollout workers under supervision: submit generation, collect with a deadline, restart once, sync weights.

Failure handling, bounded in time: every wait on a worker goes through
`ray.wait(..., timeout=heartbeat_timeout_s)`. A worker whose call raised
(`RayActorError`: the process died) or that produced nothing for
`heartbeat_timeout_s` (hung) is killed and replaced by a fresh actor that
first loads the current weights; its unfinished requests are resubmitted with
their original seeds. Each worker slot may be restarted once; a second
failure raises `RolloutWorkerError` with what happened — never a silent hang.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


class RolloutWorkerError(RuntimeError):
    """A rollout worker failed beyond what the run tolerates; the message says which, how, and what to check."""


@dataclass
class Request:
    """One call to worker `slot`, remembered so it can be resubmitted: `generate(prompts, params)`, or with
    `method="episodes"` the episodes of multi-turn problems (then `prompts` holds the `Problem`s)."""

    slot: int
    prompts: list[Any]
    params: dict[str, Any]
    tag: Any = None          # caller's bookkeeping (e.g. the (position, problem) items)
    method: str = "generate"
    future: Any = None
    actor: Any = None        # the actor the future belongs to (a restarted slot has a new one)


@dataclass
class RolloutPool:
    start_worker: Callable[[int, int], Any]   # (slot, incarnation) -> actor handle
    workers: int
    heartbeat_timeout_s: float
    start_timeout_s: float = 600.0             # a new actor imports torch and loads a model: allowed more time
    actors: list[Any] = field(default_factory=list)
    restarts: list[int] = field(default_factory=list)
    weights: tuple[Any, int] | None = None     # (object ref of the latest weights, version)
    events: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.actors = [self.start_worker(slot, 0) for slot in range(self.workers)]
        self.restarts = [0] * self.workers
        for slot, actor in enumerate(self.actors):
            self._wait_started(slot, actor)

    def _wait_started(self, slot: int, actor: Any) -> None:
        import ray

        ready, _ = ray.wait([actor.pid.remote()], timeout=self.start_timeout_s)
        try:
            if not ready:
                raise TimeoutError(f"not ready within training.actor_start_timeout_s={self.start_timeout_s:g}s")
            ray.get(ready[0])
        except (ray.exceptions.RayActorError, TimeoutError) as exc:
            raise RolloutWorkerError(f"rollout worker {slot} could not start: {exc}. If it never got its GPU, Ray "
                                     f"is still waiting for one: compare the run's device_plan.json with `ray status` "
                                     f"(a GPU another process holds, or fewer than the plan counted); otherwise check "
                                     f"the model path, free memory and the Ray worker logs") from None

    def submit(self, slot: int, prompts: list[Any], params: dict[str, Any], tag: Any = None,
               method: str = "generate") -> Request:
        request = Request(slot=slot, prompts=prompts, params=params, tag=tag, method=method)
        self._send(request)
        return request

    def _send(self, request: Request) -> None:
        request.actor = self.actors[request.slot]
        request.future = getattr(request.actor, request.method).remote(request.prompts, request.params)

    def collect(self, requests: list[Request]) -> list[list[dict[str, Any]]]:
        """Results of `requests`, in order; restarts dead or hung workers (once per slot) and resubmits."""
        import ray

        results: dict[int, list[dict[str, Any]]] = {}
        while len(results) < len(requests):
            waiting = {id(r.future): i for i, r in enumerate(requests) if i not in results}
            futures = [requests[i].future for i in waiting.values()]
            ready, _ = ray.wait(futures, num_returns=1, timeout=self.heartbeat_timeout_s)
            if not ready:
                hung = {requests[i].slot for i in waiting.values()}
                for slot in sorted(hung):
                    self._replace(slot, f"no result within heartbeat_timeout_s={self.heartbeat_timeout_s:g}s (hung)")
                for i in waiting.values():
                    self._send(requests[i])
                continue
            for future in ready:
                i = waiting[id(future)]
                try:
                    results[i] = ray.get(future)
                except ray.exceptions.RayActorError as exc:
                    request = requests[i]
                    if request.actor is self.actors[request.slot]:
                        self._replace(request.slot, f"actor died ({type(exc).__name__})")
                    self._send(request)
        return [results[i] for i in range(len(requests))]

    def _replace(self, slot: int, reason: str) -> None:
        import ray

        if self.restarts[slot] >= 1:
            raise RolloutWorkerError(
                f"rollout worker {slot} failed again after its one restart: {reason}. The run stops here; "
                f"resume it from the last checkpoint with `--resume RUN_DIR` once the cause (OOM, driver crash, "
                f"a hung engine) is fixed; see the Ray worker logs under the Ray session folder")
        ray.kill(self.actors[slot], no_restart=True)
        self.restarts[slot] += 1
        self.events.append(f"worker {slot} restarted: {reason}")
        actor = self.start_worker(slot, self.restarts[slot])
        self.actors[slot] = actor
        self._wait_started(slot, actor)
        if self.weights is not None:
            ref, version = self.weights
            self._check_versions([actor], [actor.load_weights.remote(ref, version)], version, allow_restart=False)

    def sync(self, weights_ref: Any, version: int) -> None:
        """Push weights to every worker and assert each now holds `version`; a worker dying here is restarted."""
        self.weights = (weights_ref, version)
        futures = [a.load_weights.remote(weights_ref, version) for a in self.actors]
        self._check_versions(list(self.actors), futures, version, allow_restart=True)

    def _check_versions(self, actors: list[Any], futures: list[Any], version: int, *, allow_restart: bool) -> None:
        import ray

        for slot_actor, future in zip(actors, futures):
            slot = self.actors.index(slot_actor)
            ready, _ = ray.wait([future], timeout=self.heartbeat_timeout_s)
            try:
                if not ready:
                    raise TimeoutError(f"weight load not done within heartbeat_timeout_s={self.heartbeat_timeout_s:g}s")
                held = ray.get(future)
            except (ray.exceptions.RayActorError, TimeoutError) as exc:
                if not allow_restart:
                    raise RolloutWorkerError(f"rollout worker {slot} failed while loading weights v{version}: {exc}")
                self._replace(slot, f"failed during weight sync ({type(exc).__name__})")  # loads weights itself
                continue
            if held != version:
                raise RolloutWorkerError(f"weight sync failed: rollout worker {slot} holds version {held}, the trainer "
                                         f"is at {version}. Rollouts would come from the wrong policy; stopping")

    def spot_check(self, trainer: Any, prompts: list[str], max_new_tokens: int, tolerance: float) -> float:
        """Greedy tokens from each worker rescored by the trainer; raise beyond `tolerance`; return the max gap."""
        import ray

        worst = 0.0
        params = {"max_new_tokens": max_new_tokens, "temperature": 0.0}
        for slot, actor in enumerate(self.actors):
            gens = ray.get(actor.generate.remote(prompts, params), timeout=self.heartbeat_timeout_s)
            expected = ray.get(trainer.score.remote([g["prompt_token_ids"] for g in gens],
                                                    [g["token_ids"] for g in gens]))
            gap = max((abs(a - b) for g, e in zip(gens, expected) for a, b in zip(g["logprobs"], e)), default=0.0)
            if gap > tolerance:
                raise RolloutWorkerError(
                    f"weight sync spot check failed: rollout worker {slot} log-probs differ from the trainer's by "
                    f"{gap:.3g} > training.sync_logprob_tolerance={tolerance:g}. The engine is not running the "
                    f"trainer's weights (wrong keys or dtype); stopping")
            worst = max(worst, gap)
        return worst

    def pids(self) -> list[int]:
        import ray

        return ray.get([a.pid.remote() for a in self.actors], timeout=self.heartbeat_timeout_s)
