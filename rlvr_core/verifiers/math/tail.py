"""Step 1d of math verification: the text after the final answer may take it back or offer another value.

The final answer is the last statement the completion commits to, so the
text after it is read too (all of it, not a window: a retraction may come
after any amount of filler). The answer is void when that text:

- "disowned": disowns it ("ignore the box above", "the box is a placeholder",
  "not my final answer": `math_addressed`);
- "retracted": takes it back outright ("that's wrong", "I made a mistake",
  "scratch that", "oops", "I miscounted"), or with a softer word ("wait",
  "actually", "no,", "hmm", "on second thought", "I forgot", "I realize",
  "after re-reading", "sorry", "instead", "should be", "the correct
  answer") followed closely by another value;
- "hedge": offers another value, in the same sentence and close to it, with
  a word that makes it an alternative or a condition: "also", "too", "as
  well", "another", "either", "or", "otherwise", "instead", "unless", "in
  which case", "if instead", "depending", "maybe", "might", "could",
  "probably", "interpretation", "torn between", or a question mark ("though
  7 is also possible", "unless I misread, in which case 7", "7 works too");
  "the smallest possible value" is a superlative, not an alternative; a
  value given as the answer's equivalent ("or equivalently 0.5") must equal
  it;
- "bound": says the true value may be higher or lower;
- "contradicted": states another value on its own, with no cue word at all:
  after a boundary (a sentence end, a colon, a comma, a dash, an arrow, a
  parenthesis) and at most a short lead-in ("so", "it's", "the correct
  total is"), ending its clause ("On closer inspection, 44.", "with
  replacement, 44.", "Correction: 44"). Not counted: a value in a
  computation or a true identity (a check), an expression with variables,
  a list marker, a member of a list of three or more, a value the text
  rejects ("the other root, $x = -3$, is rejected").

Another value is a number or math span in that text that is not one of the
answer's own values (compared after normalisation) and not a variable's
name ("possible values for $B$"); next to an alternative word, not the
argument of a preposition either ("also divisible by 3", "each of the 4
rows"). A later sentence that repeats the answer, explains it, or states a
fact in a full clause ("the first die shows 3") is read as it is; a later
explicit answer statement ("the answer is 7") is a new candidate and is
handled by extraction, which takes the last one.

Each pattern is a fixed alternation without nested repetition, and every
sentence and value is found in one pass (bisection after), so the cost is
linear in the length of the text.
"""

from __future__ import annotations

import bisect
import re

from rlvr_core.verifiers.math.addressed import disowned_after
from rlvr_core.verifiers.math.normalize import normalize

_STRONG = re.compile(
    r"\b(?:(?:that|this|it|which|the\s+(?:above|previous|first|boxed)(?:\s+(?:answer|box|value|one))?|my\s+(?:\w+\s+)?answer)"
    r"\s*(?:'s|is|was|are|were)\s+(?:\w+\s+)?(?:wrong|incorrect|false|invalid|a\s+mistake|an\s+error|not\s+(?:right|correct|it))"
    r"|I\s+(?:have\s+)?(?:made|make)\s+(?:a|an)\s+(?:\w+\s+)?(?:mistake|error|slip)|(?:scratch|strike)\s+that|oops|whoops"
    r"|my\s+bad"
    r"|never\s*mind|take\s+(?:it|that)\s+back|retract(?:ed|ing|ion)?|typo"
    r"|mis-?(?:add|calculat|count|read|typ|underst|wr[io]t|comput|judg|cop|stat|quot|appl|interpret|identif)\w*"
    r"|(?:is|was)\s+what\s+I\s+(?:first|initially|originally|previously|earlier|mistakenly)\s+\w+)\b"
    r"|\b(?:correction|erratum|errata|edit|update|revision|fix)\s*:|\b(?:hmm+|wait|oh+|uh+)[\s,.!]+no(?:pe)?\b",
    re.IGNORECASE,
)
_WEAK = re.compile(
    r"\b(?:wait|actually|really|in\s+fact|in\s+reality|truly|hmm+|err+|erm|uh+|um+|oh+|ah+|aha|whoa|nah|hold\s+on|hang\s+on"
    r"|(?:over|under|double)-?count\w*|off\s+by|realiz(?:e|ed|ing)|now\s+I\s+see|I\s+see\s+now|turns\s+out|forg[eo]t\w*"
    r"|overlook\w*|missed|omitted|left\s+out|neglect\w*"
    r"|(?:didn't|did\s+not)\s+(?:count|include|consider|see|notice|account)|skipped|re-?read\w*|re-?examin\w*|re-?deriv\w*"
    r"|revisit\w*|retry\w*|re-?ran|re-?run|closer\s+look|another\s+look|sorry|apolog\w*|pardon|excuse\s+me"
    r"|amend\w*|adjust(?:ed|ing|ment)|update[ds]?|chang(?:e|ed|ing)\s+(?:it|that|this|the\s+answer)|ought\s+to\s+be"
    r"|on\s+(?:second|further)\s+thought|no(?=\s*[,.:;!\u2014\-])|nope|instead(?!\s+of)"
    r"|rather(?!\s+than)|I\s+meant?|let\s+me\s+(?:redo|recompute|recalculate|reconsider|correct|fix|revise|try\s+again"
    r"|start\s+over)"
    r"|recalculat\w*|recomput\w*|recount\w*|redo\w*|revis(?:e|ed|ing)|corrected|correction|should\s+(?:be|have\s+been)|wrong"
    r"|incorrect|mistakes?|error|make\s+(?:that|it)|(?:up)?on\s+(?:further\s+)?reflection|thinking\s+(?:again|twice|more)"
    r"|looking\s+again|second\s+look|final(?:ly)?\s*:|(?:real|true|actual|right|correct|proper)\s+"
    r"(?:answer|value|result|total|count|number|figure|amount|sum|quantity|tally))\b"
    r"|~~|<(?:s|del|strike)>|\\(?:sout|cancel|xcancel|bcancel|st)\b",
    re.IGNORECASE,
)
_ALTERNATIVE = re.compile(
    r"\b(?:also|too|as\s+well|equally|alternatively|alternative|another|otherwise|else|either|or|instead|unless"
    r"|in\s+(?:which|that|this|either|the\s+other|any)\s+case|if\s+(?:instead|not|so|otherwise)|failing\s+that|barring\s+that"
    r"|other\s+(?:case|reading|interpretation|convention|option|possibility|scenario|answer|solution|value|way|candidate"
    r"|choice)s?"
    r"|vs\.?|versus"
    r"|not\s+(?:be\s+)?(?:ruled\s+out|excluded|impossible)|(?:should|were|had)\s+(?:the|it|this|that|we|you|one)"
    r"|some\s+(?:\w+\s+){0,2}?(?:would|might|may|could|prefer|give|gives|say|says|list|state|report|claim|use|write|argue|get)"
    r"|may|both(?=[^.\n]{0,60}\b(?:satisf|work|fit|are\s+(?:solution|valid|correct|possible|answer|acceptable)))"
    r"|if\s+(?:the\s+problem|the\s+question|it|this|that|one|we|you)\s+(?:means?|meant|asks?|asked|is\s+(?:interpreted|read"
    r"|taken)|"
    r"counts?|includes?|excludes?|instead|also|allows?|interprets?|reads?|counted|included|excluded|assumes?|considers?)"
    r"|depending|depends|(?<!smallest\s)(?<!largest\s)(?<!least\s)(?<!greatest\s)(?<!lowest\s)(?<!highest\s)(?<!minimum\s)"
    r"(?<!maximum\s)(?<!best\s)possibl[ey]|maybe|perhaps|might|could|probably|likely|plausibl[ey]|arguably|conceivably"
    r"|interpretations?|readings?|second\s+(?:answer|solution|value|possibility|option|candidate)|close\s+second|runner[\s-]up"
    r"|torn|toss-?up|undecided|unsure|not\s+sure|uncertain|can't\s+decide|either\s+way|between\s+(?:this|that|it|the\s+two)"
    r"|next\s+best|contenders?|backup|fallback|would\s+(?:also\s+)?(?:be\s+)?(?:right|correct|valid|acceptable|fine|the\s+answer)"
    r"|(?:works?|holds?|fits?|applies|apply|satisf(?:y|ies))\s+(?:too|as\s+well|equally))\b"
    r"|n't\s+(?:be\s+)?(?:ruled\s+out|excluded|impossible)\b|\?",
    re.IGNORECASE,
)
# A value right after one of these words is an argument of what the sentence says ("divisible by 3", "each of
# the 4 rows"), not a value offered as an answer.
_ARGUMENT = re.compile(
    r"\b(?:by|of|from|into|with|than|per|times|(?<!argue\s)(?<!argues\s)(?<!vote\s)(?<!opt\s)(?<!settle\s)(?<!go\s)for|in|at|on|"
    r"each|every|all|the|first|last|only|has|have|had|between|among)"
    r"\s*\$?\s*$",
    re.IGNORECASE,
)
# After a retraction word, a value is the new answer unless it is the object of one of these ("after 5 years");
# "comes to 7" and "equal to 7" state a result, so "to" is not among them.
_OBJECT = re.compile(
    r"\b(?:by|of|from|with|than|per|times|for|in|at|on|after|before|during|each|every|all|first|last|only|between|among)"
    r"\s*\$?\s*$",
    re.IGNORECASE,
)
# A value named only to be ruled out ("not 16 as one might think") is not offered.
_NEGATED_BEFORE = re.compile(
    r"(?:(?<!\bif\s)\bnot|n't|\bnever|\brather\s+than|\binstead\s+of|\bother\s+than)\s*\$?\s*$", re.IGNORECASE
)
# A variable named in the text ("$B$", "$x_1$") is not a value offered as an answer.
_NAME = re.compile(r"[A-Za-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?'?")
_EQUIVALENTLY = re.compile(
    r"\s*,?\s*(?:equivalently|in\s+other\s+words|that\s+is|i\.e\.|simplified|in\s+simplest\s+form|in\s+decimal\s+form|"
    r"as\s+a\s+(?:decimal|fraction|percentage|percent)|written\s+as|which\s+(?:is|equals))\b",
    re.IGNORECASE,
)
_DIRECT = re.compile(r"[\s$:=(]*|\s*\\\(\s*")  # between "equivalently" and the value it gives
_NEAR = 40  # an alternative word offers a value written this close to it, in its sentence
_NEAR_RETRACTION = 100  # a retraction word gives its new value within this many characters
# A later value stated on its own ("On closer inspection, 44.", "Correction: 44", "so 44", "with replacement, 44."):
# what may stand between the last clause boundary and the value, and what must follow it.
_BOUNDARY = re.compile(r"[.!?](?=\s|$)|[;:\n(\[\u2014\u2013\u2192]|,\s|\s-{1,2}\s|=>|->")
_LEAD_IN = re.compile(
    r"(?:(?:so|thus|hence|then|now|therefore|actually|really|instead|rather|or|maybe|perhaps|probably|possibly|finally|again|"
    r"it'?s|it\s+is|that'?s|that\s+is|this\s+is|"
    r"(?:the\s+)?(?:(?:new|real|true|correct|actual|right|final|revised|updated|corrected)\s+)?"
    r"(?:count|total|sum|answer|result|value|number)(?:\s+(?:is|=|equals|comes\s+to|would\s+be|should\s+be))?)[\s,]*)*",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"[\s*_$~]|\\[()\[\]]")
_CLAUSE_END = re.compile(
    r"(?:\s|\$|\\[)\]]|\*\*|_)*(?:[.!?;)\]\n,]|$|(?:if|when|unless|assuming|provided|depending|under|with|in\s+case|otherwise)\b"
    r"|(?:for|in|under|with)\s+(?:the|a|an)\s+(?:\w+\s+){0,2}?(?:variant|case|version|reading|interpretation|convention|scenario"
    r"|setting)\b)",
    re.IGNORECASE,
)
_REJECTED_LATER = re.compile(
    r"[\s$,)]*(?:which\s+)?(?:is|are|was|were|gets|get|being)\s+(?:\w+\s+)?(?:rejected|excluded|discarded|invalid|extraneous"
    r"|impossible|"
    r"ruled\s+out|not\s+(?:valid|allowed|possible|a\s+solution))",
    re.IGNORECASE,
)
_AFFIRMED = re.compile(
    r"[\s$)]*(?:is|was|would\s+be|seems|must\s+be)\s+(?:\w+\s+)?(?:right|correct|the\s+(?:right|correct|real|true|actual)\s+"
    r"(?:answer|one|value|count|total))\b",
    re.IGNORECASE,
)
_OPERATOR_BEFORE = re.compile(r"(?:[=+\-*/\u00d7\u00b7^]|\\(?:cdot|times|div|pm))\s*\$?\s*$")
_EQUIVALENT_BEFORE = re.compile(
    r"(?:equivalently|in\s+other\s+words|that\s+is|i\.e\.|simplified|written\s+as|which\s+(?:is|equals))[\s,:$]*$", re.IGNORECASE
)
_MARKER_AFTER = re.compile(r"[.)]\s")
_COMMAND = re.compile(r"\\(?:text|mathrm|mbox|textbf)\s*\{[^{}]*\}|\\[A-Za-z]+")
_CONSTANT_ASSIGNMENT = re.compile(r"[A-Za-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?(?:\([^()]{0,20}\))?\s*=\s*([^=<>]*)")
_SENTENCE_END = re.compile(r"(?<!vs)(?<!\.g)(?<!\.e)(?<!etc)(?<!approx)[.!?](?=\s|$)|\n|;")  # abbreviations do not end one
_LIST_GAP = re.compile(r"[\s$]*,[\s$]*(?:and\s+)?[\s$]*")


_BOUND_LATER = re.compile(
    r"\b(?:(?:the\s+)?(?:true|actual|real|exact)\s+(?:value|answer|number|count|total)|it|this|that|the\s+answer)\s+"
    r"(?:may|might|could|can|is\s+(?:probably|likely))\s+(?:well\s+)?be\s+(?:even\s+|a\s+bit\s+|slightly\s+|much\s+)?"
    r"(?:higher|lower|larger|smaller|bigger|more|less|greater|fewer)\b",
    re.IGNORECASE,
)


def later_refusal(text: str, end: int, answer: str, items: list[tuple[int, int, str]]) -> str | None:
    """Why the text after `end` voids the answer ("disowned: ...", "retracted: ...", "hedge: ..."), or None.

    `items`: the values stated after `end`, as (start, end, text), in order.
    """
    disowning = disowned_after(text, end)
    if disowning:
        return f"disowned: {disowning!r} after the answer"
    strong = _STRONG.search(text, end)
    if strong:
        return f"retracted: {strong.group(0)!r} after the answer"
    bound = _BOUND_LATER.search(text, end)
    if bound:
        return f"bound: {bound.group(0)!r} after the answer"
    items = [item for item in items if item[0] >= end and not _NAME.fullmatch(item[2].strip())]
    if not items:
        return None
    parts = {part.strip() for part in answer.split(",")} | {answer.strip()}
    own = {normalize(part) for part in parts}

    def other(item: tuple[int, int, str]) -> bool:
        return item[2].strip() not in parts and normalize(item[2]) not in own

    starts = [item[0] for item in items]
    read = -1  # items are read once: the windows of successive cues only move forward
    for weak in _WEAK.finditer(text, end):
        j = max(bisect.bisect_left(starts, weak.end()), read + 1)
        while j < len(items) and items[j][0] < weak.end() + _NEAR_RETRACTION:
            if other(items[j]) and not _OBJECT.search(text, max(end, items[j][0] - 12), items[j][0]):
                return f"retracted: {weak.group(0)!r} then {items[j][2][:30]!r} after the answer"
            read = j
            j += 1
    sentence_ends = [m.start() for m in _SENTENCE_END.finditer(text, end)] + [len(text)]
    read = -1
    for cue in _ALTERNATIVE.finditer(text, end):
        if _EQUIVALENTLY.match(text, cue.end()):
            continue  # "or equivalently 0.5": a rewriting, checked below
        i = bisect.bisect_left(sentence_ends, cue.start())
        begin = max(sentence_ends[i - 1] + 1 if i > 0 else end, cue.start() - _NEAR)
        stop = cue.start() if cue.group(0) == "?" else min(sentence_ends[i], cue.end() + _NEAR)
        j = max(bisect.bisect_left(starts, begin), read + 1)
        while j < len(items) and items[j][0] < stop:
            if other(items[j]) and not _ARGUMENT.search(text, max(end, items[j][0] - 12), items[j][0]) \
                    and not _NEGATED_BEFORE.search(text, max(end, items[j][0] - 16), items[j][0]):
                return f"hedge: {cue.group(0)!r} offers {items[j][2][:30]!r} after the answer"
            read = j
            j += 1
    return _unequal_rewriting(text, end, answer, items, starts) or _later_value(text, end, items, other)


def _later_value(text: str, end: int, items: list[tuple[int, int, str]], other) -> str | None:  # noqa: ANN001
    """A value stated on its own after the answer, without any cue word ("On closer inspection, 44.").

    A value counts when only a boundary (a sentence end, a colon, a comma, a dash, an arrow, an opening
    parenthesis) and at most a short lead-in ("so", "it's", "the correct total is") stand before it, and a
    clause ends after it. Not counted: a value in a computation (`40 + 4 = 44`, a true identity), an
    expression with variables, a list marker ("2. Solve"), a member of a list of three or more, and a value
    the text rejects ("the other root, $x = -3$, is rejected").
    """
    for k, (start, stop, content) in enumerate(items):
        if not other(items[k]) or not _is_constant(content):
            continue
        window = text[max(end, start - 80) : start]
        boundary = None
        for boundary in _BOUNDARY.finditer(window):
            pass
        lead = window[boundary.end() :] if boundary else (window if start - end <= 80 else "x" * 81)
        if _AFFIRMED.match(text, stop):
            return f"contradicted: {content[:30]!r} is said to be right after the answer"
        if not _LEAD_IN.fullmatch(_MARKUP.sub(" ", lead).strip()):
            continue
        if _OPERATOR_BEFORE.search(window) or _EQUIVALENT_BEFORE.search(window) or _NEGATED_BEFORE.search(window):
            continue  # a computation, or a rewriting that `_unequal_rewriting` checked
        if _CLAUSE_END.match(text, stop) is None or _REJECTED_LATER.match(text, stop) or _enumerated(text, items, k):
            continue
        if _in_long_list(text, items, k):
            continue
        return f"contradicted: {content[:30]!r} is stated after the answer"
    return None


def _enumerated(text: str, items: list[tuple[int, int, str]], k: int) -> bool:
    """Whether item k is a list marker ("1. Factor. 2. Solve."): followed by "." or ")" like a neighbour one apart."""
    if not (_MARKER_AFTER.match(text, items[k][1]) and items[k][2].isdigit()):
        return False
    for j in (k - 1, k + 1):
        if 0 <= j < len(items) and items[j][2].isdigit() and abs(int(items[j][2]) - int(items[k][2])) == 1:
            if _MARKER_AFTER.match(text, items[j][1]):
                return True
    return False


def _is_constant(content: str) -> bool:
    """A value with no variable in it (`44`, `\\frac{1}{2}`, `5 cm`), or a name given one (`x = 44`); not an identity."""
    from rlvr_core.verifiers.math.units import split_unit

    assignment = _CONSTANT_ASSIGNMENT.fullmatch(content.strip())
    value = assignment.group(1) if assignment else content
    value = split_unit(value)[0]
    if "=" in value:
        return False  # a computation such as 12 / 4 = 3: a check, not a stated value
    return not re.search(r"[A-Za-z]", _COMMAND.sub(" ", value))


def _in_long_list(text: str, items: list[tuple[int, int, str]], k: int) -> bool:
    """Whether item k is one of three or more values separated only by commas ("1, 2, 3, 4, 6, 12")."""
    run = 1
    for step in (-1, 1):
        j = k
        while 0 <= j + step < len(items):
            a, b = (items[j], items[j + step]) if step == 1 else (items[j + step], items[j])
            if not _LIST_GAP.fullmatch(text, a[1], b[0]):
                break
            run += 1
            j += step
    return run >= 3


def _unequal_rewriting(text: str, end: int, answer: str, items: list[tuple[int, int, str]], starts: list[int]) -> str | None:
    """A value given as the answer's equivalent ("or equivalently 0.5") must equal it; otherwise it is a hedge."""
    from rlvr_core.verifiers.math.compare import judge

    for match in _EQUIVALENTLY.finditer(text, end):
        j = bisect.bisect_left(starts, match.end())
        if j < len(items) and _DIRECT.fullmatch(text, match.end(), items[j][0]) and not judge(answer, items[j][2], time_limit_s=2.0).equal:
            return f"hedge: {match.group(0).strip()!r} offers {items[j][2][:30]!r}, which is not the answer's value"
    return None
