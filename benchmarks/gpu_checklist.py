"""GPU checklist: run this first on a new GPU machine, before the first `train-and-eval`.

    .venv/bin/python benchmarks/gpu_checklist.py [CONFIG] [section.field=value ...] [--model PATH]

In one process, for the config's model (default configs/gsm8k.yaml, Qwen3-1.7B-Base), it checks what
only a real device exercises, on the devices the run's device plan gives (`rlvr_core.devices`: this
node's free GPUs), and prints one table:
  1. the device (name, memory), the device plan, and the trainer memory estimate of
     `python -m rlvr_core.devices.memory`;
  2. the trainer loaded on the plan's trainer GPU, then a vLLM engine on the plan's rollout GPU: start time
     and generation throughput (sampling at temperature 1);
  3. on a shared GPU (one GPU: the plan's shared-gpu layout), the engine put to sleep before the trainer
     steps (the memory it frees) and woken after, as a run does;
  4. one GRPO trainer step on a batch built from those generations: time, micro-batches, peak memory;
  5. a weight sync, trainer -> engine, as the run ships it (engine dtype, tied tensors once): size, time,
     and the log-prob gap that proves it landed;
  6. memory headroom left with the engine and the trainer both resident.
A config the node cannot run as configured (gsm8k's trainer + rollout GPU on a 1-GPU node) fails the plan
row with the fix, and the rest is checked in the shared-gpu layout (`training.colocate=true`). A failed
check is a table row with the error, and the exit status is 1. Without CUDA the same checks run on the CPU
(vLLM's CPU build; its sleep only pauses the engine), which is how the suite tests this script with the
tiny model.
"""

from __future__ import annotations

import argparse
import os
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

    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated(device) / GIB
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
    parser.add_argument("--engine-memory", type=float, default=None,
                        help="vLLM gpu_memory_utilization (default: the device plan's share on a shared GPU, vLLM's "
                             "own 0.9 on a GPU of its own)")
    args = parser.parse_args(argv)

    from rlvr_core.config import load_config
    from rlvr_core.devices import DevicePlanError, plan_devices, render_plan, topology

    checks = Checklist()
    config = load_config(args.config, args.overrides)
    try:
        plan = plan_devices(config, topology.local())
    except DevicePlanError as err:  # check the hardware anyway, as one GPU runs it: trainer + sleeping engine
        checks.rows.append(("device plan", "FAIL", str(err)[:300]))
        config = load_config(args.config, [*args.overrides, "training.colocate=true"])
        plan = plan_devices(config, topology.local())
    else:
        checks.rows.append(("device plan", "ok", render_plan(plan).splitlines()[0].removeprefix("device plan: ")))
    shared = config.training.shares_gpu
    if plan.training_devices:  # before torch starts CUDA: the engine takes the first visible GPU, the trainer the last
        gpus = dict.fromkeys([plan.generators[0].gpu, plan.trainer.gpu])
        os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, gpus))
    engine_memory = args.engine_memory or plan.engine_memory_utilization or 0.9

    import torch

    from rlvr_core.generation import SamplingParams, create_backend
    from rlvr_core.generation.consistency import logprob_spot_check
    from rlvr_core.grpo.actors import trainer_options
    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.batch import Group, Rollout, build_train_batch
    from rlvr_core.devices.memory import architecture_of, estimate_training_memory
    from rlvr_core.grpo.trainer_actor import PolicyTrainer
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store

    store = open_store(config.storage.root, endpoint_url=config.storage.endpoint_url)
    model = resolve_model_path(args.model or config.model.name_or_path, store)
    cuda = torch.cuda.is_available()
    device = f"cuda:{torch.cuda.device_count() - 1}" if cuda else "cpu"  # the trainer's: last visible GPU
    engine_dtype = {"bfloat16": "bfloat16", "float16": "float16"}.get(config.model.dtype, "float32")
    if not cuda:
        engine_dtype = "float32"
    state: dict = {}

    def device_row() -> str:
        if not cuda:
            return "no CUDA device: the checks below run on the CPU"
        free, total = torch.cuda.mem_get_info(device)
        return (f"{torch.cuda.get_device_name(device)}, {total / GIB:.1f} GiB ({free / GIB:.1f} free), "
                f"CUDA {torch.version.cuda}, {torch.cuda.device_count()} visible to this check")

    def estimate_row() -> str:
        capacity = torch.cuda.mem_get_info(device)[1] if cuda else int(config.training.gpu_memory_gib * GIB)
        estimate = estimate_training_memory(config, architecture_of(model))
        verdict = "fits" if estimate.fits(capacity) else "DOES NOT FIT"
        if not estimate.fits(capacity):
            raise RuntimeError(f"trainer estimate {estimate.total / GIB:.1f} GiB > {capacity / GIB:.1f} GiB "
                               "(python -m rlvr_core.devices.memory CONFIG shows the parts and the fix)")
        return (f"{estimate.total / GIB:.1f} GiB of {capacity / GIB:.1f} GiB ({verdict}); "
                f"{estimate.micro_batch_tokens:,} tokens per micro-batch")

    def trainer_load_row() -> str:
        options = {**trainer_options(config, reference_path=model), "device": device}
        start = time.perf_counter()
        state["trainer"] = PolicyTrainer(model, **options)
        return f"loaded on {device} in {time.perf_counter() - start:.1f} s"

    def engine_row() -> str:
        start = time.perf_counter()
        state["engine"] = create_backend("vllm", model, dtype=engine_dtype, seed=config.run.seed,
                                         gpu_memory_utilization=engine_memory, sleep_mode=shared)
        return (f"{time.perf_counter() - start:.1f} s to start ({engine_dtype}, gpu_memory_utilization "
                f"{engine_memory:.2f}{', sleep mode' if shared else ''})")

    def sleep_row() -> str:
        free_before = torch.cuda.mem_get_info(device)[0] if cuda else 0
        start = time.perf_counter()
        state["engine"].sleep()
        seconds = time.perf_counter() - start
        if not cuda:
            return f"{seconds:.2f} s (vLLM's CPU build pauses the engine; no memory to free)"
        freed = torch.cuda.mem_get_info(device)[0] - free_before
        return f"{seconds:.2f} s, {freed / GIB:.1f} GiB freed for the trainer"

    def wake_row() -> str:
        start = time.perf_counter()
        state["engine"].wake_up()
        return f"{time.perf_counter() - start:.2f} s"

    def generation_row() -> str:
        params = SamplingParams(max_new_tokens=config.sampling.max_new_tokens, temperature=1.0, n=2,
                                seed=config.run.seed)
        start = time.perf_counter()
        state["generations"] = gens = state["engine"].generate(_prompts(args.prompts), params)
        seconds = time.perf_counter() - start
        tokens = sum(len(g.token_ids) for g in gens)
        return f"{len(gens)} samples, {tokens:,} tokens in {seconds:.1f} s = {tokens / seconds:,.0f} tokens/s"

    def trainer_row() -> str:
        trainer = state["trainer"]
        gens = state["generations"]
        groups = [Group(position=i, problem=None, rollouts=[
            Rollout(prompt_token_ids=g.prompt_token_ids, token_ids=g.token_ids, logprobs=g.logprobs, text=g.text,
                    finish_reason=g.finish_reason, weight_version=0, reward=float(g.sample_index % 2))
            for g in gens if g.prompt_index == i]) for i in range(args.prompts)]
        batch = build_train_batch(groups, get_algorithm(config.grpo.loss),
                                  max_new_tokens=config.sampling.max_new_tokens,
                                  pad_token_id=trainer.tokenizer.pad_token_id, skip_overlong=False)
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
        start = time.perf_counter()
        metrics = trainer.train_step(batch)
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.empty_cache()  # as the shared-gpu trainer does, for the engine to wake into
        return (f"step of {len(gens)} sequences ({metrics['trained_tokens']:,} tokens, "
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
        if not cuda:
            return f"process peak RSS {_peak_memory_gib(device):.1f} GiB"
        rows = []
        for index in range(torch.cuda.device_count()):
            free, total = torch.cuda.mem_get_info(index)
            rows.append(f"cuda:{index} {free / GIB:.1f} of {total / GIB:.1f} GiB free")
        return "; ".join(rows) + " with the engine and the trainer resident"

    checks.run("device", device_row)
    checks.rows.insert(0, checks.rows.pop())  # the device first, then the plan
    checks.run("trainer memory estimate", estimate_row)
    loaded = checks.run("trainer load", trainer_load_row)
    if checks.run("vLLM engine start", engine_row) and checks.run("vLLM generation", generation_row):
        if shared:
            checks.run("engine sleep", sleep_row)
        stepped = loaded and checks.run("GRPO trainer step", trainer_row)
        if shared:
            checks.run("engine wake", wake_row)
        if stepped:
            checks.run("weight sync trainer -> vLLM", sync_row)
    else:
        checks.skip("GRPO trainer step", "needs the engine's generations")
    checks.run("memory headroom", headroom_row)
    print(f"GPU checklist for {model} ({args.config})")
    print(checks.table())
    return 1 if checks.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
