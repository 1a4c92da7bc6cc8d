"""pass@k and maj@k: n samples per prompt at temperature T, verified, sharded, resumable, merged.

Estimator (Chen et al. 2021, "Evaluating Large Language Models Trained on
Code"): with c correct among n samples, pass@k = 1 - C(n-c, k) / C(n, k), the
probability that k samples drawn without replacement contain a correct one.
The binomials overflow floats for n in the hundreds, so it is computed as the
product 1 - prod_{i=n-c+1}^{n} (1 - k/i), which only multiplies numbers in [0, 1].

maj@k: the majority answer among the first k samples (ties -> the answer seen
first) is checked; answers are compared after extraction (the math
verifier's final-answer rules), so "#### 12" and "\\boxed{12}" vote together.

Sharding: shard i of m takes the items whose index % m == i and writes
`<out>/shards/shard-i-of-m/samples.jsonl` (appended per batch, so a killed
shard resumes); `merge_pass_at_k` checks every shard finished under the same
settings and writes `<out>/pass_at_k.json`. `launch_shards` runs the m shards
as processes, one free GPU each where there are GPUs.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rlvr_core.evaluation.benchmarks import Benchmark, get_benchmark, load_benchmark_problems
from rlvr_core.evaluation.jsonl import JsonlAppender, read_records
from rlvr_core.evaluation.scoring import breakdown_keys
from rlvr_core.evaluation.settings import stable_hash
from rlvr_core.progress import Progress
from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_json_atomic

logger = logging.getLogger(__name__)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for c correct of n samples; ValueError unless 0 <= c <= n and 1 <= k <= n."""
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def majority_correct(answers: Sequence[str | None], correct: Sequence[bool], k: int) -> bool:
    """Whether the most common answer among the first k samples is correct (unparsed answers do not vote)."""
    votes = [(a, ok) for a, ok in zip(answers[:k], correct[:k]) if a]
    if not votes:
        return False
    counts = Counter(a for a, _ in votes)
    best = max(counts.values())
    winner = next(a for a, _ in votes if counts[a] == best)
    return next(ok for a, ok in votes if a == winner)


def answer_key(benchmark: Benchmark, completion: str, verifier: str) -> str | None:
    """The final answer a completion votes for (math verifier: the extracted answer), else its stripped text."""
    text = benchmark.filters[0][1](completion)
    if verifier == "math":
        from rlvr_core.verifiers.math.extract import extract_answer

        found = extract_answer(text)
        return "".join(found[0].split()) if found else None
    return text.strip() or None


def run_pass_at_k(
    model: str, benchmark: str, *, output_dir: Path | str, n: int = 16, temperature: float = 0.8, top_p: float = 0.95,
    shard: int = 0, shards: int = 1, limit: int | None = None, seed: int = 42, backend: str = "hf",
    device: str = "auto", batch_size: int = 8, store: Any = None, backend_options: dict[str, Any] | None = None,
    verifier_workers: int = 2, progress: bool = True, store_endpoint_url: str | None = None,
) -> Path:
    """Sample and verify n completions for this shard's items; returns the shard folder (resumes if present).

    `store` is a Store, or a root URI opened with `store_endpoint_url` (an S3-compatible endpoint)."""
    from rlvr_core.evaluation.runner import resolve_model, resolve_device
    from rlvr_core.evaluation.scoring import score_completions
    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.storage import open_store
    from rlvr_core.verifiers import VerifierPool

    if not 0 <= shard < shards:
        raise ValueError(f"shard={shard} must be in [0, shards={shards})")
    bench = get_benchmark(benchmark)
    store = open_store(store, store_endpoint_url) if store is None or isinstance(store, str) else store
    problems = load_benchmark_problems(bench, store=store, limit=limit)
    mine = [i for i in range(len(problems)) if i % shards == shard]
    settings = {"model": model, "benchmark": bench.name, "n": n, "temperature": temperature, "top_p": top_p,
                "seed": seed, "limit": limit, "items": len(problems), "shards": shards, "backend": backend,
                "max_new_tokens": bench.max_new_tokens}
    folder = layout.pass_at_k_shard_dir(output_dir, shard, shards)
    folder.mkdir(parents=True, exist_ok=True)
    key_file = folder / layout.PASS_AT_K_SETTINGS
    if key_file.exists() and json.loads(key_file.read_text())["settings"] != settings:
        raise ValueError(f"{folder} was sampled with other settings; use another output_dir or delete it")
    write_json_atomic(key_file, {"settings": settings, "key": stable_hash(settings)}, sort_keys=False)
    done = {r["index"] for r in read_records(folder / layout.PASS_AT_K_SAMPLES)}
    todo = [i for i in mine if i not in done]
    if not todo:
        return folder
    model_path = resolve_model(model, backend, store)
    device = "remote" if backend == "openai" else resolve_device(device)
    engine = create_backend(backend, model_path, device=device, seed=seed,
                            **({"batch_size": batch_size * n} if backend == "hf" else {}), **(backend_options or {}))
    try:
        with VerifierPool(workers=verifier_workers) as pool, JsonlAppender(folder / layout.PASS_AT_K_SAMPLES) as log, \
                Progress(len(mine), f"pass@k {bench.name} shard {shard}/{shards}", logger, unit="item",
                         initial=len(mine) - len(todo), bar=None if progress else False) as bar:
            for start in range(0, len(todo), batch_size):
                chunk = todo[start : start + batch_size]
                # Seeded by the batch's first item so a resumed shard redraws exactly the lost batch.
                params = SamplingParams(max_new_tokens=bench.max_new_tokens, temperature=temperature, top_p=top_p,
                                        n=n, seed=seed * 1_000_003 + chunk[0], stop=bench.stop)
                generations = engine.generate([bench.prompt(problems[i]) for i in chunk], params)
                texts = [g.text for g in generations]
                expanded = [problems[i] for i in chunk for _ in range(n)]
                scored = score_completions(bench, expanded, texts, pool)
                records = []
                for j, i in enumerate(chunk):
                    block = scored[j * n : (j + 1) * n]
                    rewards = [s["reward"] for s in block]
                    mine = texts[j * n : (j + 1) * n]
                    records.append({"index": i, "id": problems[i].id, **breakdown_keys(problems[i]),
                                    "completions": mine, "rewards": rewards,
                                    "answers": [answer_key(bench, t, problems[i].verifier) for t in mine]})
                log.append(records)
                bar.update(len(chunk))
    finally:
        engine.close()
    return folder


def merge_pass_at_k(output_dir: Path | str, *, k_values: Sequence[int] | None = None,
                    threshold: float = 1.0) -> dict[str, Any]:
    """Combine every shard into `pass_at_k.json`; ValueError if a shard is missing, unfinished or inconsistent."""
    out = Path(output_dir)
    folders = sorted(layout.pass_at_k_shards_dir(out).glob("shard-*-of-*"))
    if not folders:
        raise ValueError(f"no shards under {out / 'shards'}; run run_pass_at_k first")
    settings = [json.loads((f / layout.PASS_AT_K_SETTINGS).read_text())["settings"] for f in folders]
    if any(s != settings[0] for s in settings):
        raise ValueError(f"shards under {out / 'shards'} were sampled with different settings; rerun them alike")
    first = settings[0]
    expected = {f"shard-{i}-of-{first['shards']}" for i in range(first["shards"])}
    if {f.name for f in folders} != expected:
        raise ValueError(f"shards present {sorted(f.name for f in folders)} but expected {sorted(expected)}")
    records = {r["index"]: r for f in folders for r in read_records(f / layout.PASS_AT_K_SAMPLES)}
    if len(records) != first["items"]:
        raise ValueError(f"shards hold {len(records)} of {first['items']} items; resume the unfinished shards")
    n = first["n"]
    ks = sorted(set(k_values or [k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256) if k <= n] + [n]))
    per_item = []
    for index in sorted(records):
        r = records[index]
        correct = [x >= threshold for x in r["rewards"]]
        per_item.append({"c": sum(correct), "maj": {k: majority_correct(r["answers"], correct, k) for k in ks},
                         "category": r.get("category")})
    result = {
        "benchmark": first["benchmark"], "n_items": len(per_item), "samples_per_item": n, "settings": first,
        "correct_threshold": threshold,
        "pass_at_k": {str(k): sum(pass_at_k(n, it["c"], k) for it in per_item) / len(per_item) for k in ks},
        "maj_at_k": {str(k): sum(it["maj"][k] for it in per_item) / len(per_item) for k in ks},
    }
    write_json_atomic(out / layout.PASS_AT_K_RESULT, result)
    return result


def launch_shards(model: str, benchmark: str, *, output_dir: Path | str, shards: int, extra_args: Sequence[str] = (),
                  gpus: Sequence[int] | None = None) -> dict[str, Any]:
    """Run `shards` shard processes in parallel (each pinned to one GPU of `gpus`, or the free ones), then merge."""
    if gpus is None:
        from rlvr_core.devices.gpu_state import free_gpu_indices

        gpus = free_gpu_indices()
    procs = []
    for i in range(shards):
        env = dict(os.environ)
        if gpus:
            env["CUDA_VISIBLE_DEVICES"] = str(gpus[i % len(gpus)])
        cmd = [sys.executable, "-m", "rlvr_core.evaluation.pass_at_k", model, benchmark, "--out", str(output_dir),
               "--shard", f"{i}/{shards}", "--no-merge", "--no-progress", *extra_args]
        procs.append(subprocess.Popen(cmd, env=env))
    failed = [i for i, p in enumerate(procs) if p.wait() != 0]
    if failed:
        raise RuntimeError(f"pass@k shards {failed} failed; rerun the same command to resume them")
    return merge_pass_at_k(output_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_core.evaluation.pass_at_k",
                                     description="pass@k / maj@k with n samples per item; sharded and resumable.")
    parser.add_argument("model")
    parser.add_argument("benchmark")
    parser.add_argument("--out", required=True)
    parser.add_argument("-n", type=int, default=16, help="samples per item")
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=8, help="prompts per generate call")
    parser.add_argument("--store", default=None)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--shard", default=None, help="i/m: run only shard i of m (otherwise --launch)")
    parser.add_argument("--launch", type=int, default=None, help="run this many shards in parallel, then merge")
    parser.add_argument("--no-merge", action="store_true", help="with --shard: do not merge afterwards")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    common = ["-n", str(args.n), "--temperature", str(args.temperature), "--top-p", str(args.top_p),
              "--batch-size", str(args.batch_size), "--device", args.device]
    common += (["--limit", str(args.limit)] if args.limit else []) + (["--store", args.store] if args.store else [])
    if args.launch:
        result = launch_shards(args.model, args.benchmark, output_dir=args.out, shards=args.launch, extra_args=common)
    else:
        shard, shards = (int(x) for x in (args.shard or "0/1").split("/"))
        run_pass_at_k(args.model, args.benchmark, output_dir=args.out, n=args.n, temperature=args.temperature,
                      top_p=args.top_p, shard=shard, shards=shards, limit=args.limit, batch_size=args.batch_size,
                      store=args.store, device=args.device, progress=not args.no_progress)
        if args.no_merge:
            return 0
        result = merge_pass_at_k(args.out)
    print(json.dumps({"pass_at_k": result["pass_at_k"], "maj_at_k": result["maj_at_k"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
