"""Run untrusted Python contained, for graders and for model tools.

Its own layer: the code verifier (`verifiers/code`) and the web environment's
`run_python` tool (`envs/web`) both build on it, and it imports neither.
`runner.py` documents the guarantees of each mode and what is not covered;
docs/SECURITY.md lists the attack classes and the test of each.
"""

from rlvr_core.sandbox.runner import (
    ExecResult,
    Sandbox,
    SandboxUnavailable,
    Session,
    SessionEnded,
    check_sandbox,
    default_sandbox,
    run_program,
    sandbox_guarantees,
)

__all__ = ["ExecResult", "Sandbox", "SandboxUnavailable", "Session", "SessionEnded", "check_sandbox",
           "default_sandbox", "run_program", "sandbox_guarantees"]
