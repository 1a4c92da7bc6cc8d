"""The generation side: the hf backend on the device, the weight sync and its probe, log-prob recomputation,
and (with vLLM installed) an engine that sleeps, wakes and reloads in place.

Every engine runs in bf16 (the GPU configs' `model.dtype`) and starts from the model folder, i.e. from the
weights before the trainer's steps; the sync then ships the trainer's weights as a run does
(`PolicyTrainer.get_weights`: the engine's dtype, tied tensors once) and `check_sync` proves they landed
(probe.py says how, and why the tolerance is what it is).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .context import GIB, Smoke, Stopwatch
from .probe import all_finite, cast_gap, engine_gap
from .runner import CheckFailed, Outcome
from .shape import probe_prompts

if TYPE_CHECKING:
    from rlvr_core.generation.base import Generation, GenerationBackend

ENGINE_DTYPE = "bfloat16"
PROBE_PROMPTS, PROBE_TOKENS = 4, 16
ENGINE_HEADROOM_GIB = 1.0  # left free beside a starting vLLM engine (CUDA context, allocator slack)


def sample(ctx: Smoke, engine: "GenerationBackend") -> tuple[list["Generation"], dict[str, Any]]:
    """`generation_prompts` x `group_size` samples at temperature 1, as rollouts are drawn; their figures."""
    from rlvr_core.generation import SamplingParams

    shape = ctx.shape
    params = SamplingParams(max_new_tokens=shape.generation_tokens, temperature=1.0, n=shape.group_size,
                            seed=ctx.seed)
    watch = Stopwatch(ctx)
    gens = engine.generate(probe_prompts(shape.generation_prompts), params)
    seconds = watch.lap("generate")
    tokens = sum(len(g.token_ids) for g in gens)
    figures = {"sequences": len(gens), "tokens": tokens, "seconds": seconds, "tokens_per_s": round(tokens / seconds, 1)}
    expected = shape.generation_prompts * shape.group_size
    if len(gens) != expected or not all(g.token_ids for g in gens) or not all_finite(gens):
        raise CheckFailed(f"asked for {expected} samples: got {len(gens)}, {sum(not g.token_ids for g in gens)} empty, "
                          f"log-probs {'all' if all_finite(gens) else 'not all'} finite and <= 0", figures)
    return gens, figures


def check_sync(ctx: Smoke, engine: "GenerationBackend") -> tuple[str, dict[str, Any]]:
    """Probe `engine` (holding the folder's weights), ship the trainer's weights into it, probe again: the gap
    must fall within the bf16 tolerance after the reload and must have exceeded it before (probe.py)."""
    from rlvr_core.generation import SamplingParams

    policy = ctx.trainer
    policy.model.eval()
    pad = policy.pad_token_id()
    greedy = SamplingParams(max_new_tokens=PROBE_TOKENS, temperature=0.0)
    prompts = probe_prompts(PROBE_PROMPTS)
    stale = engine_gap(engine.generate(prompts, greedy), policy.model, pad)
    watch = Stopwatch(ctx)
    payload = policy.get_weights(ENGINE_DTYPE)
    pack_s = watch.lap("pack")
    engine.load_weights(payload.tensors(), version=policy.version)
    load_s = watch.lap("load")
    after = engine.generate(prompts, greedy)
    synced, cast = engine_gap(after, policy.model, pad), cast_gap(after, policy.model, pad)
    tolerance = cast.tolerance()
    figures = {"payload_gib": round(payload.nbytes / GIB, 3), "pack_s": pack_s, "load_s": load_s,
               "stale": stale.as_dict(), "synced": synced.as_dict(), "cast": cast.as_dict(),
               "tolerance": tolerance.as_dict(), "discrimination": round(stale.max / tolerance.max, 2),
               "engine_version": engine.weight_version, "trainer_version": policy.version}
    if engine.weight_version != policy.version:
        raise CheckFailed(f"the engine reports weight version {engine.weight_version}, the trainer "
                          f"{policy.version}", figures)
    if synced.max > tolerance.max:
        raise CheckFailed(f"after the reload the engine's log-probs differ from the trainer's by {synced.max:.3g} > "
                          f"{tolerance.max:.3g} (3 x the bf16 cast gap {cast.max:.3g} + 2^-8): the weights did not "
                          "land (a stale engine, wrong keys, or dtype drift)", figures)
    if stale.max <= tolerance.max:
        raise CheckFailed(f"inconclusive: before the reload the engine was already within the tolerance "
                          f"({stale.max:.3g} <= {tolerance.max:.3g}), so a skipped reload would pass too. Fix: a "
                          "larger --learning-rate or more --steps", figures)
    return (f"{figures['payload_gib']} GiB in {pack_s + load_s:.2f} s; gap {synced.max:.2e} <= {tolerance.max:.2e} "
            f"(stale {stale.max:.2e}: {figures['discrimination']}x)"), figures


def generation(ctx: Smoke) -> Outcome:
    """The hf backend on the device, loaded from the folder: sampling throughput."""
    from rlvr_core.generation.hf import HFBackend

    shape = ctx.shape
    watch = Stopwatch(ctx)
    ctx.backend = HFBackend(str(ctx.folder), device=ctx.device, dtype=ENGINE_DTYPE, seed=ctx.seed,
                            batch_size=shape.generation_prompts * shape.group_size)
    load_s = watch.lap("load")
    _, figures = sample(ctx, ctx.backend)
    figures["load_s"] = load_s
    return Outcome(f"hf {ENGINE_DTYPE} on {ctx.device}: {figures['sequences']} x {shape.generation_tokens} tokens, "
                   f"{figures['tokens_per_s']:,.0f} tokens/s; loaded in {load_s:.1f} s", figures)


def sync(ctx: Smoke) -> Outcome:
    """Trainer -> hf backend, checked on the probe."""
    summary, figures = check_sync(ctx, ctx.backend)
    return Outcome(summary, figures)


def recompute(ctx: Smoke) -> Outcome:
    """The trainer recomputes the synced engine's sampled log-probs under its own numerics, as the GPU configs
    do (`grpo.recompute_old_logprobs`, then truncated importance sampling): the mean gap it traces
    (`rollout_logprob_gap`) must be within the bf16 tolerance of the mean cast gap on the same tokens."""
    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.batch import Group, Rollout, build_train_batch

    policy, config = ctx.trainer, ctx.config
    gens, figures = sample(ctx, ctx.backend)
    groups = [Group(position=p, problem=None, rollouts=[
        Rollout(prompt_token_ids=g.prompt_token_ids, token_ids=g.token_ids, logprobs=g.logprobs, text=g.text,
                finish_reason=g.finish_reason, weight_version=g.weight_version, reward=float(g.sample_index % 2))
        for g in gens if g.prompt_index == p]) for p in range(ctx.shape.generation_prompts)]
    batch = build_train_batch(groups, get_algorithm(config.grpo.loss), max_new_tokens=config.sampling.max_new_tokens,
                              pad_token_id=policy.pad_token_id(), skip_overlong=False)
    watch = Stopwatch(ctx)
    metrics = policy.accumulate_gradients(batch)
    policy.optimizer.zero_grad(set_to_none=True)  # measured, not stepped
    figures["recompute_s"] = watch.lap("recompute")
    policy.model.eval()
    cast = cast_gap(gens, policy.model, policy.pad_token_id())
    tolerance = cast.tolerance()
    gap = metrics["rollout_logprob_gap"]
    figures.update(rollout_logprob_gap=round(gap, 6), tis_weight_mean=round(metrics["tis_weight_mean"], 4),
                   cast=cast.as_dict(), tolerance_mean=round(tolerance.mean, 6))
    if not math.isfinite(gap) or gap > tolerance.mean:
        raise CheckFailed(f"the trainer's recomputed log-probs differ from the engine's by {gap:.3g} per token on "
                          f"average > {tolerance.mean:.3g} (3 x the mean bf16 cast gap {cast.mean:.3g} + 2^-8): "
                          "the trainer and the engine do not compute the same policy", figures)
    return Outcome(f"mean gap {gap:.2e} <= {tolerance.mean:.2e} over {figures['tokens']:,} sampled tokens, "
                   f"TIS weight mean {figures['tis_weight_mean']}", figures)


def engine_share(ctx: Smoke) -> float:
    """vLLM's gpu_memory_utilization here: the device plan's one-GPU share, at most what is free right now."""
    import torch

    free, total = torch.cuda.mem_get_info()
    fits = math.floor((free - ENGINE_HEADROOM_GIB * GIB) / total * 100) / 100
    return min(ctx.engine_share or fits, fits)


def vllm(ctx: Smoke) -> Outcome:
    """A vLLM engine from the folder with sleep mode, beside the trainer as on one GPU: start, sampling, sleep
    (memory freed) and wake, then the in-place reload and the same probe as the hf backend's."""
    from rlvr_core.generation import create_backend

    ctx.close_backend()  # the hf engine's memory goes to vLLM
    watch = Stopwatch(ctx)
    options = ({"gpu_memory_utilization": engine_share(ctx)} if ctx.cuda else {"cpu_kv_cache_gib": 0.25})
    engine = create_backend("vllm", str(ctx.folder), device=ctx.device, dtype=ENGINE_DTYPE, seed=ctx.seed,
                            sleep_mode=True, max_model_len=ctx.shape.max_positions, **options)
    try:
        figures: dict[str, Any] = {"start_s": watch.lap("start"), **options}
        figures["sampling"] = sample(ctx, engine)[1]
        free_before = _free_gib(ctx)
        watch.lap("sample")
        engine.sleep()
        figures["sleep_s"] = watch.lap("sleep")
        figures["freed_by_sleep_gib"] = None if free_before is None else round(_free_gib(ctx) - free_before, 2)
        engine.wake_up()
        figures["wake_s"] = watch.lap("wake")
        summary, figures["sync"] = check_sync(ctx, engine)
    finally:
        engine.close()
    freed = "" if figures["freed_by_sleep_gib"] is None else f", sleep freed {figures['freed_by_sleep_gib']} GiB"
    return Outcome(f"start {figures['start_s']:.0f} s, {figures['sampling']['tokens_per_s']:,.0f} tokens/s{freed}; "
                   f"sync {summary}", figures)


def _free_gib(ctx: Smoke) -> float | None:
    if not ctx.cuda:
        return None
    import torch

    return torch.cuda.mem_get_info()[0] / GIB
