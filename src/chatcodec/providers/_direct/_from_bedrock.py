"""The usual Bedrock Converse request, read into the typed request the writers take.

Most Converse requests are ``system`` text blocks, user and assistant turns
of text, base64 images and PDFs, calls (``toolUse``) and their results as
one text (``toolResult``), ``toolSpec`` tools with a tool choice, and an
``inferenceConfig`` of the common settings. msgspec decodes that shape
straight into the private Structs below, in C; they forbid unknown fields,
so anything else (a cache point, a video, an image in a result, reasoning,
a result's error status, ``outputConfig``...) fails the decode and goes the
general way. A top-level key the general path does not read
(``additionalModelRequestFields``, ``guardrailConfig``...) is kept and
reported as it reports one. The turns become the OpenAI Chat messages the
general path reads them as (:func:`chatcodec.providers.bedrock.decode_request`):
each system block an instruction, a user turn's results as tool messages
before its other blocks, an image as its data URL, a PDF as a file with its
name, an assistant turn's calls with their input written as JSON, one text
as a string and several as text parts. Then :func:`~._source.shaped` checks
the conversation as it checks an OpenAI request, the tools are checked by
:func:`~._source.check_specs`, and every writer serves the result. What the
general path reads otherwise (a second turn of a role, text after a call,
an empty block, a result of several blocks) is declined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._frozen import FrozenMap
from .._wire import encode_body
from ..bedrock._blocks import IMAGE_FORMATS
from ..bedrock._decode import _TOP as READ
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
    _File,
    _Forced,
    _Function,
    _Named,
    check_specs,
    decoded_keeping,
    keeping,
    once,
    shaped,
)

__all__ = ["read"]

NAME = "bedrock"


class _Wire(Struct, forbid_unknown_fields=True, gc=False, rename="camel"):
    pass


class _Text(_Wire):
    """A block of one text: a system block, or a result's."""

    text: str


class _ToolUse(_Wire):
    tool_use_id: str
    name: str
    input: dict[str, Any]  # written again as the general path writes it (see _assistant)


class _ToolResult(_Wire, kw_only=True):
    tool_use_id: str
    content: list[_Text]
    # "error" is the canonical is_error, which no writer's typed form holds.
    status: Literal["success"] | UnsetType = UNSET


class _Bytes(_Wire):
    bytes: Raw  # base64 of megabytes: copied as sent, not read (see _image)


class _Image(_Wire):
    format: str
    source: _Bytes


class _Document(_Wire):
    format: str
    name: str
    source: _Bytes


class _Block(_Wire, kw_only=True):
    """A block of a turn: one key says what it is (untagged, as Converse sends it)."""

    text: str | UnsetType = UNSET
    tool_use: _ToolUse | UnsetType = UNSET
    tool_result: _ToolResult | UnsetType = UNSET
    image: _Image | UnsetType = UNSET
    document: _Document | UnsetType = UNSET


class _Turn(_Wire):
    role: Literal["user", "assistant"]
    content: list[_Block]


class _Empty(_Wire):
    """``{}``: the value of an ``auto`` or ``any`` tool choice."""


class _Choice(_Wire, kw_only=True):
    auto: _Empty | UnsetType = UNSET
    any: _Empty | UnsetType = UNSET
    tool: _Named | UnsetType = UNSET


class _ToolConfig(_Wire, kw_only=True):
    tools: Raw  # checked once per array of tools (see _tools)
    tool_choice: _Choice | UnsetType = UNSET


class _Inference(_Wire, kw_only=True):
    max_tokens: int | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET


class _Request(_Wire, kw_only=True):
    messages: list[_Turn]
    system: list[_Text] | UnsetType = UNSET
    tool_config: _ToolConfig | UnsetType = UNSET
    inference_config: _Inference | UnsetType = UNSET
    model_id: str | UnsetType = UNSET


class _Schema(_Wire):
    json: Raw


class _Spec(_Wire, kw_only=True):
    name: str
    description: str | UnsetType = UNSET
    input_schema: _Schema
    strict: bool | UnsetType = UNSET


class _Tool(_Wire):
    tool_spec: _Spec


_decoder = msgspec.json.Decoder(_Request)
# The general path keeps every key it does not read (``additionalModelRequestFields``,
# ``guardrailConfig``...) as sent, and reports it; one it reads that the shape
# does not name (``outputConfig``) goes the general way.
_keys_kept = keeping(_decoder, READ)
_tools_decoder = msgspec.json.Decoder(list[_Tool])
_MODES: Mapping[str, Literal["auto", "required"]] = FrozenMap({"auto": "auto", "any": "required"})


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape (see :func:`~._source.read`).

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r, kept = decoded_keeping(_decoder, body, _keys_kept)
    messages: list[Message] = []
    if r.system is not UNSET:
        # [] is kept by the general path, and says nothing: no loss to report.
        for block in r.system:
            if not block.text:
                raise Fallback  # the general path keeps the whole array as sent
            messages.append(Message(role="system", content=block.text))
    previous = ""
    for turn in r.messages:
        if turn.role == previous or not turn.content:
            raise Fallback  # a second turn of a role is marked apart; [] is refused
        previous = turn.role
        if turn.role == "user":
            _user(turn.content, messages)
        else:
            messages.append(_assistant(turn.content))
    typed = Body(messages=messages)
    typed.model = r.model_id
    inference = r.inference_config
    if inference is not UNSET:
        # Sent as they are: the general path keeps an integer an integer.
        typed.max_tokens = inference.max_tokens
        typed.temperature = inference.temperature
        typed.top_p = inference.top_p
        typed.stop = inference.stop_sequences
    out = shaped(typed, kept, model, max_tokens, NAME)
    config = r.tool_config
    if config is not UNSET:
        out.tools = _tools(config.tools)
        out.choice, out.forced = _choice(_choice_of(config.tool_choice), out.tools)
    return out


def _choice_of(value: _Choice | UnsetType) -> str | _Forced | UnsetType:
    """The tool choice as the OpenAI source reads one."""
    if value is UNSET:
        return UNSET
    auto, any_, tool = value.auto, value.any, value.tool
    if (auto is not UNSET) + (any_ is not UNSET) + (tool is not UNSET) != 1:
        raise Fallback  # kept in extras by the general path
    if tool is not UNSET:
        if not tool.name:
            raise Fallback
        return _Forced("function", tool)
    return _MODES["auto" if auto is not UNSET else "any"]


_TEXT, _USE, _RESULT, _IMAGE, _DOCUMENT = range(5)


def _kind(block: _Block) -> int:
    """Which one key the block has (``_TEXT``, ``_USE``, ``_RESULT``...)."""
    keys = (
        block.text is not UNSET,
        block.tool_use is not UNSET,
        block.tool_result is not UNSET,
        block.image is not UNSET,
        block.document is not UNSET,
    )
    if sum(keys) != 1:
        raise Fallback  # {} or two keys: the general path keeps the block as sent
    return keys.index(True)


def _user(content: list[_Block], out: list[Message]) -> None:
    """A user turn: its results as tool messages, then its texts as one user message."""
    parts: list[Part] = []
    for block in content:
        kind = _kind(block)
        if kind == _RESULT:
            result = block.tool_result
            assert not isinstance(result, UnsetType)
            if parts or len(result.content) != 1:
                raise Fallback  # a result after text keeps its place; several blocks: parts
            answer = result.content[0].text
            out.append(Message(role="tool", tool_call_id=result.tool_use_id, content=answer))
        elif kind == _TEXT:
            assert not isinstance(block.text, UnsetType)
            parts.append(Part(type="text", text=block.text))
        elif kind == _IMAGE:
            assert not isinstance(block.image, UnsetType)
            parts.append(Part(type="image_url", image_url=_URL(_image(block.image))))
        elif kind == _DOCUMENT:
            document = block.document
            assert not isinstance(document, UnsetType)
            if document.format != "pdf":
                raise Fallback  # a text file: no writer's typed form holds one
            url = _data_url(b"application/pdf", document.source)
            parts.append(Part(type="file", file=_File(file_data=url, filename=document.name)))
        else:
            raise Fallback  # a call in a user turn is kept as sent
    if parts:
        # One text is the message's text; several (or "", or a file) are its parts, as read.
        first = parts[0]
        one = len(parts) == 1 and first.type == "text" and first.text
        out.append(Message(role="user", content=first.text if one else parts))


def _image(image: _Image) -> Raw:
    """The image's data URL, as the OpenAI source takes it (see :func:`~._source.image`)."""
    if image.format not in IMAGE_FORMATS:
        raise Fallback  # kept as sent by the general path
    return _data_url(b"image/" + image.format.encode(), image.source)


def _data_url(media_type: bytes, source: _Bytes) -> Raw:
    """The data URL of ``source``'s base64 text, a JSON string joined from the bytes as sent."""
    sent = bytes(source.bytes)
    if sent[:1] != b'"':
        raise Fallback  # not text: kept as sent by the general path
    return Raw(b"".join((b'"data:', media_type, b";base64,", memoryview(sent)[1:])))


def _assistant(content: list[_Block]) -> Message:
    parts: list[Part] = []
    calls: list[_Call] = []
    for block in content:
        kind = _kind(block)
        if kind == _TEXT:
            if calls:
                raise Fallback  # text after a call keeps its place in the general path
            parts.append(Part(type="text", text=block.text))
        elif kind == _USE:
            use = block.tool_use
            assert not isinstance(use, UnsetType)
            arguments = encode_body(use.input).decode()  # the general path's bytes
            function = _Function(use.name, arguments)
            calls.append(_Call(id=use.tool_use_id, type="function", function=function))
        else:
            raise Fallback  # a result or an image in an assistant turn is kept as sent
    text = parts[0].text if len(parts) == 1 else ""
    message = Message(role="assistant", content=text if text else parts or None)
    if calls:
        message.tool_calls = calls
    return message


# Each array of tools checked, by its bytes, as the OpenAI source keeps its own.
_TOOLS: dict[bytes, Tools | None] = {}


def _tools(raw: Raw) -> Tools:
    key = bytes(raw)
    return once(_TOOLS, key, _check_tools, key)


def _check_tools(key: bytes) -> Tools | None:
    """The tools as the OpenAI source reads its own, if every one is usual; else None."""
    try:
        tools = _tools_decoder.decode(key)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    specs: list[ToolSpec] = []
    for t in tools:
        spec = t.tool_spec
        if spec.description == "":
            return None  # kept whole by the general path, as a tool of Bedrock's own
        # Canonically a tool is strict or not: false is the same as no key.
        strict: Literal[True] | UnsetType = True if spec.strict is True else UNSET
        function = FunctionSpec(
            name=spec.name,
            description=spec.description,
            parameters=spec.input_schema.json,
            strict=strict,
        )
        specs.append(ToolSpec(type="function", function=function))
    return check_specs(NAME, key, specs)
