"""Step 1a of math verification: blank the text that states nothing, before any answer is looked for.

A box, a `####` line or "the answer is" inside a code sample is an example of
output, not a statement, and an HTML comment is text no reader sees. These
regions are replaced by spaces of the same length (newlines kept), so every
later position in the text is unchanged:

- fenced code blocks (three or more backticks or tildes, to the closing fence
  or, unclosed, to the end of the text, as Markdown renders them);
- inline code spans (backticks on one line) that hold a LaTeX command, a `#`
  or a `$`; a span holding only a plain value ("`42`") is formatting, and is
  read;
- `<code>`, `<pre>`, `<tt>`, `<kbd>`, `<samp>`, `<xmp>` and `<script>` elements
  and `<!-- ... -->` comments (unclosed: to the end);
- `\\verb|...|` (any delimiter), `\\texttt{...}`, `\\lstinline{...}` and the
  `verbatim`, `Verbatim`, `lstlisting`, `minted` and `alltt` environments
  (unclosed: to the end).

A chat-template marker (`<|im_end|>`, `<|im_start|>`, `</s>`, `[INST]`, a
"### Instruction" line) ends the model's turn: nothing after it is read
(`own_turn`).

Every pass is one left-to-right scan: each search starts where the last
region ended, so the cost is linear in the length of the text.
"""

from __future__ import annotations

import re

from rlvr_core.verifiers.math.scan import matching_braces

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
_INLINE = re.compile(r"`[^`\n]+`")
_INLINE_CODE_MARK = re.compile(r"[\\#$]")
_ELEMENT = re.compile(r"<(code|pre|tt|kbd|samp|xmp|script)\b[^<>\n]{0,200}>|<!--", re.IGNORECASE)
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s*])(?:(?!\1)[^\n])*\1?")  # to its delimiter, or the end of the line
_BRACED_CODE = re.compile(r"\\(?:texttt|lstinline)\s*(?=\{)")
_ENVIRONMENT = re.compile(r"\\begin\s*\{(verbatim\*?|Verbatim|lstlisting|minted|alltt)\}")
# Chat-template markers: a turn ends there, and whatever follows ("<|im_start|>system ...") is not the model's answer.
_END_OF_TURN = re.compile(
    r"<\|(?:im_start|im_end|endoftext|eot_id|end|start_header_id|end_of_text|user|assistant|system)\|>|</s>|\[/?INST\]|<</?SYS>>"
    r"|^#{2,4}\s*(?:Instruction|Input|Human|User)\s*:?\s*$",
    re.MULTILINE,
)
_MARKERS = ("`", "~~~", "<", "\\verb", "\\texttt", "\\lstinline", "\\begin")


def own_turn(text: str) -> str:
    """The text before the first end-of-turn marker that follows some text: what comes after it is another turn."""
    marker = _END_OF_TURN.search(text)
    while marker is not None and not text[: marker.start()].strip():
        marker = _END_OF_TURN.search(text, marker.end())
    return text if marker is None else text[: marker.start()]


def mask_code(text: str) -> str:
    """`text` with code samples and comments replaced by spaces (newlines kept); same length."""
    if not any(marker in text for marker in _MARKERS):
        return text
    regions = _fences(text) + _elements(text) + _latex_code(text)
    regions += [(m.start(), m.end()) for m in _INLINE.finditer(text) if _INLINE_CODE_MARK.search(m.group(0))]
    if not regions:
        return text
    return blank(text, regions)


def blank(text: str, regions: list[tuple[int, int]]) -> str:
    """`text` with each (start, end) region replaced by spaces, newlines kept; overlapping regions are merged."""
    parts = []
    position = 0
    for start, end in sorted(regions):
        start = max(start, position)
        if end <= start:
            continue
        parts.append(text[position:start])
        parts.append(re.sub(r"[^\n]", " ", text[start:end]))
        position = end
    parts.append(text[position:])
    return "".join(parts)


def _fences(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks: from an opening fence to a closing fence of the same character, at least as long."""
    regions = []
    position = 0
    while True:
        opening = _FENCE.search(text, position)
        if opening is None:
            return regions
        fence = opening.group(1)
        line_end = text.find("\n", opening.end())
        if line_end < 0:
            regions.append((opening.start(), len(text)))
            return regions
        closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE).search(text, line_end + 1)
        end = len(text) if closing is None else closing.end()
        regions.append((opening.start(), end))
        position = end


def _elements(text: str) -> list[tuple[int, int]]:
    """HTML code elements and comments, each to its closing tag (or to the end)."""
    regions = []
    lowered = text.lower()
    position = 0
    while True:
        opening = _ELEMENT.search(text, position)
        if opening is None:
            return regions
        closer = "-->" if opening.group(0) == "<!--" else f"</{opening.group(1).lower()}>"
        close = lowered.find(closer, opening.end())
        end = len(text) if close < 0 else close + len(closer)
        regions.append((opening.start(), end))
        position = end


def _latex_code(text: str) -> list[tuple[int, int]]:
    """`\\verb`, `\\texttt{}`, `\\lstinline{}` and verbatim-like environments."""
    regions = [(m.start(), m.end()) for m in _VERB.finditer(text)]
    if "{" in text:
        braces = None
        for match in _BRACED_CODE.finditer(text):
            braces = matching_braces(text) if braces is None else braces
            close = braces.get(match.end())
            regions.append((match.start(), len(text) if close is None else close + 1))
    position = 0
    while True:
        opening = _ENVIRONMENT.search(text, position)
        if opening is None:
            return regions
        closing = re.compile(rf"\\end\s*\{{{re.escape(opening.group(1))}\}}").search(text, opening.end())
        end = len(text) if closing is None else closing.end()
        regions.append((opening.start(), end))
        position = end
