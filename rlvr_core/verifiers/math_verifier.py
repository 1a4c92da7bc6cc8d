"""Math verifier: extract the final answer (`math_extract`), compare it to the gold (`math_compare`)."""

from __future__ import annotations

from rlvr_core.data.schema import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.math_compare import compare
from rlvr_core.verifiers.math_extract import extract_answer


class MathVerifier:
    """1.0 when the extracted answer equals `Problem.answer`; "unparsed" when there is no answer."""

    name = "math"

    def verify(self, completion: str, problem: Problem) -> Score:
        if not problem.answer.strip():
            return Score.error(f"problem {problem.id}: math Problem.answer is empty; give the gold final answer")
        extracted = extract_answer(completion)
        if extracted is None:
            return Score(0.0, "unparsed", "no final answer found")
        answer, rule = extracted
        try:
            equal, how = compare(problem.answer, answer)
        except Exception as exc:  # noqa: BLE001 - sympy/latex parsing of model text may fail in many ways
            return Score(0.0, "wrong", f"{rule}: {answer[:80]!r} not comparable ({type(exc).__name__})")
        if equal:
            return Score(1.0, "correct", f"{rule}: {answer[:80]!r} == gold ({how})")
        return Score(0.0, "wrong", f"{rule}: {answer[:80]!r} != {problem.answer[:40]!r} ({how})")
