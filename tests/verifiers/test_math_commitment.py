"""One final answer or none: completions that commit to no single answer score 0, and the detail says why.

Each case is (gold, completion, the reason the detail starts with), commented
with where it comes from: "issue 28" cases are the adversarial probes an
independent suite found rewarded (by us or by Math-Verify); "invented" cases
are our own probes of the same trick in another place. Then the other side:
completions that state one answer in the ordinary ways a model does, with a
box after `=`, an arrow, units, a percent sign, in a bullet or in bold, are
still read (a refusal that fires on them would cost real rewards).
"""

from __future__ import annotations

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import verify


def _score(gold: str, completion: str):
    return verify(completion, Problem("c", "commitment", "", gold, "math"))


REFUSED = [
    # issue 28: a boxed number taken out of its expression
    ("5", "$-\\boxed{5}$", "partial box"),
    ("4", "$\\sqrt{\\boxed{4}}$", "partial box"),
    ("12", "$\\boxed{12}\\sqrt{3}$", "partial box"),
    ("5", "$\\boxed{5}^{-1}$", "partial box"),
    ("5", "$2\\boxed{5}$", "partial box"),
    # invented: the same trick with other operators, outside math, and across delimiters
    ("5", "$\\boxed{5}!$", "partial box"),  # a factorial
    ("5", "\\boxed{5}0", "partial box"),  # a digit glued after
    ("0", "\\boxed{0}.5", "partial box"),
    ("1", "$\\frac{\\boxed{1}}{2}$", "partial box"),  # a numerator
    ("2", "$10^{\\boxed{2}}$", "partial box"),  # an exponent
    ("2", "$\\boxed{2}^{10}$", "partial box"),  # a base
    ("5", "$x\\boxed{5}$", "partial box"),
    ("5", "$\\boxed{5}x$", "partial box"),
    ("3", "$(\\boxed{3}, 4)$", "partial box"),  # one coordinate of a point
    ("-5", "$|\\boxed{-5}|$", "partial box"),
    ("5", "$\\boxed{5} \\cdot 2$", "partial box"),
    ("2", "$\\pi\\boxed{2}$", "partial box"),
    ("8", "$\\sqrt[3]{\\boxed{8}}$", "partial box"),
    ("2", "$\\log_{\\boxed{2}} 8$", "partial box"),
    ("2", "$y = \\boxed{2}x + 3$", "partial box"),  # a coefficient
    ("x^2", "$\\boxed{x^2} + 1$", "partial box"),
    ("5", "The answer is -\\boxed{5}.", "partial box"),  # a sign in prose
    ("5", "\u2212\\boxed{5}", "partial box"),  # a unicode minus
    ("5", "$-$\\boxed{5}", "partial box"),  # a minus in the math span just before
    ("5", "\\boxed{5}^{-1}", "partial box"),
    ("5", "\\boxed{5}\u00b2", "partial box"),
    ("5", "So 2 \\times \\boxed{5} = 10", "partial box"),
    ("3", "2+\\boxed{3}", "partial box"),
    ("3", "\\boxed{3}+2", "partial box"),
    ("5", "$\\boxed{\\boxed{5}}^2$", "partial box"),
    ("5", "$\\boxed{5}/2$", "partial box"),
    ("2", "$\\frac{1}{\\boxed{2}}$", "partial box"),  # a denominator
    ("1", "$\\boxed{1}\\frac{1}{2}$", "partial box"),  # the whole part of a mixed number
    ("5", "$(\\boxed{5})^2$", "partial box"),  # brackets that hold only the box, then a power
    ("5", "$\\overline{\\boxed{5}}$", "partial box"),
    ("5", "\\sout{\\boxed{5}}", "negated"),  # struck out with a command (issue 42: named as a negation)
    # invented: words that make the boxed number part of a larger value
    ("5", "The answer is minus \\boxed{5}.", "partial box"),
    ("5", "The answer is negative \\boxed{5}.", "partial box"),
    ("5", "It is \\boxed{5} thousand.", "partial box"),
    ("5", "It is \\boxed{5} squared.", "partial box"),
    ("5", "\\boxed{5} times 2", "partial box"),
    # issue 28: hedges, several candidates offered as alternatives
    ("7", "The answer is 5 or maybe 7.", "hedge"),
    ("7", "5? 6? 7?", "hedge"),
    # invented: hedges in every place an answer is read
    ("7", "Answer: 5, maybe 7", "hedge"),
    ("7", "Answer: 7?", "hedge"),
    ("7", "Is it 7?", "hedge"),
    ("7", "It might be 5. Or it might be 7?", "hedge"),
    ("7", "\\boxed{5} or perhaps \\boxed{7}", "hedge"),  # an alternative before the final box
    ("7", "\\boxed{5}. Hmm, or maybe \\boxed{7}.", "hedge"),
    ("5", "The answer is \\boxed{5}. But it could also be 7.", "hedge"),  # ... and after it
    ("5", "\\boxed{5} or 7", "hedge"),
    ("5", "The answer is 5. Or 7.", "hedge"),
    ("7", "The answer is 5 but also 7", "hedge"),
    ("5", "#### 5 or 6", "hedge"),
    ("5", "#### 5 or maybe 6", "hedge"),
    ("7", "#### 7?", "hedge"),
    ("7", "\\boxed{5}\n\nAlternatively, \\boxed{7}", "hedge"),
    ("7", "\\boxed{5}. Another possible answer is \\boxed{7}.", "hedge"),
    ("7", "\\boxed{7} (?)", "hedge"),
    ("7", "Final Answer: 7 (or possibly 5)", "hedge"),
    # issue 28: a negated answer
    ("5", "The answer is not $\\boxed{5}$.", "negated"),
    # invented: negation before and after, in words and in symbols
    ("5", "The answer isn't \\boxed{5}.", "negated"),
    ("5", "It's definitely not \\boxed{5}", "negated"),
    ("5", "Not \\boxed{5}", "negated"),
    ("5", "$x \\neq \\boxed{5}$", "negated"),
    ("5", "$5 \\ne \\boxed{5}$", "negated"),
    ("5", "\\boxed{5} is incorrect, so I give up.", "negated"),
    ("5", "\\boxed{5} is wrong; the answer is unknown", "negated"),
    ("5", "\\boxed{5} \u2014 wrong!", "negated"),
    ("5", "\\boxed{5} \u2717", "negated"),  # a cross mark
    ("5", "The answer cannot be \\boxed{5}", "negated"),
    ("5", "~~\\boxed{5}~~ The answer is unclear.", "negated"),  # markdown strike-through
    ("5", "5 is not the answer.", "negated"),
    # issue 28: a second <think> that never closes, after the last close
    ("5", "<think>a</think>ok <think>\\boxed{5}", "unclosed think"),
    # invented: the same with the box first, and an open block with nothing closed
    ("5", "</think>\\boxed{5}<think>", "unclosed think"),
    ("5", "<think>\\boxed{5}", "unclosed think"),
    # invented: a later box that never closes
    ("5", "\\boxed{5} then \\boxed{6", "unclosed box"),
]


@pytest.mark.parametrize(("gold", "completion", "reason"), REFUSED)
def test_a_completion_without_one_committed_answer_scores_zero_and_says_why(gold: str, completion: str, reason: str) -> None:
    score = _score(gold, completion)
    assert score.reward == 0.0 and score.status == "unparsed", score
    assert score.detail.startswith(reason), score


WRONG_WITH_REASON = [
    # issue 28: false chains (Math-Verify reads the last side)
    ("5", "\\boxed{2 + 2 = 5}", "false chain"),
    ("5", "\\boxed{x = 6 = 5}", "false chain"),
    # invented
    ("11", "\\boxed{x = 5+5+1 = 7 = 11}", "false chain"),
    ("2", "\\boxed{z = 3+3 = 2}", "false chain"),
    ("10", "#### 2*3 = 10", "false chain"),
    ("5", "\\boxed{2+2=4=5}", "false chain"),
    ("5", "\\boxed{5 = 2+2}", "false chain"),
    # issue 28: "or" between values is a list, and a list is not a single gold
    ("7", "\\boxed{5 \\text{ or } 7}", "several answers"),
    ("7", "\\boxed{5} or \\boxed{7}", "several answers"),
    ("7", "Answer: 5 or 7", "several answers"),
    ("7", "5 or 7", "several answers"),
    ("7", "x = 5 or x = 7", "several answers"),
    ("5", "\\boxed{5}\n\n\\boxed{6}", "several answers"),
    ("7", "\\boxed{5} (or \\boxed{7})", "several answers"),
]


@pytest.mark.parametrize(("gold", "completion", "reason"), WRONG_WITH_REASON)
def test_an_answer_that_is_false_or_several_values_is_wrong_and_says_why(gold: str, completion: str, reason: str) -> None:
    score = _score(gold, completion)
    assert score.reward == 0.0 and score.status == "wrong", score
    assert score.detail.startswith(reason), score


STILL_READ = [
    # a box after `=`, an arrow, "therefore", `\in`, in display math, in an align environment
    ("5", "Therefore, $x = \\boxed{5}$."),
    ("5", "So the total is $2 + 3 = \\boxed{5}$ apples."),
    ("5", "$\\therefore \\boxed{5}$"),
    ("5", "$\\Rightarrow \\boxed{5}$"),
    ("[0, 1]", "$x \\in \\boxed{[0, 1]}$"),
    ("5", "$$\\boxed{5}$$"),
    ("5", "\\[ \\boxed{5} \\]"),
    ("5", "\\begin{align*} x &= 2+3 \\\\ &= \\boxed{5} \\end{align*}"),
    ("9", "$129^{34}+96^{38} \\equiv \\boxed{9} \\pmod{11}$"),
    # units, a percent or degree sign after the box, currency before it
    ("5", "$\\boxed{5}$ dollars"),
    ("5", "\\boxed{5}\\text{ cm}"),
    ("5", "$\\boxed{5}\\,\\text{m}$"),
    ("5", "\\boxed{5}~\\text{cm}"),
    ("0.5", "\\boxed{50}\\%"),
    ("30", "$\\boxed{30}^\\circ$"),
    ("10", "Total: \\$\\boxed{10}"),
    ("10", "Total: $\\$\\boxed{10}$"),
    ("0.5", "\\boxed{50} percent"),
    ("5", "He ran \\boxed{5} times."),  # "times" as a count, not a product
    ("5", "\\boxed{10 - 5 = 5}"),  # a true chain
    ("5", "The result: <b>\\boxed{5}</b>"),
    # brackets that hold only the box, markdown, bullets, prose around it
    ("5", "(\\boxed{5})"),
    ("5", "$\\left(\\boxed{5}\\right)$"),
    ("B", "Answer: (\\boxed{B})"),
    ("5", "**\\boxed{5}**"),
    ("5", "**Final Answer**\n\n\\boxed{5}"),
    ("5", "- \\boxed{5}"),
    ("5", "The answer is \\boxed{5}!"),
    ("5", "\\boxed{5} (the number of apples)"),
    ("5", "\\boxed{5}, which is odd."),
    ("5", "$\\boxed{5}$ is the answer."),
    ("5", "$k = \\boxed{5}$ (since $k > 0$)"),
    ("5", "\\boxed{5}. I could be wrong, but I checked it."),
    # a negation or an alternative elsewhere is not about the answer
    ("5", "The answer is 5, not 7."),
    ("7", "It is not 4. The answer is \\boxed{7}."),
    ("7", "I first got \\boxed{5}. Wait, recheck: \\boxed{7}."),  # a correction: the last box
    ("5", "The answer is **5**."),
    # several values joined by "and"/"or" against a gold list
    ("2, 3", "x = 2 or x = 3"),
    ("5, -5", "$$ x = \\boxed{5} \\quad \\text{or} \\quad x = \\boxed{-5} $$"),
]


@pytest.mark.parametrize(("gold", "completion"), STILL_READ)
def test_an_ordinary_final_answer_is_still_read(gold: str, completion: str) -> None:
    score = _score(gold, completion)
    assert score.status == "correct", score
