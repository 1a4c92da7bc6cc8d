"""`python -m rlvr_core.devices plan CONFIG [overrides] [--gpus 2,2]`: print the device plan of a config.

Without `--gpus` the topology is this node's usable GPUs (NVML), or the Ray
cluster's with `--ray-address` (or RLVR_RAY_ADDRESS). Exit status 2 when the
config cannot run there (the message says why and the fix).
"""

from __future__ import annotations

import argparse
import os
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.devices",
        description="Show which GPUs a run of a config would train, generate and evaluate on, before starting it.",
        epilog="examples:\n  python -m rlvr_core.devices plan gsm8k --gpus 1          # one node, one GPU: refused\n"
               "  python -m rlvr_core.devices plan gsm8k training.colocate=true --gpus 1\n"
               "  python -m rlvr_core.devices plan gsm8k --gpus 8,8        # two nodes x 8 GPUs, one Ray cluster\n"
               "  python -m rlvr_core.devices plan gsm8k                   # this node's GPUs (NVML)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="print the device plan of CONFIG")
    plan.add_argument("config", help="a config path or a name in configs/, e.g. gsm8k")
    plan.add_argument("overrides", nargs="*", help="dotted section.field=value overrides")
    plan.add_argument("--gpus", help="GPUs per node, comma-separated (e.g. 2 or 8,8); default: discover them")
    plan.add_argument("--gpu-gib", type=float, default=None,
                      help="memory of each given GPU (default: training.gpu_memory_gib); only with --gpus")
    plan.add_argument("--ray-address", default=None,
                      help="read the topology from this Ray cluster (default: RLVR_RAY_ADDRESS when set)")
    plan.add_argument("--json", action="store_true", help="print the plan as device_plan.json would hold it")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from rlvr_core.config import ConfigError, load_config
    from rlvr_core.devices import DevicePlanError, plan_devices, render_plan
    from rlvr_core.devices import topology as topologies

    try:
        config = load_config(args.config, args.overrides)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    if args.gpus is not None:
        try:
            counts = [int(part) for part in args.gpus.split(",")]
        except ValueError:
            print(f"--gpus {args.gpus}: give GPU counts per node, e.g. 2 or 8,8", file=sys.stderr)
            return 2
        topology = topologies.given(counts, gpu_memory_gib=args.gpu_gib)
    else:
        topology = topologies.discover(args.ray_address or os.environ.get("RLVR_RAY_ADDRESS"))
    try:
        plan = plan_devices(config, topology)
    except DevicePlanError as err:
        print(f"refused: {err}", file=sys.stderr)
        return 2
    if args.json:
        import json

        print(json.dumps(plan.to_dict(), indent=2, sort_keys=True))
    else:
        print(render_plan(plan))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
