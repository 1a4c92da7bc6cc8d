"""IFBench format:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

import re
import string

from rlvr_core.verifiers.ifbench.registry import constraint
from rlvr_core.verifiers.ifeval.splitting import sentences as split_sentences

_STRIP = string.punctuation + " "
_NO_PUNCT = str.maketrans("", "", string.punctuation)
_PAIRS = {")": "(", "]": "[", "}": "{"}
_LETTER_OPTIONS = re.compile(r"\W*[aA]\W*[bB]\W*[cC]\W*")


@constraint("format:parentheses")
def parentheses(text: str) -> bool:
    """A bracket group ((), [] or {}) closes after the open stack reached depth 5; a mismatched or
    unopened closer forgets all depth so far."""
    stack: list[str] = []
    deepest = 0
    for char in text:
        if char in "([{":
            stack.append(char)
            deepest = max(deepest, len(stack))
        elif char in _PAIRS:
            if stack and stack[-1] == _PAIRS[char]:
                stack.pop()
                if deepest >= 5:
                    return True
            else:
                stack, deepest = [], 0
    return False


@constraint("format:quotes")
def quotes(text: str) -> bool:
    """Quotes nest 3 deep: a quote char equal to the innermost open one closes it, any other " or '
    opens a level; true once a close leaves the depth 3 below the deepest level reached."""
    stack: list[str] = []
    deepest = 0
    for char in text:
        if stack and char == stack[-1]:
            stack.pop()
            if deepest - len(stack) >= 3:
                return True
        elif char in "\"'":
            stack.append(char)
            deepest = max(deepest, len(stack))
    return False


@constraint("format:options")
def options(text: str, options: str) -> bool:
    """The response is one of `options` (split on "/", else on "or", else on ","). Letter options
    ("a), b), c)") must match exactly; word options ignore case and outer punctuation/spaces."""
    options = str(options)
    separator = "/" if "/" in options else "or" if "or" in options else ","
    choices = [choice.strip() for choice in options.split(separator)]
    if _LETTER_OPTIONS.match(options):
        return text in choices
    answer = text.strip(_STRIP).lower()
    return any(choice.strip(_STRIP).lower() == answer for choice in choices)


@constraint("format:newline")
def newline(text: str) -> bool:
    """As many non-empty lines as whitespace tokens, punctuation deleted (one word per line)."""
    cleaned = text.translate(_NO_PUNCT).strip()
    lines = [line for line in cleaned.split("\n") if line != ""]
    return len(lines) == len(cleaned.split())


@constraint("format:line_indent")
def line_indent(text: str) -> bool:
    """Each line has more leading spaces than the line before. Blank lines are dropped the way the
    reference's remove-while-iterating loop drops them: a blank right after a dropped blank stays."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            lines.remove(lines[i])
        i += 1
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    return all(b > a for a, b in zip(indents, indents[1:]))


@constraint("format:quote_unquote")
def quote_unquote(text: str) -> bool:
    """With whitespace removed (and the literal '"' dropped), no two double quotes touch and the text
    does not end in a double quote, ignoring trailing digits and other punctuation. Only the ASCII
    double quote counts, as in the reference."""
    squeezed = "".join(text.replace("'\"'", "").split())
    if '""' in squeezed:
        return False
    tail = squeezed.strip(string.digits + string.punctuation.replace('"', ""))
    return not tail.endswith('"')


@constraint("format:list")
def list_marker(text: str, sep: str) -> bool:
    """The marker `sep` occurs at least twice anywhere in the response."""
    if not sep:
        raise ValueError("sep must be a non-empty string")
    return len(re.findall(re.escape(str(sep)), text)) >= 2


@constraint("format:thesis")
def thesis(text: str) -> bool:
    """From the first <i> (else <em>): a closing </i> (else </em>) follows, the italic part is not
    blank, and something other than whitespace comes after the close tag's first four characters."""
    start = text.find("<i>")
    if start == -1:
        start = text.find("<em>")
        if start == -1:
            return False
    rest = text[start:]
    end = rest.find("</i>")
    if end == -1:
        end = rest.find("</em>")
        if end == -1:
            return False
    return rest[3:end].strip() != "" and rest[end + 4 :].strip() != ""


@constraint("format:sub-bullets")
def sub_bullets(text: str) -> bool:
    """After every "*", the text up to the next "*" (or the end) contains a "-"."""
    return all("-" in piece for piece in text.split("*")[1:])


@constraint("format:no_bullets_bullets")
def no_bullets_bullets(text: str) -> bool:
    """Lines of prose with 2+ sentences in all, then 2+ lines starting with "*", and nothing after.
    A prose line without sentences (e.g. a blank one) ends the prose: another prose line fails."""
    prose_open, sentences, bullets = True, 0, 0
    for line in text.split("\n"):
        if line.strip().startswith("*"):
            prose_open = False
            if sentences < 2:
                return False
            bullets += 1
        elif prose_open:
            found = len(split_sentences(line.strip()))
            sentences += found
            prose_open = found > 0
        else:
            return False
    return bullets >= 2


@constraint("format:output_template")
def output_template(text: str) -> bool:
    """Contains "My Answer:", "My Conclusion:" and "Future Outlook:" (case-sensitive, any order)."""
    return all(label in text for label in ("My Answer:", "My Conclusion:", "Future Outlook:"))


@constraint("format:no_whitespace")
def no_whitespace(text: str) -> bool:
    """No whitespace character anywhere."""
    return not any(char.isspace() for char in text)
