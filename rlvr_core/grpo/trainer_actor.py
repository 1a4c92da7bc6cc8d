"""The policy trainer: plain PyTorch on CPU or one GPU; runs inside the trainer Ray actor.

Holds the policy, an optional frozen reference (for the KL penalty; a copy
of the starting weights kept on the trainer's device), AdamW and a
warm-up + cosine schedule. `train_step` takes the padded arrays built by
`batch.build_train_batch`, accumulates gradients over micro-batches
(`grad_accum_steps` equal splits, or packed to a `micro_batch_tokens` budget;
token weights were computed over the whole batch, so the sum of micro-batch
losses *is* the batch loss), clips and steps. Each micro-batch drops the left
padding its rows share and computes logits only for the trailing positions
that hold trained tokens. With `share_prompts` (and no gradient
checkpointing, which recomputes without a KV cache) each distinct prompt of
a micro-batch runs through the policy and the reference once, its G
completions on top of its cached keys/values (`shared_prompt.py`). Rows
repeated exactly (the same completion of the same prompt with the same
advantage, common once the policy is sure of an answer) run once, weighted by
their count (`batch.merge_identical_rows`: the same loss and gradient), and
rows whose every loss term is exactly 0 are not run at all
(`batch.rows_with_gradient`: without a KL term, every completion of a group
whose rewards are all equal). Each update reports where the actor's time
went since the last one (`trainer_seconds`, in the trace).

Old log-probs: the rollout engine's by default. With
`recompute_old_logprobs`, the trainer's own (free: one update per batch, so
the forward pass of the update is pi_old before the step), which makes the
PPO ratio exactly 1 on-policy whatever the engine's numerics; `tis_cap` then
weights each token by min(pi_old / pi_rollout, cap) (truncated importance
sampling), correcting for the engine's numerics and for stale samples.

Multi-GPU (FSDP) is deliberately not wired here: this project is tested on
CPU and one GPU only, and an untested FSDP path would be a stub. The trainer
refuses `training.trainer_gpus > 1` with that explanation (see `actors.py`).
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import torch

from rlvr_core.grpo.algo.common import ClipSettings, per_token_loss, truncated_is_weights
from rlvr_core.grpo.batch import merge_identical_rows, rows_with_gradient
from rlvr_core.grpo.prefix_tree import PrefixForest, prefer_prefix_tree, prefix_tree_logprobs
from rlvr_core.grpo.shared_prompt import shared_prompt_logprobs

if TYPE_CHECKING:
    from rlvr_core.grpo.weights import WeightPayload


def lr_lambda(warmup_steps: int, max_steps: int, schedule: str = "cosine"):
    """Linear warm-up to 1 over `warmup_steps`, then constant or cosine decay to 0 at `max_steps`."""
    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / (warmup_steps + 1)
        if schedule == "constant":
            return 1.0
        progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
    return factor


def token_logprobs(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                   position_ids: torch.Tensor, last: int | None = None) -> torch.Tensor:
    """Raw-model log pi(token_t | prefix) for t >= 1: [B, L] ids -> [B, L-1] (same convention as `generate`).

    `last=K` returns only the last K columns ([B, K]) and asks the model for only the logits it needs
    (`logits_to_keep`): completions sit at the end of left-padded rows, and the [B, L, V] float logits of
    the prompt positions would otherwise be the largest tensor of a step.
    """
    keep = {} if last is None else {"logits_to_keep": last + 1}
    logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                   **keep).logits                                                   # [B, L or K+1, V]
    logits = logits[:, :-1].float()                                                 # [B, L-1 or K, V]
    targets = input_ids[:, 1:].unsqueeze(-1) if last is None else input_ids[:, -last:].unsqueeze(-1)
    return logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def plan_micro_batches(batch: dict[str, np.ndarray], grad_accum_steps: int,
                       token_budget: int | None) -> list[tuple[np.ndarray, int, int]]:
    """(rows, first column, trained tail K) per micro-batch.

    Without a budget: `grad_accum_steps` equal splits, as before. With one: rows in order, packed greedily
    while rows x (padded length after trimming the columns every row of the micro-batch pads) stays within
    the budget; a row longer than the budget goes alone. The first column drops that shared left padding;
    K is how many trailing target columns hold trained tokens (the logits the step needs).
    """
    attention, completion = batch["attention_mask"], batch["completion_mask"]
    n, width = attention.shape
    starts = width - attention.sum(axis=1)            # left padding per row
    if token_budget is None:
        groups = [g for g in np.array_split(np.arange(n), min(grad_accum_steps, n)) if len(g)]
    else:
        groups, current = [], []
        for row in range(n):
            candidate = current + [row]
            length = width - int(starts[candidate].min())
            if current and len(candidate) * length > token_budget:
                groups.append(np.array(current))
                candidate = [row]
            current = candidate
        groups.append(np.array(current))
    plan = []
    for rows in groups:
        first = int(starts[rows].min())
        trained_cols = np.flatnonzero(completion[rows].any(axis=0))
        tail = width - 1 - int(trained_cols[0]) if len(trained_cols) else 1
        plan.append((rows, first, min(tail, width - 1 - first)))
    return plan


_INPUTS = ("input_ids", "attention_mask", "position_ids")


class PolicyTrainer:
    """One optimizer over one model; `version` counts optimizer updates since the starting weights."""

    # What each update reports in `trainer_seconds` (the trace's per-step profile of the actor): sampling the
    # step's rollouts (colocated only), reference log-probs in the update (computed, or waited for when they
    # were prepared ahead), the policy's forward and backward passes, the gradient all-reduce of data-parallel
    # replicas, clipping and AdamW; and `reference_ahead`, the background thread's preparation (colocated),
    # which overlaps the others rather than adding to them.
    STEP_PARTS = ("decode", "reference", "update", "gradient_sum", "optimizer", "reference_ahead")

    def __init__(self, model_path: str, *, reference_path: str | None, learning_rate: float, weight_decay: float,
                 warmup_steps: int, max_steps: int, lr_schedule: str, max_grad_norm: float,
                 grad_accum_steps: int, micro_batch_tokens: int | None = None, gradient_checkpointing: bool = False,
                 share_prompts: bool = True, attention: str | None = None, clip: ClipSettings, recompute_old_logprobs: bool = False, tis_cap: float | None = None,
                 device: str = "cpu", seed: int = 0, torch_threads: int | None = None) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if torch_threads:
            torch.set_num_threads(torch_threads)
        seed_everything(seed)
        self.device = torch.device("cuda" if device == "auto" and torch.cuda.is_available() else
                                   ("cpu" if device == "auto" else device))
        # Master weights in fp32 (AdamW on bf16 weights loses small updates); bf16 autocast on GPU.
        self.model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32).to(self.device)
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.reference = None
        if reference_path is not None and clip.kl_beta > 0:
            self.reference = AutoModelForCausalLM.from_pretrained(reference_path, dtype=torch.float32).to(self.device)
            self.reference.eval().requires_grad_(False)
            if attention is not None:
                self.reference.set_attn_implementation(attention)
        self.attention = attention
        self.clip = clip
        if tis_cap is not None and not recompute_old_logprobs:
            raise ValueError("tis_cap needs recompute_old_logprobs=True: the weights compare the trainer's "
                             "log-probs with the rollout engine's")
        self.recompute_old_logprobs, self.tis_cap = recompute_old_logprobs, tis_cap
        self.max_grad_norm = max_grad_norm
        self.grad_accum_steps = grad_accum_steps
        self.micro_batch_tokens = micro_batch_tokens
        self.share_prompts = share_prompts and not gradient_checkpointing
        if gradient_checkpointing:  # renamed in transformers 5 (the old name warns)
            enable = getattr(self.model, "activation_checkpointing_enable", None) or \
                self.model.gradient_checkpointing_enable
            enable()
            self.model.config.use_cache = False
        # The fused kernel (CPU and CUDA): one pass over each tensor instead of a kernel per operation and tensor.
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=learning_rate, weight_decay=weight_decay,
                                           fused=self.device.type in ("cpu", "cuda"))
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda(warmup_steps, max_steps, lr_schedule))
        self.version = 0
        self.seconds = dict.fromkeys(self.STEP_PARTS, 0.0)  # where time went since the last update's report
        self.replicas = 1          # > 1 once `join_replicas` has put this trainer in a data-parallel group
        self._rendezvous = None    # the first replica's store, kept alive while the group forms
        self._publisher = None     # commits checkpoints in a background thread (created on the first publish)

    def open_rendezvous(self) -> tuple[str, int]:
        """(host, port) where the other data-parallel replicas meet this one (called on the first replica)."""
        import ray

        from rlvr_core.grpo.data_parallel import open_rendezvous

        host = ray.util.get_node_ip_address()
        self._rendezvous, port = open_rendezvous(host)
        return host, port

    def join_replicas(self, host: str, port: int, rank: int, world_size: int) -> int:
        """Join the data-parallel group (see data_parallel.py); returns `rank` once every replica has joined."""
        from rlvr_core.grpo.data_parallel import join

        join(host, port, rank, world_size, store=self._rendezvous if rank == 0 else None)
        self.replicas = world_size
        return rank

    def pad_token_id(self) -> int:
        """The id batches are padded with: the tokenizer's pad token, else its end of sequence. The driver asks
        here instead of loading the tokenizer itself, which would import transformers (seconds of CPU) there."""
        tokenizer = self.tokenizer
        return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id

    def weights_checksum(self) -> tuple[float, float]:
        """See `data_parallel.weights_checksum`: the driver compares the replicas' after each update."""
        from rlvr_core.grpo.data_parallel import weights_checksum

        return weights_checksum(self.model)

    def _autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16) if self.device.type == "cuda" else contextlib.nullcontext()

    def train_step(self, batch: dict[str, np.ndarray] | None, batch_tokens: float | None = None) -> dict[str, float]:
        """One optimizer update on `batch` (None: nothing survived the filters; the version still advances
        so every step has a version, but no parameter moves). Returns scalar metrics, and `trainer_seconds`:
        where this update's time went (`STEP_PARTS`).

        Data parallel: `batch` is this replica's share of the step's batch (None for an empty share) and
        `batch_tokens` the whole batch's completion tokens; every replica given `batch_tokens` joins the
        gradient all-reduce and steps, and its metrics are its share of the whole batch's.
        """
        metrics = {"loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "grad_norm": 0.0,
                   "lr": self.scheduler.get_last_lr()[0], "trained_tokens": 0, "micro_batches": 0,
                   "reference_prepared": 0, "rows_merged": 0, "rows_skipped": 0}
        shares = self.replicas > 1 and batch_tokens is not None  # a share of a batch the replicas step on
        if batch is not None:
            metrics.update(self.accumulate_gradients(batch, batch_tokens))
        started = time.perf_counter()
        if shares:
            from rlvr_core.grpo.data_parallel import all_reduce_gradients

            all_reduce_gradients(self.model.parameters())
        summed = time.perf_counter()
        if batch is not None or shares:
            metrics["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm))
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.scheduler.step()
        self.seconds["gradient_sum"] += summed - started
        self.seconds["optimizer"] += time.perf_counter() - summed
        self.version += 1
        metrics["version"] = self.version  # checked by the driver (replicas.py), not traced
        if self.replicas > 1:
            metrics["weights_checksum"] = self.weights_checksum()
        metrics["trainer_seconds"] = self._take_seconds()
        return metrics

    def _take_seconds(self) -> dict[str, float]:
        """The seconds of each part since the last update's report; then zeroed."""
        taken = dict(self.seconds)
        self.seconds.update(dict.fromkeys(self.STEP_PARTS, 0.0))  # in place: a colocated thread adds to it too
        return taken

    def accumulate_gradients(self, batch: dict[str, np.ndarray], batch_tokens: float | None = None) -> dict[str, float]:
        """Backward of the whole batch's loss into `.grad`, one micro-batch at a time; returns loss metrics
        (per completion token of the batch, or of `batch_tokens` when `batch` is a share of a larger one).

        The gradients are the same whatever the micro-batching (up to float summation order): each
        micro-batch's loss is already weighted over the whole batch.
        """
        self.model.train()
        with self._training_attention():
            return self._accumulate(batch, batch_tokens)

    @contextlib.contextmanager
    def _training_attention(self):
        """The trainer's attention kernel for its own passes only: a colocated generator shares `self.model`
        and keeps the kernel it was loaded with (a switch is a config flag, about 1 us)."""
        loaded = self.model.config._attn_implementation
        if self.attention is None or self.attention == loaded:
            yield
            return
        self.model.set_attn_implementation(self.attention)
        try:
            yield
        finally:
            self.model.set_attn_implementation(loaded)

    def _accumulate(self, batch: dict[str, np.ndarray], batch_tokens: float | None) -> dict[str, float]:
        started, reference_seconds = time.perf_counter(), 0.0
        batch, copies = merge_identical_rows(batch)
        local = float(batch["completion_mask"].sum())
        tokens = local if batch_tokens is None else float(batch_tokens)
        metrics = {"loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "trained_tokens": int(local), "micro_batches": 0,
                   "reference_prepared": 0, "rows_merged": int(copies.sum()) - len(copies)}
        if self.recompute_old_logprobs:
            metrics.update(rollout_logprob_gap=0.0, **({} if self.tis_cap is None else {"tis_weight_mean": 0.0}))
        # Without a KL term (or recomputed log-probs, whose metrics read every row), zero-advantage rows add 0.
        merged_copies = int(copies.sum())
        batch, copies = rows_with_gradient(
            batch, copies, zero_advantage_counts=self.reference is not None or self.recompute_old_logprobs)
        metrics["rows_skipped"] = merged_copies - int(copies.sum())  # completions whose rows were not computed
        if not len(copies):  # the gradient of a loss of exact zeros: zeros, which AdamW still steps on
            for p in self.model.parameters():
                if p.requires_grad and p.grad is None:  # a backward of zeros would leave existing ones as they are
                    p.grad = torch.zeros_like(p)
            self.seconds["update"] += time.perf_counter() - started
            return metrics
        for rows, first, tail in plan_micro_batches(batch, self.grad_accum_steps, self.micro_batch_tokens):
            # Inputs lose the shared left padding; per-target arrays keep only the trained tail.
            t = {k: torch.from_numpy(v[rows][:, first:] if k in _INPUTS else
                                     v[rows][:, -tail:] if v.ndim == 2 else v[rows]).to(self.device)
                 for k, v in batch.items()}
            prompt_lengths = batch["prompt_lengths"][rows] if "prompt_lengths" in batch else None
            completion_logprobs = self._completion_pass(t, tail, prompt_lengths)
            with self._autocast():
                logprobs = completion_logprobs(self.model)
                ref = None
                if self.reference is not None:
                    reference_started = time.perf_counter()
                    ref = self._prepared_reference(t, tail)
                    if ref is None:
                        with torch.no_grad():
                            ref = completion_logprobs(self.reference)
                    else:
                        metrics["reference_prepared"] += int(copies[rows].sum())
                    reference_seconds += time.perf_counter() - reference_started
            mask = t["completion_mask"]
            old, weights = t["old_logprobs"], None
            if self.recompute_old_logprobs:  # pi_old under the trainer's numerics; no update has happened yet
                old = logprobs.detach()
                metrics["rollout_logprob_gap"] += float(((old - t["old_logprobs"]).abs() * mask).sum()) / tokens
                if self.tis_cap is not None:
                    weights = truncated_is_weights(old, t["old_logprobs"], self.tis_cap)
                    metrics["tis_weight_mean"] += float((weights * mask).sum()) / tokens
            tok_loss, stats = per_token_loss(logprobs, old, t["advantages"], ref, self.clip, weights)
            loss = (tok_loss * t["token_weights"]).sum()
            loss.backward()
            metrics["loss"] += loss.item()
            metrics["micro_batches"] += 1
            metrics["clip_fraction"] += float((stats["clipped"] * mask).sum()) / tokens
            if "kl" in stats:
                metrics["kl"] += float((stats["kl"] * mask).sum()) / tokens
        self.seconds["reference"] += reference_seconds
        self.seconds["update"] += time.perf_counter() - started - reference_seconds
        return metrics

    def _prepared_reference(self, t: dict[str, torch.Tensor], tail: int) -> torch.Tensor | None:
        """[B, tail] reference log-probs of a micro-batch computed before the update was asked for, or None
        (compute them now). The colocated trainer prepares its own rollouts' (colocated.py)."""
        return None

    def reference_logprobs(self, batch: dict[str, np.ndarray]) -> torch.Tensor:
        """[B, K] float32 reference log-probs of `batch.pad_rows` arrays, K the longest completion: row i's
        completion in its last columns, computed as a training step would (attention kernel, autocast)."""
        t = {k: torch.from_numpy(batch[k]).to(self.device) for k in _INPUTS}
        longest = int((batch["attention_mask"].sum(axis=1) - batch["prompt_lengths"]).max())
        with torch.no_grad(), self._autocast():
            return self._completion_pass(t, longest, batch["prompt_lengths"])(self.reference).float()

    def _completion_pass(self, t: dict[str, torch.Tensor], tail: int,
                         prompt_lengths: np.ndarray | None) -> Callable[[torch.nn.Module], torch.Tensor]:
        """model -> [B, tail] log-probs of a micro-batch. When the batch says where prompts end (and every row
        has one: an empty prompt has nothing to share): each group's prefix tree in one pass where that computes
        fewer tokens (`prefix_tree.py`), else each prompt and common completion start once (`shared_prompt.py`);
        otherwise full rows. All three give the full rows' values and gradients up to float rounding."""
        if not (self.share_prompts and prompt_lengths is not None and prompt_lengths.min() > 0):
            return lambda model: token_logprobs(model, t["input_ids"], t["attention_mask"], t["position_ids"],
                                                last=tail)
        forest = PrefixForest(t["input_ids"].cpu().numpy(), t["attention_mask"].cpu().numpy(), prompt_lengths)

        def completion_logprobs(model: torch.nn.Module) -> torch.Tensor:
            if prefer_prefix_tree(model, forest):
                return prefix_tree_logprobs(model, forest, tail, self.device)
            return shared_prompt_logprobs(model, t["input_ids"], t["attention_mask"], prompt_lengths, tail)
        return completion_logprobs

    def get_weights(self, dtype: str = "float32") -> "WeightPayload":
        """The current weights for the rollout engines, in its `dtype`, each tied tensor once (see weights.py);
        numpy arrays, so Ray's object store shares them without copying."""
        from rlvr_core.grpo.weights import pack_weights

        return pack_weights(self.model, getattr(torch, dtype))

    def score(self, prompts: list[list[int]], completions: list[list[int]]) -> list[list[float]]:
        """Raw-model log-probs of `completions` after `prompts`: the trainer side of the sync spot check."""
        from rlvr_core.generation.consistency import sequence_logprobs

        self.model.eval()
        return sequence_logprobs(self.model, prompts, completions, self.tokenizer.pad_token_id)

    def state(self) -> dict[str, Any]:
        """Everything beyond the weights that `resume` needs for an exact continuation."""
        return {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                "trainer_version": self.version, "rng": rng_state()}

    def load_state(self, state: dict[str, Any]) -> None:
        if "master_weights" in state:  # the checkpoint's folder holds bf16 weights; these are the exact fp32 ones
            self.model.load_state_dict(state["master_weights"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.version = int(state["trainer_version"])
        set_rng_state(state["rng"])

    def publish(self, checkpoints_dir: str, *, step: int, config_hash: str, driver_state: dict[str, Any],
                keep_last: int | None, weights_dtype: str = "float32", keep_optimizer: str = "all") -> str:
        """Write a checkpoint (HF folder in `weights_dtype` + training_state, with the fp32 master weights when the
        folder's are not fp32) via `rlvr_core.rundir.checkpoints`, and commit it in the background; returns the path
        it will have. `published()` gives the infos of finished commits."""
        from rlvr_core.rundir.checkpoints import BackgroundPublisher, cpu_state, write_checkpoint

        dtype = getattr(torch, weights_dtype)
        state = {**self.state(), "driver": driver_state}
        if dtype != torch.float32:
            state["master_weights"] = cpu_state(self.model.state_dict())
        pending = write_checkpoint(self.model, self.tokenizer, Path(checkpoints_dir), step=step,
                                   trainer_version=self.version, config_hash=config_hash, training_state=state,
                                   keep_last=keep_last, keep_optimizer=keep_optimizer, weights_dtype=dtype)
        self._publisher = self._publisher or BackgroundPublisher()
        self._publisher.submit(pending)
        return str(pending.final)

    def published(self, wait: bool = False) -> list[dict[str, Any]]:
        """Infos of the checkpoints committed since the last call (with `wait`: all submitted ones)."""
        from dataclasses import asdict

        return [asdict(info) for info in self._publisher.finished(wait)] if self._publisher is not None else []

    def parameter_snapshot(self) -> dict[str, np.ndarray]:
        """Trainable parameters only (tied weights once), for tests that check every parameter moved."""
        return {k: p.detach().cpu().numpy().copy() for k, p in self.model.named_parameters() if p.requires_grad}


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
