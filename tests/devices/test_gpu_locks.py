"""Which GPUs an evaluation or a training process may take on one node, without Ray: busy and zombie GPUs are
excluded with the reason, each GPU's lock file hands it to one holder at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rlvr_core.devices.gpu_locks import local_gpu_slot, split_usable
from rlvr_core.devices.gpu_state import GpuInfo, GpuProcess


def gpu(index: int, *, free: bool, zombie: bool = False, reason: str = "") -> GpuInfo:
    return GpuInfo(index=index, uuid=f"GPU-{index}", name="H100", memory_total_mb=81559, memory_used_mb=0 if free else 30000,
                   utilization_pct=0, processes=() if free else (GpuProcess(4242, 30000),), free=free,
                   likely_zombie=zombie, reason=reason or ("no memory held by other processes" if free else "busy"))


def test_gpus_held_by_others_or_zombies_are_excluded_and_reported() -> None:
    usable, excluded = split_usable([gpu(0, free=True), gpu(1, free=False, reason="in use (93% utilisation)"),
                                     gpu(2, free=False, zombie=True, reason="30000 MiB held at 0%"), gpu(3, free=True)])
    assert usable == [0, 3]
    assert [(e.index, e.reason) for e in excluded] == [
        (1, "held by another process: in use (93% utilisation)"), (2, "likely zombie: 30000 MiB held at 0%")]


def test_local_slots_hand_out_each_gpu_once(tmp_path: Path) -> None:
    with local_gpu_slot([0, 3], tmp_path) as first, local_gpu_slot([0, 3], tmp_path) as second:
        assert {first, second} == {0, 3}
        with pytest.raises(RuntimeError, match="concurrency limit"):
            with local_gpu_slot([0, 3], tmp_path):
                pass
    with local_gpu_slot([], tmp_path) as none:
        assert none is None  # a CPU node


def test_a_plans_gpu_is_waited_for_while_another_process_holds_it(tmp_path: Path, monkeypatch) -> None:
    import threading

    from rlvr_core.devices.gpu_locks import hold_gpu

    monkeypatch.setattr("rlvr_core.devices.gpu_locks.LOCK_POLL_S", 0.05)
    waits: list[str] = []
    taken = threading.Event()

    def take() -> None:
        with hold_gpu(3, tmp_path, on_wait=waits.append):
            taken.set()

    with local_gpu_slot([3], tmp_path) as held:
        assert held == 3
        taker = threading.Thread(target=take)
        taker.start()
        while not waits and taker.is_alive():
            threading.Event().wait(0.01)
        assert not taken.is_set(), "GPU 3 was taken while another holder had it"
    taker.join(timeout=30)
    assert taken.is_set() and "GPU 3 is held by pid" in waits[0]


def test_a_training_process_holds_its_gpus_and_refuses_one_already_held(tmp_path: Path) -> None:
    from rlvr_core.devices.gpu_locks import GpuBusyError, hold_gpus

    with hold_gpus([0, 1], tmp_path):
        with local_gpu_slot([0, 1, 2], tmp_path) as free:
            assert free == 2, "an evaluation of another run keeps off the training GPUs"
        with pytest.raises(GpuBusyError, match=r"GPU 1, which the device plan gives training, is held by pid"):
            with hold_gpus([1], tmp_path):
                pass

