"""The request Bedrock's Converse is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder moves every instruction into
``system`` (read back first: moved here too) and writes the other messages
as turns, one per run of one wire role: a run of user messages and tool
results is one user turn, in order, which the decoder reads back as one
result each and one user message for each run of other blocks between them
(its one non-empty text as a string), as done here. It leaves out the parts
it cannot carry and an answer's empty text (taken out here, as the decoder
would not find them), sends a refusal as text, and declares the tools a
history calls when it has none (declared here too). A message that writes
no block makes no turn: it is not read back. Two assistant messages
in a row (one turn), invalid calls, cited text, an empty instruction and
Bedrock's own extras are declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import FilePart, ImagePart, ReasoningPart, RefusalPart, TextPart
from ..._errors import ChatCodecError
from ..._exchange import Request
from ..._loss import Loss
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import ToolDefinition
from .._sent import dropped, lowered
from ._blocks import NAME
from ._check import _cache_points

__all__ = ["as_sent"]

# Top-level fields the rules read: a loss in any of them is not followed here.
_READ = frozenset({"max_tokens", "messages", "temperature", "top_p", "extras"})
# Losses inside a message that change nothing the rules read.
_UNREAD = frozenset({".is_error", ".cache", ".name"})
_DECLARED = "bedrock needs the tools a history calls: declared with open schemas"
_NO_BLOCK = AssistantMessage("")  # an answer that writes no block


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as Converse reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    if (request.extras and NAME in request.extras) or lowered(request):
        return None
    found = dropped(losses)
    fields: dict[str, object] = {}
    declared = False
    for key, rest in found.top.items():
        if key == "tool_choice" and not rest:
            fields[key] = None
        elif key == "tools" and not rest:
            declared = True
        elif key in _READ or key.startswith("$") or key == "tool_choice" or key == "tools":
            return None
    if declared and not any(loss.path == "$.tools" and loss.reason == _DECLARED for loss in losses):
        return None
    parts: dict[int, set[int]] = {}  # parts left out, by message
    for i, rest in found.messages:
        if rest.startswith(".content["):
            end = rest.find("]")
            if end == len(rest) - 1:
                parts.setdefault(i, set()).add(int(rest[9:end]))
        elif rest and rest not in _UNREAD:
            return None  # (a message's own path: an instruction moved first)
    over: list[Any] = []
    _cache_points(request, over)
    if over:
        return None  # more cache points than Bedrock takes: found by other paths
    system: list[Message] = []
    out: list[Message] = []
    pending: list[Any] = []  # the open user turn's blocks since its last result
    previous = ""  # the last turn's wire role
    for i, message in enumerate(messages):
        extras = message.extras
        if extras and NAME in extras:
            return None
        kind = type(message)
        if kind is SystemMessage or kind is DeveloperMessage:
            if not message.content:
                return None  # kept whole by the decoder, not as an instruction
            system.append(message)
            continue
        if kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            sent = _answer(message, parts.get(i))
            if sent is None:
                return None
            if sent is _NO_BLOCK:
                continue  # no turn, nor a place in one
            if previous == "assistant":
                return None  # one turn, read back as one message
            if pending:
                out.append(_user(pending))
                pending = []
            out.append(sent)
            previous = "assistant"
        elif kind is ToolMessage:
            if pending:
                out.append(_user(pending))
                pending = []
            out.append(message)
            previous = "user"
        elif kind is UserMessage:
            content: Any = message.content
            if type(content) is str:
                # Read back as it is when alone in its run (Bedrock takes no empty text).
                pending.append(message if previous != "user" else TextPart(content))
            else:
                n = len(pending)
                if not _blocks(content, parts.get(i), pending):
                    return None
                if len(pending) == n:
                    continue  # no turn, nor a place in one
            previous = "user"
        else:
            return None
    if pending:
        out.append(_user(pending))
    read = (*system, *out)
    if len(read) != len(messages) or any(a is not b for a, b in zip(read, messages, strict=True)):
        fields["messages"] = read
    if declared:
        try:
            fields["tools"] = _declare(out)
        except ChatCodecError:
            return None
    elif found.tools:
        gone = set(found.tools)
        fields["tools"] = tuple(t for k, t in enumerate(request.tools) if k not in gone)
    return msgspec.structs.replace(request, **fields) if fields else request


def _declare(messages: list[Message]) -> tuple[ToolDefinition, ...]:
    """The tools the encoder declares for the calls of a history that has none."""
    names: list[str] = []
    for message in messages:
        if type(message) is AssistantMessage:
            names.extend(call.name for call in message.tool_calls if call.name not in names)
    return tuple(ToolDefinition(name, parameters={"type": "object"}) for name in names)


def _user(blocks: list[Any]) -> UserMessage:
    """The user message a run of blocks is read back as."""
    first = blocks[0]
    if type(first) is UserMessage:  # a message of text, alone in its run
        if len(blocks) == 1:
            return first
        assert type(first.content) is str
        blocks[0] = TextPart(first.content)
    if len(blocks) == 1:
        part = blocks[0]
        if type(part) is TextPart and part.text and part.cache is None:
            return UserMessage(part.text)
    return UserMessage(tuple(blocks))


def _blocks(content: tuple[Any, ...], lost: set[int] | None, out: list[Any]) -> bool:
    """Add a user message's parts as read back to ``out``; False when it cannot be told."""
    for j, part in enumerate(content):
        if lost is not None and j in lost:
            continue
        if part.extras and NAME in part.extras:
            return False
        kind = type(part)
        if (kind is TextPart and part.citations) or (
            kind is not TextPart and kind is not ImagePart and kind is not FilePart
        ):
            return False
        out.append(part)
    return True


def _answer(message: AssistantMessage, lost: set[int] | None) -> AssistantMessage | None:
    """An answer as read back (``None``: not told)."""
    if message.invalid_tool_calls or any(
        call.extras and NAME in call.extras for call in message.tool_calls
    ):
        return None
    content: Any = message.content
    calls = message.tool_calls
    if type(content) is str:
        if not content and not calls:
            # One empty text block, read back as a part.
            return msgspec.structs.replace(message, content=(TextPart(""),))
        return message  # (no block for an empty text with calls: the rules read none)
    if content is None:
        return message if calls else _NO_BLOCK
    if not content:
        return message  # an empty turn, as it came
    kept: list[Any] = []
    for j, part in enumerate(content):
        kind = type(part)
        if kind is RefusalPart:
            kept.append(TextPart(part.text))  # reported, and sent as text
            continue
        if lost is not None and j in lost:
            continue
        if part.extras and NAME in part.extras:
            return None
        if kind is TextPart:
            if part.citations:
                return None
            if not part.text:
                continue  # left out: Bedrock refuses blank text
        elif kind is not ReasoningPart:
            return None
        kept.append(part)
    if not kept:
        if not calls:
            return _NO_BLOCK
        body: Any = None
    elif len(kept) == 1 and type(kept[0]) is TextPart and kept[0].text and kept[0].cache is None:
        body = kept[0].text
    else:
        body = tuple(kept)
    return msgspec.structs.replace(message, content=body)
