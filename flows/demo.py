"""`make demo` / `python -m flows.demo`: the whole pipeline on CPU in minutes, then the report in the terminal.

Runs the `train-and-eval` flow on configs/tiny-arith.yaml: cache the offline
arith data -> build (or reuse) the tiny model -> GRPO -> evaluate each
checkpoint as it is published -> evaluate the base model -> report (base vs
trained, with confidence intervals), printed here and saved in the run folder.

No server is needed: Prefect runs with a temporary local API, and its state
(database, results) goes to .rlvr/prefect/demo. Checkpoint evaluations start
while training runs because the flow watches the run's checkpoints folder;
the event-driven `eval-checkpoint/on-arrival` deployment is what `make up` adds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rlvr_core.rundir.layout import report_path

STATE_DIR = Path(".rlvr/prefect/demo")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m flows.demo",
        description=__doc__.split("\n\n")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m flows.demo\n  python -m flows.demo --max-steps 40\n"
               "  python -m flows.demo --override training.learning_rate=5e-5 --override run.seed=1\n"
               "  python -m flows.demo --config tiny-arith-vllm   # vLLM (CPU build) rollouts and evaluations",
    )
    parser.add_argument("--config", default="tiny-arith", help="config name in configs/ or a path (default: tiny-arith)")
    parser.add_argument("--max-steps", type=int, default=None, help="GRPO steps (default: the config's training.max_steps)")
    parser.add_argument("--override", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help="config override, repeatable (e.g. checkpointing.every_steps=25)")
    parser.add_argument("--benchmarks", nargs="+", default=None, help="benchmarks to evaluate (default: the config's)")
    parser.add_argument("--no-base", action="store_true", help="skip evaluating the base model")
    parser.add_argument("--state-dir", type=Path, default=STATE_DIR,
                        help=f"Prefect home for this demo: database and task results (default: {STATE_DIR})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _use_local_prefect_state(args.state_dir)
    from flows.train_and_eval import train_and_eval  # after the environment is set: Prefect reads it on import
    from rlvr_core.config import ConfigError

    started = time.perf_counter()
    try:
        result = train_and_eval(args.config, args.override, args.max_steps, args.benchmarks,
                                evaluate_base=not args.no_base)
    except ConfigError as err:
        print(f"\nconfig error:\n{err}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    print("\n" + result["report"])
    print(f"\nrun folder: {result['run_dir']}")
    print(f"report:     {report_path(result['run_dir'])}")
    print(f"wall time:  {elapsed:.0f} s ({_time_split(result['seconds'], elapsed)})")
    return 0


def _time_split(seconds: dict[str, float], elapsed: float) -> str:
    """Where the time went; evaluations run beside training, so their own time is shown inside it."""
    beside = seconds.get("evaluations (beside training)", 0.0)
    parts = [f"setup and datasets {seconds.get('setup', 0):.0f} s", f"model {seconds.get('model', 0):.0f} s",
             f"training {seconds.get('training', 0):.0f} s (evaluations beside it {beside:.0f} s)",
             f"evaluations after training {seconds.get('evals after training', 0):.0f} s",
             f"report {seconds.get('report', 0):.0f} s"]
    accounted = sum(v for k, v in seconds.items() if k != "evaluations (beside training)")
    parts.append(f"Prefect start-up and other {max(0.0, elapsed - accounted):.0f} s")
    return "; ".join(parts)


def _use_local_prefect_state(state_dir: Path) -> None:
    """A private PREFECT_HOME (unless the user points at a server) so the demo never needs or touches one."""
    os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "rlvr_core")  # core progress lines in the flow's log
    if os.environ.get("PREFECT_API_URL"):
        return
    home = state_dir.resolve()
    home.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_HOME", str(home))
    os.environ.setdefault("PREFECT_LOCAL_STORAGE_PATH", str(home / "storage"))
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # The temporary API migrates a fresh database on first start; on a busy 2-core machine that
    # can take longer than Prefect's 20 s default.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")


if __name__ == "__main__":
    sys.exit(main())
