"""The typed fast path of ``decode_response``, for the usual Converse answer.

The usual answer is an assistant message of text blocks followed by client
``toolUse`` blocks, a ``stopReason``, the three token counts (and an empty
``serverToolUsage``) and ``metrics``. msgspec decodes that shape into the
Structs below in C; anything else (another key, a ``null``, a block of
another kind, a call before text, an empty text) fails the typed decode or
the checks here, and :func:`fast_response` returns ``None`` for the general
path. What it returns equals what the general path gives: a test proves it on
every recorded body.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import TextPart
from ..._errors import DECODE_FAILURES
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import Usage
from .._wire import encode_body
from ._blocks import NAME, finish_reason

__all__ = ["fast_response"]


class _ToolUse(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    tool_use_id: str
    name: str
    input: dict[str, Any]


class _Block(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    text: str | UnsetType = UNSET
    tool_use: _ToolUse | UnsetType = UNSET


class _Message(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    role: Literal["assistant"]
    content: list[_Block]


class _Output(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    message: _Message


class _Usage(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    server_tool_usage: dict[str, Any] | UnsetType = UNSET


class _Response(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    output: _Output
    stop_reason: str
    usage: _Usage
    metrics: dict[str, Any] | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Response)


def _message(blocks: list[_Block]) -> AssistantMessage | None:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in blocks:
        text, use = block.text, block.tool_use
        if type(text) is str and use is UNSET:
            if calls or not text:
                return None  # text after a call, or empty: the general path's hints
            texts.append(text)
        elif type(use) is _ToolUse and text is UNSET:
            if not use.tool_use_id or not use.name:
                return None
            arguments = Raw(encode_body(use.input))
            calls.append(ToolCall(id=use.tool_use_id, name=use.name, arguments=arguments))
        else:
            return None
    if not texts and not calls:
        return None
    content: str | tuple[TextPart, ...] | None = None
    if len(texts) == 1:
        content = texts[0]
    elif texts:
        content = tuple(TextPart(text) for text in texts)
    return AssistantMessage(content=content, tool_calls=tuple(calls))


def fast_response(body: bytes | str) -> Response | None:
    """The response of the usual body, or ``None`` for any other."""
    try:
        data = _decoder.decode(body)
    except DECODE_FAILURES:
        return None  # the general path says what is wrong
    usage = data.usage
    inputs, outputs, total = usage.input_tokens, usage.output_tokens, usage.total_tokens
    if inputs < 0 or outputs < 0 or total < 0:
        return None
    message = _message(data.output.message.content)
    if message is None:
        return None
    server = usage.server_tool_usage
    counts = Usage(
        inputs,
        outputs,
        total,
        extras=None if server is UNSET else {NAME: {"serverToolUsage": server}},
    )
    raw = data.stop_reason
    metrics = data.metrics
    return Response(
        (Choice(message, finish_reason(raw), raw),),
        usage=counts,
        extras=None if metrics is UNSET else {NAME: {"metrics": metrics}},
    )
