"""The math verifier, in the order it works: `extract` the one final answer, then `compare` it to gold.

`scan`, `normalize`, `parse`, `symbolic` and `relations` are the steps `compare` builds on.
"""

from rlvr_core.verifiers.math.verifier import MathVerifier

__all__ = ["MathVerifier"]
