"""The policy is an adversary: completions built to be rewarded without being right score 0.

One adversarial property per case: overflowing literals, tolerance, renamed
variables, separators, nan/zoo/infinity, expressions that look like everything,
hedged lists, unicode digits, boxes in odd places, sympy bombs. Then a guard
against quadratic scanning: 100,000-character inputs through extraction and
the whole verifier under a generous CPU-time bound.
"""

from __future__ import annotations

import time

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import verify
from rlvr_core.verifiers.math.extract import extract_answer

# (gold, completion): each must score 0. Grouped by the trick it tries.
REWARD_ZERO = [
    # literals beyond the float range are not numbers (issue 10: 1e999 overflowed to inf and matched every gold)
    ("5", "\\boxed{1e999}"),
    ("0", "\\boxed{1e999}"),
    ("\\infty", "\\boxed{1e999}"),
    ("0", "\\boxed{1e-999}"),
    ("100", "#### -1e400"),
    ("7", "The answer is 1e309."),
    ("-7", "\\boxed{-1E+400}"),
    # no tolerance between integers, none that lets a rounded decimal pass
    ("1000000", "\\boxed{1000001}"),
    ("1000000", "#### 1000001"),
    ("123456789", "\\boxed{123456788}"),
    ("\\frac{1}{2}", "\\boxed{0.5000000001}"),
    ("5", "\\boxed{4.999999999999}"),
    ("\\frac{1}{3}", "\\boxed{0.333333}"),
    ("\\pi", "\\boxed{3.14159}"),
    # equations compare as equations; a separator is not a list and a list is not a number
    ("y=2", "\\boxed{x=2}"),
    ("y = 2x + 3", "\\boxed{x = 2x+3}"),
    ("32349", "\\boxed{32, 349}"),
    ("a+3z=0", "\\boxed{0}"),
    # nan, zoo and infinity equal nothing
    ("5", "\\boxed{\\frac{0}{0}}"),
    ("5", "\\boxed{0/0}"),
    ("0", "\\boxed{\\infty - \\infty}"),
    ("0", "\\boxed{0 \\cdot \\infty}"),
    ("5", "\\boxed{\\infty}"),
    ("12:00", "\\boxed{1:00}"),  # 12/0 and 1/0 are both zoo
    # expressions that look like everything
    ("2x", "\\boxed{x}"),
    ("x = 5", "\\boxed{x}"),
    ("x = 5", "\\boxed{x = x}"),
    ("x+y=1", "\\boxed{0 = 0}"),
    ("x = 3", "\\boxed{x^2 = 9}"),
    ("b", "\\boxed{a}"),
    # hedging: several values are a list, and a list never equals one value
    ("5", "\\boxed{5 \\text{ or } 6}"),
    ("5", "\\boxed{5, 6}"),
    ("5", "\\boxed{\\pm 5}"),
    ("5", "\\boxed{5} or \\boxed{6}"),
    ("5", "\\boxed{4} and \\boxed{5}"),
    ("5", "\\boxed{\\{5, 6\\}}"),
    ("5", "\\boxed{x \\geq 5}"),
    ("5", "#### 5 or 6"),
    # unicode digits are not digits
    ("5", "\\boxed{\uff15}"),
    ("5", "\\boxed{\u0665}"),
    ("12", "The answer is \u0661\u0662."),
    # numbers glued to letters, inside LaTeX arguments, negated, or split by a space
    ("3", "AZYUK3A"),
    ("3", "the answer simplifies to 3x"),
    ("2", "so x^2 = 9"),
    ("2", "so we get \\frac{1}{2}"),
    ("5", "The answer is not 5."),
    ("56", "\\boxed{5 \\quad 6}"),
    # boxes in odd places: unclosed, nested, inside \text, inside <think>
    ("5", "The value is 5. \\boxed{6"),
    ("5", "\\boxed{5"),
    ("5", "\\text{\\boxed{6}}"),
    ("5", "\\boxed{5\\text{\\boxed{6}}}"),
    ("5", "\\boxed{\\boxed{5}, \\boxed{6}}"),
    ("5", "<think>\\boxed{5}</think>"),
    ("5", "<think>\\boxed{5}"),
    # sympy bombs are refused before parsing, never evaluated
    ("10", "\\boxed{2^{2^{100}}}"),
    ("10", "\\boxed{10^{10^{10}}}"),
    ("1", "\\boxed{(10^{10})!}"),
    ("2", "\\boxed{\\lim_{x\\to 0} \\frac{\\sin 2x}{x}}"),
    # a gold interval needs an interval; brackets and order matter
    ("[0,1]", "\\boxed{x \\in (0, 1)}"),
    ("x > 2", "\\boxed{[2, \\infty)}"),
    ("(3, -1)", "\\boxed{(-1, 3)}"),
    ("3, 5", "\\boxed{3, 5, 7}"),
]


@pytest.mark.parametrize(("gold", "completion"), REWARD_ZERO)
def test_adversarial_completion_scores_zero(gold: str, completion: str) -> None:
    score = verify(completion, Problem("adv", "adversarial", "", gold, "math"))
    assert score.reward == 0.0 and score.status != "correct", score


N = 100_000
HUGE = {
    "unclosed boxes": "\\boxed{" * (N // 7),
    "open braces in a box": "\\boxed{" + "{" * N,
    "nested closed boxes": "\\boxed{" * 5_000 + "5" + "}" * 5_000,
    "many boxes": "\\boxed{1}, " * (N // 11),
    "backslashes": "\\" * N,
    "dollars": "$" * N,
    "broken math lines": "$a\n" * (N // 3),
    "digits": "1" * N,
    "digit lists": "1, " * (N // 3),
    "answer anchors": "the answer is " * (N // 14),
    "final answer anchors": "Final Answer: " * (N // 14),
    "hashes": "#" * N,
    "math spans": "$x$ " * (N // 4),
    "fractions in prose": "\\frac{1}{" * (N // 9),
    "spaces before a slash": "1" + " " * N + "/",
    "prose then a box": "a" * N + "\\boxed{5}",
    "brackets in a box": "\\boxed{" + "(" * N + "}",
    "relations in a box": "\\boxed{" + "x=" * (N // 2) + "}",
    "units in a box": "\\boxed{1" + " cm" * (N // 3) + "}",
    "text commands": "\\text{" * (N // 6),
    "unicode digits": "\u0665" * N,
    # issue 28: the commitment checks read bounded windows around the answer
    "hedges after a box": "\\boxed{5}" + " or maybe 7" * (N // 11),
    "explanation dots after ####": "#### 5 or" + " ." * (N // 2),
    "strike-through marks": "~~" * (N // 2) + "\\boxed{5}",
    "value words before a box": "minus " * (N // 6) + "\\boxed{5}",
    "question marks": "5? " * (N // 3),
    "repeating decimal dots": "0." + "3" * N + "\\ldots",
    "percent signs": "\\boxed{5" + "\\%" * (N // 2) + "}",
    # issue 42: code masking, grader addressing and the text after the answer are read in linear time too
    "backticks": "`" * N,
    "code tags": "<code>" * (N // 6),
    "verb commands": "\\verb|" * (N // 6),
    "html comments": "<!--" * (N // 4),
    "fences": "```\n" * (N // 4),
    "values after a box": "\\boxed{5}" + " 7." * (N // 3),
    "retraction words after a box": "\\boxed{6}" + " wait" * (N // 5),
    "alternatives after a box": "\\boxed{5}" + " also 7" * (N // 7),
    "equivalent rewritings after a box": "\\boxed{6}" + " or equivalently" * (N // 16),
    "unit words after a box": "\\boxed{6}" + " cm" * (N // 3),
    "bound words before a box": "at least " * (N // 9) + "\\boxed{5}",
    "negation words before a box": "not " * (N // 4) + "\\boxed{5}",
}


@pytest.mark.parametrize("name", list(HUGE))
def test_100k_adversarial_inputs_run_in_linear_time(name: str) -> None:
    """A guard against quadratic scanning (which costs tens of seconds), not a performance target.

    CPU time of this thread (not wall time, nor other threads' time), so a loaded machine does not fail it;
    the old quadratic `last_boxed` took over 10 s on 5,000 unclosed boxes alone.
    """
    text = HUGE[name]
    start = time.thread_time()
    extract_answer(text)
    score = verify(text, Problem("huge", "adversarial", "", "5", "math"))
    elapsed = time.thread_time() - start
    assert elapsed < 2.0, f"{name}: {elapsed:.2f}s"
    assert score.reward == 0.0 or name == "prose then a box"
