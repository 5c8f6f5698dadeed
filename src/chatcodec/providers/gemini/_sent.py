"""The request Gemini is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes one content per message,
except that consecutive tool results share one, which the decoder reads back
as one result each: the messages come back in order. Instructions all go in
``systemInstruction``, read back first (moved there here too). It leaves out
a model turn none of whose parts it can carry, a user message none of whose
parts it can carry, and the parts it cannot carry (each taken out here, as
the decoder would not find them); a file by URL goes with the media type its
extension names (given here); an empty user text is read back as a part;
other providers' tools, and a tool choice that needs them, are left out.
For a Gemini 3 model every model turn's first call is sent signed (its own
signature or the placeholder), so the model, which the rules read for
nothing else, is left out here. Gemini's own extras (hints of a body read
from Gemini), invalid calls, results with parts and an empty instruction
are declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import AudioPart, FilePart, ImagePart, TextPart
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
from .._sent import drop_tools, dropped, lowered
from ._common import NAME, signs_calls
from ._encode_parts import _media_type

__all__ = ["as_sent"]

_SYSTEM = (SystemMessage, DeveloperMessage)
_MEDIA = (ImagePart, AudioPart, FilePart)
# Top-level fields the rules read: a loss in any of them is not followed here.
_READ = frozenset(
    {"max_tokens", "messages", "temperature", "top_p", "stop", "tools", "tool_choice", "extras"}
)
# Losses inside a message that change nothing the rules read.
_UNREAD = frozenset({".cache", ".name"})


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as Gemini reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    if (request.extras and NAME in request.extras) or lowered(request):
        return None
    found = dropped(losses)
    fields: dict[str, object] = {}
    for key, rest in found.top.items():
        if key == "tool_choice" and not rest:
            fields[key] = None  # left out with the tools it needs
        elif key in _READ or key.startswith("$"):
            return None
    gone: set[int] = set()  # messages left out
    parts: dict[int, set[int]] = {}  # user parts left out, by message
    for i, rest in found.messages:
        if not rest:
            gone.add(i)
        elif rest.startswith(".content["):
            end = rest.find("]")
            if end == len(rest) - 1:
                parts.setdefault(i, set()).add(int(rest[9:end]))
        elif not rest.startswith(".content[") and not (rest == ".tool_calls[0]" or rest in _UNREAD):
            return None  # (a call's loss at its own path: the placeholder signature)
    system: list[Message] = []
    out: list[Message] = []
    changed = False
    for i, message in enumerate(messages):
        extras = message.extras
        if extras and NAME in extras:
            return None
        kind = type(message)
        if kind is SystemMessage or kind is DeveloperMessage:
            if not message.content:
                return None  # kept in extras by the decoder, not as an instruction
            system.append(message)
            changed = changed or len(out) > 0
            continue
        if i in gone:
            changed = True
            continue
        if kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            if message.invalid_tool_calls or any(
                call.extras and NAME in call.extras for call in message.tool_calls
            ):
                return None
        elif kind is UserMessage:
            content: Any = message.content
            if type(content) is str:
                if not content:
                    message = msgspec.structs.replace(message, content=(TextPart(""),))
                    changed = True
            else:
                kept = _parts(content, parts.get(i))
                if kept is None:
                    return None
                if not kept:
                    changed = True
                    continue  # every part left out: the message is not sent
                if kept is not content:
                    message = msgspec.structs.replace(message, content=kept)
                    changed = True
        elif kind is ToolMessage:
            content = message.content
            if type(content) is not str:
                result = _result(content, parts.get(i))
                if result is None:
                    return None
                message = msgspec.structs.replace(message, content=result)
                changed = True
        else:
            return None
        out.append(message)
    if changed:
        fields["messages"] = (*system, *out)
    if signs_calls(request.model):
        fields["model"] = None
    return drop_tools(request, found.tools, **fields)


def _result(content: tuple[Any, ...], lost: set[int] | None) -> Any:
    """A tool result's parts as read back: their text, then its media (``None``: not told)."""
    text = "".join(part.text for part in content if type(part) is TextPart)
    others = tuple(
        part
        for j, part in enumerate(content)
        if type(part) is not TextPart and (lost is None or j not in lost)
    )
    media = _parts(others, None) if others else others
    if media is None:
        return None
    return (TextPart(text), *media) if media else text


def _parts(content: tuple[Any, ...], lost: set[int] | None) -> tuple[Any, ...] | None:
    """A user message's parts as read back (``None``: not told)."""
    changed = False
    kept: list[Any] = []
    for j, part in enumerate(content):
        if lost is not None and j in lost:
            changed = True
            continue
        if part.extras and NAME in part.extras:
            return None
        kind = type(part)
        if kind is TextPart:
            if part.citations:
                return None
        elif kind in _MEDIA:
            url = part.url
            if (
                part.media_type is None
                and part.data is None
                and url is not None
                and not url.startswith("data:")
            ):
                part = msgspec.structs.replace(part, media_type=_media_type(url))
                changed = True
        else:
            return None
        kept.append(part)
    return tuple(kept) if changed else content
