"""The fast path of the request decoder: typed wire Structs for the usual requests.

The usual ``generateContent`` request, as the encoder writes it (camelCase
keys; user and model contents of text, thoughts, inline data, function calls
with their ids and the results that answer them; one group of function
declarations; the tool mode and the common generation settings) decodes
straight into the private Structs below and maps to the canonical form
without a scan of leftover keys. It is also what ``convert`` reads back from
its own output for the preflight. Anything else (a snake_case key, a key the
Structs do not name, a call without an id, a result that is not the answer
to the call before it, a value only the general path keeps) fails the typed
decode or is declined here, and the caller takes the general path
(:mod:`._decode`), which gives the same result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._content import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ..._exchange import Request, ResponseFormat, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import ToolCall, ToolDefinition
from .._fastpath import GIVE_UP
from .._wire import base64_form
from ._common import NAME, mark_unsigned

__all__ = ["fast_request"]

_encode = msgspec.json.Encoder().encode
_MODES: Mapping[str, Any] = FrozenMap({"AUTO": "auto", "ANY": "required", "NONE": "none"})
_WRAPS = frozenset(("result", "error"))


class _Decline(Exception):
    """A value the typed decode accepts but only the general path maps."""


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Call(_Wire):
    name: str
    args: dict[str, Any]
    id: str


class _Result(_Wire):
    name: str
    response: dict[str, Any]
    id: str


class _Inline(_Wire):
    mimeType: str  # noqa: N815 (the wire's spelling)
    data: str


class _Part(_Wire, kw_only=True):
    text: str | UnsetType = UNSET
    thought: bool | UnsetType = UNSET
    inlineData: _Inline | UnsetType = UNSET  # noqa: N815
    functionCall: _Call | UnsetType = UNSET  # noqa: N815
    functionResponse: _Result | UnsetType = UNSET  # noqa: N815


class _Content(_Wire):
    role: Literal["user", "model"]
    parts: list[_Part]


class _Text(_Wire):
    text: str


class _System(_Wire):
    parts: list[_Text]


class _Declaration(_Wire, kw_only=True):
    description: str | UnsetType = UNSET
    name: str
    parametersJsonSchema: dict[str, Any] | UnsetType = UNSET  # noqa: N815


class _Group(_Wire):
    functionDeclarations: list[_Declaration]  # noqa: N815


class _Calling(_Wire):
    mode: Literal["AUTO", "ANY", "NONE"]


class _ToolConfig(_Wire):
    functionCallingConfig: _Calling  # noqa: N815


class _Generation(_Wire, kw_only=True):
    maxOutputTokens: int | UnsetType = UNSET  # noqa: N815
    temperature: int | float | UnsetType = UNSET
    topP: int | float | UnsetType = UNSET  # noqa: N815
    stopSequences: list[str] | UnsetType = UNSET  # noqa: N815
    candidateCount: int | UnsetType = UNSET  # noqa: N815
    topK: int | UnsetType = UNSET  # noqa: N815
    seed: int | UnsetType = UNSET
    presencePenalty: int | float | UnsetType = UNSET  # noqa: N815
    frequencyPenalty: int | float | UnsetType = UNSET  # noqa: N815
    responseMimeType: Literal["application/json", "text/plain"] | UnsetType = UNSET  # noqa: N815


class _Request(_Wire, kw_only=True):
    contents: list[_Content]
    systemInstruction: _System | UnsetType = UNSET  # noqa: N815
    tools: list[_Group] | UnsetType = UNSET
    toolConfig: _ToolConfig | UnsetType = UNSET  # noqa: N815
    generationConfig: _Generation | UnsetType = UNSET  # noqa: N815


_decoder = msgspec.json.Decoder(_Request)
_FORMATS: Mapping[str, Any] = FrozenMap({"application/json": "json_object", "text/plain": "text"})


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        messages: list[Message] = []
        system = r.systemInstruction
        if system is not UNSET:
            if not system.parts or not all(part.text for part in system.parts):
                return None  # kept as sent by the general path
            messages.extend([SystemMessage(part.text) for part in system.parts])
        _contents(r.contents, messages)
        fields: dict[str, Any] = {}
        if r.tools is not UNSET:
            if len(r.tools) != 1 or not r.tools[0].functionDeclarations:
                return None
            fields["tools"] = tuple([_tool(d) for d in r.tools[0].functionDeclarations])
        if r.toolConfig is not UNSET:
            fields["tool_choice"] = ToolChoice(_MODES[r.toolConfig.functionCallingConfig.mode])
        if r.generationConfig is not UNSET:
            _generation(r.generationConfig, fields)
        return Request(tuple(messages), **fields)
    except (*GIVE_UP, _Decline):
        return None


def _contents(contents: list[_Content], out: list[Message]) -> None:
    pending: list[tuple[str, str]] = []  # (id, name) of the last model turn's calls not answered
    results_only = False  # the content before held only results
    for content in contents:
        if content.role == "model":
            out.append(_assistant(content.parts, pending))
            results_only = False
        else:
            results_only = _user(content.parts, pending, results_only, out)


def _assistant(parts: list[_Part], pending: list[tuple[str, str]]) -> AssistantMessage:
    content: list[Any] = []
    calls: list[ToolCall] = []
    order: list[str] = []
    for part in parts:
        call = part.functionCall
        if call is not UNSET:
            if part.text is not UNSET or part.thought is not UNSET or _media(part):
                raise _Decline
            if not call.name or not call.id:
                raise _Decline  # an id is derived, a call without a name is invalid
            calls.append(ToolCall(call.id, call.name, Raw(_encode(call.args))))
            order.append("t")
            continue
        text = part.text
        if text is UNSET or _media(part) or part.functionResponse is not UNSET:
            raise _Decline  # kept opaque by the general path
        if part.thought is True:
            content.append(ReasoningPart(text))
        elif part.thought is UNSET:
            content.append(TextPart(text))
        else:
            raise _Decline
        order.append("c")
    pending[:] = [(call.id, call.name) for call in calls]
    if calls:
        mark_unsigned(calls)
    extras = None
    if calls:
        joined = "".join(order)
        if joined != "c" * len(content) + "t" * len(calls):
            extras = {NAME: {"~order": joined}}
    body: Any
    if not content:
        body = None if calls else ()
    elif len(content) == 1 and type(content[0]) is TextPart:
        body = content[0].text
    else:
        body = tuple(content)
    return AssistantMessage(body, tuple(calls), (), extras=extras)


def _media(part: _Part) -> bool:
    return part.inlineData is not UNSET


def _user(
    parts: list[_Part], pending: list[tuple[str, str]], after: bool, out: list[Message]
) -> bool:
    """Append a user content's messages; whether it held only results."""
    if not parts:
        raise _Decline  # the general path refuses it
    if parts[0].functionResponse is not UNSET:
        if after:
            raise _Decline  # a second content of results: the general path marks it
        for part in parts:
            result = part.functionResponse
            if result is UNSET or part.text is not UNSET or part.thought is not UNSET:
                raise _Decline
            if _media(part):
                raise _Decline
            out.append(_result(result, pending))
        return True
    others: list[ContentPart] = []
    for part in parts:
        if part.functionResponse is not UNSET or part.thought is not UNSET:
            raise _Decline
        inline = part.inlineData
        if part.text is not UNSET:
            if inline is not UNSET:
                raise _Decline
            others.append(TextPart(part.text))
        elif inline is not UNSET:
            others.append(_inline(inline))
        else:
            raise _Decline
    content: Any = tuple(others)
    if len(others) == 1 and type(others[0]) is TextPart and others[0].text:
        content = others[0].text
    out.append(UserMessage(content))
    return False


def _inline(inline: _Inline) -> ContentPart:
    mime = inline.mimeType
    if not mime or base64_form(inline.data) is not None:
        raise _Decline  # the general path reads URL-safe or unpadded base64
    if mime.startswith("image/"):
        return ImagePart(data=inline.data, media_type=mime)
    if mime.startswith("audio/"):
        return AudioPart(data=inline.data, media_type=mime)
    return FilePart(data=inline.data, media_type=mime)


def _result(result: _Result, pending: list[tuple[str, str]]) -> ToolMessage:
    if not result.id:
        raise _Decline  # an id is derived by the general path
    for call in pending:
        if call[0] == result.id:
            break
    else:
        raise _Decline  # a result for no call: its name is kept
    if call[1] != result.name:
        raise _Decline
    pending.remove(call)
    response = result.response
    error = False
    if len(response) == 1 and _WRAPS.issuperset(response):
        # {"result": text} ({"error": text}) is how text is sent: read the text.
        [(key, text)] = response.items()
        if type(text) is not str or text[:1] == "{" or text[:1].isspace():
            raise _Decline  # hints the general path writes
        error = key == "error"
    else:
        text = _encode(response).decode()
    return ToolMessage(result.id, text, is_error=error)


def _tool(d: _Declaration) -> ToolDefinition:
    description = d.description
    if description == "":
        raise _Decline  # canonically absent; kept for the way back
    schema = d.parametersJsonSchema
    if schema is not UNSET and schema.get("type") != "object":
        raise _Decline
    # A name or schema ToolDefinition refuses raises: the general path keeps it as sent.
    return ToolDefinition(
        d.name,
        None if description is UNSET else description,
        None if schema is UNSET else schema,
        strict=False,
    )


def _generation(g: _Generation, fields: dict[str, Any]) -> None:
    used = False
    if g.maxOutputTokens is not UNSET:
        fields["max_tokens"] = g.maxOutputTokens
        used = True
    if g.temperature is not UNSET:
        fields["temperature"] = g.temperature
        used = True
    if g.topP is not UNSET:
        fields["top_p"] = g.topP
        used = True
    if g.candidateCount is not UNSET:
        fields["n"] = g.candidateCount
        used = True
    if g.topK is not UNSET:
        fields["top_k"] = g.topK
        used = True
    if g.seed is not UNSET:
        fields["seed"] = g.seed
        used = True
    if g.presencePenalty is not UNSET:
        fields["presence_penalty"] = g.presencePenalty
        used = True
    if g.frequencyPenalty is not UNSET:
        fields["frequency_penalty"] = g.frequencyPenalty
        used = True
    if g.stopSequences is not UNSET:
        fields["stop"] = tuple(g.stopSequences)
        used = True
    if g.responseMimeType is not UNSET:
        fields["response_format"] = ResponseFormat(_FORMATS[g.responseMimeType])
        used = True
    if not used:
        raise _Decline  # an empty config is kept as sent
