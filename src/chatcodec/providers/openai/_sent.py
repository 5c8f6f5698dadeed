"""The request OpenAI Chat is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes one wire message per
canonical message, in order, unless it moves results up, joins assistant
messages, leaves a message out or moves a result's media (each declined here);
it leaves out other providers' tools, then a tool choice or parallel switch
that needed them (taken out here, as the decoder would not find them). A part
left out of a user or assistant message changes nothing the rules read: they
read a user message's kind only, and an assistant message's text and calls;
only an assistant message with neither text nor calls is read by its content's
form (a string or not), which the encoder decides from its parts: declined,
as are invalid calls (written as calls, with ids of their own when they had none).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._exchange import Request
from ..._loss import Loss
from ..._messages import AssistantMessage, ToolMessage
from .._sent import drop_tools, dropped, fitted_order, lowered

__all__ = ["as_sent"]

# Top-level settings the encoder may leave out and no rule reads.
_UNREAD = frozenset({"top_k", "reasoning"})
_TAKEN_OUT = frozenset({"tool_choice", "parallel_tool_calls"})


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as OpenAI reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    rf = request.response_format
    if (
        (rf is not None and rf.type == "json_schema" and rf.name is None)
        or lowered(request)
        or fitted_order(messages)
    ):
        return None
    for m in messages:
        if type(m) is AssistantMessage and (
            m.invalid_tool_calls or (type(m.content) is not str and not (m.tool_calls or m.text))
        ):
            return None
    found = dropped(losses)
    fields: dict[str, object] = {}
    for key, rest in found.top.items():
        if key in _TAKEN_OUT and not rest:
            fields[key] = None
        elif key not in _UNREAD:
            return None
    for i, rest in found.messages:
        if rest != ".is_error" and (
            not rest.startswith(".content[") or type(messages[i]) is ToolMessage
        ):
            return None
    return drop_tools(request, found.tools, **fields)
