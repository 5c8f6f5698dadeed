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


# Blocks and sources are flat Structs told apart by their ``type`` in Python,
# not tagged unions: a tag sent after a large value (a base64 image, sorted
# keys) makes a tagged decode read that value twice at every level.
class _Source(_Wire, kw_only=True):
    type: str
    media_type: str | UnsetType = UNSET
    data: str | UnsetType = UNSET
    url: str | UnsetType = UNSET
    file_id: str | UnsetType = UNSET


class _Block(_Wire, kw_only=True):
    type: str
    text: str | UnsetType = UNSET
    source: _Source | UnsetType = UNSET
    cache_control: Any = UNSET
    tool_use_id: str | UnsetType = UNSET
    content: str | list[_Block] | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET
    id: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    input: dict[str, Any] | UnsetType = UNSET
    caller: Any = UNSET
    thinking: str | UnsetType = UNSET
    signature: str | UnsetType = UNSET
    data: str | UnsetType = UNSET


class _Turn(_Wire):
    role: Literal["user", "assistant"]
    content: str | list[_Block]


_FIELDS = tuple(name for name in _Block.__struct_fields__ if name != "type")
# The fields each kind of block may have (beside ``type``), and those it must.
_KINDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = FrozenMap(
    {
        "text": (frozenset({"text", "cache_control"}), frozenset({"text"})),
        "image": (frozenset({"source", "cache_control"}), frozenset({"source"})),
        "document": (frozenset({"source", "cache_control"}), frozenset({"source"})),
        "tool_result": (
            frozenset({"tool_use_id", "content", "is_error", "cache_control"}),
            frozenset({"tool_use_id"}),
        ),
        "tool_use": (
            frozenset({"id", "name", "input", "cache_control", "caller"}),
            frozenset({"id", "name", "input"}),
        ),
        "thinking": (frozenset({"thinking", "signature"}), frozenset({"thinking"})),
        "redacted_thinking": (frozenset({"data"}), frozenset({"data"})),
    }
)
_TEXT = frozenset({"text"})
_USER = frozenset({"text", "image", "document", "tool_result"})
_PARTS = frozenset({"text", "image", "document"})
_ASSISTANT = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})


def _check(block: _Block, kinds: frozenset[str]) -> str:
    """The block's kind, if it is one of ``kinds`` with its fields and no other."""
    kind = block.type
    if kind not in kinds:
        raise _Decline  # kept opaque by the general path
    allowed, required = _KINDS[kind]
    for name in _FIELDS:
        if getattr(block, name) is UNSET:
            if name in required:
                raise _Decline
        elif name not in allowed:
            raise _Decline
    return kind


class _Choice(_Wire, kw_only=True):
    type: Literal["auto", "any", "tool", "none"]
    name: str | UnsetType = UNSET
    disable_parallel_tool_use: bool | UnsetType = UNSET


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    system: str | list[_Block] | UnsetType = UNSET
    messages: list[_Turn]
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
            for block in system:
                if _check(block, _TEXT) != "text" or not block.text:
                    return None
            if not system:
                return None
            lone = len(system) == 1
            for block in system:
                text: Any = block.text
                cache, rest = _cache(block.cache_control)
                if lone:
                    rest = {**(rest or {}), "~form": "blocks"}
                messages.append(
                    SystemMessage(text, extras={NAME: rest} if rest else None, cache=cache)
                )
        previous: str | None = None
        for turn in r.messages:
            role = turn.role
            first = len(messages)
            if role == "user":
                _user(turn.content, messages)
            else:
                messages.append(_assistant(turn.content))
            if role == previous:
                # A second turn of one role: marked as the general path marks it.
                messages[first] = _with(messages[first], {"~turn": "new"})
            previous = role
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
            settings = read_settings(found, own, None if r.model is UNSET else r.model)
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


def _text(block: _Block) -> TextPart:
    text: Any = block.text
    cache, rest = _cache(block.cache_control)
    if not text:
        # An empty block is kept for the way back (the encoder drops it otherwise).
        rest = {**(rest or {}), "~keep": True}
    return TextPart(text, extras={NAME: rest} if rest else None, cache=cache)


def _media(block: _Block, image: bool) -> ContentPart:
    """An image or document block, as the general path's ``_media`` reads it, or declined."""
    cache, rest = _cache(block.cache_control)
    extras = {NAME: rest} if rest else None
    source: Any = block.source
    kind = source.type
    url, file_id = source.url, source.file_id
    data, media_type = source.data, source.media_type
    if kind == "base64" or kind == "text":
        if data is UNSET or media_type is UNSET or url is not UNSET or file_id is not UNSET:
            raise _Decline
        if kind == "text":
            if image or media_type != "text/plain":
                raise _Decline
            try:
                data = base64.b64encode(data.encode()).decode("ascii")
            except UnicodeError:
                raise _Decline from None
            return FilePart(data=data, media_type=media_type, extras=extras, cache=cache)
        if not media_type:
            raise _Decline
        if image:
            return ImagePart(data=data, media_type=media_type, extras=extras, cache=cache)
        if media_type != "application/pdf":
            raise _Decline  # another base64 document: kept opaque
        return FilePart(data=data, media_type=media_type, extras=extras, cache=cache)
    if data is not UNSET or media_type is not UNSET:
        raise _Decline
    if kind == "url" and url is not UNSET and file_id is UNSET:
        if url.startswith("data:"):
            raise _Decline
        if image:
            return ImagePart(url=url, extras=extras, cache=cache)
        return FilePart(url=url, extras=extras, cache=cache)
    if kind == "file" and file_id is not UNSET and url is UNSET and not image:
        return FilePart(file_id=file_id, extras=extras, cache=cache)
    raise _Decline  # kept opaque by the general path


def _part(block: _Block) -> ContentPart:
    """A block of a user turn or of a tool result: text, image or document."""
    kind = _check(block, _PARTS)
    if kind == "text":
        return _text(block)
    return _media(block, kind == "image")


def _result(block: _Block) -> ToolMessage:
    tool_use_id: Any = block.tool_use_id
    if not tool_use_id:
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
        content = tuple([_part(b) for b in raw])
    extras = {NAME: rest} if rest else None
    return ToolMessage(tool_use_id, content, error is True, extras=extras, cache=cache)


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
        if block.type == "tool_result":
            _check(block, _USER)
            if parts:
                out.append(UserMessage(tuple(parts)))
                parts = []
            if len(out) > first and type(out[-1]) is UserMessage:
                after_user = True
            out.append(_result(block))
        else:
            parts.append(_part(block))
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
        kind = _check(block, _ASSISTANT)
        b: Any = block  # its fields checked above, which mypy does not see
        if kind == "tool_use":
            if not b.id or not b.name:
                raise _Decline
            cache, rest = _cache(b.cache_control)
            if b.caller is not UNSET:
                rest = {"caller": b.caller, **(rest or {})}
            arguments = Raw(encode_body(b.input))
            extras = {NAME: rest} if rest else None
            calls.append(ToolCall(b.id, b.name, arguments, extras=extras, cache=cache))
            order.append("t")
            continue
        if kind == "text":
            parts.append(_text(b))
        elif kind == "thinking":
            signature = None if b.signature is UNSET else b.signature
            parts.append(ReasoningPart(b.thinking, signature, None, NAME))
        else:
            parts.append(ReasoningPart("", None, b.data, NAME))
        order.append("c")
    extras = None
    if calls:
        wire = "".join(order)
        if wire != "c" * len(parts) + "t" * len(calls):
            extras = {NAME: {"~order": wire}}
    body = tuple(parts) if parts or not calls else None
    return AssistantMessage(body, tuple(calls), (), extras=extras)
