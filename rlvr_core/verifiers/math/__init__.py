"""The math verifier, in the order it works: `extract` the one final answer, then `compare` it to gold.

`scan` finds boxes and math spans and `commitment` checks that the answer found
is one the model commits to (step 1); `normalize`, `literals`, `percent`,
`parse`, `symbolic` and `relations` are the steps `compare` builds on (step 2).
"""

from rlvr_core.verifiers.math.verifier import MathVerifier

__all__ = ["MathVerifier"]
