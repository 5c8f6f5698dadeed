"""The fast path of the request decoder: typed wire Structs for the usual requests.

The usual Messages request (a system prompt, turns of text, images and
documents, tool calls and their results, thinking with its signature, cache
points, the common parameters and settings) decodes straight into the
private Structs below and maps to the canonical form without a scan of
leftover keys. It is also what ``convert`` reads back from its own output
for the preflight. Tools, the thinking and metadata settings and the output
format are read by the general path's own functions. Anything else (a key
the Structs do not name, a block of another kind, a ``system`` turn, a value
only the general path keeps) fails the typed decode or is declined here, and
the caller takes the general path (:mod:`._decode`), which gives the same
result.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._cache import CachePoint
from ..._content import (
    AssistantPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
)
from ..._exchange import Request, ResponseFormat, Tool, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import ToolCall
from .._cache import read_cache_control
from .._fastpath import GIVE_UP, carrier, in_wire_order
from .._wire import encode_body
from ._decode import _output_config, _tool, _with
from ._settings import read_settings

__all__ = ["fast_request"]

NAME = "anthropic"
_MODES: Mapping[str, Any] = FrozenMap(
    {"auto": "auto", "any": "required", "tool": "tool", "none": "none"}
)


class _Decline(Exception):
    """A value the typed decode accepts but only the general path maps."""


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Text(_Wire, tag_field="type", tag="text", kw_only=True):
    text: str
    cache_control: Any = UNSET


class _Base64(_Wire, tag_field="type", tag="base64"):
    media_type: str
    data: str


class _Url(_Wire, tag_field="type", tag="url"):
    url: str


class _FileId(_Wire, tag_field="type", tag="file"):
    file_id: str


class _PlainText(_Wire, tag_field="type", tag="text"):
    media_type: Literal["text/plain"]
    data: str


class _Image(_Wire, tag_field="type", tag="image", kw_only=True):
    source: _Base64 | _Url
    cache_control: Any = UNSET


class _Document(_Wire, tag_field="type", tag="document", kw_only=True):
    source: _Base64 | _Url | _FileId | _PlainText
    cache_control: Any = UNSET


class _ToolUse(_Wire, tag_field="type", tag="tool_use", kw_only=True):
    id: str
    name: str
    input: dict[str, Any]
    cache_control: Any = UNSET
    caller: Any = UNSET


class _ToolResult(_Wire, tag_field="type", tag="tool_result", kw_only=True):
    tool_use_id: str
    content: str | list[_Text | _Image | _Document] | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET
    cache_control: Any = UNSET


class _Thinking(_Wire, tag_field="type", tag="thinking", kw_only=True):
    thinking: str
    signature: str | UnsetType = UNSET


class _Redacted(_Wire, tag_field="type", tag="redacted_thinking"):
    data: str


class _Turn(_Wire, tag_field="role"):
    pass


class _User(_Turn, tag="user"):
    content: str | list[_Text | _Image | _Document | _ToolResult]


class _Assistant(_Turn, tag="assistant"):
    content: str | list[_Text | _ToolUse | _Thinking | _Redacted]


class _Choice(_Wire, kw_only=True):
    type: Literal["auto", "any", "tool", "none"]
    name: str | UnsetType = UNSET
    disable_parallel_tool_use: bool | UnsetType = UNSET


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    system: str | list[_Text] | UnsetType = UNSET
    messages: list[_User | _Assistant]
    tools: list[dict[str, Any]] | UnsetType = UNSET  # read by the general path's _tool
    tool_choice: _Choice | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    stream: bool | UnsetType = UNSET
    output_config: Any = UNSET
    # Settings: read by read_settings, as the general path reads them.
    top_k: Any = UNSET
    metadata: Any = UNSET
    thinking: Any = UNSET
    # Kept as sent, in extras.
    cache_control: Any = UNSET
    container: Any = UNSET
    context_management: Any = UNSET
    mcp_servers: Any = UNSET
    service_tier: Any = UNSET


_decoder = msgspec.json.Decoder(_Request)
_carry = carrier(
    _Request, "cache_control", "container", "context_management", "mcp_servers", "service_tier"
)
_carry_settings = carrier(_Request, "top_k", "metadata", "thinking")


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        _carry(r, own)
        own = in_wire_order(body, own)
        messages: list[Message] = []
        system = r.system
        if type(system) is str:
            if not system:
                return None  # kept in extras by the general path
            messages.append(SystemMessage(system))
        elif type(system) is list:
            if not system or not all(block.text for block in system):
                return None
            lone = len(system) == 1
            for block in system:
                cache, rest = _cache(block.cache_control)
                if lone:
                    rest = {**(rest or {}), "~form": "blocks"}
                messages.append(
                    SystemMessage(block.text, extras={NAME: rest} if rest else None, cache=cache)
                )
        previous: type | None = None
        for turn in r.messages:
            kind = type(turn)
            first = len(messages)
            if kind is _User:
                _user(turn.content, messages)
            else:
                messages.append(_assistant(turn.content))
            if kind is previous:
                # A second turn of one role: marked as the general path marks it.
                messages[first] = _with(messages[first], {"~turn": "new"})
            previous = kind
        choice = parallel = None
        if r.tool_choice is not UNSET:
            choice, parallel = _choice(r.tool_choice)
        tools: tuple[Tool, ...] = ()
        if r.tools is not UNSET:
            tools = tuple([_tool(t, f"$.tools[{k}]") for k, t in enumerate(r.tools)])
            if not tools:
                own["tools"] = []  # an empty list, not an absent key
        response_format: ResponseFormat | None = None
        if r.output_config is not UNSET:
            response_format = _output_config(r.output_config, own)
        settings: dict[str, Any] = {}
        if r.top_k is not UNSET or r.metadata is not UNSET or r.thinking is not UNSET:
            found: dict[str, Any] = {}
            _carry_settings(r, found)
            settings = read_settings(found, own)
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
            response_format=response_format,
            **settings,
            extras={NAME: own} if own else None,
        )
    except (*GIVE_UP, _Decline):
        return None


def _cache(value: Any) -> tuple[CachePoint | None, dict[str, Any] | None]:
    """A block's cache point and its other kept keys, as ``take_cache`` gives them."""
    if value is UNSET:
        return None, None
    point = read_cache_control(value)
    if point is None:
        # Another form is kept as sent, in the block's order of keys: the general path's.
        raise _Decline
    return point, None


def _choice(value: _Choice) -> tuple[ToolChoice, bool | None]:
    mode = _MODES[value.type]
    name = value.name
    if (mode == "tool") is (name is UNSET):
        raise _Decline  # no name to force, or a name kept in extras
    parallel = None
    if value.disable_parallel_tool_use is not UNSET:
        parallel = not value.disable_parallel_tool_use
    return ToolChoice(mode, None if name is UNSET else name), parallel


def _text(block: _Text) -> TextPart:
    cache, rest = _cache(block.cache_control)
    if not block.text:
        # An empty block is kept for the way back (the encoder drops it otherwise).
        rest = {**(rest or {}), "~keep": True}
    return TextPart(block.text, extras={NAME: rest} if rest else None, cache=cache)


def _media(block: _Image | _Document) -> ContentPart:
    """An image or document block, as the general path's ``_media`` reads it, or declined."""
    cache, rest = _cache(block.cache_control)
    extras = {NAME: rest} if rest else None
    source: Any = block.source  # told apart by type(), which mypy does not narrow by
    kind = type(source)
    image = type(block) is _Image
    if kind is _Base64:
        if not source.media_type:
            raise _Decline
        if image:
            return ImagePart(
                data=source.data, media_type=source.media_type, extras=extras, cache=cache
            )
        if source.media_type != "application/pdf":
            raise _Decline  # another base64 document: kept opaque
        return FilePart(data=source.data, media_type=source.media_type, extras=extras, cache=cache)
    if kind is _Url:
        if source.url.startswith("data:"):
            raise _Decline
        if image:
            return ImagePart(url=source.url, extras=extras, cache=cache)
        return FilePart(url=source.url, extras=extras, cache=cache)
    if kind is _FileId:
        return FilePart(file_id=source.file_id, extras=extras, cache=cache)
    try:
        data = base64.b64encode(source.data.encode()).decode("ascii")
    except UnicodeError:
        raise _Decline from None
    return FilePart(data=data, media_type="text/plain", extras=extras, cache=cache)


def _result(block: _ToolResult) -> ToolMessage:
    if not block.tool_use_id:
        raise _Decline
    cache, rest = _cache(block.cache_control)
    error = block.is_error
    if error is False:
        rest = {"is_error": False, **(rest or {})}
    content: str | tuple[ContentPart, ...]
    raw: Any = block.content
    if type(raw) is str:
        content = raw
    elif raw is UNSET:
        content = ""
        rest = {**(rest or {}), "~content": "absent"}
    else:
        content = tuple([_text(b) if type(b) is _Text else _media(b) for b in raw])
    extras = {NAME: rest} if rest else None
    return ToolMessage(block.tool_use_id, content, error is True, extras=extras, cache=cache)


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
    after_user = False
    for block in content:
        kind = type(block)
        if kind is _ToolResult:
            if parts:
                out.append(UserMessage(tuple(parts)))
                parts = []
            if len(out) > first and type(out[-1]) is UserMessage:
                after_user = True
            out.append(_result(block))
        elif kind is _Text:
            parts.append(_text(block))
        else:
            parts.append(_media(block))
    if parts:
        out.append(UserMessage(tuple(parts)))
    if after_user:
        # A result after user blocks: the order is noted as the general path notes it.
        out[first] = _with(out[first], {"~order": "wire"})


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
            cache, rest = _cache(block.cache_control)
            if block.caller is not UNSET:
                rest = {"caller": block.caller, **(rest or {})}
            arguments = Raw(encode_body(block.input))
            extras = {NAME: rest} if rest else None
            calls.append(ToolCall(block.id, block.name, arguments, extras=extras, cache=cache))
            order.append("t")
            continue
        if kind is _Text:
            parts.append(_text(block))
        elif kind is _Thinking:
            signature = None if block.signature is UNSET else block.signature
            parts.append(ReasoningPart(block.thinking, signature, None, NAME))
        else:
            parts.append(ReasoningPart("", None, block.data, NAME))
        order.append("c")
    extras = None
    if calls:
        wire = "".join(order)
        if wire != "c" * len(parts) + "t" * len(calls):
            extras = {NAME: {"~order": wire}}
    body = tuple(parts) if parts or not calls else None
    return AssistantMessage(body, tuple(calls), (), extras=extras)
