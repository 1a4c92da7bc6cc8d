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
  which case", "if instead", "depending", "possible", "maybe", "might",
  "could", "probably", "interpretation", "option", "candidate", or a
  question mark ("though 7 is also possible", "unless I misread, in which
  case 7", "7 works too"); "the smallest possible value" is a superlative,
  not an alternative.

Another value is a number or math span in that text that is not one of the
answer's own values (compared after normalisation) and not a variable's
name ("possible values for $B$"); next to an alternative word, not the
argument of a preposition either ("also divisible by 3", "each of the 4
rows"). A later sentence that
repeats the answer, explains it, or states a fact with no value is read as
it is; a later explicit answer statement ("the answer is 7") is a new
candidate and is handled by extraction, which takes the last one.

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
    r"|I\s+(?:have\s+)?(?:made|make)\s+(?:a|an)\s+(?:\w+\s+)?(?:mistake|error|slip)|(?:scratch|strike)\s+that|oops|whoops|my\s+bad"
    r"|never\s*mind|take\s+(?:it|that)\s+back|retract(?:ed|ing|ion)?|typo"
    r"|mis-?(?:add|calculat|count|read|typ|underst|wr[io]t|comput|judg|cop|stat|quot|appl|interpret|identif)\w*"
    r"|(?:is|was)\s+what\s+I\s+(?:first|initially|originally|previously|earlier|mistakenly)\s+\w+)\b"
    r"|\b(?:correction|erratum|errata|edit|update|revision|fix)\s*:",
    re.IGNORECASE,
)
_WEAK = re.compile(
    r"\b(?:wait|actually|really|in\s+fact|in\s+reality|truly|hmm+|err+|erm|uh+|um+|oh+|ah+|aha|whoa|nah|hold\s+on|hang\s+on"
    r"|realiz(?:e|ed|ing)|now\s+I\s+see|I\s+see\s+now|turns\s+out|forg[eo]t\w*|overlook\w*|missed|omitted|left\s+out|neglect\w*"
    r"|(?:didn't|did\s+not)\s+(?:count|include|consider|see|notice|account)|skipped|re-?read\w*|re-?examin\w*|re-?deriv\w*"
    r"|revisit\w*|retry\w*|re-?ran|re-?run|closer\s+look|another\s+look|sorry|apolog\w*|pardon|excuse\s+me"
    r"|amend\w*|adjust(?:ed|ing|ment)|update[ds]?|chang(?:e|ed|ing)\s+(?:it|that|this|the\s+answer)|ought\s+to\s+be|on\s+(?:second|further)\s+thought|no(?=\s*[,.:;!\u2014\-])|nope|instead(?!\s+of)"
    r"|rather(?!\s+than)|I\s+meant?|let\s+me\s+(?:redo|recompute|recalculate|reconsider|correct|fix|revise|try\s+again|start\s+over)"
    r"|recalculat\w*|recomput\w*|recount\w*|redo\w*|revis(?:e|ed|ing)|corrected|correction|should\s+(?:be|have\s+been)|wrong"
    r"|incorrect|mistakes?|error|make\s+(?:that|it)|(?:up)?on\s+(?:further\s+)?reflection|thinking\s+(?:again|twice|more)"
    r"|looking\s+again|second\s+look|final(?:ly)?\s*:|(?:real|true|actual|right|correct|proper)\s+"
    r"(?:answer|value|result|total|count|number))\b",
    re.IGNORECASE,
)
_ALTERNATIVE = re.compile(
    r"\b(?:also|too|as\s+well|equally|alternatively|alternative|another|otherwise|else|either|or|instead|unless"
    r"|in\s+(?:which|that|this|either|the\s+other|any)\s+case|if\s+(?:instead|not|so|otherwise)|failing\s+that|barring\s+that"
    r"|other\s+(?:case|reading|interpretation|convention|option|possibility|scenario|answer|solution|value|way)s?"
    r"|not\s+(?:be\s+)?(?:ruled\s+out|excluded|impossible)|(?:should|were|had)\s+(?:the|it|this|that|we|you|one)"
    r"|some\s+(?:\w+\s+){0,2}?(?:would|might|may|could|prefer|give|gives|say|says|list|state|report|claim|use|write|argue|get)"
    r"|may|both(?=[^.\n]{0,60}\b(?:satisf|work|fit|are\s+(?:solution|valid|correct|possible|answer|acceptable)))"
    r"|if\s+(?:the\s+problem|the\s+question|it|this|that|one|we|you)\s+(?:means?|meant|asks?|asked|is\s+(?:interpreted|read|taken)|"
    r"counts?|includes?|excludes?|instead|also|allows?|interprets?|reads?|counted|included|excluded|assumes?|considers?)"
    r"|depending|depends|(?<!smallest\s)(?<!largest\s)(?<!least\s)(?<!greatest\s)(?<!lowest\s)(?<!highest\s)(?<!minimum\s)"
    r"(?<!maximum\s)(?<!best\s)possibl[ey]|maybe|perhaps|might|could|probably|likely|plausibl[ey]|arguably|conceivably"
    r"|interpretations?|readings?|second\s+(?:answer|solution|value|possibility|option|candidate)|close\s+second|runner[\s-]up"
    r"|next\s+best|contenders?|backup|fallback|would\s+(?:also\s+)?(?:be\s+)?(?:right|correct|valid|acceptable|fine|the\s+answer)"
    r"|(?:works?|holds?|fits?|applies|apply|satisf(?:y|ies))\s+(?:too|as\s+well|equally))\b"
    r"|n't\s+(?:be\s+)?(?:ruled\s+out|excluded|impossible)\b|\?",
    re.IGNORECASE,
)
# A variable named in the text ("$B$", "$x_1$") is not a value offered as an answer.
# A value right after one of these words is an argument of what the sentence says ("divisible by 3", "each of
# the 4 rows"), not a value offered as an answer.
_ARGUMENT = re.compile(
    r"\b(?:by|of|from|to|into|with|than|per|times|for|in|at|on|each|every|all|the|first|last|only|has|have|had|between|among)"
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
_NAME = re.compile(r"[A-Za-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?'?")
_EQUIVALENTLY = re.compile(
    r"\s*,?\s*(?:equivalently|in\s+other\s+words|that\s+is|i\.e\.|simplified|in\s+simplest\s+form|in\s+decimal\s+form|"
    r"as\s+a\s+(?:decimal|fraction|percentage|percent)|written\s+as|which\s+(?:is|equals))\b",
    re.IGNORECASE,
)
_DIRECT = re.compile(r"[\s$:=(]*|\s*\\\(\s*")  # between "equivalently" and the value it gives
_NEAR = 40
_NEAR_RETRACTION = 100  # a retraction word gives its new value within this many characters  # an alternative word offers a value written this close to it, in its sentence
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n|;")


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
            if other(items[j]) and not _ARGUMENT.search(text, max(end, items[j][0] - 12), items[j][0]):
                return f"hedge: {cue.group(0)!r} offers {items[j][2][:30]!r} after the answer"
            read = j
            j += 1
    return _unequal_rewriting(text, end, answer, items, starts)


def _unequal_rewriting(text: str, end: int, answer: str, items: list[tuple[int, int, str]], starts: list[int]) -> str | None:
    """A value given as the answer's equivalent ("or equivalently 0.5") must equal it; otherwise it is a hedge."""
    from rlvr_core.verifiers.math.compare import judge

    for match in _EQUIVALENTLY.finditer(text, end):
        j = bisect.bisect_left(starts, match.end())
        if j < len(items) and _DIRECT.fullmatch(text, match.end(), items[j][0]) and not judge(answer, items[j][2], time_limit_s=2.0).equal:
            return f"hedge: {match.group(0).strip()!r} offers {items[j][2][:30]!r}, which is not the answer's value"
    return None
