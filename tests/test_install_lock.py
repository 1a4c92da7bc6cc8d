"""The environment the suite runs in is exactly the lock CI tested: same packages, same versions.

`make install` installs `requirements/cpu.lock` (CPU machines) or `requirements/gpu.lock` (GPU machines)
with hashes and copies it into the venv as `installed-from.lock`; an environment made otherwise (a
hand-made venv) has no copy, and these checks do not apply to it.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "cpu.lock"
GPU_LOCK = REPO / "requirements" / "gpu.lock"
INSTALLED_FROM = Path(sys.prefix) / "installed-from.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)
NOT_IN_LOCK = {"rlvr-pipeline", "pip", "uv", "torch"}  # the project itself, the installers, torch (its own pin file)

needs_locked_install = pytest.mark.skipif(
    not INSTALLED_FROM.exists(), reason="this environment was not installed from the lock (make install on CPU does)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    return {canonical(name): version for name, version in PIN.findall(text)}


def test_every_lock_entry_is_pinned_and_hashed() -> None:
    entries = re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text())
    requirements = [e for e in entries if not e.startswith("#") and e.strip()]
    assert len(requirements) == len(pins(LOCK.read_text())) > 100
    assert all("--hash=sha256:" in e for e in requirements)


def installed_lock() -> Path:
    """The lock this environment was installed from (CPU or GPU); the CPU lock when it matches neither."""
    return GPU_LOCK if INSTALLED_FROM.read_text() == GPU_LOCK.read_text() else LOCK


@needs_locked_install
def test_the_environment_was_installed_from_the_current_lock() -> None:
    assert INSTALLED_FROM.read_text() == installed_lock().read_text(), \
        f"{installed_lock().name} changed since .venv was made: run `make install` (it rebuilds .venv)"


@needs_locked_install
def test_installed_packages_are_exactly_the_locked_versions() -> None:
    # Only what is installed in site-packages: setuptools puts its vendored copies (older packaging,
    # platformdirs, ...) on sys.path once something imports it, and those are not installs.
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    installed = {canonical(d.metadata["Name"]): d.version for d in metadata.distributions(path=site)}
    not_locked = NOT_IN_LOCK if installed_lock() == LOCK else NOT_IN_LOCK - {"torch"}  # the GPU lock holds torch
    installed = {name: version for name, version in installed.items() if name not in not_locked | {"setuptools", "wheel"}}
    locked = {name: version for name, version in pins(installed_lock().read_text()).items()
              if name not in {"setuptools", "wheel"}}
    assert installed == locked


@needs_locked_install
def test_torch_is_the_pinned_cpu_build() -> None:
    if installed_lock() == GPU_LOCK:
        pytest.skip("installed from the GPU lock, which pins the CUDA build of torch itself")
    pinned = pins((REPO / "requirements" / "torch-cpu.txt").read_text())["torch"]
    assert metadata.version("torch") == pinned


@needs_locked_install
@pytest.mark.parametrize("module", ["torch", "transformers", "ray", "prefect", "vllm"])
def test_installed_modules_have_their_bytecode_compiled(module: str) -> None:
    """`make install` compiles the bytecode of what it installs: where PYTHONDONTWRITEBYTECODE is set, Python
    would otherwise compile these again in every process it starts (about twice the CPU of each start)."""
    import importlib.util

    source = importlib.util.find_spec(module).origin
    cached = Path(importlib.util.cache_from_source(source))
    assert cached.is_file(), f"no bytecode for {source}: run `make install` (a venv made before it compiled: rm -rf .venv)"
