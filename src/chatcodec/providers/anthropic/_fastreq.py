"""The fast path of the request decoder: typed wire Structs for the usual requests.

The usual Messages request (a system prompt, turns of text, base64 images,
tool calls and text results, thinking with its signature, custom tools, the
common parameters) decodes straight into the private Structs below and maps
to the canonical form without a scan of leftover keys. It is also what
``convert`` reads back from its own output for the preflight. Anything else
(a key the Structs do not name, a block of another kind, two turns of one
role, a value only the general path keeps) fails the typed decode or is
declined here, and the caller takes the general path (:mod:`._decode`),
which gives the same result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._content import AssistantPart, ContentPart, ImagePart, ReasoningPart, TextPart
from ..._exchange import Request, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import ToolCall, ToolDefinition
from .._fastpath import GIVE_UP
from .._wire import encode_body

__all__ = ["fast_request"]

NAME = "anthropic"
_MODES: Mapping[str, Any] = FrozenMap({"auto": "auto", "any": "required", "none": "none"})


class _Decline(Exception):
    """A value the typed decode accepts but only the general path maps."""


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Text(_Wire, tag_field="type", tag="text"):
    text: str


class _Source(_Wire):
    type: Literal["base64"]
    media_type: str
    data: str


class _Image(_Wire, tag_field="type", tag="image"):
    source: _Source


class _ToolUse(_Wire, tag_field="type", tag="tool_use"):
    id: str
    name: str
    input: dict[str, Any]


class _ToolResult(_Wire, tag_field="type", tag="tool_result", kw_only=True):
    tool_use_id: str
    content: str
    is_error: bool | UnsetType = UNSET


class _Thinking(_Wire, tag_field="type", tag="thinking", kw_only=True):
    thinking: str
    signature: str | UnsetType = UNSET


class _Turn(_Wire, tag_field="role"):
    pass


class _User(_Turn, tag="user"):
    content: str | list[_Text | _Image | _ToolResult]


class _Assistant(_Turn, tag="assistant"):
    content: str | list[_Text | _ToolUse | _Thinking]


class _Tool(_Wire, kw_only=True):
    name: str
    description: str | UnsetType = UNSET
    input_schema: dict[str, Any]
    strict: bool | UnsetType = UNSET


class _Choice(_Wire, kw_only=True):
    type: Literal["auto", "any", "none"]
    disable_parallel_tool_use: bool | UnsetType = UNSET


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    system: str | list[_Text] | UnsetType = UNSET
    messages: list[_User | _Assistant]
    tools: list[_Tool] | UnsetType = UNSET
    tool_choice: _Choice | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    stream: bool | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Request)


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        messages: list[Message] = []
        system = r.system
        if type(system) is str:
            if not system:
                return None  # kept in extras by the general path
            messages.append(SystemMessage(system))
        elif type(system) is list:
            if not system or not all(block.text for block in system):
                return None
            if len(system) == 1:
                extras = {NAME: {"~form": "blocks"}}
                messages.append(SystemMessage(system[0].text, extras=extras))
            else:
                messages.extend([SystemMessage(block.text) for block in system])
        previous: type | None = None
        for turn in r.messages:
            kind = type(turn)
            if kind is previous:
                return None  # a second turn of one role: the general path marks it
            previous = kind
            if kind is _User:
                _user(turn.content, messages)
            else:
                messages.append(_assistant(turn.content))
        choice = parallel = None
        if r.tool_choice is not UNSET:
            choice = ToolChoice(_MODES[r.tool_choice.type])
            if r.tool_choice.disable_parallel_tool_use is not UNSET:
                parallel = not r.tool_choice.disable_parallel_tool_use
        tools: tuple[ToolDefinition, ...] = ()
        if r.tools is not UNSET:
            if not r.tools:
                return None
            tools = tuple([_tool(t) for t in r.tools])
        stop = r.stop_sequences
        return Request(
            messages=tuple(messages),
            model=None if r.model is UNSET else r.model,
            tools=tools,
            tool_choice=choice,
            parallel_tool_calls=parallel,
            max_tokens=None if r.max_tokens is UNSET else r.max_tokens,
            temperature=None if r.temperature is UNSET else r.temperature,
            top_p=None if r.top_p is UNSET else r.top_p,
            stop=None if stop is UNSET else tuple(stop),
            stream=None if r.stream is UNSET else r.stream,
        )
    except (*GIVE_UP, _Decline):
        return None


def _text(block: _Text) -> TextPart:
    # An empty block is kept for the way back (the encoder drops it otherwise).
    return TextPart(block.text, extras=None if block.text else {NAME: {"~keep": True}})


def _user(content: Any, out: list[Message]) -> None:
    if type(content) is str:
        if not content:
            raise _Decline
        out.append(UserMessage(content))
        return
    if not content:
        raise _Decline
    parts: list[ContentPart] = []
    first = len(out)
    for block in content:
        kind = type(block)
        if kind is _ToolResult:
            if parts:
                out.append(UserMessage(tuple(parts)))
                parts = []
            if len(out) > first and type(out[-1]) is UserMessage:
                raise _Decline  # a result after user blocks: the general path notes the order
            if not block.tool_use_id:
                raise _Decline
            error = block.is_error
            extras = {NAME: {"is_error": False}} if error is False else None
            out.append(ToolMessage(block.tool_use_id, block.content, error is True, extras=extras))
        elif kind is _Text:
            parts.append(_text(block))
        else:
            source = block.source
            if not source.media_type:
                raise _Decline
            parts.append(ImagePart(data=source.data, media_type=source.media_type))
    if parts:
        out.append(UserMessage(tuple(parts)))


def _assistant(content: Any) -> AssistantMessage:
    if type(content) is str:
        return AssistantMessage(content)
    parts: list[AssistantPart] = []
    calls: list[ToolCall] = []
    order: list[str] = []
    for block in content:
        kind = type(block)
        if kind is _ToolUse:
            if not block.id or not block.name:
                raise _Decline
            calls.append(ToolCall(block.id, block.name, Raw(encode_body(block.input))))
            order.append("t")
            continue
        if kind is _Text:
            parts.append(_text(block))
        else:
            signature = None if block.signature is UNSET else block.signature
            parts.append(ReasoningPart(block.thinking, signature, None, NAME))
        order.append("c")
    extras = None
    if calls:
        wire = "".join(order)
        if wire != "c" * len(parts) + "t" * len(calls):
            extras = {NAME: {"~order": wire}}
    body = tuple(parts) if parts or not calls else None
    return AssistantMessage(body, tuple(calls), (), extras=extras)


def _tool(t: _Tool) -> ToolDefinition:
    description: str | None = None
    extras: dict[str, Any] | None = None
    if type(t.description) is str:
        if t.description:
            description = t.description
        else:
            extras = {NAME: {"description": ""}}  # canonically absent; kept for the way back
    if t.strict is False:
        if extras is not None:
            raise _Decline
        extras = {NAME: {"strict": False}}
    # A name or schema ToolDefinition refuses raises: the general path keeps it as is.
    return ToolDefinition(
        t.name, description, t.input_schema, strict=t.strict is True, extras=extras
    )
