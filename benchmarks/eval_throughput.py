"""Evaluation throughput: the hf backend's batched greedy generation vs one prompt at a time.

    .venv/bin/python benchmarks/eval_throughput.py [--model tiny:arith|DIR] [--items 128] [--batch-size 64]

Workload: the first --items prompts of the `arith` benchmark, exactly as
`evaluate` builds them (template "{prompt}\\n", greedy, 8 new tokens). Both
arms use the same loaded model; each is warmed up once, then timed over
--repeats runs (median). Prints items/s of each, their ratio, and how many
greedy completions agree between the two (left padding must not change them).
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="tiny:arith", help="'tiny:arith' (built or reused from --store) or a folder")
    parser.add_argument("--store", default=None, help="store for the tiny model and the arith data")
    parser.add_argument("--items", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    from rlvr_core.evaluation.benchmarks import get_benchmark, load_benchmark_problems
    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    store = open_store(args.store)
    bench = get_benchmark("arith")
    prompts = [bench.prompt(p) for p in load_benchmark_problems(bench, store=store, limit=args.items)]
    params = SamplingParams(max_new_tokens=bench.max_new_tokens, temperature=0.0, seed=42, stop=bench.stop)
    backend = create_backend("hf", resolve_model_path(args.model, store), device=args.device,
                             batch_size=args.batch_size)

    def batched() -> list[str]:
        return [g.text for g in backend.generate(prompts, params)]

    def one_at_a_time() -> list[str]:
        return [backend.generate([p], params)[0].text for p in prompts]

    results = {}
    for name, fn in (("batched", batched), ("one-at-a-time", one_at_a_time)):
        fn()  # warm-up (allocator, kernels)
        times, texts = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            texts = fn()
            times.append(time.perf_counter() - start)
        results[name] = (len(prompts) / statistics.median(times), texts)
        print(f"{name:>14}: {results[name][0]:8.1f} items/s  (median of {args.repeats}, {len(prompts)} items, "
              f"device={backend.device}, batch_size={args.batch_size if name == 'batched' else 1})")
    agree = sum(a == b for a, b in zip(results["batched"][1], results["one-at-a-time"][1]))
    print(f"ratio batched / one-at-a-time: {results['batched'][0] / results['one-at-a-time'][0]:.1f}x")
    print(f"greedy completions identical in both arms: {agree}/{len(prompts)}")
    backend.close()


if __name__ == "__main__":
    main()
