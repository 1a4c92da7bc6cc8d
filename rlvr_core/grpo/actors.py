"""The Ray actors: the trainer (a `PolicyTrainer`) and rollout workers (each one `GenerationBackend`).

Placement follows the run's device plan (`rlvr_core.devices`): on CPU every
actor asks for `training.actor_cpus` (fractional, so a 2-core machine fits a
trainer and a rollout worker); on GPUs the trainer and each rollout worker
ask for the plan's share of one GPU (1, or 0.5 each when they share one),
pinned to the plan's node when Ray spans several. Actors are never restarted
by Ray itself (`max_restarts=0`): the driver's `RolloutPool` decides, so a
restart is counted and bounded.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from rlvr_core.grpo.rollout_serving import ServesRollouts

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig
    from rlvr_core.devices import Device, DevicePlan
    from rlvr_core.grpo.replicas import TrainerReplicas
    from rlvr_core.grpo.weights import WeightPayload


class RolloutWorker(ServesRollouts):
    """One generation engine behind a Ray actor. With `sleeps` (the shared-gpu layout) the engine is awake only
    inside a call: it generates or takes weights, then sleeps, so the trainer has the GPU while it steps."""

    def __init__(self, backend: str, model_path: str, *, device: str, dtype: str, seed: int,
                 torch_threads: int | None, options: dict[str, Any], sleeps: bool = False) -> None:
        import torch

        from rlvr_core.generation import create_backend

        if torch_threads:
            torch.set_num_threads(torch_threads)
        self.backend = create_backend(backend, model_path, device=device, dtype=dtype, seed=seed, **options)
        self.sleeps = sleeps
        if sleeps:
            self.backend.sleep()

    @contextlib.contextmanager
    def _awake(self):
        self.backend.wake_up()
        try:
            yield
        finally:
            self.backend.sleep()

    def _generation_context(self) -> contextlib.AbstractContextManager:
        return self._awake() if self.sleeps else contextlib.nullcontext()

    def load_weights(self, weights: "WeightPayload", version: int) -> int:
        """Take the trainer's weights in place; return the version now held (the driver asserts it).

        The arrays are read-only views of Ray's shared object store (zero-copy);
        the backend copies them into its own parameters.
        """
        with self._generation_context():
            self.backend.load_weights(weights.tensors(), version)
        return self.backend.weight_version

    def asleep(self) -> bool:
        """Whether the engine has released the GPU (always False without sleep mode)."""
        return bool(getattr(self.backend, "asleep", False))

    def version(self) -> int:
        return self.backend.weight_version


def actor_options(config: "ExperimentConfig", plan: "DevicePlan", device: "Device | None") -> dict[str, Any]:
    """Ray options of a training actor on `device` of `plan` (see the module docstring)."""
    if device is None:
        return {"num_cpus": config.training.actor_cpus, "num_gpus": 0}
    options: dict[str, Any] = {"num_cpus": 1, "num_gpus": plan.training_gpu_share}
    node_id = plan.node_id(device)
    if node_id is not None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
    return options


def trainer_options(config: "ExperimentConfig", reference_path: str | None) -> dict[str, Any]:
    """`PolicyTrainer` keyword arguments for `config` (the trainer actor's, and the GPU checklist's)."""
    from rlvr_core.grpo.algo.common import ClipSettings

    t, g = config.training, config.grpo
    return dict(
        reference_path=reference_path, learning_rate=t.learning_rate, weight_decay=t.weight_decay,
        warmup_steps=t.warmup_steps, max_steps=t.max_steps, lr_schedule=t.lr_schedule,
        max_grad_norm=t.max_grad_norm,
        grad_accum_steps=t.grad_accum_steps, micro_batch_tokens=t.micro_batch_tokens,
        gradient_checkpointing=t.gradient_checkpointing, share_prompts=t.share_prompts,
        attention=t.trainer_attention,
        clip=ClipSettings(eps_low=g.clip_eps_low, eps_high=g.clip_eps_high, kl_beta=g.kl_beta),
        recompute_old_logprobs=g.recompute_old_logprobs, tis_cap=g.tis_cap,
        device=t.device, seed=config.run.seed, torch_threads=t.torch_threads)


def start_trainer(config: "ExperimentConfig", plan: "DevicePlan", model_path: str,
                  reference_path: str) -> "TrainerReplicas":
    """Create the trainer actor on the plan's trainer device (policy from `model_path`, frozen reference from
    `reference_path`); with `training.colocate` (hf) it is a `ColocatedTrainer`, which also serves as the
    only rollout worker, and with `training.data_parallel: N` there are N of them, each a rollout worker,
    joined in one gradient group. On a shared GPU it is a `SharedGpuTrainer`, which hands the GPU's cached
    memory back after each update for the sleeping engine to wake into."""
    import ray

    from rlvr_core.grpo.colocated import ColocatedTrainer, SharedGpuTrainer
    from rlvr_core.grpo.replicas import start_replicas
    from rlvr_core.grpo.trainer_actor import PolicyTrainer

    t = config.training
    options = trainer_options(config, reference_path)
    cls: type = SharedGpuTrainer if t.shares_gpu else PolicyTrainer
    if t.colocated:
        cls = ColocatedTrainer
        options.update(generation_batch_size=t.generation_batch_size,
                       trust_remote_code=config.model.trust_remote_code)
    actor_class = ray.remote(max_restarts=0, **actor_options(config, plan, plan.trainer))(cls)
    return start_replicas(actor_class, t.data_parallel, config.sampling.group_size, model_path, **options)


def rollout_actor_name(run_name: str, slot: int, incarnation: int) -> str:
    """Rollout actors are named, so an operator (or a test) can find one with `ray.get_actor(name)`."""
    return f"rlvr-rollout-{run_name}-{slot}-{incarnation}"


def rollout_factory(config: "ExperimentConfig", plan: "DevicePlan", model_path: str, run_name: str,
                    trainers: "TrainerReplicas | None" = None):
    """A function (slot, incarnation) -> new rollout actor on the plan's device for `slot`; the pool calls it to
    start and to restart workers. On a shared GPU the engine takes the plan's memory share and sleeps between
    calls.

    Colocated (`trainers` given): replica `slot` is worker `slot`, and it has no restart (see colocated.py).
    """
    import ray

    from rlvr_core.grpo.rollouts import RolloutWorkerError

    if config.training.colocated:
        def colocated(slot: int, incarnation: int):
            if incarnation:
                raise RolloutWorkerError("the colocated trainer cannot be restarted without losing its optimizer "
                                         "state; resume the run from its last checkpoint (--resume RUN_DIR)")
            return trainers.actors[slot]
        return colocated

    t = config.training
    options: dict[str, Any] = {"batch_size": t.generation_batch_size} if t.generation_backend == "hf" else {}
    if config.model.trust_remote_code:
        options["trust_remote_code"] = True
    if t.shares_gpu:  # on the CPU too: there vLLM's sleep only pauses the engine, but the calls are the same
        options["sleep_mode"] = True
    if plan.engine_memory_utilization is not None:
        options["gpu_memory_utilization"] = plan.engine_memory_utilization
    remote_cls = ray.remote(max_restarts=0)(RolloutWorker)

    def start(slot: int, incarnation: int):
        device = plan.generators[slot] if plan.generators else None
        return remote_cls.options(name=rollout_actor_name(run_name, slot, incarnation),
                                  **actor_options(config, plan, device)).remote(
            t.generation_backend, model_path, device=t.device, dtype=config.model.dtype,
            seed=config.run.seed * 1009 + slot + 101 * incarnation, torch_threads=t.torch_threads, options=options,
            sleeps=t.shares_gpu)
    return start
