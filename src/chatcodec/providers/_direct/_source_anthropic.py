"""The usual Anthropic Messages request, read into the :class:`~._source.Read` the writers take.

msgspec decodes the usual request (a ``system`` string or text blocks, user
and assistant turns of text, images by base64 data or https URL, tool calls
and their results as text or as tool references alone (left out and
reported by every target: see :mod:`._left`), function tools, the tool
choice and the common parameters) into the private Structs below, in C; they forbid unknown
fields, so a key they do not name (a cache point, thinking, citations, a
setting, an error flag...) fails the decode and the request goes the
general way. The turns are then written as the OpenAI Chat messages they
stand for (results first, then the user's blocks, as their own messages; a
base64 image as its data URL), so that the OpenAI source's own checks
(:func:`._source._messages`, :func:`._source.check_specs`) rule on the
conversation and the tools, and every writer serves the result. Anything
the general path reads otherwise (an empty text, a result before the user's
blocks after them, a second turn of a role) is declined.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._exchange import Reasoning
from ..._frozen import FrozenMap
from .._cache import CACHE_CONTROL
from .._profiles import profile
from .._wire import encode_body
from ..anthropic._decode import REQUEST_KEYS
from ..anthropic._encode_parts import IMAGE_TYPES
from ..gemini._check import STOP_LIMIT
from ._source import (
    _URL,
    Body,
    Fallback,
    FunctionSpec,
    Message,
    Part,
    Read,
    Tools,
    ToolSpec,
    _Call,
    _choice,
    _Forced,
    _Function,
    _messages,
    _Named,
    check_specs,
    decoded_keeping,
    keeping,
    once,
    runnable,
    split_tools,
)

__all__ = ["read"]

NAME = "anthropic"


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Source(_Wire, kw_only=True):
    type: str
    media_type: str | UnsetType = UNSET
    data: Raw | UnsetType = UNSET  # base64 of megabytes: copied as sent, not read
    url: str | UnsetType = UNSET


class _Text(_Wire, kw_only=True):
    """A block of a tool result: a text, or a reference to a tool (see _result)."""

    type: Literal["text", "tool_reference"]
    text: str | UnsetType = UNSET
    tool_name: Any = UNSET


class _Block(_Wire, kw_only=True):
    """A block of a turn, told apart by ``type`` (untagged: see ``_source.Part``)."""

    type: str
    text: str | UnsetType = UNSET
    source: _Source | UnsetType = UNSET
    tool_use_id: str | UnsetType = UNSET
    content: str | list[_Text] | UnsetType = UNSET  # a result's text, or text blocks
    is_error: Literal[False] | UnsetType = UNSET  # a result's default: nothing to carry
    id: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    input: dict[str, Any] | UnsetType = UNSET


class _Turn(_Wire):
    role: Literal["user", "assistant"]
    content: str | list[_Block]


class _Choice(_Wire, kw_only=True):
    type: Literal["auto", "any", "tool", "none"]
    name: str | UnsetType = UNSET


class _Thinking(_Wire, kw_only=True):
    type: Literal["enabled", "disabled"]
    budget_tokens: int | UnsetType = UNSET


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    system: str | list[_Block] | UnsetType = UNSET
    messages: list[_Turn]
    tools: Raw | UnsetType = UNSET  # checked once per array of tools (see _tools)
    tool_choice: _Choice | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    stream: bool | UnsetType = UNSET
    thinking: _Thinking | UnsetType = UNSET


class _Tool(_Wire, kw_only=True):
    type: Literal["custom"] | UnsetType = UNSET
    name: str
    description: str | UnsetType = UNSET
    input_schema: Raw
    strict: Literal[True] | UnsetType = UNSET  # false is kept by the general path: reported
    defer_loading: Any = UNSET  # kept in the tool's extras by the general path: reported


_decoder = msgspec.json.Decoder(_Request)
# The general path keeps every key it does not read (``mcp_servers``,
# ``container``, ``context_management``...) as sent, and reports it; one it
# reads that the shape does not name (``output_config``, ``top_k``,
# ``metadata``), or that a conversion reads (``cache_control``, the automatic
# cache point, placed on the last block), goes the general way.
_keys_kept = keeping(_decoder, REQUEST_KEYS | {CACHE_CONTROL})
_tools_decoder = msgspec.json.Decoder(list[_Tool])
_tool_decoder = msgspec.json.Decoder(_Tool)
_DATA = b'"data:'
_BASE64 = b";base64,"
_MODES = FrozenMap({"auto": "auto", "any": "required", "none": "none"})


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape, as the OpenAI source reads one.

    ``model`` and ``max_tokens`` are :func:`~chatcodec.convert`'s.

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r, kept = decoded_keeping(_decoder, body, _keys_kept)
    limit = max_tokens if r.max_tokens is UNSET else r.max_tokens
    if limit is not None and limit < 1:
        raise Fallback
    stop = None if r.stop_sequences is UNSET else r.stop_sequences
    if stop is not None and (len(stop) > STOP_LIMIT or not all(s.strip() for s in stop)):
        raise Fallback  # the preflights' rules, as for the OpenAI source
    for value in (r.temperature, r.top_p):
        if value is not UNSET and not 0 <= value <= 1:
            raise Fallback  # the targets' ranges differ: their preflights decide
    messages: list[Message] = []
    system = r.system
    if type(system) is str:
        if not system:
            raise Fallback  # kept in extras by the general path
        messages.append(Message(role="system", content=system))
    elif type(system) is list:
        if not system:
            raise Fallback
        for block in system:
            if block.type != "text" or not block.text or _keys(block) != 2:
                raise Fallback
            messages.append(Message(role="system", content=block.text))
    start = len(messages)
    previous = ""
    blocks: list[tuple[int, int]] = []
    for turn in r.messages:
        if turn.role == previous:
            raise Fallback  # a second turn of a role: marked apart by the general path
        previous = turn.role
        if turn.role == "user":
            _user(turn.content, messages, blocks)
        else:
            messages.append(_assistant(turn.content))
    images: list[tuple[str, Any]] = []
    arguments, names = _messages(messages, images, results=True)
    tools = None if r.tools is UNSET else _tools(r.tools)
    choice, forced = _choice(_choice_of(r.tool_choice), tools)
    runnable(tools, choice, arguments)
    if model is None and r.model is not UNSET:
        model = r.model
    out = Body(messages=messages, temperature=r.temperature, top_p=r.top_p, stream=r.stream)
    found = Read(
        out, start, model, limit, arguments, names, images, tools, stop, choice, forced, kept, NAME
    )
    if r.thinking is not UNSET:
        found.reasoning = _reasoning(r.thinking, None if r.model is UNSET else r.model)
    if blocks:
        found.blocks = tuple(blocks)
    return found


def _reasoning(thinking: _Thinking, model: str | None) -> Reasoning:
    """The reasoning setting ``thinking`` says, as the general path reads it.

    ``model`` is the body's: a form its profile refuses is kept as sent.

    Raises
    ------
    Fallback
        When the general path keeps it as sent (a budget that is not a
        count, enabled without one, disabled with one, a form the model
        refuses).
    """
    budget = thinking.budget_tokens
    found = profile("anthropic", model)
    if thinking.type == "disabled":
        if budget is not UNSET or (found is not None and found.thinking_off is False):
            raise Fallback
        return Reasoning("none")
    if budget is UNSET or not 0 <= budget < 2**64:
        raise Fallback
    if found is not None and found.thinking_budget is False:
        raise Fallback
    return Reasoning(budget_tokens=budget)


_BLOCK_FIELDS = len(_Block.__struct_fields__)
_astuple = msgspec.structs.astuple


def _keys(block: _Block) -> int:
    """How many of the block's fields were sent, ``type`` among them."""
    return _BLOCK_FIELDS - _astuple(block).count(UNSET)


def _choice_of(value: _Choice | UnsetType) -> str | _Forced | UnsetType:
    """The tool choice as the OpenAI source reads one."""
    if value is UNSET:
        return UNSET
    if value.type == "tool":
        if value.name is UNSET:
            raise Fallback  # the general path's error
        return _Forced("function", _Named(value.name))
    if value.name is not UNSET:
        raise Fallback  # kept in extras by the general path
    return _MODES[value.type]


def _result(call_id: Any, result: list[_Text], k: int, blocks: list[tuple[int, int]]) -> Message:
    """A result of blocks as the ``k``-th message: of texts, or of tool references alone.

    The general path keeps a tool reference (the tool a tool search found) as
    an opaque part, which every target leaves out and reports: the message
    has no text then, and ``blocks`` gets each one's place (see ``Read.blocks``).
    """
    if not result:
        raise Fallback
    if result[0].type == "text":
        texts: list[Part] = []
        for item in result:
            if not item.text or item.tool_name is not UNSET:
                raise Fallback  # an empty text is kept for the way back; a reference among texts
            texts.append(Part(type="text", text=item.text))
        return Message(role="tool", tool_call_id=call_id, content=texts)
    for j, item in enumerate(result):
        if item.type != "tool_reference" or item.text is not UNSET:
            raise Fallback
        blocks.append((k, j))
    return Message(role="tool", tool_call_id=call_id, content=[])


def _user(content: str | list[_Block], out: list[Message], blocks: list[tuple[int, int]]) -> None:
    """A user turn: its results as tool messages, then its other blocks as one user message."""
    if isinstance(content, str):
        out.append(Message(role="user", content=content))  # "" is refused by _messages
        return
    if not content:
        raise Fallback
    parts: list[Part] = []
    for block in content:
        kind = block.type
        if kind == "tool_result":
            result = block.content
            if parts or result is UNSET:
                raise Fallback  # a result after the user's blocks keeps its place there
            if _keys(block) != (4 if block.is_error is False else 3):
                raise Fallback
            if type(result) is list:
                out.append(_result(block.tool_use_id, result, len(out), blocks))
                continue
            out.append(Message(role="tool", tool_call_id=block.tool_use_id, content=str(result)))
        elif kind == "text":
            if _keys(block) != 2 or not block.text:
                raise Fallback
            parts.append(Part(type="text", text=block.text))
        elif kind == "image":
            if _keys(block) != 2 or block.source is UNSET:
                raise Fallback
            parts.append(Part(type="image_url", image_url=_URL(_image(block.source))))
        else:
            raise Fallback
    if parts:
        out.append(Message(role="user", content=parts))


def _image(source: _Source) -> Raw:
    """The image's URL, as the OpenAI source takes it: a base64 image as its data URL."""
    kind = source.type
    if kind == "base64":
        media_type, data = source.media_type, source.data
        if media_type is UNSET or data is UNSET or source.url is not UNSET:
            raise Fallback
        if media_type not in IMAGE_TYPES:
            raise Fallback  # and no quote or escape in what is joined below
        sent = bytes(data)
        if sent[:1] != b'"':
            raise Fallback
        return Raw(b"".join((_DATA, media_type.encode(), _BASE64, memoryview(sent)[1:])))
    if kind == "url":
        url = source.url
        if url is UNSET or source.media_type is not UNSET or source.data is not UNSET:
            raise Fallback
        if not url.startswith("https://"):
            raise Fallback  # a data URL or another scheme: the general path's rules
        return Raw(encode_body(url))
    raise Fallback


def _assistant(content: str | list[_Block]) -> Message:
    if isinstance(content, str):
        return Message(role="assistant", content=content)  # "" is refused by _messages
    parts: list[Part] = []
    calls: list[_Call] = []
    for block in content:
        kind = block.type
        if kind == "text":
            if calls or _keys(block) != 2 or not block.text:
                raise Fallback  # text after a call keeps its place in the general path
            parts.append(Part(type="text", text=block.text))
        elif kind == "tool_use":
            if _keys(block) != 4 or block.input is UNSET or block.id is UNSET:
                raise Fallback
            if block.name is UNSET:
                raise Fallback
            arguments = encode_body(block.input).decode()  # the general path's bytes
            calls.append(
                _Call(id=block.id, type="function", function=_Function(block.name, arguments))
            )
        else:
            raise Fallback
    if not calls:
        if not parts:
            raise Fallback
        return Message(role="assistant", content=parts)
    return Message(role="assistant", content=parts or None, tool_calls=calls)


# Each array of tools checked, by its bytes, as the OpenAI source keeps its own.
_TOOLS: dict[bytes, Tools | None] = {}


def _tools(raw: Raw) -> Tools:
    key = bytes(raw)
    return once(_TOOLS, key, _check_tools, key)


def _check_tools(key: bytes) -> Tools | None:
    """The tools as the OpenAI source reads its own, if every one is usual; else None.

    A tool of a type of Anthropic's own (a server tool, such as its web search
    or tool search) is one the targets leave out and report.
    """
    try:
        tools = _tools_decoder.decode(key)
    except msgspec.ValidationError:
        return _with_server_tools(key)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    return _specs(key, enumerate(tools))


def _with_server_tools(key: bytes) -> Tools | None:
    """The tools, Anthropic's own among them, if every other one is usual; else None."""
    found = split_tools(key, _tool_decoder, _custom)
    return None if found is None else _specs(key, *found)


def _custom(kind: Any) -> bool | None:
    """A tool's ``type``: custom (a function tool), Anthropic's own, or refused."""
    if kind is UNSET or kind == "custom":
        return True
    return False if type(kind) is str else None


def _specs(
    key: bytes, tools: Iterable[tuple[int, _Tool]], foreign: tuple[int, ...] = ()
) -> Tools | None:
    """The usual tools, each by its index in the array, as the OpenAI source reads its own."""
    specs: list[ToolSpec] = []
    extras: list[tuple[int, dict[str, Any]]] = []
    for k, t in tools:
        description = t.description
        kept: dict[str, Any] = {}
        if t.defer_loading is not UNSET:
            kept["defer_loading"] = t.defer_loading
        if description == "":
            # Canonically absent, kept in the tool's extras for the way back: reported.
            kept["description"] = ""
            description = UNSET
        if kept:
            extras.append((k, {NAME: kept}))  # in the general path's order, whatever the wire's
        spec = FunctionSpec(
            name=t.name, description=description, parameters=t.input_schema, strict=t.strict
        )
        specs.append(ToolSpec(type="function", function=spec))
    return check_specs(NAME, key, specs, tuple(extras), foreign)
