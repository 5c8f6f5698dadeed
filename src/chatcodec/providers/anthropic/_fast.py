"""The fast path of the Anthropic response decoder: typed wire Structs for the usual shape.

Most responses are a message of ``text``, ``tool_use`` and ``thinking``
blocks with the usual usage counts. msgspec decodes such a body straight into
the private Structs below, in C, checking every type on the way (counts must
not be negative, a ``tool_use`` input must be an object); the mapping to the
canonical form is then a handful of attribute reads, with no scan of leftover
keys. ``UNSET`` defaults tell an absent key from a ``null``.

The shape is every family's (:mod:`.._fastpath`). Any body the Structs do
not fit (a server-tool block, an unknown key, a value of another type, an
error body...) or a value that breaks a canonical rule (an empty tool id or
name) goes to the general path (:func:`._decode.decode_response`), which
gives the same result. Values the general path keeps as sent
(``stop_sequence``, ``citations``, ``cache_creation``...) are decoded as
builtins, so both paths build equal records.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, UnsetType

from ..._content import AssistantPart, ReasoningPart, TextPart
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._cite import read_citations
from ._decode import FINISH, NAME

__all__ = ["fast_response"]

_OTHER = FinishReason.OTHER
_encode = msgspec.json.Encoder().encode  # as encode_body: compact, keys in order
_Count = Annotated[int, Meta(ge=0)]


class _Block(Wire, tag_field="type"):
    """A content block, told apart by its ``type``."""


class _Text(_Block, tag="text"):
    text: str
    citations: Any = UNSET


class _ToolUse(_Block, tag="tool_use"):
    id: str
    name: str
    input: dict[str, Any]
    caller: Any = UNSET


class _Thinking(_Block, tag="thinking"):
    thinking: str
    signature: str | UnsetType | None = UNSET


class _Redacted(_Block, tag="redacted_thinking"):
    data: str


_Blocks = _Text | _ToolUse | _Thinking | _Redacted


class _Usage(Wire):
    input_tokens: _Count
    output_tokens: _Count
    cache_creation_input_tokens: _Count | UnsetType | None = UNSET
    cache_read_input_tokens: _Count | UnsetType | None = UNSET
    cache_creation: Any = UNSET
    service_tier: Any = UNSET
    server_tool_use: Any = UNSET
    inference_geo: Any = UNSET
    output_tokens_details: Any = UNSET
    iterations: Any = UNSET


class _Response(Wire):
    content: list[_Blocks]
    id: str | UnsetType | None = UNSET
    type: Literal["message"] | UnsetType = UNSET
    role: Literal["assistant"] | UnsetType = UNSET
    model: str | UnsetType | None = UNSET
    stop_reason: str | UnsetType | None = UNSET
    stop_sequence: Any = UNSET
    stop_details: Any = UNSET
    usage: _Usage | UnsetType | None = UNSET
    container: Any = UNSET
    context_management: Any = UNSET


_decoder = msgspec.json.Decoder(_Response)
# A null the mapping reads anyway (an id, a count) is noted there: one read, not two.
_carry = carrier(_Response, "stop_sequence", "stop_details", "container", "context_management")
_carry_usage = carrier(
    _Usage, "cache_creation", "service_tier", "server_tool_use", "inference_geo", "iterations"
)


def fast_response(body: bytes | str) -> Response | None:
    """The canonical response of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON, or an error body: the general path
    raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        _carry(r, own)
        id_ = r.id
        if id_ is UNSET:
            id_ = None
        elif id_ is None:
            own["id"] = None
        model = r.model
        if model is UNSET:
            model = None
        elif model is None:
            own["model"] = None
        raw = r.stop_reason
        finish = None
        if type(raw) is str:
            finish = FINISH.get(raw, _OTHER)
        else:
            raw = None
        u = r.usage
        usage = None
        if type(u) is _Usage:
            usage = _usage(u)
        elif u is None:
            own["usage"] = None
        content = r.content
        return Response(
            (Choice(_message(content) if content else None, finish, raw),),
            id_,
            model,
            usage,
            extras={NAME: own} if own else None,
        )
    except GIVE_UP:
        return None


def _message(blocks: list[_Blocks]) -> AssistantMessage:
    parts: list[AssistantPart] = []
    calls: list[ToolCall] = []
    mixed = False  # a content block after a tool call: the wire order is hinted
    for b in blocks:
        if type(b) is _ToolUse:
            calls.append(
                ToolCall(
                    b.id,
                    b.name,
                    Raw(_encode(b.input)),
                    extras=None if b.caller is UNSET else {NAME: {"caller": b.caller}},
                )
            )
            continue
        if calls:
            mixed = True
        if type(b) is _Text:
            parts.append(_text(b))
        elif type(b) is _Thinking:
            parts.append(_thinking(b))
        elif type(b) is _Redacted:
            parts.append(ReasoningPart("", None, b.data, NAME))
    if not calls:
        return AssistantMessage(tuple(parts))
    extras = None
    if mixed:
        order = "".join(["t" if type(b) is _ToolUse else "c" for b in blocks])
        extras = {NAME: {"~order": order}}
    return AssistantMessage(tuple(parts) if parts else None, tuple(calls), extras=extras)


def _text(b: _Text) -> TextPart:
    text = b.text
    if b.citations is UNSET:
        return TextPart(text, extras=None if text else {NAME: {"~keep": True}})
    citations = read_citations(b.citations)
    if citations is not None:
        return TextPart(text, citations, extras=None if text else {NAME: {"~keep": True}})
    own: dict[str, Any] = {"citations": b.citations}
    if not text:
        own["~keep"] = True
    return TextPart(text, extras={NAME: own})


def _thinking(b: _Thinking) -> ReasoningPart:
    signature = b.signature
    if type(signature) is str:
        return ReasoningPart(b.thinking, signature, None, NAME)
    extras = {NAME: {"signature": None}} if signature is None else None
    return ReasoningPart(b.thinking, None, None, NAME, extras=extras)


def _usage(u: _Usage) -> Usage:
    own: dict[str, Any] = {}
    _carry_usage(u, own)
    created = u.cache_creation_input_tokens
    if created is UNSET:
        created = None
    elif created is None:
        own["cache_creation_input_tokens"] = None
    cached = u.cache_read_input_tokens
    if cached is UNSET:
        cached = None
    elif cached is None:
        own["cache_read_input_tokens"] = None
    reasoning = None
    details = u.output_tokens_details
    if details is not UNSET:
        if type(details) is dict and type(details.get("thinking_tokens")) is int:
            reasoning = details["thinking_tokens"]
            details = {key: v for key, v in details.items() if key != "thinking_tokens"}
        own["output_tokens_details"] = details
    prompt = u.input_tokens + (cached or 0) + (created or 0)
    return Usage(
        prompt,
        u.output_tokens,
        None,
        cached,
        reasoning,
        created,
        extras={NAME: own} if own else None,
    )
