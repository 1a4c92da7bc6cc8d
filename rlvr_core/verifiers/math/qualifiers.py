"""Step 1c of math verification: the words right around an answer can make it something other than its value.

The answer found is refused, with the reason first in its name, when the
words next to it say it is:

- "negated": not the answer, in any spelling: "is not", "isn't", "cannot be",
  "anything but", "rather than", "other than", `\\ne`, `\\neq`, `\\not=`,
  `\\not\\approx`, `\\not\\in`, `\\notin`, `\\nleq`, "≠", "≉", "∉", "!=", before it;
  "is wrong", "which is incorrect", "is not right", "(✗)" after it; or struck
  out: `~~...~~`, `<s>`, `<del>`, `<strike>`, `\\sout`, `\\st`, `\\cancel`,
  `\\bcancel`, `\\xcancel`, `\\xout`, `\\cancelto` around it or inside it,
  and combining strike-through characters ("5̶");
- "bound": a bound, not a value: "at least", "at most", "no more than",
  "less than", "greater than", "up to", "a minimum of", "a lower bound
  is", `\\ge`, `\\le`, `<`, `>` before it ("under", "below", "over" only
  right before it); "or more", "or less", "or fewer", "and up", "at
  least", "at most", "(minimum)", "is a lower bound", `\\le n` after it;
- "disowned": an example or an earlier attempt: "for example", "e.g.",
  "such as", "sample output:", "something like", "not my final answer:",
  "my first attempt gave", "I initially got", "if the answer were" before
  it; "(just an example)", "is a placeholder", "(a guess)" after it;
- "hedge": an alternative named just before it ("either 7 or \\boxed{5}").

Before the answer, a word counts when only filler stands between it and the
answer: no digit, no sentence end, and no verb that states a new value
("is", "=", "gives", "get", "equals" ...), so "at least, by my count,
\\boxed{5}" is a bound while "since x is at least 2, the answer is
\\boxed{5}" and "it is not hard to see that x = \\boxed{5}" are not. After
the answer, the words must follow it in the same clause.

Every check reads a window of bounded length around the answer.
"""

from __future__ import annotations

import re

_WINDOW = 160
_GAP = 60
_AFTER_WINDOW = 80
# Text commands and HTML tags are read as the words they hold; markdown bold and math delimiters as nothing.
_WRAPPER = re.compile(r"\\(?:text|textbf|textit|textrm|textnormal|textsf|mathrm|mbox|emph|operatorname)\s*\{([^{}]*)\}")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,10}(?:\s[^<>]{0,40})?/?>")
_DELIMITERS = re.compile(r"\*\*|\$|\\[()\[\]]|\\[,;:! ]|\\q?quad(?![A-Za-z])|~|\\(?:left|right|displaystyle)(?![A-Za-z])")

_NEGATION = (
    r"(?:\b(?:impossible|not\s+possible)\s+for\s+(?:the\s+answer|it|this|that|the\s+(?:value|result|count|total))\s+to\s+"
    r"(?:be|equal)\b|\bby\s+no\s+means\b|\bin\s+no\s+way\b|\bno\s+way\b|\bfar\s+from\b|\bhardly\b|\bscarcely\b|\bnowhere\s+near\b"
    r"|\bnot\b|n't\b|\bnever\b|\bcannot\b|\bno\s+longer\b|\bneither\b|\bnor\b|\banything\s+but\b|\bother\s+than\b"
    r"|\bexcept(?:\s+for)?\b|\brather\s+than\b|\binstead\s+of\b|\bunequal\s+to\b|\bdiffer(?:s|ent)?\s+from\b|\bexcluding\b"
    r"|\bruled?\s+out\b|\brules\s+out\b|\b(?:exclude|eliminate|discard|reject|omit)(?:s|d|ed)?\b|\bwrongly\b|\bfalsely\b"
    r"|\bincorrectly\b"
    r"|\\not\s*(?:=|<|>|\\[A-Za-z]+)|\\(?:not|notin|ne|neq|nleq|ngeq|nleqslant|ngeqslant|nless|ngtr|nsim|napprox|nequiv|ncong"
    r"|nmid|nsubset|nsubseteq|neg|lnot)"
    r"(?![A-Za-z])|[\u2260\u2249\u2209\u2262\u2241\u2247\u2270\u2271\u226e\u226f\u00ac]|!=|=/=|/=|<>)"
    r"(?:\s+(?:possibly\s+|really\s+|actually\s+|even\s+)?(?:be|been|equal|equals|equal\s+to|have\s+been))?"
)
_BOUND = (
    r"\bat\s+(?:the\s+|a\s+)?(?:very\s+|bare\s+|absolute\s+)?(?:least|most|minimum|maximum)\b|\bno\s+(?:more|less|fewer|greater"
    r"|smaller|larger|higher|lower|bigger|"
    r"longer|shorter|later|earlier|older|younger|heavier|lighter)\s+than\b"
    r"|\b(?:more|less|fewer|greater|smaller|larger|higher|lower|bigger|longer|shorter|older|younger|heavier|lighter|"
    r"faster|slower|cheaper|dearer|later|earlier)\s+than(?:\s+or\s+equal\s+to)?\b|\b(?:beyond|exceeds?|exceeding|upwards\s+of"
    r"|in\s+excess\s+of|"
    r"(?<!add\s)(?<!adds\s)(?<!added\s)(?<!adding\s)(?<!come\s)(?<!comes\s)(?<!came\s)(?<!sum\s)(?<!sums\s)(?<!summed\s)"
    r"(?<!round\s)(?<!rounds\s)(?<!rounded\s)(?<!rounding\s)(?<!amounts\s)up\s+to|shy\s+of|short\s+of|nearly|almost"
    r"|just\s+(?:under|over|below|above|shy\s+of)|"
    r"(?:well|slightly|a\s+bit|a\s+little|somewhat|way)\s+(?:under|over|below|above)|upper\s+limit\s+of|lower\s+limit\s+of)\b"
    r"|\b(?:a\s+|the\s+)?(?:minimum|maximum|min|max|ceiling|cap|limit)\s+of\b"
    r"|\b(?:lower|upper)\s+(?:bound|limit|estimate)(?:\s+(?:of|is|at|would\s+be|equals))?\b|\bbounded\s+(?:above\s+"
    r"|below\s+)?by\b"
    r"|\bas\s+(?:many|much|few|little|large|small|high|low)\s+as\b|\bbetween\b"
    r"|\\(?:ge|geq|le|leq|gt|lt|geqslant|leqslant|gg|ll|gtrsim|lesssim|succ|prec|succeq|preceq)(?![A-Za-z])"
    r"|>=|<=|(?<![-=<])>|<(?![-=>])|[\u2265\u2264\u226b\u226a]|&(?:gt|lt|ge|le|geq|leq);"
)
_DISOWN = (
    r"\be\.g\.|\bfor\s+(?:example|instance)\b|\bsuch\s+as\b|\b(?:example|format|template|placeholder|sample)\s*:"
    r"|\b(?:sample|example|dummy|mock|expected)\s+(?:output|answer|response|result)\s*:?|\b(?:something|anything)\s+like\b"
    r"|\bnot\s+(?:really\s+)?my\s+(?:real\s+|actual\s+|true\s+|final\s+|intended\s+)*answer\s*:?"
    r"|\bfor\s+(?:illustration|demonstration|display|formatting|format|practice|show)(?:\s+purposes)?(?:\s+only)?\b"
    r"|\bhypothetical(?:ly)?\b|\b(?:we|I|you|one)(?:'d|\s+would|\s+might|\s+could)\s+(?:then\s+)?(?:write|box|answer|say|put)\b"
    r"|\b(?:should|would|will|could)\s+look\s+like\b|\blet(?:'s|\s+us)\s+say\b"
    r"|\b(?:rough|ballpark|wild|quick|crude|first)\s+(?:estimate|guess|figure|approximation)s?\b"
    r"|\b(?:answer|value|result|number)\s+(?:like|such\s+as)\b|\bif\s+I\s+(?:had|have)\s+to\s+guess\b"
    r"|\b(?:first|initial|quick|rough)\s+(?:pass|go|shot|stab|cut|sketch)\b|\b(?:illustration|demo|illustrative)\b\s*:?"
    r"|\blike\s+(?:this|so)\s*:|\b(?:first|initial|earlier|previous|original|old|naive|preliminary|tentative|wrong|incorrect"
    r"|rough)\s+"
    r"(?:attempt|answer|guess|try|result|calculation|draft|estimate|value|solution|computation|version)s?"
    r"(?:\s+(?:gave|gives|was|were|is|of|yielded|yields|came\s+out\s+(?:to|as)|produced|said)|\s*:)"
    r"|\bI\s+(?:initially|first|originally|previously|earlier|mistakenly|wrongly|incorrectly)\s+"
    r"(?:got|had|thought|wrote|found|computed|calculated|said|boxed|guessed|answered|obtained|claimed)\b"
    r"|\b(?:initially|at\s+first|first|originally|previously|earlier|before)\s*,?\s+I\s+(?:got|had|thought|wrote|found|computed"
    r"|calculated|said|boxed|guessed|answered|obtained)\b"
    r"|\bI\s+(?:thought|believed|assumed|guessed)\s+(?:it|the\s+answer)\s+(?:was|would\s+be)\b"
    r"|\b(?:tempted|tempting)\s+to\s+(?:say|write|answer|box|guess|conclude)\b|\bnaive(?:ly)?\b|\bat\s+first\s+(?:glance|sight)\b"
    r"|\b(?:one|you|someone|a\s+student|a\s+reader)\s+(?:might|may|could|would)\s+(?:naively\s+|wrongly\s+|mistakenly\s+)?"
    r"(?:think|say|guess|answer|conclude|expect|write)\b|\b(?:common|typical|classic)\s+(?:mistake|error|trap|pitfall"
    r"|wrong\s+answer)"
    r"|\btrap\s+answer\b|\bcareless(?:ly)?\b|\bwrong\s+(?:approach|method|answer|way|reasoning)\b"
    r"|\b(?:if|suppose|supposing|assume|assuming|say|imagine|pretend"
    r"|hypothetically)\b(?:\s+that)?\s+(?:the\s+)?(?:final\s+)?answer\s+"
    r"(?:is|was|were|be|equals|had\s+been)\b|\bhad\s+the\s+answer\s+been\b|\bwere\s+the\s+answer\b|\b(?:would"
    r"|could)\s+have\s+been\b"
)
_ALTERNATIVE = r"\b(?:or|either|otherwise|alternatively|else)\b"
_CUE_BEFORE = re.compile(
    rf"(?P<disowned>{_DISOWN})|(?P<bound>{_BOUND})|(?P<negated>{_NEGATION})|(?P<hedge>{_ALTERNATIVE})", re.IGNORECASE
)
# Bounds that count only right before the answer ("under \\boxed{5}"; "under these conditions, ..." is not one).
_ADJACENT_BOUND = re.compile(r"\b(?:under|below|above|over|within|past|around)\s*$", re.IGNORECASE)
# What links a cue to something else than the answer: a digit, a sentence end, a verb that states a new value.
_CONTRAST = r"but|however|yet|though|although|actually|instead|whereas|while|now|correctly|truly|properly|really"
# After an example or an earlier attempt, only a new sentence, a digit or a contrast ends the link ("a naive approach gives").
_DISOWN_BREAK = re.compile(rf"[0-9=]|[.!?](?:\s|$)|[;\n]|\b(?:{_CONTRAST}|in\s+fact)\b", re.IGNORECASE)
_BREAK = re.compile(
    r"[0-9=]|[.!?](?:\s|$)|[;\n]|\b(?:is|are|was|were|be|been|equals?|equalled|equaled|gives?|gave|get|gets|got|obtain|obtains|"
    r"obtained|find|finds|found|yields?|makes?|becomes?|answer|result|so|thus|hence|therefore|then|that|which|see|show|check|"
    rf"verify|note|clear|only|{_CONTRAST})\b",
    re.IGNORECASE,
)
_AFTER = re.compile(
    r"^(?:[\s,;:(\-\u2013\u2014*]|<-+|\u2190|\u27f5|=+>)*(?:"
    r"(?P<bound>(?:or|and)\s+(?:even\s+|possibly\s+|maybe\s+|perhaps\s+)?(?:more|less|fewer|greater|larger|higher|lower|smaller"
    r"|bigger|"
    r"above|below|over|under|up|upwards?|beyond|so|thereabouts|longer|shorter|later|earlier|older|younger)\b"
    r"|at\s+(?:the\s+)?(?:very\s+)?(?:least|most|minimum|maximum|min|max|best|worst)\b|(?:minimum|maximum|min|max|tops"
    r"|at\s+minimum|"
    r"at\s+maximum|give\s+or\s+take|more\s+or\s+less|plus\s+or\s+minus|or\s+so|-?ish)\b|\+\s*(?:$|[.,;)])"
    r"|(?:if\s+not|possibly|maybe|perhaps|probably)\s+(?:even\s+)?(?:more|less|higher|lower|larger|smaller|greater|fewer)\b"
    r"|(?:which\s+|this\s+|that\s+|it\s+)?(?:is|was|being)\s+(?:only\s+|just\s+|merely\s+)?(?:an?\s+|the\s+)?(?:floor"
    r"|ceiling)\b(?!\s+of)"
    r"|(?:which\s+|this\s+|that\s+|it\s+)?(?:is|was|being)\s+(?:only\s+|just\s+|merely\s+)?(?:an?\s+|the\s+)?(?:lower|upper)\s+"
    r"(?:bound|limit|estimate)\b|(?:lower|upper|conservative|minimum|maximum)\s+(?:bound|limit|estimate)\b"
    r"|\\(?:ge|geq|le|leq|gt|lt|geqslant|leqslant|gg|ll|gtrsim|lesssim|succ|prec|succeq|preceq)(?![A-Za-z])|>=|<="
    r"|(?<![-=<\n])>|<(?![-=>])|[\u2265\u2264])"
    r"|(?P<hedge>(?<=\s)/\s+(?:\$|\\\(|-?[0-9]))"
    r"|(?P<negated>(?:(?:which|that|this|it)\s+)?(?:(?:is|was|'s|are|were|seems|appears|looks|turns\s+out|must\s+be|would\s+be|"
    r"has\s+to\s+be|can't\s+be|cannot\s+be|couldn't\s+be)\s+(?:to\s+be\s+)?)?"
    r"(?:(?:clearly|definitely|obviously|actually|probably|certainly|surely|totally|completely|also|still|in\s+fact)\s+)?"
    r"(?:(?:can't|cannot|couldn't|won't|isn't|wasn't|shouldn't|can\s+not|is\s+not|was\s+not|does\s+not|doesn't)\s+(?:be\s+"
    r"|look\s+|seem\s+)?"
    r"(?:right|correct|valid|true|it|the\s+answer|possible)\b|"
    r"not\s+(?:the\s+(?:\w+\s+)?(?:answer|solution|result|value|one)|right|correct|valid|true|it|possible|"
    r"an?\s+(?:\w+\s+)?(?:answer|solution|option|value|result)|"
    r"what|my\s+answer|final)\b|wrong|incorrect|false|invalid|mistaken|erroneous|impossible|bogus|nonsense|absurd|"
    r"ruled\s+out|rejected|excluded|eliminated|discarded|a\s+(?:mistake|typo|miscalculation|red\s+herring|trap|decoy|lie)\b|"
    r"an?\s+(?:wrong|incorrect|invalid|false|bad|erroneous|mistaken)\s+(?:answer|result|value|solution|one|guess)\b|"
    r"(?:does|do|did)(?:\s+not|n't)\s+(?:satisfy|work|fit|hold|solve|meet|check\s+out)\b|fails?\s+to\b|"
    r"(?:contradicts|violates|breaks|conflicts\s+with|is\s+inconsistent\s+with)\b|"
    r"(?:can|could|should|must|may)\s+be\s+(?:excluded|eliminated|rejected|discarded|ruled\s+out|dismissed|ignored)\b|"
    r"an\s+error\b|(?:is|was|are|were|does|do|did)?n't\s+(?:right|correct|valid|true|it|the\s+answer|possible|work)\b"
    r"|doesn't\s+work|does\s+not\s+work|fails?\b|"
    r"nope\b)|[\u2717\u2718\u274c\u2260]|\\neq?(?![A-Za-z])|!=)"
    r"|(?P<disowned>(?:(?:is|was)\s+)?(?:just\s+|only\s+|merely\s+|purely\s+)?(?:an?\s+)?(?:(?:wild|rough|random|first"
    r"|initial)\s+)?"
    r"(?:example|placeholder|illustration|template|dummy|decoy|draft|guess|sample|test\s+value|stand-?in)\b"
    r"|for\s+now\b|(?:only\s+)?(?:tentatively|provisionally)\b"
    r"|(?:is|was)\s+(?:just\s+|only\s+|merely\s+)?(?:my|a|an|the)\s+(?:\w+\s+)?(?:guess|estimate|hunch|placeholder|draft|example|"
    r"approximation)\b))",
    re.IGNORECASE,
)
_MATH_OPENERS = re.compile(r"(?:\$+|\\[(\[]|\*\*|\s)+$")
_STRUCK_BEFORE = re.compile(
    r"(?:~~|<(?:s|del|strike)>|\\(?:sout|st|cancel|bcancel|xcancel|xout|hcancel|stkout|strikeout|strike)\s*\{"
    r"|\\cancelto\s*\{[^{}]{0,20}\}\s*\{)\s*$",
    re.IGNORECASE,
)
_STRUCK_INSIDE = re.compile(
    r"\\(?:sout|st|cancel|bcancel|xcancel|xout|hcancel|stkout|strikeout|strike|cancelto)(?![A-Za-z])|<(?:s|del|strike)>|~~"
    r"|[\u0334\u0335\u0336\u0337\u0338\u20d2\u20e5]",
    re.IGNORECASE,
)


def qualified_before(text: str, start: int) -> str | None:
    """Why the words before the answer at `start` make it not a value ("negated: ...", "bound: ...", "disowned: ..."), or None."""
    raw = text[max(0, start - _WINDOW) : start]
    if _STRUCK_BEFORE.search(_MATH_OPENERS.sub("", raw)):
        return "negated: the answer is struck out"
    before = _DELIMITERS.sub(" ", _TAG.sub(" ", _WRAPPER.sub(r" \1 ", raw)))
    adjacent = _ADJACENT_BOUND.search(before)
    if adjacent:
        return f"bound: {adjacent.group(0).strip()!r} before the answer"
    cue = None
    for cue in _CUE_BEFORE.finditer(before):
        pass
    if cue is None:
        return None
    gap = before[cue.end() :]
    breaks = _DISOWN_BREAK if cue.lastgroup == "disowned" else _BREAK
    if len(gap.strip()) > _GAP or breaks.search(gap):
        return None
    return f"{cue.lastgroup}: {cue.group(0).strip()!r} before the answer"


def qualified_after(text: str, end: int) -> str | None:
    """Why the words right after the answer ending at `end` make it not a value, or None."""
    after = _DELIMITERS.sub(" ", _TAG.sub(" ", _WRAPPER.sub(r" \1 ", text[end : end + _AFTER_WINDOW])))
    found = _AFTER.match(after)
    if found is None:
        return None
    return f"{found.lastgroup}: {found.group(0).strip(' ,;:(*-')!r} after the answer"


def struck_out(answer: str) -> bool:
    """Whether the answer itself is (partly) struck out (`\\cancel{5}`, `<del>5</del>`, "5̶")."""
    return bool(_STRUCK_INSIDE.search(answer))
