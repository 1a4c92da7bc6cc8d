"""The Ray actors: the trainer (a `PolicyTrainer`) and rollout workers (each one `GenerationBackend`).

Placement: on CPU every actor asks for `training.actor_cpus` (fractional, so
a 2-core machine fits a trainer and a rollout worker); on CUDA the trainer
and each rollout worker ask for one GPU. Actors are never restarted by Ray
itself (`max_restarts=0`): the driver's `RolloutPool` decides, so a restart
is counted and bounded.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig
    from rlvr_core.grpo.replicas import TrainerReplicas
    from rlvr_core.grpo.weights import WeightPayload


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


class RolloutWorker(ServesRollouts):
    """One generation engine behind a Ray actor."""

    def __init__(self, backend: str, model_path: str, *, device: str, dtype: str, seed: int,
                 torch_threads: int | None, options: dict[str, Any]) -> None:
        import torch

        from rlvr_core.generation import create_backend

        if torch_threads:
            torch.set_num_threads(torch_threads)
        self.backend = create_backend(backend, model_path, device=device, dtype=dtype, seed=seed, **options)

    def load_weights(self, weights: "WeightPayload", version: int) -> int:
        """Take the trainer's weights in place; return the version now held (the driver asserts it).

        The arrays are read-only views of Ray's shared object store (zero-copy);
        the backend copies them into its own parameters.
        """
        self.backend.load_weights(weights.tensors(), version)
        return self.backend.weight_version

    def version(self) -> int:
        return self.backend.weight_version


def actor_resources(config: "ExperimentConfig") -> dict[str, float]:
    """`num_cpus`/`num_gpus` for one actor under `config` (see module docstring)."""
    import torch

    device = config.training.device
    on_gpu = device == "cuda" or (device == "auto" and torch.cuda.is_available())
    if on_gpu:
        return {"num_cpus": 1, "num_gpus": config.training.trainer_gpus}
    return {"num_cpus": config.training.actor_cpus, "num_gpus": 0}


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


def start_trainer(config: "ExperimentConfig", model_path: str, reference_path: str) -> "TrainerReplicas":
    """Create the trainer actor (policy from `model_path`, frozen reference from `reference_path`); with
    `training.colocate` it is a `ColocatedTrainer`, which also serves as the only rollout worker, and with
    `training.data_parallel: N` there are N of them, each a rollout worker, joined in one gradient group."""
    import ray

    from rlvr_core.grpo.colocated import ColocatedTrainer
    from rlvr_core.grpo.replicas import start_replicas
    from rlvr_core.grpo.trainer import PolicyTrainer

    t = config.training
    resources = actor_resources(config)
    if t.data_parallel > 1 and resources["num_gpus"]:
        raise ValueError(f"training.data_parallel={t.data_parallel} runs on CPU only, but device={t.device!r} "
                         f"found a GPU. Fix: set training.device: cpu, or training.data_parallel: 1")
    options = trainer_options(config, reference_path)
    cls: type = PolicyTrainer
    if t.colocated:
        cls = ColocatedTrainer
        options.update(generation_batch_size=t.generation_batch_size,
                       trust_remote_code=config.model.trust_remote_code)
    actor_class = ray.remote(max_restarts=0, **resources)(cls)
    return start_replicas(actor_class, t.data_parallel, config.sampling.group_size, model_path, **options)


def rollout_actor_name(run_name: str, slot: int, incarnation: int) -> str:
    """Rollout actors are named, so an operator (or a test) can find one with `ray.get_actor(name)`."""
    return f"rlvr-rollout-{run_name}-{slot}-{incarnation}"


def rollout_factory(config: "ExperimentConfig", model_path: str, run_name: str,
                    trainers: "TrainerReplicas | None" = None):
    """A function (slot, incarnation) -> new rollout actor; the pool calls it to start and to restart workers.

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
    remote_cls = ray.remote(max_restarts=0, **actor_resources(config))(RolloutWorker)

    def start(slot: int, incarnation: int):
        return remote_cls.options(name=rollout_actor_name(run_name, slot, incarnation)).remote(
            t.generation_backend, model_path, device=t.device, dtype=config.model.dtype,
            seed=config.run.seed * 1009 + slot + 101 * incarnation, torch_threads=t.torch_threads, options=options)
    return start
