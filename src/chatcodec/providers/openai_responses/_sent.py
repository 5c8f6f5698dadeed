"""The request the Responses API is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes each message as its items,
in order; the decoder reads consecutive assistant items back as one message, so
two assistant messages in a row, or one that writes no item, are declined here,
as is a user message none of whose parts it can carry (sent with no content,
which the decoder reads as an opaque answer).
It leaves out other providers' tools (and a tool choice that needs them),
blocks and reasoning (taken out here, as the decoder would not find them) and
the stop sequences; a JSON schema format without a schema is sent with an empty
object schema (declined).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ..._content import ReasoningPart, RefusalPart, TextPart
from ..._exchange import Request
from ..._loss import Loss
from ..._messages import AssistantMessage, UserMessage
from .._sent import drop_tools, dropped, lowered
from ._common import NAME

__all__ = ["as_sent"]

# Top-level settings the encoder may leave out and no rule reads.
_UNREAD = frozenset({"top_k", "seed", "presence_penalty", "frequency_penalty", "n", "reasoning"})
_TAKEN_OUT = frozenset({"stop", "tool_choice"})


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as the Responses API reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    rf = request.response_format
    if (rf is not None and rf.type == "json_schema" and rf.schema is None) or lowered(
        request, names=False
    ):
        return None
    previous: type | None = None
    for m in messages:
        kind = type(m)
        if kind is AssistantMessage:
            assert isinstance(m, AssistantMessage)
            if previous is AssistantMessage or m.invalid_tool_calls:
                return None
            if not m.tool_calls and type(m.content) is not str and not _written(m.content):
                return None
        previous = kind
    found = dropped(losses)
    fields: dict[str, object] = {}
    for key, rest in found.top.items():
        if key in _TAKEN_OUT and not rest:
            fields[key] = None
        elif key not in _UNREAD:
            return None
    parts: dict[int, set[int]] = {}
    for i, rest in found.messages:
        if rest.startswith(".content["):
            end = rest.find("]")
            if end == len(rest) - 1:
                parts.setdefault(i, set()).add(int(rest[9:end]))
        elif rest not in (".is_error", ".name"):
            return None
    if parts:
        kept = list(messages)
        for i, gone in parts.items():
            m = messages[i]
            if type(m) is UserMessage and len(gone) == len(m.content):
                # Sent with no content: read back as an opaque answer, joined to
                # the answers beside it.
                return None
            if type(m) is AssistantMessage:
                assert isinstance(m.content, tuple)
                content = tuple(p for j, p in enumerate(m.content) if j not in gone)
                kept[i] = msgspec.structs.replace(m, content=content)
        fields["messages"] = messages = tuple(kept)
    for m in messages:
        if (
            type(m) is AssistantMessage
            and type(m.content) is tuple
            and any(type(p) is ReasoningPart and p.provider != NAME for p in m.content)
        ):
            return None  # written as this API's reasoning: read back as its own
    return drop_tools(request, found.tools, **fields)


def _written(content: object) -> bool:
    """Whether assistant parts write a message item (text or a refusal)."""
    return type(content) is tuple and any(type(p) in (TextPart, RefusalPart) for p in content)
