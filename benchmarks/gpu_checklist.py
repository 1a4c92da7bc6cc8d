"""GPU checklist: run this first on a new GPU machine, before the first `train-and-eval`.

    .venv/bin/python benchmarks/gpu_checklist.py [CONFIG] [section.field=value ...] [--model PATH]

In one process, for the config's model (default configs/gsm8k.yaml, Qwen3-1.7B-Base), it checks what
only a real device exercises and prints one table:
  1. the device (name, memory) and the trainer memory estimate of `python -m rlvr_core.grpo.memory`;
  2. a vLLM engine: start time and generation throughput (sampling at temperature 1);
  3. one GRPO trainer step on a batch built from those generations: time, micro-batches, peak memory;
  4. a weight sync, trainer -> engine, as the run ships it (engine dtype, tied tensors once): size, time,
     and the log-prob gap that proves it landed;
  5. memory headroom left on the device with the engine and the trainer both resident.
A failed check is a table row with the error, and the exit status is 1. Without CUDA the same checks run
on the CPU (vLLM's CPU build), which is how the suite tests this script with the tiny model.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GIB = 2**30


@dataclass
class Checklist:
    """Rows of (check, status, figures); a check that raises becomes a FAIL row and later checks still run."""

    rows: list[tuple[str, str, str]] = field(default_factory=list)

    def run(self, name: str, check: Callable[[], str]) -> bool:
        try:
            self.rows.append((name, "ok", check()))
            return True
        except Exception as err:  # noqa: BLE001 - every failure is reported as a row, with its cause
            traceback.print_exc(file=sys.stderr)
            self.rows.append((name, "FAIL", f"{type(err).__name__}: {err}".splitlines()[0][:200]))
            return False

    def skip(self, name: str, reason: str) -> None:
        self.rows.append((name, "skipped", reason))

    @property
    def failed(self) -> bool:
        return any(status == "FAIL" for _, status, _ in self.rows)

    def table(self) -> str:
        lines = ["| check | status | figures |", "|---|---|---|"]
        return "\n".join(lines + [f"| {name} | {status} | {figures} |" for name, status, figures in self.rows])


def _peak_memory_gib(device: str) -> float:
    import torch

    if device == "cuda":
        return torch.cuda.max_memory_allocated() / GIB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB


def _prompts(count: int) -> list[str]:
    return [f"Question: Natalia sold {7 + i} clips in April and half as many in May. How many clips did she "
            f"sell altogether?\nAnswer: Let's think step by step." for i in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/gpu_checklist.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", default="gsm8k", help="config name in configs/ or a path")
    parser.add_argument("overrides", nargs="*",
                        help="section.field=value overrides, e.g. training.micro_batch_tokens=8192")
    parser.add_argument("--model", default=None, help="model folder or hub id (default: the config's model.name_or_path)")
    parser.add_argument("--prompts", type=int, default=64, help="prompts generated (and trained on) (default 64)")
    parser.add_argument("--engine-memory", type=float, default=0.35,
                        help="vLLM gpu_memory_utilization; the trainer shares the GPU in this check (default 0.35)")
    args = parser.parse_args(argv)

    import torch

    from rlvr_core.config import load_config
    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.generation.consistency import logprob_spot_check
    from rlvr_core.grpo.actors import trainer_options
    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
    from rlvr_core.grpo.memory import architecture_of, estimate_training_memory
    from rlvr_core.grpo.trainer import PolicyTrainer
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    config = load_config(args.config, args.overrides)
    store = open_store(config.storage.root, endpoint_url=config.storage.endpoint_url)
    model = resolve_model_path(args.model or config.model.name_or_path, store)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    engine_dtype = {"bfloat16": "bfloat16", "float16": "float16"}.get(config.model.dtype, "float32")
    if device == "cpu":
        engine_dtype = "float32"
    checks = Checklist()
    state: dict = {}

    def device_row() -> str:
        if device == "cpu":
            return "no CUDA device: the checks below run on the CPU"
        free, total = torch.cuda.mem_get_info()
        return (f"{torch.cuda.get_device_name()}, {total / GIB:.1f} GiB ({free / GIB:.1f} free), "
                f"CUDA {torch.version.cuda}")

    def estimate_row() -> str:
        capacity = torch.cuda.mem_get_info()[1] if device == "cuda" else int(config.training.gpu_memory_gib * GIB)
        estimate = estimate_training_memory(config, architecture_of(model))
        verdict = "fits" if estimate.fits(capacity) else "DOES NOT FIT"
        if not estimate.fits(capacity):
            raise RuntimeError(f"trainer estimate {estimate.total / GIB:.1f} GiB > {capacity / GIB:.1f} GiB "
                               "(python -m rlvr_core.grpo.memory CONFIG shows the parts and the fix)")
        return (f"{estimate.total / GIB:.1f} GiB of {capacity / GIB:.1f} GiB ({verdict}); "
                f"{estimate.micro_batch_tokens:,} tokens per micro-batch")

    def engine_row() -> str:
        start = time.perf_counter()
        state["engine"] = create_backend("vllm", model, dtype=engine_dtype, seed=config.run.seed,
                                         gpu_memory_utilization=args.engine_memory)
        return f"{time.perf_counter() - start:.1f} s to start ({engine_dtype})"

    def generation_row() -> str:
        params = SamplingParams(max_new_tokens=config.sampling.max_new_tokens, temperature=1.0, n=2,
                                seed=config.run.seed)
        start = time.perf_counter()
        state["generations"] = gens = state["engine"].generate(_prompts(args.prompts), params)
        seconds = time.perf_counter() - start
        tokens = sum(len(g.token_ids) for g in gens)
        return f"{len(gens)} samples, {tokens:,} tokens in {seconds:.1f} s = {tokens / seconds:,.0f} tokens/s"

    def trainer_row() -> str:
        options = {**trainer_options(config, reference_path=model), "device": device}
        start = time.perf_counter()
        state["trainer"] = trainer = PolicyTrainer(model, **options)
        loaded = time.perf_counter() - start
        gens = state["generations"]
        groups = [Group(position=i, problem=None, rollouts=[
            Rollout(prompt_token_ids=g.prompt_token_ids, token_ids=g.token_ids, logprobs=g.logprobs, text=g.text,
                    finish_reason=g.finish_reason, weight_version=0, reward=float(g.sample_index % 2))
            for g in gens if g.prompt_index == i]) for i in range(args.prompts)]
        batch = build_train_batch(groups, get_algorithm(config.grpo.loss),
                                  max_new_tokens=config.sampling.max_new_tokens,
                                  pad_token_id=trainer.tokenizer.pad_token_id, skip_overlong=False)
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        metrics = trainer.train_step(batch)
        if device == "cuda":
            torch.cuda.synchronize()
        return (f"loaded in {loaded:.1f} s; step of {len(gens)} sequences ({metrics['trained_tokens']:,} tokens, "
                f"{metrics['micro_batches']} micro-batches) in {time.perf_counter() - start:.1f} s; "
                f"peak {_peak_memory_gib(device):.1f} GiB")

    def sync_row() -> str:
        trainer, engine = state["trainer"], state["engine"]
        start = time.perf_counter()
        payload = trainer.get_weights(engine_dtype)
        packed = time.perf_counter()
        engine.load_weights(payload.tensors(), version=1)
        loaded = time.perf_counter()
        gap = logprob_spot_check(engine, trainer.model, _prompts(4))
        tolerance = config.training.sync_logprob_tolerance if engine_dtype == "float32" else 5e-2
        if gap > tolerance:
            raise RuntimeError(f"after the sync the engine's log-probs differ from the trainer's by {gap:.2e} "
                               f"(> {tolerance:g}): the weights did not land")
        return (f"{payload.nbytes / GIB:.2f} GiB: pack {packed - start:.2f} s, load {loaded - packed:.2f} s; "
                f"log-prob gap {gap:.1e} (≤ {tolerance:g})")

    def headroom_row() -> str:
        if device == "cpu":
            return f"process peak RSS {_peak_memory_gib(device):.1f} GiB"
        free, total = torch.cuda.mem_get_info()
        return f"{free / GIB:.1f} GiB free of {total / GIB:.1f} GiB with engine and trainer resident"

    checks.run("device", device_row)
    checks.run("trainer memory estimate", estimate_row)
    if checks.run("vLLM engine start", engine_row) and checks.run("vLLM generation", generation_row):
        if checks.run("GRPO trainer step", trainer_row):
            checks.run("weight sync trainer -> vLLM", sync_row)
    else:
        checks.skip("GRPO trainer step", "needs the engine's generations")
    checks.run("memory headroom", headroom_row)
    print(f"GPU checklist for {model} ({args.config})")
    print(checks.table())
    return 1 if checks.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
