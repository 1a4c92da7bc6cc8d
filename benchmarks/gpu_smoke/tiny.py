"""The tiny model end to end on the device: built (or reused), GRPO steps, a checkpoint, one evaluation.

The steps are the colocated layout's, in this process instead of a Ray actor: `ColocatedTrainer` samples
each step's groups with its own policy, the math verifier scores them, `build_train_batch` turns them into
the update (tiny-arith's config otherwise: loss, KL to the frozen reference, sampling). The checkpoint is
published as a run publishes it, and evaluated with `rlvr_core.evaluation.evaluate` on `arith` when its
dataset cache can be written (pandas and pyarrow importable); on a bare host without them, as the trainer's
held-out evaluation does: greedy answers to arith test problems, verified.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

from .context import Smoke, Stopwatch, rounded
from .runner import CheckFailed, Outcome

EVAL_ITEMS = 100  # a warmed-up tiny model answers ~15-40% of arith: 0 right of 100 means a broken pipeline


def tiny(ctx: Smoke) -> Outcome:
    from rlvr_core.config import load_config
    from rlvr_core.grpo.actors import trainer_options
    from rlvr_core.grpo.colocated import ColocatedTrainer
    from rlvr_core.models.tiny import ensure_tiny_model
    from rlvr_core.storage import open_store

    config = load_config("tiny-arith", [f"training.device={ctx.device}", "training.data_parallel=1",
                                        "training.torch_threads=null", f"run.seed={ctx.seed}"])
    store = open_store(config.storage.root, endpoint_url=config.storage.endpoint_url)
    watch = Stopwatch(ctx)
    model_dir = str(ctx.tiny_model or ensure_tiny_model(store))
    figures: dict[str, Any] = {"model": model_dir, "build_s": watch.lap("build")}
    policy = ColocatedTrainer(model_dir, generation_batch_size=config.training.generation_batch_size,
                              **trainer_options(config, reference_path=model_dir))
    figures["steps"] = [rounded(grpo_step(config, policy, step, ctx.seed)) for step in range(ctx.steps)]
    figures["steps_s"] = watch.lap("steps")
    path = policy.publish(str(ctx.work / "tiny-checkpoints"), step=policy.version, config_hash="gpu-smoke-tiny",
                          driver_state={"gpu_smoke": True}, keep_last=None, weights_dtype=config.model.dtype)
    committed = [info["path"] for info in policy.published(wait=True)]
    figures["checkpoint_s"] = watch.lap("checkpoint")
    figures["evaluation"] = evaluation(ctx, policy, path, store)
    figures["evaluation_s"] = watch.lap("evaluation")
    problems = [f"step {i}: {s}" for i, s in enumerate(figures["steps"], 1)
                if not (math.isfinite(s["loss"]) and 0 <= s["reward_mean"] <= 1)]
    if committed != [path]:
        problems.append(f"the checkpoint commit reported {committed}, not {path}")
    if figures["evaluation"]["n"] != EVAL_ITEMS or figures["evaluation"]["accuracy"] <= 0:
        problems.append(f"the evaluation scored {figures['evaluation']}: a warmed-up model answers some arith "
                        "items right, so generation, the verifier or the checkpoint is broken")
    if problems:
        raise CheckFailed("; ".join(problems), figures)
    rewards = " -> ".join(f"{s['reward_mean']:.2f}" for s in figures["steps"])
    return Outcome(f"{ctx.steps} steps (reward {rewards}) in {figures['steps_s']:.1f} s, checkpoint, "
                   f"{figures['evaluation']['how']} accuracy {figures['evaluation']['accuracy']:.2f} "
                   f"(n={EVAL_ITEMS})", figures)


def grpo_step(config: Any, policy: Any, step: int, seed: int) -> dict[str, Any]:
    """One colocated GRPO step on the step's arith training problems; its reward, loss and KL."""
    from rlvr_core.data.arith import generate_arith
    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
    from rlvr_core.grpo.sampling import source_of, stop_strings, training_prompt
    from rlvr_core.verifiers import verify

    s, template = config.sampling, config.data.prompt_template
    problems = generate_arith("train", s.prompts_per_step, seed=seed * 1000 + step)
    gens = policy.generate([training_prompt(template, p) for p in problems], {
        "max_new_tokens": s.max_new_tokens, "temperature": s.temperature, "n": s.group_size, "seed": seed + step,
        "stop": stop_strings(template, source_of(problems[0]))})
    groups = []
    for i, problem in enumerate(problems):
        rollouts = []
        for g in gens[i * s.group_size:(i + 1) * s.group_size]:
            score = verify(g["text"], problem)
            rollouts.append(Rollout(prompt_token_ids=g["prompt_token_ids"], token_ids=g["token_ids"],
                                    logprobs=g["logprobs"], text=g["text"], finish_reason=g["finish_reason"],
                                    weight_version=g["weight_version"], reward=score.reward, status=score.status))
        groups.append(Group(position=i, problem=problem, rollouts=rollouts))
    batch = build_train_batch(groups, get_algorithm(config.grpo.loss), max_new_tokens=s.max_new_tokens,
                              pad_token_id=policy.pad_token_id(), skip_overlong=config.grpo.skip_overlong)
    metrics = policy.train_step(batch)
    rewards = [r.reward for g in groups for r in g.rollouts]
    return {"reward_mean": sum(rewards) / len(rewards), "loss": metrics["loss"], "kl": metrics["kl"]}


def evaluation(ctx: Smoke, policy: Any, checkpoint: str, store: Any) -> dict[str, Any]:
    """`evaluate` on arith when pandas and pyarrow are importable, else greedy held-out answers (module docstring)."""
    if all(importlib.util.find_spec(name) is not None for name in ("pandas", "pyarrow")):
        from rlvr_core.evaluation import evaluate

        summary = evaluate(checkpoint, "arith", output_dir=ctx.out / "tiny-eval", limit=EVAL_ITEMS, device=ctx.device,
                           store=store, verifier_workers=1, progress=False)
        return {"how": "evaluate()", "n": summary["n"], "accuracy": summary["metrics"]["accuracy"]}
    from rlvr_core.data.arith import generate_arith
    from rlvr_core.evaluation import get_benchmark
    from rlvr_core.verifiers import verify

    benchmark = get_benchmark("arith")
    problems = generate_arith("test", EVAL_ITEMS, seed=ctx.seed)
    gens = policy.generate([benchmark.prompt(p) for p in problems],
                           {"max_new_tokens": benchmark.max_new_tokens, "temperature": 0.0})
    right = sum(verify(g["text"], p).reward == 1.0 for g, p in zip(gens, problems, strict=True))
    return {"how": "held-out greedy (no pandas/pyarrow for evaluate())", "n": len(gens),
            "accuracy": right / len(gens)}
