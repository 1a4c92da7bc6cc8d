"""`python -m rlvr_core.models [--store URI]`: build (or fetch) the tiny model and print its record."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from rlvr_core.models.tiny import ensure_tiny_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.models",
        description="Build the offline tiny model (Qwen3 architecture, char tokenizer, warmed up on arith) "
                    "into the store, or reuse the copy already there for the same recipe.")
    parser.add_argument("--store", default="./.rlvr/store", help="store root: a directory or s3://bucket/prefix")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from rlvr_core.storage import open_store

    folder = ensure_tiny_model(open_store(args.store))
    record = json.loads((folder / "tiny_model.json").read_text())
    print(json.dumps({"path": str(folder), "parameters": record["parameters"], "warmup_steps": record["steps"],
                      "held_out_accuracy": record["accuracy"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
