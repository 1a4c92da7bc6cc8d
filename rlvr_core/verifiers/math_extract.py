"""Step 1 of math verification: find the final answer a completion commits to.

Extraction order (first rule that matches wins, and within a rule the *last*
occurrence, since models restate and correct themselves):

1. `#### N` (GSM8K style; the rest of that line),
2. the last `\\boxed{...}` / `\\fbox{...}` (brace-matched, so nested braces work;
   also `\\boxed N` without braces),
3. "Final Answer: The final answer is X. I hope it is correct." (Minerva),
4. "The answer is X" / "the final answer is X" / "Answer: X",
5. the last number in the text (integers, decimals, `1,234`, `a/b`).

Reasoning inside `<think>...</think>` is ignored; an unterminated `<think>`
means the model never answered, so nothing is extracted.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.reasoning import strip_think

_HASHES = re.compile(r"####\s*([^\n]*)")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*")
_MINERVA = re.compile(r"Final Answer:\s*The final answer is\s*(.+?)\.?\s*I hope it is correct", re.DOTALL | re.IGNORECASE)
_ANSWER_IS = re.compile(
    r"(?:\b(?:the\s+)?(?:final\s+)?answer\s+is|\banswer\s*:)\s*:?\s*(.+?)(?=\.\s|\.?\s*$|\n|;)",
    re.IGNORECASE | re.MULTILINE,
)
_CLAUSE = re.compile(r",\s*(?=[A-Za-z]{2,})")  # "12 apples, because ..." ends the answer at the comma
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?|-?\.\d+")


def _brace_group(text: str, start: int) -> str | None:
    """Content of the `{...}` group opening at `text[start]`, honouring nesting."""
    depth = 0
    for i in range(start, len(text)):
        char = text[i]
        if char == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif char == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
    return None


def last_boxed(text: str) -> str | None:
    """Content of the last `\\boxed{...}` or `\\fbox{...}` that is closed."""
    for match in reversed(list(_BOXED.finditer(text))):
        end = match.end()
        if end < len(text) and text[end] == "{":
            content = _brace_group(text, end)
            if content is not None:
                return content
        elif end < len(text):  # "\boxed 5" form
            token = re.match(r"[^\s$.,]+", text[end:])
            if token:
                return token.group(0)
    return None


def extract_answer(completion: str) -> tuple[str, str] | None:
    """(answer text, rule name) or None when the completion commits to no answer."""
    text = strip_think(completion)
    if text is None:
        return None
    hashes = _HASHES.findall(text)
    if hashes and hashes[-1].strip():
        return hashes[-1].strip(), "####"
    boxed = last_boxed(text)
    if boxed is not None and boxed.strip():
        return boxed.strip(), "boxed"
    minerva = _MINERVA.findall(text)
    if minerva and minerva[-1].strip():
        return minerva[-1].strip(), "final-answer"
    stated = [_CLAUSE.split(s)[0].strip() for s in _ANSWER_IS.findall(text)]
    stated = [s for s in stated if s.strip("$").strip()]
    if stated:
        return stated[-1], "answer-is"
    numbers = _NUMBER.findall(text)
    if numbers:
        return numbers[-1], "last-number"
    return None
