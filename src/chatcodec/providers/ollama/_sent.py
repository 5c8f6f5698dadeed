"""The request Ollama is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder writes one wire message per
canonical message, in order. A user message or a tool result holds one text
and its images: its parts are read back as the text (when it had any), then
the images it could send (by data or a base64 ``data:`` URL), which is what is
built here; the parts it leaves out (images by URL, audio, files, other
providers' blocks) are not found by the decoder, so not here either. It
leaves out other providers' tools. Invalid calls (sent with the arguments
they could have), image files, an empty instruction (which the decoder
refuses) and Ollama's own extras are declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import FilePart, ImagePart, TextPart
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
from ._common import NAME
from ._encode import _data_url

__all__ = ["as_sent"]

# Top-level fields the rules read: a loss in any of them is not followed here.
_READ = frozenset({"model", "messages", "tools", "extras"})
# Losses inside a message that change nothing the rules read.
_UNREAD = frozenset({".is_error", ".cache", ".name"})
_TEXT = TextPart("")
_TEXT_ONLY = (_TEXT,)  # what the rules see of a message without images: no part of note


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as Ollama reads it back, or ``None`` when it cannot be told."""
    if (request.extras and NAME in request.extras) or lowered(request):
        return None
    found = dropped(losses)
    for key in found.top:
        if key in _READ or key.startswith("$"):
            return None
    for _i, rest in found.messages:
        if not rest.startswith(".content[") and rest not in _UNREAD:
            return None
    out: list[Message] = []
    changed = False
    for message in request.messages:
        extras = message.extras
        if extras and NAME in extras:
            return None
        kind = type(message)
        if kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            if message.invalid_tool_calls or any(
                call.extras and NAME in call.extras for call in message.tool_calls
            ):
                return None
        elif kind is UserMessage or kind is ToolMessage:
            content: Any = message.content
            if type(content) is tuple:
                sent = _media(content)
                if sent is None:
                    return None
                if sent is not content:
                    message = msgspec.structs.replace(message, content=sent)
                    changed = True
        elif kind is SystemMessage or kind is DeveloperMessage:
            if not message.content:
                return None  # refused by the decoder
        else:
            return None
        out.append(message)
    fields: dict[str, object] = {"messages": tuple(out)} if changed else {}
    return drop_tools(request, found.tools, **fields)


def _media(content: tuple[Any, ...]) -> Any:
    """A message's parts as read back: its text, then its images (``None``: not told)."""
    text = False
    images: list[Any] = []
    plain = True  # text only: the rules read nothing of it
    for part in content:
        if part.extras and NAME in part.extras:
            return None
        kind = type(part)
        if kind is TextPart:
            text = True
            continue
        plain = False
        if kind is ImagePart:
            if part.data is not None or _data_url(part.url) is not None:
                images.append(part)
        elif (
            kind is FilePart
            and part.data is not None
            and (part.media_type or "").startswith("image/")
        ):
            return None  # read back as an image
    if plain:
        return content
    if not images:
        return _TEXT_ONLY
    return (_TEXT, *images) if text else tuple(images)
