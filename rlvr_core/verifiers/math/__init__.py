"""The math verifier, in the order it works: `extract` the one final answer, then `compare` it to gold.

`scan` finds boxes and math spans, `masking` blanks code and other turns,
`addressed` refuses text written to the grader, and `commitment`,
`qualifiers` and `tail` check that the answer found is the last one the model
commits to (step 1); `normalize`, `literals`, `percent`, `units`, `parse`,
`symbolic` and `relations` are the steps `compare` builds on (step 2).
"""

from rlvr_core.verifiers.math.verifier import MathVerifier

__all__ = ["MathVerifier"]
