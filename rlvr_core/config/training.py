"""Config sections for GRPO training: sampling, objective, schedule, checkpoints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from rlvr_core.config.sections import Section


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


class TrainingConfig(Section):
    """Optimisation schedule, placement and off-policy bound."""

    max_steps: int = Field(100, ge=1, description="Optimizer steps to run.")
    learning_rate: float = Field(1e-6, gt=0, le=1e-2, description="Peak AdamW learning rate.")
    warmup_steps: int = Field(0, ge=0, description="Linear warm-up steps before the decay.")
    lr_schedule: Literal["cosine", "constant"] = Field(
        "cosine", description="After warm-up: cosine decay to 0 at max_steps, or constant (short runs bound by steps).")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    max_grad_norm: float = Field(1.0, gt=0, description="Gradient clipping norm.")
    grad_accum_steps: int = Field(1, ge=1, description="Micro-batches accumulated per optimizer step.")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="Trainer device; `auto` picks cuda when present.")
    generation_backend: Literal["hf", "vllm"] = Field("hf", description="Rollout engine: transformers (CPU/GPU) or vLLM (GPU).")
    rollout_workers: int = Field(1, ge=1, description="Rollout actors generating in parallel.")
    sync_every: int = Field(1, ge=1, description="Push trainer weights to rollout workers every N optimizer steps.")
    max_staleness: int = Field(0, ge=0, description="Never train on samples from weights older than trainer_version - max_staleness (0: on-policy).")
    verify_sync_logprobs: bool = Field(False, description="After each sync, compare trainer and rollout log-probs on fixed tokens.")
    heartbeat_timeout_s: float = Field(300.0, gt=0, description="A rollout worker silent this long is declared hung and restarted once.")
    actor_start_timeout_s: float = Field(
        600.0, gt=0, description="Time a new rollout actor may take to start (import torch, load the model).")
    sync_logprob_tolerance: float = Field(
        1e-3, gt=0, le=1.0,
        description="Largest |trainer - rollout| log-prob allowed by the sync spot check (fp32 ~1e-6; bf16 needs ~5e-2).")
    trainer_gpus: int = Field(
        1, ge=1, le=1,
        description="GPUs for the trainer actor on CUDA. Only 1 is supported: multi-GPU FSDP is not implemented (untestable here).")
    ray_address: str | None = Field(
        None, description="Existing Ray cluster to join (`auto` or `host:port`); None: env RAY_ADDRESS, else a local cluster.")
    ray_num_cpus: int | None = Field(None, ge=1, le=1024, description="CPUs of the local Ray cluster (None: all cores).")
    actor_cpus: float = Field(0.5, gt=0, le=64, description="Ray `num_cpus` of the trainer and of each rollout actor.")
    torch_threads: int | None = Field(
        None, ge=1, le=256, description="torch intra-op threads in each actor (None: Ray's default for the actor).")
    generation_batch_size: int = Field(256, ge=1, le=8192, description="Sequences per generate call in the hf backend.")
    verifier_workers: int = Field(1, ge=1, le=64, description="Processes in the reward-verification pool.")
    verifier_timeout_s: float = Field(10.0, gt=0, le=600, description="Per-completion verification timeout.")
    eval_every: int = Field(
        10, ge=0, description="Measure held-out greedy accuracy every N steps (also at step 0 and at the end); 0: never.")
    eval_dataset: str | None = Field(
        None, description="Dataset for the held-out accuracy (None: the first `data.train` dataset).")
    eval_split: str = Field("test", description="Split of `eval_dataset` used as the held-out set.")
    eval_problems: int = Field(200, ge=1, le=20000, description="Held-out problems per measurement (the split's first N).")
    samples_per_step: int = Field(4, ge=0, le=1000, description="Prompt/completion/reward examples written to samples.jsonl per step.")
    plot_every: int = Field(10, ge=1, description="Redraw reward_curve.png every N steps (and at the end).")

    @model_validator(mode="after")
    def validate_staleness_covers_sync(self) -> "TrainingConfig":
        """Weights only change every `sync_every` steps, so samples are up to
        `sync_every - 1` versions old by construction; a smaller bound would
        discard every batch."""
        if self.max_staleness < self.sync_every - 1:
            raise ValueError(
                f"max_staleness={self.max_staleness} is below sync_every - 1 = {self.sync_every - 1}: "
                f"rollouts between syncs would all be discarded. Set training.max_staleness >= {self.sync_every - 1} "
                f"or lower training.sync_every to {self.max_staleness + 1}")
        return self


class CheckpointConfig(Section):
    """When checkpoints are published and how many are kept."""

    every_steps: int = Field(50, ge=1, description="Publish a checkpoint every N optimizer steps (and at the end).")
    keep_last: int | None = Field(None, ge=1, description="Keep only the newest K checkpoints (None keeps all).")
