"""Our GRPO vs TRL's GRPOTrainer on the same tiny model, data, reward and hyper-parameters, in one run (CPU).

Workloads (`--workload`), chosen to show where our advantage holds:
  arith  `tiny:arith` on `arith` train prompts, 8 new tokens, temperature 1: short
         fixed-format completions ("#### 85") from a confident policy, the
         case our exact work-saving (merged identical rows, shared completion
         starts, shared decoding lines) is best at;
  hot    the same at temperature 1.5: samples diverge, fewer rows repeat;
  long   `tiny:arith-chain` on `arith-chain` (sums of 7-9 digits worked as
         running sums), up to 128 new tokens: 75-105-token completions whose
         samples differ from their first token on, like chains of thought.
Same on both sides: the start model, the workload's train split ("{prompt}\\n"),
reward 1/0 from our math verifier, 16 prompts x 8 completions per step, lr
1e-4 constant, KL beta 0.04 (`--kl-beta`), loss `grpo`, one update per batch.

Ours runs `--steps` steps in each of `--layouts`: replicas (two colocated
replicas on one thread each, each sampling and training half of every step,
gradients summed), colocated (one actor on two threads), split (a trainer
actor and a rollout actor with weight sync). TRL then gets the training-loop
wall time of the first layout (a callback stops it), in its best CPU setup:
eager attention (faster than sdpa for these short rows) and one process on
two threads; `--trl-processes 2` runs it under torchrun as two single-threaded
processes instead (DDP over gloo). All final policies are scored with the same
greedy held-out accuracy on the workload's test split.

Prints, per seed and as means: samples/s and completion tokens/s of each
side, their ratio, and held-out accuracy after the same wall time; and for
each of our runs a profile of its step (`step_profile`: decode, reference,
update, all-reduce, optimizer, idle; reference prepared ahead, verification). Rates are
measured the same way for both: work generated and trained per second from
the end of the first step to the end of the last (start-up and the first
step's warm-up are left out of both; everything each loop does per step,
logging and trace files included, is in). Only ratios from one invocation are
comparable: the machine's load moves absolute figures.
Run:
    .venv/bin/python benchmarks/grpo_vs_trl.py --workload long --steps 60 --seeds 0 1 2
    .venv/bin/python benchmarks/grpo_vs_trl.py --workload hot --steps 60 --seeds 0 1 2 [--trl-processes 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PROMPTS, GROUP, LR = 16, 8, 1e-4
BUSY = ("decode", "reference", "update", "gradient_sum", "optimizer")  # a step's parts that take turns on a core
LAYOUTS = {  # config overrides of each layout of ours
    "replicas": ["training.data_parallel=2", "training.torch_threads=1"],
    "colocated": ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=true"],
    "split": ["training.data_parallel=1", "training.torch_threads=2", "training.colocate=false"],
}


@dataclass(frozen=True)
class Workload:
    model: str            # a built-in model name (built offline on first use)
    dataset: str          # an offline dataset: train split for training, test split for held-out accuracy
    temperature: float
    max_new_tokens: int


WORKLOADS = {
    "arith": Workload("tiny:arith", "arith", 1.0, 8),
    "hot": Workload("tiny:arith", "arith", 1.5, 8),
    "long": Workload("tiny:arith-chain", "arith-chain", 1.0, 128),
}


def problems(workload: Workload, split: str, limit: int | None = None) -> list:
    from rlvr_core.data.registry import resolve

    return resolve(workload.dataset).source.generate(split)[:limit]


def heldout_accuracy(model, tokenizer, workload: Workload, n: int) -> float:
    from rlvr_core.models.tiny import greedy_accuracy

    return greedy_accuracy(model, tokenizer, problems(workload, "test", n), workload.max_new_tokens)


def steady_rates(step_ends: list[float], step_tokens: list[int]) -> dict[str, float]:
    """Samples and completion tokens per second from the end of the first step to the end of the last."""
    if len(step_ends) < 2:
        raise SystemExit(f"only {len(step_ends)} step(s) finished in the time given, no steady rate to measure: "
                         "raise --steps (the machine may be loaded)")
    seconds = step_ends[-1] - step_ends[0]
    return {"samples_per_s": (len(step_ends) - 1) * PROMPTS * GROUP / seconds,
            "tokens_per_s": sum(step_tokens[1:]) / seconds}


def step_profile(trace: list[dict], step_ends: list[float]) -> dict[str, float]:
    """Mean seconds per step (after the first) of each part of our step, as the trace records them: the wall
    time of a step; what the first replica's core was busy with (`trainer_seconds`: decode, reference
    log-probs in the update, update = policy forward and backward, gradient all-reduce including the wait for
    the other replica, optimizer); `idle`, the rest of the step, when that core waits for the driver
    (verification, batch building, trace) and Ray's calls; beside those, the reference log-probs prepared in
    a background thread while the core decodes or updates (`reference_ahead`), and the driver's
    verification wall time (`verify`)."""
    mean = {part: sum(s["trainer_seconds"][part] for s in trace) / len(trace) for part in (*BUSY, "reference_ahead")}
    mean["step"] = (step_ends[-1] - step_ends[0]) / (len(step_ends) - 1)
    mean["idle"] = mean["step"] - sum(mean[part] for part in BUSY)
    mean["verify"] = sum(s["seconds"]["verify"] for s in trace) / len(trace)
    return mean


def profile_line(row: dict) -> str:
    """`step_profile` as one line: each part's seconds and share of the step."""
    p = row["profile"]
    shares = ", ".join(f"{part} {p[part]:.3f} s ({p[part] / p['step']:.0%})" for part in (*BUSY, "idle"))
    return (f"profile of a {row['impl']} step (seed {row['seed']}, {p['step']:.3f} s), first replica: {shares}; "
            f"beside them: reference ahead {p['reference_ahead']:.3f} s, driver's verification {p['verify']:.3f} s")


def run_ours(model_dir: Path, workload: Workload, args: argparse.Namespace, seed: int, workdir: Path,
             layout: str) -> dict:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.config import load_config
    from rlvr_core.grpo import train
    from rlvr_core.grpo.trace import read_trace

    steps = args.steps
    config = load_config("tiny-arith", [
        f"model.name_or_path={model_dir}", f"storage.root={workdir / 'store'}", f"run.seed={seed}",
        f"data.train=[{{name: {workload.dataset}, split: train}}]",
        f"training.max_steps={steps}", "training.eval_every=0", f"checkpointing.every_steps={steps}",
        f"sampling.prompts_per_step={PROMPTS}", f"sampling.group_size={GROUP}",
        f"sampling.max_new_tokens={workload.max_new_tokens}", f"sampling.temperature={workload.temperature}",
        f"training.learning_rate={LR}", f"grpo.kl_beta={args.kl_beta}", "grpo.loss=grpo",
        "training.lr_schedule=constant", *LAYOUTS[layout], *args.ours_override])
    started, step_ends, step_tokens = time.perf_counter(), [], []

    def clock(record: dict) -> None:
        step_ends.append(time.perf_counter())
        step_tokens.append(record["tokens"])

    result = train(config, run_dir=workdir / f"ours-{layout}-{seed}", step_hooks=[clock])
    trace = read_trace(result.run_dir)
    first_step = next(s["seconds"]["total"] for s in trace if s["step"] == 1)
    model = AutoModelForCausalLM.from_pretrained(result.final_checkpoint)
    tokenizer = AutoTokenizer.from_pretrained(result.final_checkpoint)
    return {"impl": f"ours-{layout}", "seed": seed, "steps": steps,
            "loop_s": step_ends[-1] - step_ends[0] + first_step, "startup_s": step_ends[0] - first_step - started,
            **steady_rates(step_ends, step_tokens), "completion_len_mean": sum(step_tokens) / steps / PROMPTS / GROUP,
            "profile": step_profile(trace[1:], step_ends),
            "rows_merged_per_step": sum(s.get("rows_merged", 0) for s in trace) / steps,
            "rows_skipped_per_step": sum(s.get("rows_skipped", 0) for s in trace) / steps,
            "heldout": heldout_accuracy(model, tokenizer, workload, args.eval_problems)}


def run_trl(model_dir: Path, workload: Workload, budget_s: float, seed: int, workdir: Path, args: argparse.Namespace,
            processes: int) -> dict:
    """TRL's GRPOTrainer for `budget_s` of training-loop wall time, in this process or under torchrun."""
    if processes == 1:
        return trl_worker(model_dir, workload, budget_s, seed, workdir, args, processes=1)
    out = workdir / f"trl-{seed}.json"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}",
               __file__, "--trl-worker", str(out), "--workload", args.workload, "--seeds", str(seed),
               "--budget", str(budget_s), "--model-dir", str(model_dir), "--workdir", str(workdir),
               "--kl-beta", str(args.kl_beta), "--trl-attention", args.trl_attention,
               "--eval-problems", str(args.eval_problems)]
    subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return json.loads(out.read_text())


def trl_worker(model_dir: Path, workload: Workload, budget_s: float, seed: int, workdir: Path,
               args: argparse.Namespace, processes: int) -> dict:
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from rlvr_core.verifiers import verify

    rank = int(os.environ.get("RANK", 0))
    torch.set_num_threads(1 if processes > 1 else 2)
    train_problems = problems(workload, "train", 4000)
    by_prompt = {f"{p.prompt}\n": p for p in train_problems}
    data = Dataset.from_list([{"prompt": f"{p.prompt}\n"} for p in train_problems])
    step_tokens = [0]

    def reward(prompts, completions, completion_ids, **_):
        step_tokens[-1] += sum(len(ids) for ids in completion_ids)
        return [verify(c, by_prompt[p]).reward for p, c in zip(prompts, completions)]

    class WallClock(TrainerCallback):
        """Records step ends; stops every process together once rank 0's clock passes the budget."""

        def __init__(self):
            self.start, self.step_ends = None, []

        def on_train_begin(self, args, state, control, **kw):
            self.start = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            self.step_ends.append(time.perf_counter())
            step_tokens.append(0)
            stop = torch.tensor([float(self.step_ends[-1] - self.start >= budget_s)])
            if processes > 1:
                torch.distributed.broadcast(stop, src=0)
            if stop.item():
                control.should_training_stop = True

    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=args.trl_attention)
    config = GRPOConfig(output_dir=str(workdir / f"trl-{seed}"), per_device_train_batch_size=PROMPTS * GROUP // processes,
                        num_generations=GROUP, max_completion_length=workload.max_new_tokens, learning_rate=LR,
                        beta=args.kl_beta, temperature=workload.temperature, lr_scheduler_type="constant",
                        max_steps=100_000, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                        bf16=False, gradient_checkpointing=False, loss_type="grpo", seed=seed, disable_tqdm=True)
    clock = WallClock()
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=data,
                          processing_class=tokenizer, callbacks=[clock])
    trainer.train()
    tokens = step_tokens[:len(clock.step_ends)]
    if processes > 1:  # every process generated its share of each step's completions
        shares = torch.tensor(tokens, dtype=torch.float64)
        torch.distributed.all_reduce(shares)
        tokens = [int(t) for t in shares.tolist()]
    row = {"impl": "trl" if processes == 1 else f"trl-{processes}proc", "seed": seed, "steps": len(clock.step_ends),
           "loop_s": clock.step_ends[-1] - clock.start, "startup_s": clock.start - started,
           **steady_rates(clock.step_ends, tokens),
           "completion_len_mean": sum(tokens) / len(tokens) / PROMPTS / GROUP,
           "heldout": heldout_accuracy(trainer.model.eval(), tokenizer, workload, args.eval_problems)
           if rank == 0 else None}
    return row


def summary(impl: str, rows: list[dict], base: float) -> str:
    """Means over the seeds: each side's samples/s and tokens/s, the ratio, and held-out accuracy after the same
    wall time."""
    from statistics import mean

    ours = [r for r in rows if r["impl"] == impl]
    trl = [next(t for t in rows if t["impl"].startswith("trl") and t["seed"] == r["seed"]) for r in ours]
    ratios = [o["samples_per_s"] / t["samples_per_s"] for o, t in zip(ours, trl)]
    token_ratios = [o["tokens_per_s"] / t["tokens_per_s"] for o, t in zip(ours, trl)]
    return (f"mean over {len(ours)} seed(s): {impl} {mean(r['samples_per_s'] for r in ours):.1f} samples/s "
            f"({mean(r['tokens_per_s'] for r in ours):.0f} tokens/s) vs {trl[0]['impl']} "
            f"{mean(t['samples_per_s'] for t in trl):.1f} samples/s ({mean(t['tokens_per_s'] for t in trl):.0f} "
            f"tokens/s) = {mean(ratios):.2f}x samples/s, {mean(token_ratios):.2f}x tokens/s (per seed: "
            f"{', '.join(f'{x:.2f}' for x in ratios)}); held-out {mean(r['heldout'] for r in ours):.3f} vs TRL "
            f"{mean(t['heldout'] for t in trl):.3f} (start {base:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", choices=list(WORKLOADS), default="arith", help="what both sides train on")
    parser.add_argument("--steps", type=int, default=60, help="our training steps; TRL gets the same loop time")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--eval-problems", type=int, default=500, help="held-out problems (the test split's first N)")
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=["replicas"],
                        help="our trainer layouts to run (TRL gets the first one's loop time)")
    parser.add_argument("--kl-beta", type=float, default=0.04, help="KL penalty weight on both sides (0: no reference)")
    parser.add_argument("--trl-processes", type=int, choices=[1, 2], default=1,
                        help="1: one process on two threads (TRL's best here); 2: two single-threaded processes "
                             "under torchrun (DDP over gloo)")
    parser.add_argument("--trl-attention", choices=["eager", "sdpa"], default="eager",
                        help="TRL's attention kernel (eager is faster for the tiny model on CPU)")
    parser.add_argument("--ours-override", nargs="*", default=[],
                        help="extra dotted config overrides for our side, e.g. training.share_prompts=false "
                             "(to measure one optimisation against its plain computation)")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--trl-worker", type=Path, default=None, help=argparse.SUPPRESS)  # torchrun child: writes here
    parser.add_argument("--budget", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    workload = WORKLOADS[args.workload]

    if args.trl_worker is not None:
        row = trl_worker(args.model_dir, workload, args.budget, args.seeds[0], args.workdir, args,
                         processes=int(os.environ["WORLD_SIZE"]))
        if int(os.environ.get("RANK", 0)) == 0:
            args.trl_worker.write_text(json.dumps(row))
        return

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    model_dir = Path(resolve_model_path(workload.model, open_store(".rlvr/store")))
    base = heldout_accuracy(AutoModelForCausalLM.from_pretrained(model_dir), AutoTokenizer.from_pretrained(model_dir),
                            workload, args.eval_problems)
    print(f"workload {args.workload} ({workload.model} on {workload.dataset}, temperature {workload.temperature}, "
          f"up to {workload.max_new_tokens} new tokens): start held-out accuracy {base:.3f}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="grpo-vs-trl-") as tmp:
        for seed in args.seeds:
            ours = [run_ours(model_dir, workload, args, seed, Path(tmp), layout) for layout in args.layouts]
            for row in ours:
                print(json.dumps(row), flush=True)
                print(profile_line(row), flush=True)
            theirs = run_trl(model_dir, workload, ours[0]["loop_s"], seed, Path(tmp), args, args.trl_processes)
            print(json.dumps(theirs), flush=True)
            rows += [*ours, theirs]
    for seed in args.seeds:
        t = next(r for r in rows if r["seed"] == seed and r["impl"].startswith("trl"))
        for o in (r for r in rows if r["seed"] == seed and not r["impl"].startswith("trl")):
            print(f"seed {seed}: {o['impl']} {o['samples_per_s']:.1f} samples/s {o['tokens_per_s']:.0f} tokens/s, "
                  f"held-out {o['heldout']:.3f} | {t['impl']} {t['samples_per_s']:.1f} samples/s "
                  f"{t['tokens_per_s']:.0f} tokens/s, held-out {t['heldout']:.3f} | ratio "
                  f"{o['samples_per_s'] / t['samples_per_s']:.2f}x (start {base:.3f})")
    for impl in dict.fromkeys(r["impl"] for r in rows if not r["impl"].startswith("trl")):
        print(summary(impl, rows, base))
    if args.out:
        args.out.write_text(json.dumps({"workload": args.workload, "start_heldout": base, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
