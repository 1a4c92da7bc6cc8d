"""`rlvr`: one entry point over the module CLIs, so users need not remember module paths.

Each subcommand forwards its arguments to the module's own `main`, which owns
the `--help` text; the heavy imports happen only for the command that runs.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "config": ("rlvr_core.config.__main__", "validate configs, list fields"),
    "train": ("rlvr_core.grpo.train", "GRPO training from a config"),
    "eval": ("rlvr_core.evaluation.__main__", "evaluate a model or checkpoint on a benchmark"),
    "report": ("rlvr_core.reports.__main__", "rebuild report tables for run or eval folders"),
    "serve": ("rlvr_core.serve", "serve a model behind an OpenAI-compatible API"),
    "tiny-model": ("rlvr_core.models.__main__", "build the offline tiny model into the store"),
    "sagemaker": ("rlvr_core.cloud.sagemaker_cli", "submit, describe or stop a SageMaker training job"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: rlvr COMMAND [ARGS...]   (rlvr COMMAND --help for details)", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in {"-h", "--help"}:
        print(usage())
        return 0
    if args[0] not in COMMANDS:
        print(f"rlvr: unknown command {args[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[args[0]][0])
    sys.argv = [f"rlvr {args[0]}", *args[1:]]
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
