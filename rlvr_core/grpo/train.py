"""Command line: `python -m rlvr_core.grpo.train CONFIG [dotted=overrides ...] [--run-dir DIR] [--resume RUN_DIR]`.

stdout carries one human summary line per step plus machine lines for the
orchestrator: `@@rlvr-progress {...}` after every step and
`@@rlvr-event {...}` after every checkpoint publish. The progress bar goes to
stderr. Heavy imports happen after argument parsing, so `--help` is instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rlvr_core.rundir import layout
from rlvr_core.rundir.markers import EVENT_PREFIX, PROGRESS_PREFIX


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.grpo.train",
        description="Train a policy with GRPO on Ray (trainer actor + rollout workers + verifier pool). "
                    "Writes a run folder (config.yaml, run.json, device_plan.json, patches/, traces/, checkpoints/, "
                    "RESULTS.md, reward_curve.png). The GPUs it uses follow the run folder's device_plan.json "
                    "(written by the train-and-eval flow), else a plan made at start from this node's GPUs "
                    "(see `python -m rlvr_core.devices plan CONFIG`).",
        epilog="examples:\n  python -m rlvr_core.grpo.train tiny-arith training.max_steps=20\n"
               "  python -m rlvr_core.grpo.train configs/gsm8k.yaml training.max_staleness=1 --run-dir runs/a\n"
               "  python -m rlvr_core.grpo.train --resume .rlvr/runs/tiny-arith_20260101-120000\n"
               "Joins an existing Ray cluster when RAY_ADDRESS (or training.ray_address) is set.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", help="config file or name in configs/ (omit with --resume)")
    parser.add_argument("overrides", nargs="*", help="dotted overrides, e.g. training.max_steps=20 grpo.loss=dapo")
    parser.add_argument("--run-dir", type=Path, help="write the run here instead of <run.runs_dir>/<name>_<time>")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR",
                        help="continue the run in RUN_DIR from its newest checkpoint (its config.yaml is used; "
                             "overrides still apply, e.g. a larger training.max_steps); trace rows written after "
                             "that checkpoint are dropped; with no checkpoint yet, the run restarts from step 0")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    if args.resume is None and args.config is None:
        parser.error("give a CONFIG (or --resume RUN_DIR)")
    if args.resume is not None and args.config is not None and "=" in args.config:
        args.overrides.insert(0, args.config)
        args.config = None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from rlvr_core.config import ConfigError, load_config
    from rlvr_core.devices import DevicePlanError
    from rlvr_core.evaluation.jsonl import CorruptJsonlError
    from rlvr_core.grpo.cluster import RayTempDirError
    from rlvr_core.grpo.driver import train
    from rlvr_core.grpo.driver_session import ResumeError
    from rlvr_core.paths import UnsharedFolderError
    from rlvr_core.devices.gpu_locks import GpuBusyError

    try:
        if args.resume is not None:
            config = load_config(layout.config_path(args.resume), args.overrides)
        else:
            config = load_config(args.config, args.overrides)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=config.training.max_steps, file=sys.stderr, desc="grpo", unit="step", dynamic_ncols=True)

    def on_step(record: dict) -> None:
        line = (f"step {record['step']}/{config.training.max_steps} reward {record['reward_mean']:.3f} "
                f"pass {record['pass_rate']:.3f} loss {record['loss']:+.4f} kl {record['kl']:.4f} "
                f"clip {record['clip_fraction']:.3f} gnorm {record['grad_norm']:.3f} "
                f"stale {record['staleness']} {record['seconds']['total']:.2f}s")
        if record.get("heldout_accuracy") is not None:
            line += f" heldout {record['heldout_accuracy']:.3f}"
        print(line, flush=True)
        progress = {"step": record["step"], "max_steps": config.training.max_steps,
                    "reward_mean": record["reward_mean"], "pass_rate": record["pass_rate"],
                    "heldout_accuracy": record.get("heldout_accuracy"), "step_seconds": record["seconds"]["total"]}
        print(PROGRESS_PREFIX + json.dumps(progress), flush=True)
        if bar is not None:
            bar.n = record["step"]
            bar.set_postfix(reward=f"{record['reward_mean']:.3f}")
            bar.refresh()

    def on_checkpoint(event: dict) -> None:
        print(EVENT_PREFIX + json.dumps(event), flush=True)

    try:
        result = train(config, run_dir=args.resume or args.run_dir, hooks=[on_checkpoint],
                       resume=args.resume is not None, step_hooks=[on_step])
    # The run folder or the machines, not the code: one message with the fix, like a bad config, before any model
    # loads (the device plan refuses a config its GPUs cannot run).
    except (ResumeError, CorruptJsonlError, DevicePlanError, UnsharedFolderError, RayTempDirError,
            GpuBusyError) as err:
        print(f"rlvr train: {err}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    print(f"run folder: {result.run_dir}  final checkpoint: {result.final_checkpoint}  "
          f"held-out: {result.heldout[0][1] if result.heldout else None} -> "
          f"{result.heldout[-1][1] if result.heldout else None}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
