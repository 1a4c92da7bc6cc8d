"""`python -m rlvr_core.evaluation MODEL BENCHMARK --out DIR`: one evaluation, resumable, from the shell."""

from __future__ import annotations

import argparse
import json
import sys

from rlvr_core.evaluation.benchmarks import benchmark_names, get_benchmark
from rlvr_core.evaluation.settings import STANDARD, parse_override_args


def build_parser() -> argparse.ArgumentParser:
    standard = ", ".join(f"{k}={v}" for k, v in STANDARD.to_dict().items())
    benches = "\n".join(f"  {name:<10} {get_benchmark(name).description}" for name in benchmark_names())
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.evaluation",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evaluate a model on a benchmark; writes completions.jsonl, results.jsonl and summary.json "
                    "to --out. Rerunning the same command resumes an interrupted run, and returns a finished "
                    "one without recomputing.",
        epilog=f"benchmarks:\n{benches}\n\nenforced settings: {standard} (float32 on CPU).\n"
               "Change them only with --override NAME=VALUE; the summary records every override.\n\n"
               "examples:\n  python -m rlvr_core.evaluation tiny:arith arith --out /tmp/eval --limit 50\n"
               "  python -m rlvr_core.evaluation runs/x/checkpoints/step-000050 gsm8k --out runs/x/evals/step-000050/gsm8k\n"
               "  python -m rlvr_core.evaluation Qwen/Qwen3-1.7B gsm8k --backend openai "
               "--base-url http://localhost:8000/v1 --out /tmp/q\n"
               "  python -m rlvr_core.evaluation Qwen/Qwen3-8B webextract --backend openai --openai-mode chat "
               "--base-url http://localhost:8000/v1 --out /tmp/w --limit 72\n"
               "  python -m rlvr_core.evaluation oracle webextract --backend webextract-oracle --out /tmp/oracle",
    )
    parser.add_argument("model", help="checkpoint or HF folder, 'tiny:arith', a store URI, or the endpoint's model "
                                      "name with --backend openai")
    parser.add_argument("benchmark", choices=benchmark_names(), metavar="BENCHMARK", help="benchmark name (see below)")
    parser.add_argument("--out", required=True, help="output folder for the three files")
    parser.add_argument("--limit", type=int, default=None, help="evaluate only the first N items")
    scripted = sorted({name for b in benchmark_names() for name in get_benchmark(b).policies})
    parser.add_argument("--backend", choices=["hf", "vllm", "openai", *scripted], default="hf",
                        help="generation backend, or a benchmark's scripted policy (" + ", ".join(scripted) + ")")
    parser.add_argument("--device", default="auto", help="auto (GPU if present), cpu or cuda")
    parser.add_argument("--batch-size", type=int, default=64, help="prompts per generation batch (and per write)")
    parser.add_argument("--store", default=None, help="dataset/model store (local folder or s3://...)")
    parser.add_argument("--base-url", default=None, help="--backend openai: the endpoint, e.g. http://host:8000/v1")
    parser.add_argument("--openai-mode", choices=["completions", "chat"], default=None,
                        help="--backend openai: raw prompts (completions, the default) or chat messages (chat)")
    parser.add_argument("--override", action="append", default=[], metavar="NAME=VALUE",
                        help="explicitly change an enforced setting (repeatable); recorded in the summary")
    parser.add_argument("--pass-threshold", type=float, default=0.5, help="reward counted as a pass (pass_rate)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from rlvr_core.evaluation.runner import evaluate

    try:
        overrides = parse_override_args(args.override)
        summary = evaluate(
            args.model, args.benchmark, output_dir=args.out, backend=args.backend, limit=args.limit,
            device=args.device, batch_size=args.batch_size, settings_override=overrides or None, store=args.store,
            backend_options={k: v for k, v in (("base_url", args.base_url), ("mode", args.openai_mode)) if v} or None,
            pass_threshold=args.pass_threshold, progress=not args.no_progress,
        )
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    shown = {k: summary[k] for k in ("benchmark", "n", "primary_metric", "metrics", "settings_overridden")}
    print(json.dumps(shown, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
