"""Data parallelism over colocated replicas: each trains on its share of a step's rows, gradients are summed.

`training.data_parallel: N` runs N colocated trainers (`colocated.py`), as
DDP does across GPUs: each replica holds the same weights, generates the
rollouts of its share of the step's prompts, and back-propagates its share
of the training rows; the gradients are then summed across replicas
(`torch.distributed` all-reduce, gloo on CPU) before every replica clips and
steps its own optimizer. The loss weights of `build_train_batch` are computed
over the whole batch, so the summed gradient is the whole batch's, and the
replicas apply bit-identical updates and stay identical (the driver checks a
checksum of the weights after every step).

Why on one CPU: the tiny model's forward and backward are mostly small
operations whose cost does not halve with a second thread (a second thread
speeds one replica up far less than twofold), while two single-threaded
replicas each do half the work on their own core.

Driver side: `shard_rows` gives each replica the groups it sampled (so the
reference log-probs it computed while the driver verified them are ready,
see colocated.py) and `combine_metrics` adds the replicas' metrics back up. Replica side: `open_rendezvous` (the
first replica) and `join` set up the process group; `all_reduce_gradients`
sums the gradients. Not covered: GPUs (NCCL), which nothing here can test.
"""

from __future__ import annotations

import datetime
from typing import Iterable, Sequence

import numpy as np
import torch

# Summed over replicas: each replica normalises them by the whole batch's token count.
ADDITIVE_METRICS = ("loss", "kl", "clip_fraction", "trained_tokens", "micro_batches", "rollout_logprob_gap",
                    "tis_weight_mean", "reference_prepared", "rows_merged", "rows_skipped")


def shard_rows(batch: dict[str, np.ndarray], replicas: int, group_size: int,
               owners: Sequence[int] | None = None) -> list[dict[str, np.ndarray] | None]:
    """`batch` split into `replicas` shares of whole groups (rows come in groups of `group_size`, so each
    prompt's completions stay together and its prompt is still computed once): group g goes to replica
    `owners[g]` (the one that sampled it, whose reference log-probs are ready), or without owners to
    consecutive equal shares. None for a replica left without a group."""
    groups = len(batch["advantages"]) // group_size
    if owners is None:
        shares = [list(g) for g in np.array_split(np.arange(groups), replicas)]
    else:
        if len(owners) != groups:
            raise ValueError(f"{len(owners)} owners for {groups} groups; pass one per group")
        shares = [[g for g in range(groups) if owners[g] == r] for r in range(replicas)]
    rows = [(np.asarray(share)[:, None] * group_size + np.arange(group_size)).reshape(-1) for share in shares]
    return [{k: v[r] for k, v in batch.items()} if len(r) else None for r in rows]


def combine_metrics(per_replica: list[dict[str, float]]) -> dict[str, float]:
    """One step's metrics from the replicas': additive ones summed, the rest (lr, grad_norm: the same on every
    replica after the all-reduce) taken from the first."""
    combined = dict(per_replica[0])
    for name in ADDITIVE_METRICS:
        if name in combined:
            combined[name] = sum(m[name] for m in per_replica)
    return combined


def open_rendezvous(host: str) -> tuple[torch.distributed.TCPStore, int]:
    """The first replica's key-value store for the others to meet at; the OS picks a free port (no race)."""
    store = torch.distributed.TCPStore(host, 0, is_master=True, wait_for_workers=False,
                                       timeout=datetime.timedelta(minutes=10))
    return store, store.port


def join(host: str, port: int, rank: int, world_size: int, store: torch.distributed.TCPStore | None = None) -> None:
    """Join the replicas' process group (gloo); blocks until all `world_size` replicas have joined."""
    import torch.distributed as dist

    if store is None:
        store = dist.TCPStore(host, port, is_master=False, timeout=datetime.timedelta(minutes=10))
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world_size)


def all_reduce_gradients(parameters: Iterable[torch.nn.Parameter]) -> None:
    """Sum every trainable parameter's gradient over the replicas, in one flat buffer (a replica whose share
    was empty contributes zeros)."""
    import torch.distributed as dist

    params = [p for p in parameters if p.requires_grad]
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    offset = 0
    for p in params:
        n = p.numel()
        p.grad = flat[offset:offset + n].view_as(p)  # views of the summed buffer
        offset += n


def weights_checksum(model: torch.nn.Module) -> tuple[float, float]:
    """(sum, sum of squares) of every parameter in float64: equal on replicas that are in step, and different,
    in practice, as soon as any weight differs."""
    total, squares = 0.0, 0.0
    with torch.no_grad():
        for p in model.parameters():
            x = p.detach().double()
            total += float(x.sum())
            squares += float((x * x).sum())
    return total, squares

