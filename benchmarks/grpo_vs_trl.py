"""Our GRPO vs TRL's GRPOTrainer on the same tiny model, data, reward and hyper-parameters, in one run (CPU).

Same: the warmed-up tiny model, `arith` train prompts ("{prompt}\\n"), reward
1/0 from our math verifier, 16 prompts x 8 completions per step, 8 new
tokens, temperature 1, lr 1e-4 constant, KL beta 0.04, loss `grpo`, one
update per batch. Ours runs `--steps` steps in each of `--layouts`:
replicas (the tiny-arith default: two colocated replicas on one thread each,
each sampling and training half of every step, gradients summed), colocated
(one actor on two threads, one copy of the weights), split (a trainer actor
and a rollout actor with weight sync), all with the verifier pool. TRL then
gets the training-loop wall time of the first layout (a callback stops it).
All final policies are scored with the same greedy held-out accuracy on
arith test.

Prints samples/s and held-out accuracy for each, and the throughput ratio.
samples/s is measured the same way for both: completions generated and
trained per second of wall time from the end of the first step to the end of
the last (so start-up and the first step's warm-up are left out of both, and
everything each loop does per step, logging and trace files included, is in).
Run:
    .venv/bin/python benchmarks/grpo_vs_trl.py --steps 60 --seeds 0 1 2 [--layouts replicas colocated split]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PROMPTS, GROUP, MAX_NEW, LR, BETA = 16, 8, 8, 1e-4, 0.04
LAYOUTS = {  # config overrides of each layout of ours
    "replicas": ["training.data_parallel=2", "training.torch_threads=1"],
    "colocated": ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=true"],
    "split": ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=false"],
}


def heldout_accuracy(model, tokenizer, n: int) -> float:
    from rlvr_core.data.arith import generate_arith
    from rlvr_core.models.tiny import greedy_accuracy

    return greedy_accuracy(model, tokenizer, generate_arith("test", n, seed=0), MAX_NEW)


def run_ours(model_dir: Path, steps: int, seed: int, workdir: Path, n_eval: int, layout: str) -> dict:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.config import load_config
    from rlvr_core.grpo import train
    from rlvr_core.grpo.trace import read_trace

    config = load_config("tiny-arith", [
        f"model.name_or_path={model_dir}", f"storage.root={workdir / 'store'}", f"run.seed={seed}",
        f"training.max_steps={steps}", "training.eval_every=0", f"checkpointing.every_steps={steps}",
        f"sampling.prompts_per_step={PROMPTS}", f"sampling.group_size={GROUP}", f"sampling.max_new_tokens={MAX_NEW}",
        f"training.learning_rate={LR}", f"grpo.kl_beta={BETA}", "grpo.loss=grpo", "training.lr_schedule=constant",
        *LAYOUTS[layout]])
    started, step_ends = time.perf_counter(), []
    result = train(config, run_dir=workdir / f"ours-{layout}-{seed}",
                   step_hooks=[lambda record: step_ends.append(time.perf_counter())])
    first_step = next(s["seconds"]["total"] for s in read_trace(result.run_dir) if s["step"] == 1)
    loop = step_ends[-1] - step_ends[0] + first_step
    model = AutoModelForCausalLM.from_pretrained(result.final_checkpoint)
    tokenizer = AutoTokenizer.from_pretrained(result.final_checkpoint)
    return {"impl": f"ours-{layout}", "seed": seed, "steps": steps, "loop_s": loop,
            "startup_s": step_ends[0] - first_step - started, "samples_per_s": steady_rate(step_ends),
            "heldout": heldout_accuracy(model, tokenizer, n_eval)}


def steady_rate(step_ends: list[float]) -> float:
    """Samples per second from the end of the first step to the end of the last."""
    return (len(step_ends) - 1) * PROMPTS * GROUP / (step_ends[-1] - step_ends[0])


def run_trl(model_dir: Path, budget_s: float, seed: int, workdir: Path, n_eval: int) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from rlvr_core.data.arith import generate_arith
    from rlvr_core.verifiers import verify

    problems = generate_arith("train", 4000, seed=seed)
    by_prompt = {f"{p.prompt}\n": p for p in problems}
    data = Dataset.from_list([{"prompt": f"{p.prompt}\n"} for p in problems])

    def reward(prompts, completions, **_):
        return [verify(c, by_prompt[p]).reward for p, c in zip(prompts, completions)]

    class WallClock(TrainerCallback):
        def __init__(self):
            self.start, self.step_ends = None, []

        def on_train_begin(self, args, state, control, **kw):
            self.start = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            self.step_ends.append(time.perf_counter())
            if self.step_ends[-1] - self.start >= budget_s:
                control.should_training_stop = True

    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    args = GRPOConfig(output_dir=str(workdir / f"trl-{seed}"), per_device_train_batch_size=PROMPTS * GROUP,
                      num_generations=GROUP, max_completion_length=MAX_NEW, learning_rate=LR, beta=BETA,
                      temperature=1.0, lr_scheduler_type="constant", max_steps=100_000, logging_steps=10,
                      save_strategy="no", report_to=[], use_cpu=True, bf16=False, gradient_checkpointing=False,
                      loss_type="grpo", seed=seed, disable_tqdm=True)
    clock = WallClock()
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=data,
                          processing_class=tokenizer, callbacks=[clock])
    trainer.train()
    return {"impl": "trl", "seed": seed, "steps": len(clock.step_ends), "loop_s": clock.step_ends[-1] - clock.start,
            "startup_s": clock.start - started, "samples_per_s": steady_rate(clock.step_ends),
            "heldout": heldout_accuracy(trainer.model.eval(), tokenizer, n_eval)}


def summary(impl: str, rows: list[dict], base: float) -> str:
    """Means over the seeds: samples/s and its ratio to TRL's, and held-out accuracy after the same wall time."""
    from statistics import mean

    ours = [r for r in rows if r["impl"] == impl]
    trl = [next(t for t in rows if t["impl"] == "trl" and t["seed"] == r["seed"]) for r in ours]
    ratios = [o["samples_per_s"] / t["samples_per_s"] for o, t in zip(ours, trl)]
    return (f"mean over {len(ours)} seed(s): {impl} {mean(r['samples_per_s'] for r in ours):.1f} samples/s vs TRL "
            f"{mean(t['samples_per_s'] for t in trl):.1f} = {mean(ratios):.2f}x (per seed: "
            f"{', '.join(f'{x:.2f}' for x in ratios)}); held-out {mean(r['heldout'] for r in ours):.3f} vs TRL "
            f"{mean(t['heldout'] for t in trl):.3f} (start {base:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=60, help="our training steps; TRL gets the same loop time")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--eval-problems", type=int, default=500)
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=["replicas", "colocated"],
                        help="our trainer layouts to run (TRL gets the first one's loop time)")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    args = parser.parse_args()

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.models.tiny import ensure_tiny_model
    from rlvr_core.storage import open_store

    model_dir = ensure_tiny_model(open_store(".rlvr/store"))
    base = heldout_accuracy(AutoModelForCausalLM.from_pretrained(model_dir), AutoTokenizer.from_pretrained(model_dir),
                            args.eval_problems)
    print(f"start held-out accuracy: {base:.3f}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="grpo-vs-trl-") as tmp:
        for seed in args.seeds:
            ours = [run_ours(model_dir, args.steps, seed, Path(tmp), args.eval_problems, layout)
                    for layout in args.layouts]
            for row in ours:
                print(json.dumps(row), flush=True)
            theirs = run_trl(model_dir, ours[0]["loop_s"], seed, Path(tmp), args.eval_problems)
            print(json.dumps(theirs), flush=True)
            rows += [*ours, theirs]
    for seed in args.seeds:
        t = next(r for r in rows if r["seed"] == seed and r["impl"] == "trl")
        for o in (r for r in rows if r["seed"] == seed and r["impl"] != "trl"):
            print(f"seed {seed}: {o['impl']} {o['samples_per_s']:.1f} samples/s, held-out {o['heldout']:.3f} | "
                  f"TRL {t['samples_per_s']:.1f} samples/s, held-out {t['heldout']:.3f} | "
                  f"throughput ratio {o['samples_per_s'] / t['samples_per_s']:.2f}x (start {base:.3f})")
    for impl in dict.fromkeys(r["impl"] for r in rows if r["impl"] != "trl"):
        print(summary(impl, rows, base))
    if args.out:
        args.out.write_text(json.dumps({"start_heldout": base, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
