"""The policy trainer: plain PyTorch on CPU or one GPU; runs inside the trainer Ray actor.

Holds the policy, an optional frozen reference (for the KL penalty; a copy
of the starting weights kept on the trainer's device), AdamW and a
warm-up + cosine schedule. `train_step` takes the padded arrays built by
`batch.build_train_batch`, accumulates gradients over `grad_accum_steps`
micro-batches (token weights were computed over the whole batch, so the sum
of micro-batch losses *is* the batch loss), clips and steps.

Multi-GPU (FSDP) is deliberately not wired here: this project is tested on
CPU and one GPU only, and an untested FSDP path would be a stub. The trainer
refuses `training.trainer_gpus > 1` with that explanation (see `actors.py`).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rlvr_core.grpo.algo.common import ClipSettings, per_token_loss


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
                   position_ids: torch.Tensor) -> torch.Tensor:
    """Raw-model log pi(token_t | prefix) for t >= 1: [B, L] ids -> [B, L-1] (same convention as `generate`)."""
    logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids).logits  # [B, L, V]
    logits = logits[:, :-1].float()                                                                       # [B, L-1, V]
    targets = input_ids[:, 1:].unsqueeze(-1)                                                              # [B, L-1, 1]
    return logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)                       # [B, L-1]


class PolicyTrainer:
    """One optimizer over one model; `version` counts optimizer updates since the starting weights."""

    def __init__(self, model_path: str, *, reference_path: str | None, learning_rate: float, weight_decay: float,
                 warmup_steps: int, max_steps: int, lr_schedule: str, max_grad_norm: float,
                 grad_accum_steps: int,
                 clip: ClipSettings, device: str = "cpu", seed: int = 0, torch_threads: int | None = None) -> None:
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
        self.clip = clip
        self.max_grad_norm = max_grad_norm
        self.grad_accum_steps = grad_accum_steps
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=learning_rate, weight_decay=weight_decay)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda(warmup_steps, max_steps, lr_schedule))
        self.version = 0

    def _autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16) if self.device.type == "cuda" else _null_context()

    def train_step(self, batch: dict[str, np.ndarray] | None) -> dict[str, float]:
        """One optimizer update on `batch` (None: nothing survived the filters; the version still advances
        so every step has a version, but no parameter moves). Returns scalar metrics."""
        self.model.train()
        metrics = {"loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "grad_norm": 0.0,
                   "lr": self.scheduler.get_last_lr()[0], "trained_tokens": 0}
        if batch is not None:
            tokens = float(batch["completion_mask"].sum())
            rows = np.array_split(np.arange(len(batch["advantages"])), min(self.grad_accum_steps,
                                                                          len(batch["advantages"])))
            for idx in rows:
                t = {k: torch.from_numpy(v[idx]).to(self.device) for k, v in batch.items()}
                with self._autocast():
                    logprobs = token_logprobs(self.model, t["input_ids"], t["attention_mask"], t["position_ids"])
                    ref = None
                    if self.reference is not None:
                        with torch.no_grad():
                            ref = token_logprobs(self.reference, t["input_ids"], t["attention_mask"],
                                                 t["position_ids"])
                tok_loss, stats = per_token_loss(logprobs, t["old_logprobs"], t["advantages"], ref, self.clip)
                loss = (tok_loss * t["token_weights"]).sum()
                loss.backward()
                mask = t["completion_mask"]
                metrics["loss"] += loss.item()
                metrics["clip_fraction"] += float((stats["clipped"] * mask).sum()) / tokens
                if "kl" in stats:
                    metrics["kl"] += float((stats["kl"] * mask).sum()) / tokens
            metrics["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm))
            metrics["trained_tokens"] = int(tokens)
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.scheduler.step()
        self.version += 1
        return metrics

    def get_weights(self) -> dict[str, np.ndarray]:
        """The current weights as numpy arrays (zero-copy through Ray's object store), keyed like state_dict."""
        return {k: v.detach().to("cpu", torch.float32).numpy() for k, v in self.model.state_dict().items()}

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
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.version = int(state["trainer_version"])
        set_rng_state(state["rng"])

    def publish(self, checkpoints_dir: str, *, step: int, config_hash: str, driver_state: dict[str, Any],
                keep_last: int | None) -> dict[str, Any]:
        """Publish a checkpoint (HF folder + training_state) via `rlvr_core.checkpoints`; return its info."""
        from dataclasses import asdict

        from rlvr_core.checkpoints import publish_checkpoint

        info = publish_checkpoint(self.model, self.tokenizer, Path(checkpoints_dir), step=step,
                                  trainer_version=self.version, config_hash=config_hash,
                                  training_state={**self.state(), "driver": driver_state}, keep_last=keep_last)
        return asdict(info)

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


class _null_context:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
