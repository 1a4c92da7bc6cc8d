"""The trainer side: the random-weight model, GRPO steps with the project's trainer, and a checkpoint write.

The trainer is `PolicyTrainer` with the gsm8k config's own settings (`trainer_options`: the GRPO loss with
recomputed old log-probs and truncated importance sampling, micro-batches packed to
`training.micro_batch_tokens`, gradient checkpointing, fp32 master weights under bf16 autocast on CUDA), on
synthetic rollouts of the config's length. Two settings differ from a run, for the smoke test's sake: no
learning-rate warm-up, and a learning rate (`--learning-rate`, 1e-3) that moves bf16 weights, so the sync
probe can tell a stale engine from a synced one (probe.py).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

from .context import GIB, Smoke, Stopwatch, rounded
from .runner import CheckFailed, Outcome
from .shape import synthetic_groups, write_random_model

SIZE_TOLERANCE = 0.02  # a checkpoint's files against `checkpoint_sizes` (headers, optimizer step counters, RNG)


def gsm8k_for(ctx: Smoke) -> Any:
    """The gsm8k config as the smoke test's trainer runs it on this device and shape."""
    from rlvr_core.config import load_config

    shape = ctx.shape
    overrides = [f"training.device={ctx.device}", f"training.learning_rate={ctx.learning_rate}",
                 "training.warmup_steps=0", f"sampling.max_new_tokens={shape.completion_tokens}",
                 f"sampling.group_size={shape.group_size}", f"run.seed={ctx.seed}"]
    if shape.micro_batch_tokens is not None:
        overrides.append(f"training.micro_batch_tokens={shape.micro_batch_tokens}")
    return load_config("gsm8k", overrides)


def architecture(ctx: Smoke) -> Any:
    from rlvr_core.devices.memory import Architecture

    return Architecture.from_config(ctx.shape.architecture)


def model(ctx: Smoke) -> Outcome:
    """Build the shape from random weights on the device and save it (bf16) with its tokenizer."""
    watch = Stopwatch(ctx)
    folder = ctx.work / "model"
    parameters = write_random_model(folder, ctx.shape, ctx.device, ctx.seed)
    seconds = watch.lap("build_and_save_s")
    expected = architecture(ctx).parameters()
    size = sum(f.stat().st_size for f in folder.glob("*.safetensors"))
    figures = {"parameters": parameters, "expected_parameters": expected, "seconds": seconds,
               "safetensors_gib": round(size / GIB, 3)}
    if parameters != expected:
        raise CheckFailed(f"the built model has {parameters:,} parameters, the memory estimate's architecture "
                          f"{expected:,}: rlvr_core.devices.memory would size a different model", figures)
    ctx.folder = folder
    return Outcome(f"{ctx.shape.name}: {parameters:,} parameters, {figures['safetensors_gib']} GiB bf16, "
                   f"built and saved in {seconds:.1f} s", figures)


def trainer(ctx: Smoke) -> Outcome:
    """Load the trainer and take `ctx.steps` GRPO steps; peak CUDA memory must stay within the estimate."""
    from rlvr_core.devices.memory import estimate_training_memory
    from rlvr_core.grpo.actors import trainer_options
    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.batch import build_train_batch
    from rlvr_core.grpo.trainer_actor import PolicyTrainer

    config = ctx.config = gsm8k_for(ctx)
    estimate = estimate_training_memory(config, architecture(ctx))
    ctx.free_gpu()
    ctx.reset_peak()
    watch = Stopwatch(ctx)
    ctx.trainer = policy = PolicyTrainer(str(ctx.folder), **trainer_options(config, reference_path=str(ctx.folder)))
    load_s = watch.lap("load")
    batch = build_train_batch(synthetic_groups(ctx.shape, ctx.seed), get_algorithm(config.grpo.loss),
                              max_new_tokens=config.sampling.max_new_tokens, pad_token_id=policy.pad_token_id(),
                              skip_overlong=False)
    steps = []
    for _ in range(ctx.steps):
        metrics = policy.train_step(batch)
        steps.append(rounded({"seconds": watch.lap("step"), **{k: metrics[k] for k in (
            "loss", "grad_norm", "micro_batches", "trained_tokens", "rollout_logprob_gap", "tis_weight_mean")}}))
    peak = ctx.peak_gib()
    timed = steps[1:] or steps  # the first step also warms kernels up
    tokens_per_s = sum(s["trained_tokens"] for s in timed) / sum(s["seconds"] for s in timed)
    figures = {"load_s": load_s, "steps": steps, "rows": int(batch["input_ids"].shape[0]),
               "row_tokens": int(batch["input_ids"].shape[1]), "micro_batch_tokens": estimate.micro_batch_tokens,
               "update_tokens_per_s": round(tokens_per_s, 1), "peak_gib": peak,
               "estimate_gib": round(estimate.total / GIB, 2),
               "estimate_parts_gib": {k: round(v / GIB, 2) for k, v in estimate.parts.items()}}
    broken = [i for i, s in enumerate(steps, 1) if not (math.isfinite(s["loss"]) and math.isfinite(s["grad_norm"])
                                                        and s["grad_norm"] > 0)]
    if broken:
        raise CheckFailed(f"step(s) {broken} gave a non-finite loss or gradient norm, or no gradient at all "
                          f"(grad_norm 0): {[steps[i - 1] for i in broken]}", figures)
    if peak is not None and peak > figures["estimate_gib"]:
        raise CheckFailed(f"peak CUDA memory {peak} GiB exceeds the estimate {figures['estimate_gib']} GiB, which "
                          f"rlvr_core.devices.memory promises as an upper bound", figures)
    memory = "" if peak is None else f", peak {peak} of {figures['estimate_gib']} GiB estimated"
    return Outcome(f"{ctx.steps} steps of {figures['rows']} rows x {figures['row_tokens']} tokens, "
                   f"{steps[-1]['micro_batches']} micro-batches: {timed[-1]['seconds']:.2f} s/step, "
                   f"{tokens_per_s:,.0f} tokens/s{memory}", figures)


def checkpoint(ctx: Smoke) -> Outcome:
    """Publish a checkpoint as a run does (bf16 weights, training state with fp32 master weights, committed in
    the background): the training loop's pause, the commit, and the sizes against `checkpoint_sizes`."""
    import torch
    from safetensors import safe_open

    from rlvr_core.devices.memory import checkpoint_sizes

    config, policy = ctx.config, ctx.trainer
    kept = config.checkpointing
    watch = Stopwatch(ctx)
    path = Path(policy.publish(str(ctx.work / "checkpoints"), step=policy.version, config_hash="gpu-smoke",
                               driver_state={"gpu_smoke": True}, keep_last=kept.keep_last,
                               weights_dtype=config.model.dtype, keep_optimizer=kept.keep_optimizer))
    pause = watch.lap("pause")
    infos = policy.published(wait=True)
    commit = watch.lap("commit")
    weights = sum(f.stat().st_size for f in path.glob("*.safetensors"))
    state = sum(f.stat().st_size for f in (path / "training_state").rglob("*") if f.is_file())
    expected = checkpoint_sizes(config, architecture(ctx))
    figures = {"pause_s": pause, "commit_s": commit, "weights_gib": round(weights / GIB, 3),
               "training_state_gib": round(state / GIB, 3), "expected_weights_gib": round(expected["weights"] / GIB, 3),
               "expected_training_state_gib": round(expected["training_state"] / GIB, 3),
               "write_gib_per_s": round((weights + state) / GIB / pause, 2)}
    problems = [f"{name} is {actual / GIB:.3f} GiB on disk, {expected[key] / GIB:.3f} GiB estimated"
                for name, key, actual in (("weights", "weights", weights), ("training state", "training_state", state))
                if abs(actual - expected[key]) > SIZE_TOLERANCE * expected[key]]
    if [info["path"] for info in infos] != [str(path)]:
        problems.append(f"the commit reported {infos}, not {path}")
    with safe_open(str(next(path.glob("*.safetensors"))), framework="pt") as handle:
        saved = handle.get_tensor("model.embed_tokens.weight")
    trained = policy.model.get_input_embeddings().weight.detach().to("cpu", saved.dtype)
    if not torch.equal(saved, trained):
        problems.append("the saved embedding is not the trainer's, cast to the checkpoint dtype")
    if problems:
        raise CheckFailed("; ".join(problems), figures)
    shutil.rmtree(ctx.work / "checkpoints", ignore_errors=True)
    return Outcome(f"pause {pause:.1f} s ({figures['write_gib_per_s']} GiB/s), commit {commit:.1f} s; "
                   f"{figures['weights_gib']} GiB weights + {figures['training_state_gib']} GiB state", figures)
