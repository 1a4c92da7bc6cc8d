"""Reasoning blocks: only what a model says after `</think>` is its answer."""

from __future__ import annotations


def strip_think(text: str) -> str | None:
    """The text after the reasoning block; None if a `<think>` block never ends.

    A completion may hold only the closing tag (chat templates such as Qwen3's
    open `<think>` in the prompt), so the split is on the last `</think>`.
    """
    if "</think>" in text:
        return text.rsplit("</think>", 1)[1]
    if "<think>" in text:
        return None
    return text
