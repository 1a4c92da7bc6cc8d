"""GPU classification from recorded NVML samples: free, busy, likely zombie — and no crash without a driver."""

from __future__ import annotations

from rlvr_core.devices.gpu_state import GpuProcess, GpuSample, classify, discover_gpus, read_snapshot


def sample(index: int, used: float, util: float, procs: tuple[GpuProcess, ...] = ()) -> GpuSample:
    return GpuSample(index=index, uuid=f"GPU-{index}", name="H100", memory_used_mb=used, memory_total_mb=81559,
                     utilization_pct=util, processes=procs)


def test_idle_gpu_with_only_driver_memory_is_free():
    [info] = classify([[sample(0, 4, 0)], [sample(0, 4, 0)]])
    assert info.free and not info.likely_zombie


def test_memory_held_at_zero_utilisation_over_the_whole_window_is_a_likely_zombie():
    held = (GpuProcess(pid=4242, used_mb=30000),)
    [info] = classify([[sample(0, 30500, 0, held)] for _ in range(4)])
    assert not info.free and info.likely_zombie
    assert "4242" in info.reason and info.processes == held


def test_one_busy_sample_in_the_window_means_busy_not_zombie():
    held = (GpuProcess(pid=7, used_mb=30000),)
    [info] = classify([[sample(0, 30500, 0, held)], [sample(0, 30500, 35, held)], [sample(0, 30500, 0, held)]])
    assert not info.free and not info.likely_zombie and "in use" in info.reason


def test_our_own_process_does_not_make_a_gpu_taken():
    mine = (GpuProcess(pid=100, used_mb=5000),)
    [info] = classify([[sample(0, 5200, 0, mine)]], own_pids=[100])
    assert info.free


def test_memory_held_by_processes_nvml_cannot_see_is_not_free():
    [info] = classify([[sample(0, 20000, 0)], [sample(0, 20000, 0)]])
    assert not info.free and info.likely_zombie and "cannot see" in info.reason


def test_gpus_are_classified_independently_and_sorted():
    held = (GpuProcess(pid=9, used_mb=1000),)
    infos = classify([[sample(1, 1200, 0, held), sample(0, 3, 0)], [sample(1, 1200, 0, held), sample(0, 3, 50)]])
    assert [(i.index, i.free, i.likely_zombie) for i in infos] == [(0, True, False), (1, False, True)]


def test_discovery_without_a_driver_returns_an_empty_list():
    # This machine has no NVIDIA driver; on a GPU machine the list must describe every device.
    snapshot = read_snapshot()
    gpus = discover_gpus(window_s=0.2, interval_s=0.1)
    assert len(gpus) == len(snapshot)
