"""Evaluations beside training (`tasks/checkpoint_evals.py`): as many at once as there are slots, their task
runs the flow run's own, and a failed one reported, never raised."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from prefect import flow, task

from tasks.checkpoint_evals import BACKGROUND_NICE, ConcurrentEvals, eval_cpu_threads, eval_slots, training_gpus

BARRIER_TIMEOUT_S = 60


def _evaluations(slots: int, labels: list[str]):
    """A flow that submits one evaluation task per label; each waits at a barrier of len(labels) parties, so
    they only all finish if they ran at the same time."""
    barrier = threading.Barrier(len(labels), timeout=BARRIER_TIMEOUT_S)

    @task(name="evaluate-at-barrier")
    def evaluate(label: str) -> tuple[str, str | None]:
        from prefect.runtime import flow_run, task_run

        barrier.wait()
        return flow_run.id, task_run.id

    @flow(name="evals-parent")
    def parent() -> tuple[dict, list, str]:
        from prefect.runtime import flow_run

        with ConcurrentEvals(lambda label: evaluate(label), slots) as evals:
            for label in labels:
                evals.submit(label)
            return (*evals.wait(), flow_run.id)
    return parent


def test_evaluations_run_side_by_side_as_task_runs_of_the_flow_run(prefect_harness: str) -> None:
    runs, failed, parent_id = _evaluations(2, ["step-000050", "base"])()
    assert set(runs) == {"step-000050", "base"} and failed == []
    assert [flow_run for flow_run, _ in runs.values()] == [parent_id, parent_id]
    assert all(task_run is not None for _, task_run in runs.values()), "each evaluation is a task run"


def test_a_failed_evaluation_is_reported_and_the_others_complete(prefect_harness: str) -> None:
    def evaluate(label: str, model: str) -> str:
        if label.startswith("bad"):
            raise ValueError(f"{model} cannot be evaluated")
        return model

    @flow(name="evals-parent-alone")
    def parent() -> tuple[dict, list]:
        with ConcurrentEvals(evaluate, 1) as evals:
            for label in ("bad-step", "step-000050", "step-000090"):
                evals.submit(label, f"checkpoints/{label}")
            return evals.wait()

    summaries, failed = parent()
    assert failed == ["bad-step"]
    assert summaries == {"step-000050": "checkpoints/step-000050", "step-000090": "checkpoints/step-000090"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_evaluations_run_at_background_priority_and_leave_the_flow_runs_own_alone(prefect_harness: str) -> None:
    def priority(*_: object) -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    @flow(name="evals-parent-nice")
    def parent() -> tuple[dict, int]:
        with ConcurrentEvals(priority, 1) as evals:
            evals.submit("base")
            return evals.wait()[0], priority()

    before = priority()
    evaluations, own = parent()
    assert evaluations == {"base": max(BACKGROUND_NICE, before)} and own == before


@pytest.mark.parametrize("usable,training,ray,slots", [
    (0, 0, False, 1),       # CPU: one at a time
    (8, 2, False, 6),       # a split run holds 2 of 8 GPUs
    (2, 2, False, 1),       # nothing spare: still one (it waits for a GPU in placement)
    (8, 2, True, 1),        # Ray spreads each evaluation's benchmarks itself
])
def test_slots_are_the_devices_training_leaves_free(monkeypatch, usable, training, ray, slots) -> None:
    if ray:
        monkeypatch.setenv("RLVR_RAY_ADDRESS", "auto")
    else:
        monkeypatch.delenv("RLVR_RAY_ADDRESS", raising=False)
    assert eval_slots(usable, training) == slots


def test_a_run_holds_its_trainer_and_each_rollout_gpu_unless_colocated() -> None:
    from rlvr_core.config import load_config

    assert training_gpus(load_config("tiny-arith")) == 0
    assert training_gpus(load_config("gsm8k")) == 2
    assert training_gpus(load_config("gsm8k", ["training.generation_backend=hf"])) == 1


@pytest.mark.parametrize("cores,overrides,usable_gpus,threads", [
    (2, [], 0, 1),                                            # the demo: two single-threaded replicas fill 2 cores
    (16, [], 0, 14),                                          # a bigger CPU box: the rest of the cores
    (16, ["training.data_parallel=1", "training.torch_threads=4"], 0, 12),
    (2, ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=false"], 0, 1),
    (16, ["training.device=auto", "training.data_parallel=1"], 1, None),  # training on the GPU: torch's default
])
def test_an_evaluation_beside_cpu_training_takes_the_cores_training_leaves(monkeypatch, cores, overrides,
                                                                          usable_gpus, threads) -> None:
    from rlvr_core.config import load_config

    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert eval_cpu_threads(load_config("tiny-arith", overrides), usable_gpus) == threads
