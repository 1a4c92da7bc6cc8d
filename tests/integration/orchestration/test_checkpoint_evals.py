"""Evaluations beside training (`orchestration/checkpoint_evals.py`): as many at once as the device plan gives them
devices, their task runs the flow run's own, a failed one reported, never raised, and one without a device
waiting (and saying so) until training ends."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from prefect import flow, task

from orchestration.checkpoint_evals import BACKGROUND_NICE, ConcurrentEvals, eval_cpu_threads
from rlvr_core.config import load_config
from rlvr_core.devices import DeviceQueue, plan_devices, topology

BARRIER_TIMEOUT_S = 60


def devices(config: str, gpus: list[int]) -> DeviceQueue:
    """The queue of a run of `config` on nodes with `gpus` GPUs each (a simulated topology: no GPU here)."""
    return DeviceQueue(plan_devices(load_config(config), topology.given(gpus)))


def _evaluations(queue: DeviceQueue, labels: list[str]):
    """A flow that submits one evaluation task per label; each waits at a barrier of len(labels) parties, so
    they only all finish if they ran at the same time."""
    barrier = threading.Barrier(len(labels), timeout=BARRIER_TIMEOUT_S)

    @task(name="evaluate-at-barrier")
    def evaluate(label: str, device: dict) -> tuple[str, str | None, int]:
        from prefect.runtime import flow_run, task_run

        barrier.wait()
        return flow_run.id, task_run.id, device["gpu"]

    @flow(name="evals-parent")
    def parent() -> tuple[dict, list, str]:
        from prefect.runtime import flow_run

        with ConcurrentEvals(lambda label, device: evaluate(label, device), queue) as evals:
            for label in labels:
                evals.submit(label)
            return (*evals.wait(), flow_run.id)
    return parent


def test_evaluations_run_side_by_side_on_the_plans_gpus_as_task_runs_of_the_flow_run(prefect_harness: str) -> None:
    runs, failed, parent_id = _evaluations(devices("tiny-arith", [2]), ["step-000050", "base"])()  # CPU training
    assert set(runs) == {"step-000050", "base"} and failed == []
    assert [flow_run for flow_run, _, _ in runs.values()] == [parent_id, parent_id]
    assert all(task_run is not None for _, task_run, _ in runs.values()), "each evaluation is a task run"
    assert sorted(gpu for _, _, gpu in runs.values()) == [0, 1], "each on its own GPU"


def test_a_failed_evaluation_is_reported_and_the_others_complete(prefect_harness: str) -> None:
    def evaluate(label: str, model: str, device: None) -> str:
        if label.startswith("bad"):
            raise ValueError(f"{model} cannot be evaluated")
        return model

    @flow(name="evals-parent-alone")
    def parent() -> tuple[dict, list]:
        with ConcurrentEvals(evaluate, devices("tiny-arith", [0])) as evals:
            for label in ("bad-step", "step-000050", "step-000090"):
                evals.submit(label, f"checkpoints/{label}")
            return evals.wait()

    summaries, failed = parent()
    assert failed == ["bad-step"]
    assert summaries == {"step-000050": "checkpoints/step-000050", "step-000090": "checkpoints/step-000090"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_evaluations_run_at_background_priority_and_leave_the_flow_runs_own_alone(prefect_harness: str) -> None:
    def priority(*_: object, **__: object) -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    @flow(name="evals-parent-nice")
    def parent() -> tuple[dict, int]:
        with ConcurrentEvals(priority, devices("tiny-arith", [0])) as evals:
            evals.submit("base")
            return evals.wait()[0], priority()

    before = priority()
    evaluations, own = parent()
    assert evaluations == {"base": max(BACKGROUND_NICE, before)} and own == before


def test_with_every_gpu_training_an_evaluation_waits_says_so_and_runs_once_training_ends(prefect_harness: str,
                                                                                          caplog) -> None:
    started = threading.Event()

    def evaluate(label: str, device: dict) -> int:
        started.set()
        return device["gpu"]

    @flow(name="evals-parent-waiting")
    def parent() -> tuple[bool, dict, list]:
        with ConcurrentEvals(evaluate, devices("gsm8k", [2])) as evals:  # GPU 0 trains, GPU 1 generates
            evals.submit("base")
            ran_early = started.wait(timeout=3)
            evals.training_ended()
            return (ran_early, *evals.wait())

    ran_early, summaries, failed = parent()
    assert not ran_early and summaries == {"base": 0} and failed == []
    assert "base is waiting for a device: the device plan gives evaluations no GPU while training runs" in caplog.text


def test_an_evaluation_waiting_for_a_device_is_dropped_when_the_run_fails(prefect_harness: str) -> None:
    @flow(name="evals-parent-failing")
    def parent() -> None:
        with ConcurrentEvals(lambda label, device: device, devices("gsm8k", [2])) as evals:
            evals.submit("base")
            raise RuntimeError("training failed")

    with pytest.raises(RuntimeError, match="training failed"):  # and does not hang on the waiting evaluation
        parent()


@pytest.mark.parametrize("cores,overrides,usable_gpus,threads", [
    (2, [], 0, 1),                                            # the demo: two single-threaded replicas fill 2 cores
    (16, [], 0, 14),                                          # a bigger CPU box: the rest of the cores
    (16, ["training.data_parallel=1", "training.torch_threads=4"], 0, 12),
    (2, ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=false"], 0, 1),
    (16, ["training.device=auto", "training.data_parallel=1"], 1, None),  # training on the GPU: torch's default
])
def test_an_evaluation_beside_cpu_training_takes_the_cores_training_leaves(monkeypatch, cores, overrides,
                                                                          usable_gpus, threads) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert eval_cpu_threads(load_config("tiny-arith", overrides), usable_gpus) == threads
