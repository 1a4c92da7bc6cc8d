"""`train()`, in the driver process: the GRPO loop over the trainer actor, rollout workers and the verifier pool.

One step: take the batch generated ahead (or generate it now) -> verify in
the process pool -> drop groups older than `max_staleness` (their prompts are
re-queued) -> filters, advantages, padding -> trainer update, while the
rollout workers already generate the next batches that the staleness bound
allows -> weight sync (verified) -> held-out eval, trace, checkpoint.

Generating ahead: a batch for step t, submitted while the workers hold
version v_r, is trained at trainer version t-1; it is submitted only if
(t-1) - v_r <= max_staleness. So `max_staleness: 0` is strictly on-policy
and each extra unit lets generation run one more step ahead. Colocated, the
generators are the trainers and run their calls in order, so v_r counts the
update in flight: at `max_staleness: 0` the next step's generation is queued
right behind the update. The staleness filter checks the version each sample
actually came from regardless.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from rlvr_core.grpo.result import TrainResult

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

CheckpointHook = Callable[[dict[str, Any]], None]
StepHook = Callable[[dict[str, Any]], None]


def train(config: "ExperimentConfig", run_dir: Path | None = None, hooks: Iterable[CheckpointHook] = (), *,
          resume: bool = False, step_hooks: Iterable[StepHook] = ()) -> TrainResult:
    """Run GRPO as `config` says; write the run folder; return where everything went.

    `run_dir`: a new folder is made under `run.runs_dir` when None; an existing
    folder without checkpoints is started in afresh (its trace emptied). With
    `resume=True`, `run_dir` must be a run folder: training continues from its
    newest checkpoint (weights, optimizer, scheduler, RNG, data position,
    version) after the trace is cut back to that step, or restarts from step 0
    when it has none yet (`TrainResult.events` says which). `hooks` get the
    checkpoint event dict after each publish; `step_hooks` get each step's
    trace record. Raises `ResumeError` or `CorruptJsonlError` (naming the file
    and line) for a run folder that cannot be continued.
    """
    from rlvr_core.grpo.driver_session import Session

    with Session(config, run_dir, resume=resume) as session:
        return session.run(list(hooks), list(step_hooks))
