"""The device plan and the evaluation queue over every topology and training layout, run through time.

A run is simulated event by event with the real plan (`plan_devices`) and the real queue (`DeviceQueue`):
training claims its devices when it starts, the base model's evaluation is submitted before it, checkpoints
arrive while it runs and each is submitted for evaluation, evaluations take a drawn time, training ends and
gives its devices to the queue. Only the clock is simulated. Properties, for every topology (1x1, 1x2, 1x4,
1x8, 2x1, 2x2, 2x8) and layout (split with 1-3 vLLM rollout workers, shared GPU, hf colocated, hf split,
CPU training):
- no GPU is ever given to two processes, except the trainer and its generator in a colocated layout;
- every checkpoint (and the base model) is evaluated eventually;
- the rollout workers' devices are free when training starts, so the base evaluation never delays rollout
  start-up (let alone past `training.actor_start_timeout_s`);
- a config the topology cannot hold is refused up front, naming the GPUs it needs, the GPUs there are and
  a fix.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.config import load_config
from rlvr_core.devices import DevicePlanError, DeviceQueue, plan_devices, topology

TOPOLOGIES = {"1x1": [1], "1x2": [2], "1x4": [4], "1x8": [8], "2x1": [1, 1], "2x2": [2, 2], "2x8": [8, 8]}
LAYOUTS = {
    "split, 1 vLLM worker": ("gsm8k", []),
    "split, 2 vLLM workers": ("gsm8k", ["training.rollout_workers=2"]),
    "split, 3 vLLM workers": ("gsm8k", ["training.rollout_workers=3"]),
    "shared GPU (vLLM sleeps)": ("gsm8k", ["training.colocate=true"]),
    "hf colocated": ("gsm8k", ["training.generation_backend=hf"]),
    "hf split": ("gsm8k", ["training.generation_backend=hf", "training.colocate=false"]),
    "CPU training": ("tiny-arith", []),
}
CONFIGS = {name: load_config(config, overrides) for name, (config, overrides) in LAYOUTS.items()}


@dataclass(frozen=True)
class Schedule:
    training_s: int
    checkpoints: tuple[int, ...]       # arrival times, within training
    eval_s: tuple[int, ...]            # duration of each evaluation: base first, then each checkpoint's
    evaluate_base: bool


@st.composite
def schedules(draw: st.DrawFn) -> Schedule:
    training = draw(st.integers(10, 500))
    arrivals = sorted(draw(st.lists(st.integers(1, training), min_size=0, max_size=8)))
    durations = draw(st.lists(st.integers(1, 300), min_size=len(arrivals) + 1, max_size=len(arrivals) + 1))
    return Schedule(training, (*arrivals, training), tuple(durations) + (draw(st.integers(1, 300)),),
                    draw(st.booleans()))


def simulate(plan, schedule: Schedule) -> dict[str, list]:
    """Run the schedule against `plan`; returns the events, asserting the sharing rule at every step."""
    queue = DeviceQueue(plan)
    holders: dict[object, set[str]] = {}
    colocated_by_design = plan.layout in ("colocated", "shared-gpu")
    events: list[tuple[int, int, str, str]] = []   # (time, order, kind, label)
    order = iter(range(10**6))
    done, started = [], {}

    def hold(device, who: str) -> None:
        if device is None:
            return
        holders.setdefault(device, set()).add(who)
        roles = holders[device]
        if len(roles) > 1:
            allowed = colocated_by_design and roles <= {"trainer", *(f"generator-{i}" for i in range(8))}
            assert allowed, f"{device} given to {sorted(roles)} at once ({plan.layout})"

    def start_waiting(now: int) -> None:
        for label in queue.waiting():
            ok, device = queue.take(label)
            if not ok:
                break
            hold(device, label)
            started[label] = (now, device)
            heapq.heappush(events, (now + durations[label], next(order), "eval-done", label))

    durations: dict[str, int] = {}
    labels = (["base"] if schedule.evaluate_base else []) + [f"step-{i}" for i in range(len(schedule.checkpoints))]
    if schedule.evaluate_base:  # submitted before training starts, as the flow does
        durations["base"] = schedule.eval_s[0]
        queue.enter("base")
        start_waiting(0)
    for device, who in ([(plan.trainer, "trainer")] if plan.trainer else []) + \
            [(g, f"generator-{i}") for i, g in enumerate(plan.generators)]:
        busy = {w for w in holders.get(device, set()) if not w.startswith(("trainer", "generator"))}
        assert not busy, f"rollout start-up on {device} would wait for {busy}"
        hold(device, who)
    for i, arrival in enumerate(schedule.checkpoints):
        durations[f"step-{i}"] = schedule.eval_s[i + 1]
        heapq.heappush(events, (arrival, next(order), "checkpoint", f"step-{i}"))
    heapq.heappush(events, (schedule.training_s, next(order), "training-ends", ""))
    while events:
        now, _, kind, label = heapq.heappop(events)
        if kind == "checkpoint":
            queue.enter(label)
        elif kind == "training-ends":
            for device in plan.training_devices:
                holders[device] -= {"trainer", *(f"generator-{i}" for i in range(len(plan.generators)))}
            queue.training_ended()
        else:
            device = started[label][1]
            if device is not None:
                holders[device].discard(label)
            queue.release(label)
            done.append(label)
        start_waiting(now)
    assert sorted(done) == sorted(labels), f"not evaluated: {sorted(set(labels) - set(done))}"
    assert queue.waiting() == [] and queue.held() == {}
    return {"done": done, "started": started}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topology_name=st.sampled_from(sorted(TOPOLOGIES)), layout=st.sampled_from(sorted(LAYOUTS)),
       schedule=schedules())
def test_no_gpu_is_shared_unless_colocated_and_every_checkpoint_is_evaluated(topology_name, layout, schedule):
    topo = topology.given(TOPOLOGIES[topology_name])
    config = CONFIGS[layout]
    try:
        plan = plan_devices(config, topo)
    except DevicePlanError as err:
        need = 1 + config.training.rollout_workers
        assert topo.gpu_count < need, f"{layout} on {topology_name} refused although it fits: {err}"
        assert f"needs {need} GPUs" in str(err) and f"has {topo.gpu_count}" in str(err) and "set training." in str(err)
        return
    simulate(plan, schedule)


@pytest.mark.parametrize("topology_name", sorted(TOPOLOGIES))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_layout_either_plans_or_is_refused_on_every_topology(topology_name, layout):
    """The exhaustive grid behind the property test: which layouts each topology runs."""
    topo = topology.given(TOPOLOGIES[topology_name])
    config = CONFIGS[layout]
    needs_two_or_more = layout.startswith(("split", "hf split"))
    try:
        plan = plan_devices(config, topo)
    except DevicePlanError:
        assert needs_two_or_more and topo.gpu_count < 1 + config.training.rollout_workers
        return
    assert len(set(plan.training_devices) & set(plan.evaluators)) == 0
    assert set(plan.training_devices) | set(plan.evaluators) == set(plan.all_devices)
    simulate(plan, Schedule(100, (30, 60, 100), (50, 50, 50, 50), True))


def test_the_base_evaluation_takes_one_device_not_one_per_benchmark():
    """Exactly 2 GPUs: the base evaluation used to take both (gsm8k and math at once) and starve rollout start-up."""
    plan = plan_devices(CONFIGS["split, 1 vLLM worker"], topology.given([2]))
    assert plan.evaluators == ()
    queue = DeviceQueue(plan)
    queue.enter("base")
    assert queue.take("base") == (False, None)
    assert "no GPU while training runs" in queue.why_waiting()
