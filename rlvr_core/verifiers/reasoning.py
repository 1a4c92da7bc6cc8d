"""Reasoning blocks: only what a model says after its last `</think>` is its answer."""

from __future__ import annotations


def strip_think(text: str) -> str | None:
    """The text after the reasoning block; None if a `<think>` block is still open at the end.

    A completion may hold only the closing tag (chat templates such as Qwen3's
    open `<think>` in the prompt), so the split is on the last `</think>`. A
    `<think>` after that last close opens a block that never ends
    (`<think>a</think>ok <think>\\boxed{5}`): the model never finished, and
    what it wrote inside is reasoning, not an answer.
    """
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    return None if "<think>" in text else text
