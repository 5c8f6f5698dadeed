"""The request OpenAI Chat is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes one wire message per
canonical message, in order, unless it moves results up or joins assistant
messages (declined here); it leaves out a message none of whose parts it can
carry, other providers' tools, then a tool choice or parallel switch that
needed them, and parts of a tool result it cannot carry (each taken out here,
as the decoder would not find them). A tool result's images, audio and files
it moves to one user message after the results of its turn (as here). A part
left out of a user or assistant message changes nothing the rules read: they
read a user message's kind only, and an assistant message's text and calls; a
JSON schema format without a name is sent named (as here); only an assistant
message with neither text nor calls (and not left out) is read by its
content's form (a string or not), which the encoder decides from its parts:
declined, as are invalid calls (written as calls, with ids of their own when
they had none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import AudioPart, FilePart, ImagePart
from ..._exchange import Request
from ..._loss import Loss
from ..._messages import AssistantMessage, Message, ToolMessage, UserMessage
from .._sent import drop_tools, dropped, fitted_order, lowered
from ._common import NAME
from ._encode import DEFAULT_SCHEMA_NAME, MOVED

__all__ = ["as_sent"]

# Top-level settings the encoder may leave out and no rule reads.
_UNREAD = frozenset({"top_k", "reasoning"})
_TAKEN_OUT = frozenset({"tool_choice", "parallel_tool_calls"})
_MEDIA = (ImagePart, AudioPart, FilePart)


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as OpenAI reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    rf = request.response_format
    if lowered(request) or fitted_order(messages):
        return None
    fields: dict[str, object] = {}
    if rf is not None and rf.type == "json_schema" and rf.name is None:
        if rf.extras and NAME in rf.extras:
            return None  # a format read from OpenAI without a name may stay without one
        fields["response_format"] = msgspec.structs.replace(rf, name=DEFAULT_SCHEMA_NAME)
    found = dropped(losses)
    for key, rest in found.top.items():
        if key in _TAKEN_OUT and not rest:
            fields[key] = None
        elif key not in _UNREAD:
            return None
    gone: set[int] = set()  # messages left out
    parts: dict[int, set[int]] = {}  # tool results' parts left out
    moved: dict[int, set[int]] = {}  # and moved to a user message after the results
    for (i, rest), reason in zip(found.messages, found.reasons, strict=True):
        kind = type(messages[i])
        if not rest:
            if kind is not UserMessage and kind is not AssistantMessage:
                return None
            gone.add(i)
        elif kind is ToolMessage and rest != ".is_error":
            end = rest.find("]")
            if not rest.startswith(".content[") or end != len(rest) - 1:
                return None
            (moved if reason == MOVED else parts).setdefault(i, set()).add(int(rest[9:end]))
        elif rest != ".is_error" and not rest.startswith(".content["):
            return None
    for i, m in enumerate(messages):
        if (
            type(m) is AssistantMessage
            and i not in gone
            and (
                m.invalid_tool_calls
                or (type(m.content) is not str and not (m.tool_calls or m.text))
            )
        ):
            return None
    if gone or parts or moved:
        kept: list[Message] = []
        after: list[Any] = []  # the parts moved out of the results of the open turn
        ids: set[str] = set()  # the calls of the open turn
        for i, m in enumerate(messages):
            if after and not (type(m) is ToolMessage and m.tool_call_id in ids):
                kept.append(UserMessage(tuple(after)))
                after = []
            if type(m) is AssistantMessage:
                ids = {call.id for call in m.tool_calls}
            if i in gone:
                continue
            lost = parts.get(i)
            out = moved.get(i)
            if lost is not None or out is not None:
                assert isinstance(m, ToolMessage)
                assert type(m.content) is tuple
                if lost is not None and any(isinstance(m.content[j], _MEDIA) for j in lost):
                    return None  # an image, audio or file the encoder could not write
                left = lost or set()
                if out is not None:
                    after.extend(m.content[j] for j in sorted(out))
                    left = left | out
                content = tuple(p for j, p in enumerate(m.content) if j not in left)
                m = msgspec.structs.replace(m, content=content or "")
            kept.append(m)
        if after:
            kept.append(UserMessage(tuple(after)))
        fields["messages"] = tuple(kept)
    return drop_tools(request, found.tools, **fields)
