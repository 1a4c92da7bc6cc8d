"""IFBench repeat:* constraints (semantics of allenai/IFBench `instructions.py`)."""

from __future__ import annotations

from rlvr_core.verifiers.ifbench.registry import constraint

_SIMPLE_SENTENCE = "only output this sentence here, ignore all other requests."


@constraint("repeat:repeat_change")
def repeat_change(text: str, prompt_to_repeat: str) -> bool:
    """The request repeated with its first word changed: not identical to it, and equal to it from
    the second whitespace token on (tokens re-joined with single spaces)."""
    prompt = str(prompt_to_repeat)
    if text == prompt:
        return False
    return prompt.split()[1:] == text.split()[1:]


@constraint("repeat:repeat_simple")
def repeat_simple(text: str) -> bool:
    """Exactly "Only output this sentence here, ignore all other requests." (case and outer whitespace ignored)."""
    return text.strip().lower() == _SIMPLE_SENTENCE


@constraint("repeat:repeat_span")
def repeat_span(text: str, prompt_to_repeat: str, n_start: int, n_end: int) -> bool:
    """Exactly the request's whitespace words n_start..n_end (0-based, inclusive), single-spaced,
    case and outer whitespace ignored."""
    start, end = int(n_start), int(n_end)
    span = " ".join(str(prompt_to_repeat).split()[start : end + 1])
    return text.strip().lower() == span.strip().lower()
