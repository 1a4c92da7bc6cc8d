"""IFBench (allenai/IFBench_test) constraints; see MISSING.md for the ones not implemented.

Each constraint has its reference check; strict training mode adds a check of what a reader sees
(`ifeval.registry.strict_check`), a stricter one where `strict.py` has it.
"""

from rlvr_core.verifiers.ifbench import (  # noqa: F401  (register)
    counts,
    custom,
    formats,
    repeats,
    sentences,
    strict,
    tokens,
    words,
)
from rlvr_core.verifiers.ifbench.registry import CONSTRAINTS, STRICT_MODE_CONSTRAINTS

__all__ = ["CONSTRAINTS", "STRICT_MODE_CONSTRAINTS"]
