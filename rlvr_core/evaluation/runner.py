"""`evaluate(model, benchmark)`: generate, verify, and write the three files of an evaluation.

Files in `output_dir`:
- `completions.jsonl`: one record per item (index, id, prompt, completion, finish reason), appended per batch;
- `results.jsonl`: one record per item (reward, status, per-filter scores, breakdown keys), appended per batch;
- `summary.json`: metrics, n, settings, model content hash, git commit, written last (atomically).

Items are scored in the verifiers' reference mode (`verifier_mode` in the
summary): as the benchmarks' reference implementations score them, never in
the strict training mode, so the numbers stay comparable with published ones.

Resumable: after a crash (even SIGKILL mid-write) a rerun keeps every finished
batch, re-scores items that were generated but not scored, and generates only
the rest; a torn last line is dropped. Idempotent: the key hashes (model
content hash, benchmark, prompts, every item's content hash and the generator
versions they carry, settings, limit, backend); a folder whose finished
summary has the same key is returned without loading the model, and a folder
holding another key is refused rather than mixed. Items are hashed whole
(`data.cache.item_hash`: prompt, answer, and `extra`, which holds a generated
item's pages and version), so a generator change that keeps every prompt
(webextract's prompts name the page, not its content) is a new evaluation.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rlvr_core.data.cache import item_hash, items_digest
from rlvr_core.evaluation.benchmarks import Benchmark, get_benchmark, load_benchmark_problems
from rlvr_core.evaluation.identity import git_commit, model_identity
from rlvr_core.evaluation.jsonl import JsonlAppender, read_records
from rlvr_core.evaluation.metrics import DEFAULT_PASS_THRESHOLD, summarise_records
from rlvr_core.evaluation.scoring import score_completions
from rlvr_core.evaluation.settings import EvalSettings, apply_overrides, stable_hash
from rlvr_core.progress import Progress
from rlvr_core.rundir.atomic import write_json_atomic
from rlvr_core.rundir import layout

log = logging.getLogger(__name__)

VERIFIER_MODE = "reference"  # evaluations never use the strict training mode (see rlvr_core.verifiers.base)


class EvalFolderConflict(ValueError):
    """`output_dir` already holds (part of) an evaluation with a different key."""


def resolve_device(device: str) -> str:
    """"auto" -> "cuda" when a GPU is visible, else "cpu"."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_model(model: str, backend: str, store: Any) -> str:
    """A loadable local path for hf/vllm ("tiny:arith" and store URIs resolved); the name for openai."""
    if backend == "openai":
        return model
    from rlvr_core.models.resolve import resolve_model_path

    return resolve_model_path(model, store)


def _claim_folder(out: Path, key: str, key_payload: dict[str, Any]) -> dict[str, Any] | None:
    """The finished summary for `key` if there is one; otherwise mark the folder as ours (or refuse)."""
    out.mkdir(parents=True, exist_ok=True)
    summary_path, key_path = out / layout.EVAL_SUMMARY, out / layout.EVAL_KEY
    if summary_path.exists():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        if summary.get("key") == key:
            return summary
    if key_path.exists():
        existing = json.loads(key_path.read_text(encoding="utf-8")).get("key")
        if existing != key:
            raise EvalFolderConflict(
                f"output_dir {out} holds an evaluation with key {existing} (another model, benchmark, limit or "
                f"settings), not {key}. Fix: choose another output_dir, or delete {out} to start over."
            )
    elif (out / layout.EVAL_COMPLETIONS).exists() or (out / layout.EVAL_RESULTS).exists():
        raise EvalFolderConflict(f"output_dir {out} has eval files but no {layout.EVAL_KEY}. Fix: delete them or use "
                                 f"another folder.")
    write_json_atomic(key_path, {"key": key, **key_payload})
    return None


def items_identity(problems: list) -> dict[str, Any]:
    """What the evaluated items are, for the evaluation key: the digest of their content hashes, and the
    generator versions they carry (a generated dataset's items record theirs in `extra`)."""
    versions = sorted({str(p.extra["generator_version"]) for p in problems if "generator_version" in p.extra})
    return {"items_sha": items_digest([item_hash(p) for p in problems]), "generator_versions": versions}


def _batches(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _import(target: str) -> Any:
    """The object a "module:name" string names."""
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _scripted(bench: Benchmark, backend_name: str) -> Any:
    """The benchmark's scripted policy named `backend_name`, or None for a real backend."""
    return _import(bench.policies[backend_name])() if backend_name in bench.policies else None


def where_this_runs() -> dict[str, Any]:
    """Host, Ray node (inside a Ray worker) and visible GPUs of this process: where an evaluation ran, so a
    multi-node run's summaries show how evaluations were spread."""
    import socket

    node_id = None
    if "ray" in sys.modules:
        import ray

        node_id = ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
    return {"host": socket.gethostname(), "ray_node_id": node_id,
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}


def evaluate_on_gpu(gpu: int, *, device: str = "cuda", **kwargs: Any) -> dict[str, Any]:
    """`evaluate(**kwargs)` in a fresh process that sees only GPU `gpu` (CUDA_VISIBLE_DEVICES); returns its summary.

    An in-process vLLM engine always takes the first visible device, and a process cannot change which
    devices it sees once CUDA is initialised, so local placement without Ray gives each evaluation its
    own process. `device` is what the child asks for ("cuda": its only GPU).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        return child.submit(_evaluate_seeing_one_gpu, str(gpu), device, kwargs).result()


def _evaluate_seeing_one_gpu(gpu: str, device: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    os.environ["CUDA_VISIBLE_DEVICES"] = gpu  # before anything initialises CUDA in this fresh process
    return evaluate(device=device, **kwargs)


def _backend_options(backend: str, settings: EvalSettings, batch_size: int) -> dict[str, Any]:
    if backend == "hf":
        return {"batch_size": batch_size}
    if backend == "vllm":
        if settings.tensor_parallel_size != 1:
            raise ValueError("settings_override.tensor_parallel_size: the vllm backend runs on one GPU (TP=1); "
                             "TP>1 has given badly wrong scores. Fix: drop the override")
        return {"max_model_len": settings.max_model_len, "gpu_memory_utilization": settings.gpu_memory_utilization,
                "batch_size": batch_size}  # the chunk of each durable write, and of each engine call
    return {}


def evaluate(
    model: str,
    benchmark: str,
    *,
    output_dir: Path | str,
    backend: str = "hf",
    limit: int | None = None,
    device: str = "auto",
    batch_size: int = 64,
    settings_override: dict[str, Any] | None = None,
    store: Any = None,
    store_endpoint_url: str | None = None,
    backend_options: dict[str, Any] | None = None,
    pass_threshold: float = DEFAULT_PASS_THRESHOLD,
    verifier_workers: int = 2,
    progress: bool = True,
    cpu_threads: int | None = None,
) -> dict[str, Any]:
    """Evaluate `model` (checkpoint folder, HF folder, "tiny:arith", or an endpoint's model name) on `benchmark`.

    `settings_override` (e.g. {"temperature": 0.7}) is the explicit opt-out of
    the enforced settings; what it changed is recorded in the summary.
    `store` is a Store, or a root URI opened with `store_endpoint_url` (an S3-compatible endpoint such as
    MinIO; the config's `storage.endpoint_url`): benchmark data and store models are read through it.
    `backend_options` go to the backend (for "openai": base_url, api_key, ...).
    `cpu_threads` sets torch's intra-op threads first (for the whole process:
    torch has one pool), so an evaluation beside CPU training takes only the
    cores training leaves; None leaves them as they are.
    Returns the summary dict (also written to `output_dir/summary.json`).
    """
    from rlvr_core.storage import open_store

    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be >= 1")
    if cpu_threads is not None:
        if cpu_threads < 1:
            raise ValueError(f"cpu_threads={cpu_threads} must be >= 1 (or None to leave torch's setting)")
        import torch

        torch.set_num_threads(cpu_threads)
    bench = get_benchmark(benchmark)
    settings, overridden = apply_overrides(settings_override)
    store = open_store(store, store_endpoint_url) if store is None or isinstance(store, str) else store
    scripted = backend in bench.policies  # a scripted policy of a multi-turn benchmark stands in for the model
    model_path = model if scripted else resolve_model(model, backend, store)
    device = "remote" if backend == "openai" else "cpu" if scripted else resolve_device(device)
    if "dtype" not in overridden:
        settings = settings.for_device(device)
    problems = load_benchmark_problems(bench, store=store, limit=limit)
    prompts = [bench.prompt(p) for p in problems]
    options = {**_backend_options(backend, settings, batch_size), **(backend_options or {})}
    if scripted:
        identity = {"path": model, "kind": "policy", "step": None, "content_hash": f"policy:{bench.policies[backend]}"}
    elif backend == "openai":
        identity = {"path": model, "kind": "endpoint", "step": None,
                    "content_hash": f"endpoint:{model}@{options.get('base_url', '')}"}
    else:
        identity = model_identity(model_path)
    key_payload = {
        "content_hash": identity["content_hash"], "benchmark": bench.name, "dataset": bench.dataset,
        "split": bench.split, "prompts_sha": stable_hash(prompts), **items_identity(problems),
        "max_new_tokens": bench.max_new_tokens,
        "stop": list(bench.stop), "settings": settings.to_dict(), "limit": limit, "n": len(problems),
        "backend": backend,
        **({"rollout": dict(bench.rollout_settings or {})} if bench.rollout else {}),
    }
    key = stable_hash(key_payload)
    out = Path(output_dir)
    finished = _claim_folder(out, key, key_payload)
    if finished is not None:
        log.info("evaluation %s already finished in %s; returning its summary", key, out)
        return finished

    started = time.perf_counter()
    generated = _run_items(bench, problems, prompts, out, model_path, backend, device, settings, options,
                           verifier_workers, progress)
    elapsed = time.perf_counter() - started
    results = sorted({r["index"]: r for r in read_records(out / layout.EVAL_RESULTS)}.values(),
                     key=lambda r: r["index"])
    if len(results) != len(problems):
        raise RuntimeError(f"{out / layout.EVAL_RESULTS} has {len(results)} records for {len(problems)} items; rerun to resume")
    summary = {
        "key": key,
        "benchmark": bench.name,
        "dataset": bench.dataset,
        "split": bench.split,
        "description": bench.description,
        "primary_metric": bench.primary_metric,
        "limit": limit,
        "expected_size": bench.expected_size,
        **summarise_records(results, pass_threshold=pass_threshold),
        "pass_threshold": pass_threshold,
        "verifier_mode": VERIFIER_MODE,
        "settings": settings.to_dict(),
        "settings_overridden": overridden,
        "standard_settings": not overridden,
        "decoding": {"max_new_tokens": bench.max_new_tokens, "stop": list(bench.stop)},
        "model": identity,
        "backend": backend,
        **({"rollout": dict(bench.rollout_settings or {})} if bench.rollout else {}),
        "device": device,
        "where": where_this_runs(),
        "batch_size": batch_size,
        "git": git_commit(),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "timing": {"elapsed_s": round(elapsed, 3), "generated_items": generated,
                   "items_per_s": round(generated / elapsed, 3) if elapsed > 0 and generated else None},
    }
    write_json_atomic(out / layout.EVAL_SUMMARY, summary)
    return summary


def _run_items(bench: Benchmark, problems: list, prompts: list[str], out: Path, model_path: str, backend_name: str,
               device: str, settings: EvalSettings, options: dict[str, Any], verifier_workers: int,
               progress: bool) -> int:
    """Generate and score every unfinished item, one durable batch at a time; returns how many were generated.

    Progress goes to the log every few seconds (the Prefect UI shows it) and, when `progress` is set and
    stderr is a terminal, to a bar.
    """
    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.verifiers import VerifierPool

    completions = {r["index"]: r for r in read_records(out / layout.EVAL_COMPLETIONS)}
    scored = {r["index"] for r in read_records(out / layout.EVAL_RESULTS)}
    todo = [i for i in range(len(problems)) if i not in scored]
    if not todo:
        return 0
    params = SamplingParams(max_new_tokens=bench.max_new_tokens, temperature=settings.temperature, n=1,
                            seed=settings.seed, stop=bench.stop)
    step = max(1, int(options.get("batch_size", 64)))
    backend = None
    generated = 0
    try:
        with (VerifierPool(workers=verifier_workers, strict=False) as pool, JsonlAppender(out / layout.EVAL_COMPLETIONS) as completion_log,
              JsonlAppender(out / layout.EVAL_RESULTS) as result_log,
              Progress(len(problems), f"eval {bench.name}", log, unit="item", initial=len(problems) - len(todo),
                       bar=None if progress else False) as bar):
            for chunk in _batches(todo, step):
                missing = [i for i in chunk if i not in completions]
                if missing:
                    if backend is None:
                        backend = _scripted(bench, backend_name) or create_backend(
                            backend_name, model_path, device=device, dtype=settings.dtype, seed=settings.seed, **options)
                    if bench.rollout is None:
                        generations = backend.generate([prompts[i] for i in missing], params)
                        outputs = [{"completion": g.text, "finish_reason": g.finish_reason,
                                    "completion_tokens": len(g.token_ids)} for g in generations]
                    else:  # multi-turn: episodes, not single generations
                        outputs = _import(bench.rollout)(backend, [problems[i] for i in missing], params)
                    records = [{"index": i, "id": problems[i].id, "prompt": prompts[i], **o}
                               for i, o in zip(missing, outputs)]
                    completion_log.append(records)
                    completions.update((r["index"], r) for r in records)
                    generated += len(missing)
                texts = [completions[i]["completion"] for i in chunk]
                results = score_completions(bench, [problems[i] for i in chunk], texts, pool)
                result_log.append({"index": i, "finish_reason": completions[i]["finish_reason"], **r}
                                  for i, r in zip(chunk, results))
                bar.update(len(chunk))
    finally:
        if backend is not None:
            backend.close()
    return generated
