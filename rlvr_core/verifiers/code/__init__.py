"""The code verifier: `verifier.py` pulls the program out of a completion, `grader.py` runs the asserts
against it through the sandbox (`rlvr_core.sandbox`)."""

from rlvr_core.verifiers.code.verifier import CodeVerifier

__all__ = ["CodeVerifier"]
