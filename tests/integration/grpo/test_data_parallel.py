"""Data-parallel replicas (`training.data_parallel`): where the work runs changes, what is learned does not.

Real parts: trainer replicas are Ray actors on the session's local cluster,
joined in a gloo process group; batches come from `build_train_batch`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import ray
from safetensors.numpy import load_file

from rlvr_core.grpo import train
from rlvr_core.grpo.data_parallel import combine_metrics, shard_rows
from rlvr_core.grpo.replicas import ReplicasDiverged, start_replicas
from rlvr_core.grpo.trainer_actor import PolicyTrainer
from tests.grpo.test_trainer_microbatch import random_batch, trainer_options

GROUP = 4


def replicas(model_dir: Path, count: int):
    actor = ray.remote(num_cpus=0.5)(PolicyTrainer)
    return start_replicas(actor, count, GROUP, str(model_dir), **trainer_options(model_dir, torch_threads=1))


def step(group, batch) -> dict:
    return group.train_metrics(group.submit_train_step(batch), version=1)


def weights(group) -> list[dict[str, np.ndarray]]:
    return ray.get([actor.parameter_snapshot.remote() for actor in group.actors])


def test_shares_are_whole_groups_in_order_and_cover_every_row_once() -> None:
    batch = random_batch(5, group_size=GROUP)
    shares = shard_rows(batch, 2, GROUP)
    assert [len(s["advantages"]) for s in shares] == [3 * GROUP, 2 * GROUP]
    for key, array in batch.items():
        np.testing.assert_array_equal(np.concatenate([s[key] for s in shares]), array, err_msg=key)
    assert shard_rows(random_batch(1, group_size=GROUP), 3, GROUP)[1:] == [None, None]


def test_additive_metrics_add_up_and_the_rest_come_from_the_first_replica() -> None:
    combined = combine_metrics([{"loss": 0.25, "kl": 0.5, "trained_tokens": 3, "grad_norm": 2.0, "lr": 1e-4},
                                {"loss": 0.5, "kl": 0.25, "trained_tokens": 4, "grad_norm": 2.0, "lr": 1e-4}])
    assert combined == {"loss": 0.75, "kl": 0.75, "trained_tokens": 7, "grad_norm": 2.0, "lr": 1e-4}


@pytest.mark.slow
@pytest.mark.parametrize("groups", [6, 1])  # with 1 group the second replica's share is empty: it still steps
def test_two_replicas_with_half_the_rows_each_take_the_step_one_trainer_takes_on_all(ray_cluster, tiny_model_dir,
                                                                                      groups):
    batch = random_batch(groups, group_size=GROUP, seed=2)
    one, two = replicas(tiny_model_dir, 1), replicas(tiny_model_dir, 2)
    (start,) = weights(one)
    expected, got = step(one, batch), step(two, batch)

    for name in ("loss", "kl", "clip_fraction", "grad_norm"):
        assert got[name] == pytest.approx(expected[name], rel=1e-4, abs=1e-7), name
    assert got["trained_tokens"] == expected["trained_tokens"] == int(batch["completion_mask"].sum())
    first, second = weights(two)
    (single,) = weights(one)
    for key in single:
        np.testing.assert_array_equal(second[key], first[key], err_msg=key)      # the replicas agree bit for bit
        # Adam moves a weight by ~lr (1e-4) whatever its gradient's size; summation order alone, by far less.
        np.testing.assert_allclose(first[key], single[key], rtol=0, atol=1e-5, err_msg=key)
    assert all(not np.array_equal(first[key], start[key]) for key in start)  # and the step moved every weight


@pytest.mark.slow
def test_a_step_with_nothing_to_train_moves_no_replica(ray_cluster, tiny_model_dir):
    two = replicas(tiny_model_dir, 2)
    before = weights(two)
    metrics = step(two, None)
    assert metrics["trained_tokens"] == 0 and metrics["grad_norm"] == 0.0
    for was, now in zip(before, weights(two)):
        for key in was:
            np.testing.assert_array_equal(now[key], was[key], err_msg=key)


def test_a_replica_whose_weights_drift_stops_the_run(ray_cluster, tiny_model_dir):
    two = replicas(tiny_model_dir, 2)

    def nudge(trainer: PolicyTrainer) -> None:
        import torch

        with torch.no_grad():
            next(trainer.model.parameters()).add_(1e-3)

    ray.get(two.actors[1].__ray_call__.remote(nudge))
    with pytest.raises(ReplicasDiverged, match="hold different weights"):
        step(two, random_batch(2, group_size=GROUP))


def _rollouts(run_dir: Path) -> dict[tuple[int, int, int], tuple[str, float]]:
    """(step, stream position, sample) -> (text, reward): the file lists each replica's share in turn."""
    rows = [json.loads(line) for line in (run_dir / "traces" / "rollouts.jsonl").read_text().splitlines()]
    return {(r["step"], r["position"], r["sample"]): (r["text"], r["reward"]) for r in rows}


def _relative_gap(a: dict[str, np.ndarray], b: dict[str, np.ndarray], start: dict[str, np.ndarray], key: str) -> float:
    """How far two runs ended apart, as a fraction of how far the first one moved from the start."""
    moved = np.linalg.norm(a[key].astype(np.float64) - start[key])
    return float(np.linalg.norm(b[key].astype(np.float64) - a[key]) / max(moved, 1e-12))


@pytest.mark.slow
def test_a_run_on_two_replicas_samples_and_learns_what_a_run_on_one_does(ray_cluster, tiny_config, tmp_path,
                                                                          trained_tiny_model_dir):
    """Same samples and the same learning, up to float summation order, which AdamW amplifies.

    Why the weights are not compared element by element: the replicas' gradients
    equal the single trainer's up to summation order (~1e-7 relative), but AdamW
    divides each component by its own root-mean-square, so a component whose
    gradient is near zero moves by up to the learning rate on either side of a
    sign flip. On a host with other float kernels (AVX-512) 173 of 12,800
    embedding weights differed by up to 2e-4 after 3 steps at lr 1e-3, about
    the step size itself. Those components are few, so the bound that follows
    from the optimizer is on the whole tensor: the two runs must end within 5%
    (in L2 norm) of the distance the single run travelled. A replica group that
    learned something else (every replica stepping on the first replica's half
    of the batch) ends about half the distance away.

    Samples: step 1 draws from identical weights with per-sample seeds, so it
    is equal exactly. Later steps draw from weights equal up to that noise; a
    draw landing within it of a token boundary may differ, so most (not all)
    are compared.
    """
    common = ("training.max_steps=3", "training.learning_rate=1e-3", "checkpointing.every_steps=3")
    one = train(tiny_config(*common), run_dir=tmp_path / "one")
    two = train(tiny_config(*common, "training.data_parallel=2"), run_dir=tmp_path / "two")

    samples_one, samples_two = _rollouts(one.run_dir), _rollouts(two.run_dir)
    assert samples_two.keys() == samples_one.keys()
    assert {step for step, _, _ in samples_two} == {1, 2, 3}
    first_step = [key for key in samples_one if key[0] == 1]
    assert [samples_two[key] for key in first_step] == [samples_one[key] for key in first_step]
    same = sum(samples_two[key] == samples_one[key] for key in samples_one)
    assert same >= 0.9 * len(samples_one), f"{same} of {len(samples_one)} samples agree"

    start = load_file(os.path.join(trained_tiny_model_dir, "model.safetensors"))
    a = load_file(os.path.join(one.final_checkpoint, "model.safetensors"))
    b = load_file(os.path.join(two.final_checkpoint, "model.safetensors"))
    assert a.keys() == b.keys()
    gaps = {key: _relative_gap(a, b, start, key) for key in a if key in start}
    assert gaps.keys() == {key for key in a if key in start} and gaps
    assert max(gaps.values()) <= 0.05, {key: round(gap, 4) for key, gap in gaps.items() if gap > 0.05}
