"""IFBench (allenai/IFBench_test) constraints; see MISSING.md for the ones not implemented."""

from rlvr_core.verifiers.ifbench import counts, custom, formats, repeats, sentences, words  # noqa: F401  (register)
from rlvr_core.verifiers.ifbench.registry import CONSTRAINTS

__all__ = ["CONSTRAINTS"]
