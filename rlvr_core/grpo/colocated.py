"""Colocated mode: the trainer and the generator are one actor holding one copy of the weights.

On one device the split layout (a trainer actor, a rollout actor, weights
shipped between them through Ray's object store after every update) pays
for a second model copy, a state-dict copy per sync and two processes
competing for the same cores, and buys nothing: there is no second device
to generate on while the trainer steps. Here the generator samples from the
trainer's own `nn.Module` (as TRL's colocate mode and veRL's hybrid engine
do), so a "sync" is only the version check.

The driver (`driver_session.py`) is the same for both layouts: this actor answers
the trainer calls (`PolicyTrainer`) and the rollout-worker calls
(`generate`, `episodes`, `load_weights`, `version`, `pid`), and is the
rollout pool's only worker. Ray runs an actor's calls one at a time, in
order, so a generation submitted after `train_step` samples from the
updated weights, as the staleness rule in `driver.py` expects.

Reference log-probs ahead: after sampling rollouts (not greedy
evaluations), a thread of this actor computes the frozen reference's
log-probs of them while the driver verifies them and builds the batch; the
update then looks its rows up instead of running the reference (the driver
gives each data-parallel replica the groups it sampled). The reference never
changes, so a prepared value is the one the update would compute, up to the
float rounding of a different batch. `reference_prepared` in the trace counts
the rows served this way.

It cannot be restarted in place: a restart would lose the optimizer state,
so a failure stops the run, which resumes from its last checkpoint.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import numpy as np
import torch

from rlvr_core.grpo.rollout_serving import ServesRollouts
from rlvr_core.grpo.batch import pad_rows
from rlvr_core.grpo.trainer_actor import PolicyTrainer

log = logging.getLogger(__name__)
Row = tuple[bytes, bytes]  # (prompt ids, completion ids) as int64 bytes: a dictionary key


class ColocatedTrainer(PolicyTrainer, ServesRollouts):
    """A `PolicyTrainer` that also generates rollouts with its own policy (see the module docstring)."""

    def __init__(self, model_path: str, *, generation_batch_size: int, trust_remote_code: bool = False,
                 **trainer_options: Any) -> None:
        from rlvr_core.generation.hf import HFBackend

        super().__init__(model_path, **trainer_options)
        self.backend = HFBackend.sharing(self.model, model_path, seed=trainer_options.get("seed", 0),
                                         batch_size=generation_batch_size, trust_remote_code=trust_remote_code)
        self.references = (ReferenceAhead(self.reference_logprobs, self.seconds) if self.reference is not None
                           else None)

    def generate(self, prompts: list[str], params: dict[str, Any]) -> list[dict[str, Any]]:
        """Sample as any rollout worker; sampled rollouts (training's, not a greedy evaluation's) also start
        their reference log-probs in the background, and count in the next update's `trainer_seconds`."""
        started = time.perf_counter()
        gens = super().generate(prompts, params)
        if params.get("temperature", 1.0) > 0:
            self.seconds["decode"] += time.perf_counter() - started
            if self.references is not None:
                self.references.prepare([(g["prompt_token_ids"], g["token_ids"]) for g in gens])
        return gens

    def train_step(self, batch: dict[str, np.ndarray] | None, batch_tokens: float | None = None) -> dict[str, float]:
        metrics = super().train_step(batch, batch_tokens)
        if self.references is not None:
            self.references.forget_used()
        return metrics

    def _prepared_reference(self, t: dict[str, torch.Tensor], tail: int) -> torch.Tensor | None:
        return None if self.references is None else self.references.lookup(t, tail)

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


class SharedGpuTrainer(PolicyTrainer):
    """The trainer of the shared-gpu layout (`training.colocate: true` with vLLM): a separate actor on the GPU
    a sleeping vLLM engine shares. After each update it hands the memory PyTorch's allocator cached for the
    step's activations and logits back to the device, so the engine can wake into it; the driver never runs
    generation beside an update in this layout (`driver_session.py`)."""

    def train_step(self, batch: dict[str, np.ndarray] | None, batch_tokens: float | None = None) -> dict[str, float]:
        metrics = super().train_step(batch, batch_tokens)
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        return metrics

    def ready(self) -> int:
        """The driver waits for this before starting the engine: vLLM sizes its cache from the memory free
        when it starts, and must not measure while the trainer is still loading."""
        return self.version


class ReferenceAhead:
    """Reference log-probs of rollouts, computed in a thread as soon as they are sampled (see module docstring).

    `prepare` starts a batch; `lookup` waits for it and returns a micro-batch's [B, tail] log-probs when every
    row was prepared (else None: the caller computes them); `forget_used` drops every row prepared up to the
    last batch an update read from (rows of later, generated-ahead batches stay). A failed preparation is
    logged and its rows are simply missing. Each preparation's seconds are added to `seconds["reference_ahead"]`.
    """

    def __init__(self, compute: "Any", seconds: dict[str, float]) -> None:
        self.compute = compute                      # pad_rows arrays -> [B, K] tensor (PolicyTrainer method)
        self.seconds = seconds                      # the trainer's per-step profile
        self.rows: dict[Row, tuple[int, np.ndarray]] = {}   # row -> (batch number, log-probs of its completion)
        self.batches, self.used = 0, -1
        self._thread: threading.Thread | None = None

    def prepare(self, rows: list[tuple[list[int], list[int]]]) -> None:
        self._wait()
        self.batches += 1
        distinct = {_key(p, c): (p, c) for p, c in rows if c}  # samples of a prompt may repeat a completion
        if distinct:
            self._thread = threading.Thread(target=self._run, args=(distinct, self.batches), daemon=True,
                                            name="reference-ahead")
            self._thread.start()

    def _run(self, rows: dict[Row, tuple[list[int], list[int]]], number: int) -> None:
        started = time.perf_counter()
        try:
            logprobs = self.compute(pad_rows(list(rows.values()), pad_token_id=0)).cpu().numpy()
        except Exception:  # the update computes what is missing
            log.warning("reference log-probs ahead failed; the update computes them", exc_info=True)
            return
        finally:
            self.seconds["reference_ahead"] += time.perf_counter() - started
        for i, (key, (_, completion)) in enumerate(rows.items()):
            self.rows[key] = (number, logprobs[i, logprobs.shape[1] - len(completion):])

    def lookup(self, t: dict[str, torch.Tensor], tail: int) -> torch.Tensor | None:
        self._wait()
        ids, mask = t["input_ids"].cpu().numpy(), t["attention_mask"].cpu().numpy()
        starts = ids.shape[1] - mask.sum(axis=1)
        out = np.zeros((len(ids), tail), dtype=np.float32)
        found = []
        for i, (start, prompt) in enumerate(zip(starts.tolist(), t["prompt_lengths"].cpu().numpy().tolist())):
            row = self.rows.get(_key(ids[i, start:start + prompt], ids[i, start + prompt:]))
            if row is None:
                return None
            found.append(row[0])
            values = row[1][-tail:]
            out[i, tail - len(values):] = values
        self.used = max(self.used, *found)
        return torch.from_numpy(out).to(t["input_ids"].device)

    def forget_used(self) -> None:
        self._wait()
        self.rows = {key: row for key, row in self.rows.items() if row[0] > self.used}

    def _wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def _key(prompt: "list[int] | np.ndarray", completion: "list[int] | np.ndarray") -> Row:
    """A row's dictionary key, the same whether built from token lists or from a padded batch's int64 slices."""
    return np.asarray(prompt, dtype=np.int64).tobytes(), np.asarray(completion, dtype=np.int64).tobytes()
