"""The GPU checklist (benchmarks/gpu_checklist.py) runs every check end to end; without CUDA it runs them on the CPU.

Here the tiny model stands in for the config's: a real vLLM engine (the CPU build), a real trainer step
on the engine's generations, a real weight sync whose log-prob gap is checked. A check that fails is a
row with its cause and exit status 1, and the checks after it still run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

if not (Path(sys.prefix) / "installed-from.lock").exists():
    pytest.importorskip("vllm")

pytestmark = pytest.mark.slow
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_checklist.py"
CHECKS = ["device", "device plan", "trainer memory estimate", "trainer load", "vLLM engine start", "vLLM generation",
          "GRPO trainer step", "weight sync trainer -> vLLM", "memory headroom"]
SHARED_CHECKS = [*CHECKS[:6], "engine sleep", "GRPO trainer step", "engine wake", *CHECKS[7:]]


def run_checklist(model: Path, tmp_path: Path, *overrides: str) -> tuple[int, dict[str, tuple[str, str]], str]:
    out = subprocess.run([sys.executable, str(SCRIPT), "tiny-arith", f"storage.root={tmp_path / 'store'}",
                          "training.torch_threads=1", *overrides, "--model", str(model), "--prompts", "8"],
                         capture_output=True, text=True, timeout=600)
    rows = {}
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0] in SHARED_CHECKS:
            rows[cells[0]] = (cells[1], cells[2])
    return out.returncode, rows, out.stdout + out.stderr[-3000:]


def test_a_config_that_cannot_fit_fails_its_row_with_the_fix_and_the_rest_still_run(trained_tiny_model_dir, tmp_path):
    """The default (split) layout: every other check passes and prints its figures (a run where every check passes
    ends with status 0, as the shared-gpu run below shows)."""
    code, rows, output = run_checklist(trained_tiny_model_dir, tmp_path, "training.gpu_memory_gib=0.001")
    assert code == 1 and list(rows) == CHECKS, output
    status, figures = rows["trainer memory estimate"]
    assert status == "FAIL" and "rlvr_core.devices.memory" in figures, output
    assert all(rows[name][0] == "ok" for name in CHECKS if name != "trainer memory estimate"), output
    assert "tokens/s" in rows["vLLM generation"][1] and "log-prob gap" in rows["weight sync trainer -> vLLM"][1]


def test_on_a_shared_gpu_the_engine_sleeps_while_the_trainer_steps(trained_tiny_model_dir, tmp_path):
    """The one-GPU layout (`training.colocate=true` with vLLM): the engine sleeps before the step and wakes for the
    sync, as a run does (on the CPU build sleep only pauses the engine)."""
    code, rows, output = run_checklist(trained_tiny_model_dir, tmp_path, "training.generation_backend=vllm",
                                       "training.colocate=true", "training.data_parallel=1")
    assert code == 0 and list(rows) == SHARED_CHECKS, output
    assert all(status == "ok" for status, _ in rows.values()), output
    assert "sleep mode" in rows["vLLM engine start"][1]
    assert "tokens/s" in rows["vLLM generation"][1] and "log-prob gap" in rows["weight sync trainer -> vLLM"][1]
