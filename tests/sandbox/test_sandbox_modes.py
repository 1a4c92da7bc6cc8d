"""Choosing a mode: probe once, then use it, fall back loudly, or refuse; never run unconfined by accident."""

from __future__ import annotations

import json
import logging
import os
import platform
import tempfile
from pathlib import Path

import pytest

import rlvr_core.sandbox.runner as sandbox_module
from rlvr_core.problem import Problem
from rlvr_core.sandbox import host
from rlvr_core.verifiers.code.verifier import CodeVerifier
from rlvr_core.sandbox.runner import Sandbox, SandboxUnavailable, SessionEnded, check_sandbox
from rlvr_core.sandbox.seccomp import DENIED, SYSCALLS, UNAVAILABLE, filter_program
from tests.sandbox.modes import open_sandbox, root_only

NAMESPACE_FAILURE = "bwrap: Creating new namespace failed: Operation not permitted"


@pytest.fixture
def broken_bwrap(monkeypatch: pytest.MonkeyPatch) -> str:
    """A bwrap that fails the way it does under Docker's default seccomp profile."""
    folder = Path(tempfile.mkdtemp(prefix="rlvr-fake-bwrap-"))
    fake = folder / "bwrap"
    fake.write_text(f"#!/bin/sh\necho '{NAMESPACE_FAILURE}' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(host, "BWRAP_PATHS", (str(fake),))
    yield str(fake)
    fake.unlink()
    folder.rmdir()


def test_bwrap_runs_by_absolute_path_whatever_the_callers_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox = open_sandbox("bwrap")
    try:
        assert os.path.isabs(sandbox._launcher.prefix[0])
        assert sandbox.run("print(6 * 7)").stdout == "42\n"
    finally:
        sandbox.close()


def test_a_bwrap_that_cannot_create_namespaces_makes_auto_fall_back_loudly(broken_bwrap, caplog) -> None:
    root_only()
    with caplog.at_level(logging.WARNING, logger="rlvr_core.sandbox.runner"):
        sandbox = Sandbox("auto")
    try:
        assert sandbox.mode == "host"
        assert any(NAMESPACE_FAILURE in why for why in sandbox.fallback_from)
        assert NAMESPACE_FAILURE in caplog.text and "host mode" in caplog.text
        assert sandbox.run("print(1)").status == "ok"
    finally:
        sandbox.close()


def test_a_bwrap_that_cannot_create_namespaces_is_refused_when_bwrap_is_required(broken_bwrap, monkeypatch) -> None:
    """Fail closed and loud: not a silent stream of reward-0 errors."""
    monkeypatch.setenv("RLVR_SANDBOX", "bwrap")
    monkeypatch.setattr(sandbox_module, "_default", None)
    with pytest.raises(SandboxUnavailable, match="Creating new namespace failed.*Fix: apt-get install bubblewrap"):
        check_sandbox()
    answer = json.dumps({"tests": ["assert add(1, 2) == 3"], "setup": "", "entry": "add"})
    score = CodeVerifier().verify("```python\ndef add(a, b):\n    return a + b\n```", Problem("p", "x", "", answer, "code"))
    assert score.status == "error" and "sandbox refused" in score.detail


def test_a_refused_sandbox_runs_nothing(broken_bwrap) -> None:
    sandbox = Sandbox("bwrap")
    assert sandbox.mode is None and sandbox.refusal
    assert sandbox.run("print(1)").status == "error"
    with sandbox.serve("def f():\n    return 1") as session:
        with pytest.raises(SessionEnded):
            session.receive()
    assert session.result.status == "error"
    sandbox.close()


def test_host_mode_needs_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    sandbox = Sandbox("host")
    assert sandbox.refusal is not None and "needs root" in sandbox.refusal and "RLVR_SANDBOX=host-unsafe" in sandbox.refusal


def test_host_mode_without_namespaces_refuses_when_nothing_closes_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """No seccomp table for this architecture and no network namespace: host mode would leave sockets open."""
    root_only()
    real = host.find_tool
    monkeypatch.setattr(host, "find_tool", lambda paths, name: None if name == "unshare" else real(paths, name))
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    sandbox = Sandbox("host")
    assert sandbox.refusal is not None and "the network is open" in sandbox.refusal


def test_an_unknown_setting_is_rejected_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLVR_SANDBOX", "docker")
    with pytest.raises(ValueError, match="RLVR_SANDBOX.*must be one of"):
        Sandbox()


def test_each_sandbox_has_a_uid_of_its_own() -> None:
    root_only()
    first, second = open_sandbox("host"), open_sandbox("host")
    try:
        assert first.uid != second.uid
        assert first.run("import os\nprint(os.getuid())").stdout.strip() == str(first.uid)
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("mode", ["bwrap", "host", "host-plain"])
def test_without_a_writable_cgroup_the_trees_memory_is_still_limited(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host.Cgroup, "create", classmethod(lambda cls: None))
    sandbox = open_sandbox(mode)
    try:
        assert any(item.startswith("no writable cgroup") for item in sandbox.lacks)
        program = ("import os, time\nfor _ in range(6):\n    if os.fork() == 0:\n        try:\n            x = bytearray(100 << 20)\n"
                   "            for i in range(0, len(x), 4096):\n                x[i] = 1\n            time.sleep(5)\n"
                   "        finally:\n            os._exit(0)\ntime.sleep(3)\nprint('survived')\n")
        result = sandbox.run(program, timeout_s=10, memory_mb=256)
        assert result.status == "failed" and "memory limit" in result.detail and "survived" not in result.stdout
    finally:
        sandbox.close()


@pytest.mark.parametrize("mode", ["bwrap", "host"])
def test_with_namespaces_as_root_nothing_is_lacking(mode: str) -> None:
    """What CI should see once bubblewrap is installed: both modes with every guarantee."""
    root_only()
    sandbox = open_sandbox(mode)
    try:
        if sandbox._res.cgroup is None:
            pytest.skip("this host has no writable cgroup")
        oom = [item for item in sandbox.lacks if item.startswith("no OOM protection")]
        if oom:  # a container without CAP_SYS_RESOURCE: the one gap the sandbox cannot close itself
            with pytest.raises(OSError), open("/proc/self/oom_score_adj", "w") as fh:
                fh.write("-1000")
        assert [item for item in sandbox.lacks if item not in oom] == []
    finally:
        sandbox.close()


def test_host_mode_without_namespaces_says_what_it_lacks() -> None:
    sandbox = open_sandbox("host-plain")
    try:
        lacks = " ".join(sandbox.lacks)
        assert "no pid namespace" in lacks and "no mount namespace" in lacks and "no private /tmp" in lacks
    finally:
        sandbox.close()


@pytest.mark.parametrize("arch", sorted(SYSCALLS))
def test_the_seccomp_filter_has_every_denied_call_for_each_architecture(arch: str) -> None:
    program = filter_program(arch)
    assert program is not None and len(program) % 8 == 0 and len(program) // 8 < 256  # jumps are 8-bit
    assert set(DENIED) | set(UNAVAILABLE) | {"clone"} <= set(SYSCALLS[arch][1])
    assert filter_program("riscv64") is None


def test_verdicts_and_results_never_shift_between_consecutive_runs(sandbox) -> None:
    """A run the grader ends is answered before it is reaped; the next run's result is still its own."""
    from rlvr_core.verifiers.code.grader import grade, plan_tests

    plan = plan_tests(("assert add(1, 2) == 3",), "", "add")
    for _ in range(3):
        assert grade(sandbox, "def add(a, b):\n    return a + b\n", plan).status == "passed"
    assert sandbox.run("print('mine')").stdout == "mine\n"
    assert grade(sandbox, "def add(a, b):\n    return 0\n", plan).status == "failed"
    assert sandbox.run("import sys\nsys.exit(4)").returncode == 4


@pytest.mark.parametrize("mode", ["host", "host-plain"])
def test_a_run_graded_by_code_lists_its_sandboxs_lacks_in_run_json_and_the_log(mode, tmp_path, monkeypatch, caplog) -> None:
    """Issue 26, item 5: a user knows the guarantees of the run they started."""
    from rlvr_core.rundir import create
    from rlvr_core.grpo.driver_session import Session

    root_only()
    monkeypatch.setenv("RLVR_SANDBOX", "host")
    if mode == "host-plain":
        real = host.find_tool
        monkeypatch.setattr(host, "find_tool", lambda paths, name: None if name == "unshare" else real(paths, name))
    create.write_run_json(tmp_path, {"name": "r"})
    session = Session(None, tmp_path, resume=False)  # type: ignore[arg-type] - the record needs only the run folder
    session._record_sandbox(["arith"])
    assert "sandbox" not in create.read_run_json(tmp_path)  # nothing runs code: nothing to record
    with caplog.at_level(logging.WARNING, logger="rlvr_core.sandbox.runner"):
        session._record_sandbox(["arith", "google-research-datasets/mbpp"])
    record = create.read_run_json(tmp_path)["sandbox"]
    assert record["mode"] == "host" and record["setting"] == "host"
    plain = any(item.startswith("no mount namespace") for item in record["lacks"])
    assert plain is (mode == "host-plain")
    for lack in record["lacks"]:
        assert lack in caplog.text
