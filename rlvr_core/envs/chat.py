"""How a conversation becomes prompt text: the tokenizer's chat template, or a plain transcript when it has none.

Both renderers grow a transcript by appending, never by re-rendering it, so
turn k's prompt is exactly the text before it plus what the model generated
plus the environment's reply. That keeps a rollout's token spans meaningful:
the prompt, each model turn and each tool reply are consecutive pieces.

Tool results are sent as user messages whose content is one or more
`<tool_response>...</tool_response>` blocks. Qwen's templates render a `tool`
message exactly so, and every template accepts a user message, so one
conversation works for every model and every endpoint.

`ChatTemplate.tail` finds what the template writes after an assistant turn
(its end-of-turn marker, the tool reply, the next assistant header) by
rendering a probe conversation whose assistant content is a marker and
taking the text after the marker, so it works for any template that prints
the assistant's content verbatim.

The plain transcript (documented format, used by the project's tiny model):

    <|system|>
    {system prompt}
    <|user|>
    {task}
    <|assistant|>
    {model turn}
    <|tool|>
    <tool_response>
    {output}
    </tool_response>
    <|assistant|>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Message = dict[str, str]
PLAIN_STOPS = ("\n<|user|>", "\n<|tool|>", "\n<|system|>", "\n<|assistant|>")
_MARK = "\u2063\u2063MODEL-TURN\u2063\u2063"


def tool_message(outputs: Sequence[str]) -> Message:
    """The user message carrying tool outputs, one `<tool_response>` block each."""
    return {"role": "user", "content": "\n".join(f"<tool_response>\n{o}\n</tool_response>" for o in outputs)}


def is_tool_message(message: Message) -> bool:
    return message["role"] == "user" and message["content"].startswith("<tool_response>")


class PlainTranscript:
    """The documented plain format above, for tokenizers without a chat template and for plain-text endpoints."""

    stops = PLAIN_STOPS

    def prompt(self, messages: Sequence[Message]) -> str:
        return "".join(self._block(m) for m in messages) + "<|assistant|>\n"

    def tail(self, message: Message) -> str:
        """What follows a model turn: its end, the tool reply, the next assistant header."""
        return "\n" + self._block(message) + "<|assistant|>\n"

    @staticmethod
    def _block(message: Message) -> str:
        role = "tool" if is_tool_message(message) else message["role"]
        return f"<|{role}|>\n{message['content']}\n"


class ChatTemplate:
    """The tokenizer's own chat template."""

    stops: tuple[str, ...] = ()

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def prompt(self, messages: Sequence[Message]) -> str:
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)

    def tail(self, message: Message) -> str:
        probe = [{"role": "user", "content": "task"}, {"role": "assistant", "content": _MARK}, message]
        text = self.tokenizer.apply_chat_template(probe, tokenize=False, add_generation_prompt=True)
        if _MARK not in text:
            raise ValueError("this chat template does not print the assistant's content verbatim; "
                             "use the plain transcript (PlainTranscript) for this model")
        return text[text.index(_MARK) + len(_MARK):]


def renderer_for(tokenizer: Any) -> PlainTranscript | ChatTemplate:
    """The chat template when the tokenizer has one, else the plain transcript."""
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        return ChatTemplate(tokenizer)
    return PlainTranscript()
