"""`python -m rlvr_core.config validate FILE [overrides]` and `... fields`.

`validate` prints the resolved config (YAML) on stdout and `OK: ...` on
stderr, exit 0; or, exit 2, one line per problem on stderr and nothing on
stdout. Usage mistakes are one line too.
"""

from __future__ import annotations

import argparse
import sys

import yaml

from rlvr_core.config.experiment import ExperimentConfig
from rlvr_core.config.loader import ConfigError, load_config


def _print_fields(model: type, prefix: str = "") -> None:
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            print(f"{prefix}{name}:  {field.description or ''}")
            _print_fields(annotation, prefix + name + ".")
        else:
            default = "required" if field.is_required() else f"default {field.get_default(call_default_factory=True)!r}"
            print(f"  {prefix}{name}  ({default})  {field.description or ''}")


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (like every config problem), exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = " (an override that starts with '-' goes after `--`)" if "unrecognized" in message else ""
        self.exit(2, f"{self.prog}: {' '.join(message.split())}. Fix: see `{self.prog} --help`{hint}\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m rlvr_core.config", description="Check experiment configs.")
    sub = parser.add_subparsers(dest="command", required=True)
    validate = sub.add_parser("validate", help="Validate a config file and print it resolved.")
    validate.add_argument("config", help="Path, or a name in configs/ (e.g. tiny-arith).")
    validate.add_argument("overrides", nargs="*", help="dotted.path=value overrides, e.g. training.max_steps=20")
    validate.add_argument("--quiet", action="store_true", help="Print only OK or the errors.")
    sub.add_parser("fields", help="List every config field with its default and meaning.")
    args = parser.parse_args(argv)
    if args.command == "fields":
        _print_fields(ExperimentConfig)
        return 0
    try:
        config = load_config(args.config, args.overrides)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    if not args.quiet:
        print(yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False), end="")
    print(f"OK: {args.config} (hash {config.config_hash()})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
