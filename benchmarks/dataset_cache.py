"""Benchmark: rows/s of writing and reading the dataset cache in a local store and an S3 store.

Generates N synthetic problems, then times `write_cache` (parquet
serialisation + atomic write + manifest) and `read_cache` (read + sha256 check
+ parse back to `Problem`s) against a temporary local store and against an
S3-compatible endpoint this script starts itself (moto's ThreadedMotoServer
on 127.0.0.1, fake credentials). The S3 figures therefore include real HTTP
and S3 request handling but not network latency to a remote region.

Prints one table row per (store, operation): best-of-repeats seconds, rows/s
and MB/s. Example:

    .venv/bin/python benchmarks/dataset_cache.py --rows 50000 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Stores: 'local' (a temp folder) and 's3' (a moto server started here; no AWS account needed).",
    )
    parser.add_argument("--rows", type=int, default=50_000, help="problems to cache (default 50000)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed repetitions per operation; best is shown (default 3)"
    )
    parser.add_argument(
        "--stores", default="local,s3", help="comma-separated stores to benchmark: local, s3 (default both)"
    )
    args = parser.parse_args(argv)
    if args.rows < 1 or args.repeats < 1:
        parser.error("--rows and --repeats must be at least 1")
    unknown = set(args.stores.split(",")) - {"local", "s3"}
    if unknown:
        parser.error(f"unknown store(s) {sorted(unknown)}; choose from local, s3")
    return args


def synthetic_problems(n: int, seed: int = 0) -> list:
    """`n` distinct addition problems with arith-like fields (arith itself has only ~8k)."""
    from rlvr_core.problem import Problem

    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b = rng.randint(10, 10**6), rng.randint(10, 10**6)
        out.append(
            Problem(
                id=f"bench-{i}",
                source="bench",
                prompt=f"What is {a} + {b}?",
                answer=str(a + b),
                verifier="math",
                category="addition",
                difficulty=str(len(str(a + b))),
                extra={"a": a, "b": b},
            )
        )
    return out


def best_of(repeats: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_store(label: str, store, problems: list, repeats: int) -> list[tuple]:
    from rlvr_core.data import cache

    def write() -> None:
        cache.write_cache(store, "bench", "train", problems, source="benchmark", revision=None)

    def read() -> None:
        cached = cache.read_cache(store, "bench", "train")
        assert cached is not None and len(cached.problems) == len(problems)

    write_s = best_of(repeats, write)
    read_s = best_of(repeats, read)
    size_mb = len(store.read_bytes(cache.cache_path("bench", "train", cache.DATA_FILE))) / 2**20
    return [(label, op, len(problems), size_mb, s) for op, s in (("write", write_s), ("read", read_s))]


def start_moto() -> tuple[object, str]:
    """A moto S3 server on a free local port, with fake credentials in this process's env."""
    from moto.server import ThreadedMotoServer

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server, f"http://127.0.0.1:{port}"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from rlvr_core.data.cache import problems_to_parquet
    from rlvr_core.storage import Store

    problems = synthetic_problems(args.rows)
    serialise_s = best_of(args.repeats, lambda: problems_to_parquet(problems))
    rows = []
    if "local" in args.stores:
        with tempfile.TemporaryDirectory() as tmp:
            rows += bench_store("local", Store(tmp), problems, args.repeats)
    if "s3" in args.stores:
        import logging

        import boto3

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        server, endpoint = start_moto()
        try:
            boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="bench")
            rows += bench_store(
                "s3 (moto, localhost)", Store("s3://bench/store", endpoint_url=endpoint), problems, args.repeats
            )
        finally:
            server.stop()

    print(
        f"dataset cache benchmark: {args.rows} problems, best of {args.repeats}; "
        f"parquet serialisation alone {args.rows / serialise_s:,.0f} rows/s"
    )
    print(f"{'store':<22} {'op':<6} {'rows':>8} {'MB':>7} {'seconds':>8} {'rows/s':>11} {'MB/s':>7}")
    for label, op, n, mb, s in rows:
        print(f"{label:<22} {op:<6} {n:>8} {mb:>7.2f} {s:>8.3f} {n / s:>11,.0f} {mb / s:>7.1f}")


if __name__ == "__main__":
    main()
