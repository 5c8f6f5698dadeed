"""The typed fast path of ``decode_response``, for the usual Converse answer.

The usual answer is an assistant message of reasoning and text blocks
followed by client ``toolUse`` blocks, a ``stopReason``, the token counts
(with the cache reads and writes, and ``serverToolUsage``) and ``metrics``.
msgspec decodes that shape into the Structs below in C; anything else
(another key, a ``null``, a block of another kind, a call before text, an
empty text) fails the typed decode or the checks here, and
:func:`fast_response` returns ``None`` for the general path. The shape is
every family's (:mod:`.._fastpath`); what it returns equals what the general
path gives: a test proves it on every recorded body.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import ReasoningPart, TextPart
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import Usage
from .._fastpath import GIVE_UP, Wire, carrier
from .._wire import encode_body
from ._blocks import NAME, finish_reason

__all__ = ["fast_response"]


class _Wire(Wire, rename="camel"):
    """Base of the wire Structs: camelCase keys."""


class _ToolUse(_Wire):
    tool_use_id: str
    name: str
    input: dict[str, Any]
    type: str | UnsetType = UNSET


class _ReasoningText(Wire):
    text: str
    signature: str | UnsetType = UNSET


class _Reasoning(_Wire):
    reasoning_text: _ReasoningText | UnsetType = UNSET
    redacted_content: str | UnsetType = UNSET


class _Block(_Wire):
    text: str | UnsetType = UNSET
    tool_use: _ToolUse | UnsetType = UNSET
    reasoning_content: _Reasoning | UnsetType = UNSET


class _Message(_Wire):
    role: Literal["assistant"]
    content: list[_Block]


class _Output(_Wire):
    message: _Message


class _Usage(_Wire):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    server_tool_usage: dict[str, Any] | UnsetType = UNSET
    cache_read_input_tokens: int | UnsetType = UNSET
    cache_write_input_tokens: int | UnsetType = UNSET
    # Kept as sent, whatever they hold, like every key the general path does not read.
    cache_read_input_token_count: Any = UNSET
    cache_write_input_token_count: Any = UNSET


class _Response(_Wire):
    output: _Output
    stop_reason: str
    usage: _Usage
    metrics: dict[str, Any] | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Response)
_carry_usage = carrier(
    _Usage, "server_tool_usage", "cache_read_input_token_count", "cache_write_input_token_count"
)


def _reasoning(value: _Reasoning) -> ReasoningPart | None:
    text, redacted = value.reasoning_text, value.redacted_content
    if type(text) is _ReasoningText and redacted is UNSET:
        signature = None if text.signature is UNSET else text.signature
        return ReasoningPart(text.text, signature=signature, provider=NAME)
    if type(redacted) is str and text is UNSET:
        return ReasoningPart(redacted=redacted, provider=NAME)
    return None


def _call(use: _ToolUse) -> ToolCall | None:
    kind = use.type
    if not use.tool_use_id or not use.name or kind == "server_tool_use":
        return None
    extras = None if kind is UNSET else {NAME: {"type": kind}}
    arguments = Raw(encode_body(use.input))
    return ToolCall(id=use.tool_use_id, name=use.name, arguments=arguments, extras=extras)


def _message(blocks: list[_Block]) -> AssistantMessage | None:
    parts: list[TextPart | ReasoningPart] = []
    calls: list[ToolCall] = []
    for block in blocks:
        text, use, reasoning = block.text, block.tool_use, block.reasoning_content
        if type(text) is str and use is UNSET and reasoning is UNSET:
            if calls or not text:
                return None  # text after a call, or empty: the general path's hints
            parts.append(TextPart(text))
        elif type(reasoning) is _Reasoning and text is UNSET and use is UNSET:
            part = _reasoning(reasoning)
            if part is None or calls:
                return None
            parts.append(part)
        elif type(use) is _ToolUse and text is UNSET and reasoning is UNSET:
            call = _call(use)
            if call is None:
                return None
            calls.append(call)
        else:
            return None
    if not parts and not calls:
        return None
    content: str | tuple[TextPart | ReasoningPart, ...] | None = None
    if len(parts) == 1 and type(parts[0]) is TextPart:
        content = parts[0].text
    elif parts:
        content = tuple(parts)
    return AssistantMessage(content=content, tool_calls=tuple(calls))


def fast_response(body: bytes | str) -> Response | None:
    """The response of the usual body, or ``None`` for any other."""
    try:
        data = _decoder.decode(body)
    except GIVE_UP:
        return None  # the general path says what is wrong
    usage = data.usage
    inputs, outputs, total = usage.input_tokens, usage.output_tokens, usage.total_tokens
    if inputs < 0 or outputs < 0 or total < 0:
        return None
    message = _message(data.output.message.content)
    if message is None:
        return None
    cached, written = usage.cache_read_input_tokens, usage.cache_write_input_tokens
    rest: dict[str, Any] = {}
    _carry_usage(usage, rest)
    if written is not UNSET:
        if written < 0:
            return None
        inputs += written
    if cached is not UNSET:
        if cached < 0:
            return None
        inputs += cached
    counts = Usage(
        inputs,
        outputs,
        total,
        None if cached is UNSET else cached,
        None,
        None if written is UNSET else written,
        extras={NAME: rest} if rest else None,
    )
    raw = data.stop_reason
    metrics = data.metrics
    return Response(
        (Choice(message, finish_reason(raw), raw),),
        usage=counts,
        extras=None if metrics is UNSET else {NAME: {"metrics": metrics}},
    )
