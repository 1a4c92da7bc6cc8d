"""Verifiers: turn (completion, problem) into one `Score`; rewards and eval scores both come from here.

Public API: `Score`, `Verifier`, `get_verifier`, `verify` (in-process, one item),
`VerifierPool` and `verify_batch` (worker processes, hard per-item timeout).
"""

from rlvr_core.verifiers.base import STATUSES, Score, Status, Verifier, get_verifier, verify
from rlvr_core.verifiers.pool import VerifierPool, verify_batch

__all__ = ["STATUSES", "Score", "Status", "Verifier", "VerifierPool", "get_verifier", "verify", "verify_batch"]
