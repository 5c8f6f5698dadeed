"""The request Cohere is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes one wire message per
canonical message, in order. It leaves out the parts it cannot carry (audio,
files, other providers' blocks, a tool result's images), a tool result's
error flag and other providers' tools: each is taken out here, as the decoder
would not find it (a user message whose every part is left out is read back
as one empty text). Invalid calls, a tool without parameters (read back as
Cohere's own), a request without messages and Cohere's own extras and
blocks are declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import OpaquePart, TextPart
from ..._exchange import Request
from ..._loss import Loss
from ..._messages import AssistantMessage, Message, UserMessage
from ..._tools import ToolDefinition
from .._sent import drop_tools, dropped, lowered
from ._common import NAME

__all__ = ["as_sent"]

# Top-level fields the rules read: a loss in any of them is not followed here.
_READ = frozenset(
    {
        "model",
        "messages",
        "temperature",
        "top_p",
        "top_k",
        "frequency_penalty",
        "presence_penalty",
        "stop",
        "tools",
        "extras",
    }
)
# Losses inside a message that change nothing the rules read.
_UNREAD = frozenset({".cache", ".name"})
_EMPTY = (TextPart(""),)


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as Cohere reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    if not messages or (request.extras and NAME in request.extras) or lowered(request):
        return None
    for tool in request.tools:
        if type(tool) is ToolDefinition and tool.parameters is None:
            return None  # read back as a tool of Cohere's own, which the rules pass
    found = dropped(losses)
    for key, rest in found.top.items():
        if key.startswith("$.tools[") and key.endswith("].strict"):
            continue  # one switch for every tool: the rules read none
        if key in _READ or key.startswith("$") or (key == "tool_choice" and rest != ".name"):
            return None
    parts: dict[int, set[int]] = {}  # parts left out, by message
    flags: set[int] = set()  # tool results sent without their error flag
    for i, rest in found.messages:
        if rest.startswith(".content["):
            end = rest.find("]")
            if end == len(rest) - 1:
                parts.setdefault(i, set()).add(int(rest[9:end]))
        elif rest == ".is_error":
            flags.add(i)
        elif rest not in _UNREAD:
            return None
    for message in messages:
        if message.extras and NAME in message.extras:
            return None
        if type(message) is AssistantMessage:
            if message.invalid_tool_calls or any(
                call.extras and NAME in call.extras for call in message.tool_calls
            ):
                return None
        elif type(getattr(message, "content", None)) is tuple and any(
            type(part) is OpaquePart and part.provider == NAME
            for part in message.content  # type: ignore[union-attr]
        ):
            return None  # written as it came: read back as what it holds
    if not parts and not flags:
        return drop_tools(request, found.tools)
    out: list[Message] = list(messages)
    for i in parts.keys() | flags:
        message = out[i]
        fields: dict[str, Any] = {}
        lost = parts.get(i)
        if lost is not None:
            content: Any = getattr(message, "content", None)
            assert type(content) is tuple
            kept = tuple(part for j, part in enumerate(content) if j not in lost)
            if not kept and type(message) is UserMessage:
                kept = _EMPTY  # sent as an empty list, read back as one empty text
            fields["content"] = kept
        if i in flags:
            fields["is_error"] = False
        out[i] = msgspec.structs.replace(message, **fields)
    return drop_tools(request, found.tools, messages=tuple(out))
