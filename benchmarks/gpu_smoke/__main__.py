"""`python -m benchmarks.gpu_smoke` (`make gpu-smoke`): the GPU smoke test's command line; see __init__.py."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from . import __doc__ as DESCRIPTION
from .phases import PHASES, select
from .runner import ResultsFile, exit_status, run_phases, summary_table
from .shape import SHAPES

DEFAULT_BUDGET_S = 420.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_smoke", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", default=",".join(p.name for p in PHASES),
                        help="comma-separated phases to run (with what they need), in the order above "
                             "(default: all)")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S,
                        help=f"seconds for the whole run (default {DEFAULT_BUDGET_S:.0f})")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for results.json (default: $RLVR_SMOKE_OUT, else $OUT, else "
                             ".rlvr/gpu-smoke/<time>)")
    parser.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto",
                        help="auto: cuda when torch sees a GPU, else cpu")
    parser.add_argument("--shape", choices=sorted(SHAPES), default=None,
                        help="the trained model's shape (default: qwen3-1.7b on cuda, reduced on cpu)")
    parser.add_argument("--steps", type=int, default=3, help="GRPO steps of the trainer and tiny phases (default 3)")
    parser.add_argument("--learning-rate", type=float, default=1e-3,
                        help="the trainer phase's learning rate: large enough that a step moves bf16 weights, so "
                             "the sync probe can tell a stale engine (default 1e-3)")
    parser.add_argument("--tiny-model", type=Path, default=None,
                        help="a built tiny model folder to reuse (default: build it, or find it in .rlvr/store)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="where the large scratch files go (default: a new folder in the system temp)")
    parser.add_argument("--keep-work", action="store_true", help="keep the scratch folder at the end")
    args = parser.parse_args(argv)
    try:
        args.phases = select([name for name in args.phases.split(",") if name])
    except ValueError as err:
        parser.error(f"--phases: {err}")
    if args.steps < 1:
        parser.error(f"--steps {args.steps}: must be >= 1")
    return args


def output_folder(given: Path | None) -> Path:
    for candidate in (given, os.environ.get("RLVR_SMOKE_OUT"), os.environ.get("OUT")):
        if candidate:
            return Path(candidate)
    return Path(".rlvr/gpu-smoke") / datetime.now().strftime("%Y%m%d-%H%M%S")


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the host has no network: never wait on the hub
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    from .context import Smoke

    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    shape = SHAPES[args.shape or ("qwen3-1.7b" if device == "cuda" else "reduced")]
    out = output_folder(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="rlvr-gpu-smoke-"))
    work.mkdir(parents=True, exist_ok=True)
    ctx = Smoke(device=device, shape=shape, out=out, work=work, steps=args.steps, learning_rate=args.learning_rate,
                tiny_model=args.tiny_model)
    record = ResultsFile(out / "results.json", {
        "command": ["python", "-m", "benchmarks.gpu_smoke", *(sys.argv[1:] if argv is None else argv)],
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "device": device,
        "shape": shape.name, "budget_s": args.budget, "steps": args.steps, "learning_rate": args.learning_rate})
    print(f"GPU smoke test: {device}, shape {shape.name}, budget {args.budget:.0f} s, results in {record.path}",
          flush=True)
    try:
        results = run_phases(args.phases, ctx, record, args.budget - (time.monotonic() - started),
                             report=lambda r: print(f"[{r.status}] {r.name} ({r.seconds:.1f} s): "
                                                    f"{r.error or r.summary}", flush=True))
    finally:
        ctx.close_backend()
        ctx.trainer = None
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
    status = exit_status(results)
    record.write(exit_status=status)
    print(f"\n{summary_table(results)}\n")
    print(f"exit {status}: " + ("every phase that ran passed" if status == 0 else "a phase failed (above)") +
          f"; {time.monotonic() - started:.0f} s; {record.path}", flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
