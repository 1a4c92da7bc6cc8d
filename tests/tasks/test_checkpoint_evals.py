"""Evaluation subflows beside training (`tasks/checkpoint_evals.py`): as many at once as there are slots,
children of the flow run that submitted them, and a failed one reported, never raised."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from prefect import flow

from tasks.checkpoint_evals import BACKGROUND_NICE, ConcurrentEvals, eval_cpu_threads, eval_slots, training_gpus

BARRIER_TIMEOUT_S = 60


def _written(folder: Path, label: str, summary: object) -> object:
    """What an evaluation leaves: its summary in a file named by its label."""
    (folder / f"{label}.json").write_text(json.dumps(summary))
    return summary


def _reader(folder: Path):
    return lambda label: json.loads((folder / f"{label}.json").read_text())


def _evaluations(slots: int, labels: list[str], folder: Path):
    """A parent flow that submits one child per label; each child waits at a barrier of len(labels) parties,
    so the children only all finish if they ran at the same time."""
    barrier = threading.Barrier(len(labels), timeout=BARRIER_TIMEOUT_S)

    @flow(name="fake-eval-child")
    def child(label: str) -> object:
        barrier.wait()
        return _written(folder, label, {"label": label})

    @flow(name="evals-parent")
    def parent() -> tuple[dict, list, str]:
        from prefect.runtime import flow_run

        with ConcurrentEvals(child, slots, _reader(folder)) as evals:
            for label in labels:
                evals.submit(label, label)
            return (*evals.wait(), flow_run.id)
    return parent


def test_evaluations_run_side_by_side_as_children_of_the_flow_run(prefect_harness: str, tmp_path: Path) -> None:
    summaries, failed, parent_id = _evaluations(2, ["step-000050", "base"], tmp_path)()
    assert summaries == {"step-000050": {"label": "step-000050"}, "base": {"label": "base"}} and failed == []

    from prefect import get_client

    with get_client(sync_client=True) as client:
        children = [r for r in client.read_flow_runs() if r.parent_task_run_id is not None
                    and str(client.read_task_run(r.parent_task_run_id).flow_run_id) == str(parent_id)]
    assert len(children) == 2


def test_a_failed_evaluation_is_reported_and_the_others_complete(prefect_harness: str, tmp_path: Path) -> None:
    @flow(name="fake-eval-child-alone")
    def child(label: str) -> object:
        if label.startswith("bad"):
            raise ValueError(f"{label} cannot be evaluated")
        return _written(tmp_path, label, label) if label != "step-000090" else "completed, but wrote nothing"

    @flow(name="evals-parent-alone")
    def parent() -> tuple[dict, list]:
        with ConcurrentEvals(child, 1, _reader(tmp_path)) as evals:
            for label in ("bad-step", "step-000050", "step-000090"):
                evals.submit(label, label)
            return evals.wait()

    summaries, failed = parent()
    assert failed == ["bad-step", "step-000090"] and summaries == {"step-000050": "step-000050"}


def test_summaries_come_from_what_the_evaluation_wrote_not_from_the_state_prefect_hands_back(
        prefect_harness: str, tmp_path: Path) -> None:
    """A retried training run (`prefect flow-run retry`) gets its earlier attempt's subflow states back from the
    API, matched by call order and without their results (not persisted); the summaries on disk still count."""
    from prefect import get_client

    @flow(name="fake-eval-child-from-api")
    def child(label: str) -> object:
        return _written(tmp_path, label, {"label": label})

    def as_the_api_holds_it(label: str, return_state: bool):
        state = child(label, return_state=return_state)
        with get_client(sync_client=True) as client:
            return client.read_flow_run(state.state_details.flow_run_id).state

    @flow(name="evals-parent-from-api")
    def parent() -> tuple[dict, list]:
        with ConcurrentEvals(as_the_api_holds_it, 1, _reader(tmp_path)) as evals:
            evals.submit("step-000010", "step-000010")
            return evals.wait()

    summaries, failed = parent()
    assert failed == [] and summaries == {"step-000010": {"label": "step-000010"}}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_evaluations_run_at_background_priority_and_leave_the_flow_runs_own_alone(prefect_harness: str,
                                                                                 tmp_path: Path) -> None:
    def priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    @flow(name="fake-eval-child-nice")
    def child(label: str) -> object:
        return _written(tmp_path, label, priority())

    @flow(name="evals-parent-nice")
    def parent() -> tuple[dict, int]:
        with ConcurrentEvals(child, 1, _reader(tmp_path)) as evals:
            evals.submit("base", "base")
            return evals.wait()[0], priority()

    before = priority()
    children, own = parent()
    assert children == {"base": max(BACKGROUND_NICE, before)} and own == before


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
