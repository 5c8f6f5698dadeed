"""Tool call ids kept unique where a target joins assistant messages.

A canonical call id is unique within its message, not across messages. OpenAI
and Anthropic write a run of consecutive assistant messages as one wire
message (one turn), whose calls must have distinct ids; two messages of the
run that both hold a call ``"a"`` would make a body that no reader, chatcodec's
own included, takes. :func:`unique_call_ids` renames every repeat of an id
within a run to a derived id, and the tool results after the run follow:
answers of a repeated id are paired with its calls in order (the first answer
keeps the id, the next takes the first new id, and so on).

Strategy: one scan finds whether any run repeats an id; the usual request
(no repeat) is returned as is.
"""

from __future__ import annotations

from collections import deque

import msgspec

from .._exchange import Request
from .._messages import AssistantMessage, Message, ToolMessage
from ._wire import Encoding, derive_id

__all__ = ["RENAMED", "unique_call_ids"]

RENAMED = "a tool call id repeated in assistant messages the target joins: renamed"


def unique_call_ids(request: Request, enc: Encoding) -> Request:
    """``request`` with no call id repeated within a run of assistant messages.

    Each rename is reported to ``enc`` at the call's ``id`` path.
    """
    messages = request.messages
    if not _repeats(messages):
        return request
    out = list(messages)
    renames: dict[str, deque[str]] = {}
    seen: set[str] = set()
    previous_assistant = False
    for i, message in enumerate(messages):
        if type(message) is AssistantMessage:
            if not previous_assistant:
                seen = set()
                renames = {}
            previous_assistant = True
            out[i] = _rename(message, i, seen, renames, enc)
        else:
            previous_assistant = False
            if type(message) is ToolMessage:
                queue = renames.get(message.tool_call_id)
                if queue is not None:
                    # The first answer of an id answers its first call: the
                    # queue starts with the id itself.
                    new = queue.popleft()
                    if not queue:
                        del renames[message.tool_call_id]
                    if new != message.tool_call_id:
                        out[i] = msgspec.structs.replace(message, tool_call_id=new)
    return msgspec.structs.replace(request, messages=tuple(out))


def _repeats(messages: tuple[Message, ...]) -> bool:
    # Ids are gathered only once a second assistant message follows a first:
    # the usual history alternates, and costs one type check per message.
    seen: set[str] | None = None
    previous: AssistantMessage | None = None
    for message in messages:
        if type(message) is not AssistantMessage:
            previous = seen = None
            continue
        if previous is not None:
            if seen is None:
                seen = _ids(previous)
            ids = _ids(message)
            if not seen.isdisjoint(ids):
                return True
            seen |= ids
        previous = message
    return False


def _ids(message: AssistantMessage) -> set[str]:
    return {call.id for call in message.tool_calls} | {
        call.id for call in message.invalid_tool_calls if call.id
    }


def _rename(
    message: AssistantMessage,
    index: int,
    seen: set[str],
    renames: dict[str, deque[str]],
    enc: Encoding,
) -> AssistantMessage:
    path = f"$.messages[{index}]"
    calls = list(message.tool_calls)
    for j, call in enumerate(calls):
        new = _fresh(call.id, index, j, seen, renames)
        if new is not None:
            calls[j] = msgspec.structs.replace(call, id=new)
            enc.lose(f"{path}.tool_calls[{j}].id", RENAMED)
    invalid = list(message.invalid_tool_calls)
    for j, bad in enumerate(invalid):
        new = _fresh(bad.id, index, j, seen, renames) if bad.id else None
        if new is not None:
            invalid[j] = msgspec.structs.replace(bad, id=new)
            enc.lose(f"{path}.invalid_tool_calls[{j}].id", RENAMED)
    if calls == list(message.tool_calls) and invalid == list(message.invalid_tool_calls):
        return message
    return msgspec.structs.replace(
        message, tool_calls=tuple(calls), invalid_tool_calls=tuple(invalid)
    )


def _fresh(
    old: str | None, index: int, j: int, seen: set[str], renames: dict[str, deque[str]]
) -> str | None:
    """A new id for ``old`` if the run already has it (noted for its answers), else None."""
    if not old:
        return None
    if old not in seen:
        seen.add(old)
        renames.setdefault(old, deque()).append(old)
        return None
    new = derive_id("call_", old, index, j)
    while new in seen:
        new = derive_id("call_", new)
    seen.add(new)
    renames.setdefault(old, deque([old])).append(new)
    return new
