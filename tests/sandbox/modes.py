"""Open a sandbox in a given mode for the attack suites, or skip saying why this host cannot provide it.

Modes: "bwrap" (bubblewrap), "host" (no bubblewrap; unshare namespaces where
the host allows them) and "host-plain" (host mode as on a host that forbids
namespaces, e.g. under Docker's default seccomp profile: simulated by hiding
`unshare`). RLVR_SANDBOX_REQUIRE=bwrap,host turns the skip of a listed mode
into a failure, so a broken bubblewrap cannot pass unnoticed (.ci/run sets
bwrap once a probe shows bubblewrap works on the runner).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rlvr_core.sandbox import host
from rlvr_core.sandbox.runner import Sandbox

MODES = ("bwrap", "host", "host-plain")
REPO_ROOT = Path(__file__).resolve().parents[2]


def open_sandbox(mode: str, **kwargs) -> Sandbox:
    """A probed sandbox in `mode`; pytest.skip with the refusal when this host cannot provide it."""
    if mode == "host-plain":
        real = host.find_tool
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(host, "find_tool", lambda paths, name: None if name == "unshare" else real(paths, name))
            sandbox = Sandbox("host", **kwargs)
    else:
        sandbox = Sandbox(mode, **kwargs)
    if sandbox.refusal is not None:
        sandbox.close()
        why = f"{mode} mode is not available on this host: {sandbox.refusal}"
        if mode in os.environ.get("RLVR_SANDBOX_REQUIRE", "").split(","):
            pytest.fail(f"{why} (RLVR_SANDBOX_REQUIRE lists it)")
        pytest.skip(why)
    return sandbox


def has_namespaces(sandbox: Sandbox) -> bool:
    return not any(item.startswith("no mount namespace") for item in sandbox.lacks)


def skip_without_namespaces(sandbox: Sandbox, what: str) -> None:
    """Skip where the mode documents the gap (host mode on a host that forbids namespaces)."""
    if not has_namespaces(sandbox):
        pytest.skip(f"{what}: not guaranteed without namespaces, as `Sandbox.lacks` says")


def root_only() -> None:
    if os.geteuid() != 0:
        pytest.skip("the uid switch, cgroups and host mode need root")
