"""Math verifier: extract the one final answer (`math_extract`), compare it to the gold exactly (`math_compare`).

The gold (`Problem.answer`) is a final answer, optionally written as `$...$`
or `\\boxed{...}`; a gold that is a whole solution is read with the same
extraction rules as a completion. When the problem asks for a percentage
("What percent of ...?"), a plain-number gold is a percentage (`math_percent`).

Statuses: "correct" (reward 1), "wrong" (including a "false chain" such as
`2 + 2 = 5`, "several answers" for a single gold, and a unit the gold's
cannot be converted to), "unparsed" (no single committed answer: none at
all, or one refused as a hedge, negated, a bound, disowned, retracted or
contradicted by later text, a partial box, an unclosed `<think>` or box, or
text addressed to the grader; or an answer not readable as math), "timeout"
(the symbolic step ran past its limit), "error" (the problem has no gold).
The detail of a score of 0 starts with the reason ("hedge: ...", "negated:
...", "bound: ...", "retracted: ...", "partial box: ...", "addressed to the
grader: ..."). Model output never raises. The strict and reference modes
score math alike (docs/SECURITY.md, "Math rewards", says why).
"""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.verifiers.base import Score
from rlvr_core.verifiers.math.compare import judge
from rlvr_core.verifiers.math.extract import extract, extract_answer
from rlvr_core.verifiers.math.percent import asks_for_percent


def gold_answer(answer: str) -> str:
    """The gold final answer: `answer` itself, or its boxed part when it contains `\\boxed{}`."""
    if "boxed" in answer or "fbox" in answer or "framebox" in answer:
        found = extract_answer(answer, trusted=True)
        if found is not None:
            return found[0]
    return answer


class MathVerifier:
    """1.0 when the extracted answer equals `Problem.answer`; "unparsed" when there is no single answer."""

    name = "math"

    def verify(self, completion: str, problem: Problem) -> Score:
        if not problem.answer.strip():
            return Score.error(f"problem {problem.id}: math Problem.answer is empty; give the gold final answer")
        found = extract(completion)
        if found.answer is None:
            return Score(0.0, "unparsed", found.refusal[:300])
        verdict = judge(gold_answer(problem.answer), found.answer, percent_gold=asks_for_percent(problem.prompt))
        shown = f"{found.rule}: {found.answer[:80]!r}"
        if verdict.status == "correct":
            return Score(1.0, "correct", f"{shown} == gold ({verdict.how})")
        if verdict.status == "wrong":
            if verdict.how.startswith(("false chain", "several answers")):
                return Score(0.0, "wrong", f"{verdict.how}: {shown} vs {problem.answer[:40]!r}"[:300])
            return Score(0.0, "wrong", f"{shown} != {problem.answer[:40]!r} ({verdict.how})")
        return Score(0.0, verdict.status, f"{shown}: {verdict.how}")
