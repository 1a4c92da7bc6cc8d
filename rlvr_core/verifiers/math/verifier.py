"""Math verifier: extract the final answer (`math_extract`), compare it to the gold exactly (`math_compare`).

The gold (`Problem.answer`) is a final answer, optionally written as `$...$`
or `\\boxed{...}`; a gold that is a whole solution is read with the same
extraction rules as a completion. Statuses: "correct" (reward 1), "wrong",
"unparsed" (no final answer, or one that is not readable as math),
"timeout" (the symbolic step ran past its limit), "error" (the problem has
no gold). Model output never raises.
"""

from __future__ import annotations

from rlvr_core.data.schema import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.math.compare import judge
from rlvr_core.verifiers.math.extract import extract_answer


def gold_answer(answer: str) -> str:
    """The gold final answer: `answer` itself, or its boxed part when it contains `\\boxed{}`."""
    if "boxed" in answer or "fbox" in answer:
        found = extract_answer(answer)
        if found is not None:
            return found[0]
    return answer


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
        verdict = judge(gold_answer(problem.answer), answer)
        shown = f"{rule}: {answer[:80]!r}"
        if verdict.status == "correct":
            return Score(1.0, "correct", f"{shown} == gold ({verdict.how})")
        if verdict.status == "wrong":
            return Score(0.0, "wrong", f"{shown} != {problem.answer[:40]!r} ({verdict.how})")
        return Score(0.0, verdict.status, f"{shown}: {verdict.how}")
