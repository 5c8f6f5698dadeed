"""The fast path of the request decoder: typed wire Structs for the usual requests.

The usual ``generateContent`` request's contents, as Gemini and the encoder
write them (camelCase keys; user and model contents of text, thoughts with
their signatures, inline data and file references, function calls with
their ids and the results that answer them) decode straight into the
private Structs below and map to the canonical form without a scan of
leftover keys; the other fields (the system instruction, tools, tool
config, generation config) are read by the general path's own functions
(:class:`._decode_fields.FieldDecoder`). It is also what ``convert`` reads
back from its own output for the preflight. Anything else (a snake_case key
in the contents, a key the Structs do not name, a call without an id, a
result that is not the answer to the call before it, a value only the
general path keeps) fails the typed decode or is declined here, and the
caller takes the general path (:mod:`._decode`), which gives the same
result.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._content import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ..._exchange import Request
from ..._messages import AssistantMessage, Message, ToolMessage, UserMessage
from ..._tools import ToolCall
from .._fastpath import GIVE_UP, carrier, in_wire_order
from .._wire import base64_form, to_standard_base64
from ._common import B64, NAME, NO_MIME, mark_unsigned, snake_hint
from ._decode_fields import FieldDecoder

__all__ = ["fast_request"]

_encode = msgspec.json.Encoder().encode
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


class _FileData(_Wire, kw_only=True):
    mimeType: str | UnsetType = UNSET  # noqa: N815
    fileUri: str  # noqa: N815


class _Part(_Wire, kw_only=True):
    text: str | UnsetType = UNSET
    thought: bool | UnsetType = UNSET
    thoughtSignature: str | UnsetType = UNSET  # noqa: N815
    inlineData: _Inline | UnsetType = UNSET  # noqa: N815
    fileData: _FileData | UnsetType = UNSET  # noqa: N815
    functionCall: _Call | UnsetType = UNSET  # noqa: N815
    functionResponse: _Result | UnsetType = UNSET  # noqa: N815


class _Content(_Wire):
    role: Literal["user", "model"]
    parts: list[_Part]


class _Fields(FieldDecoder):
    """The general path's reader of the request's other fields, for one body."""

    __slots__ = ("snakes",)

    def __init__(self) -> None:
        self.snakes: set[str] = set()


class _Request(_Wire, kw_only=True):
    contents: list[_Content]
    # Read by the general path's own functions (FieldDecoder), as it reads them.
    systemInstruction: Any = UNSET  # noqa: N815
    tools: Any = UNSET
    toolConfig: Any = UNSET  # noqa: N815
    generationConfig: Any = UNSET  # noqa: N815
    model: Any = UNSET
    # Kept as sent, in extras.
    safetySettings: Any = UNSET  # noqa: N815
    cachedContent: Any = UNSET  # noqa: N815
    labels: Any = UNSET


_decoder = msgspec.json.Decoder(_Request)
_carry = carrier(_Request, "safetySettings", "cachedContent", "labels")


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        messages: list[Message] = []
        extras: dict[str, Any] = {}
        _carry(r, extras)
        extras = in_wire_order(body, extras)
        fields: dict[str, Any] = {}
        reader = _Fields()
        if r.systemInstruction is not UNSET:
            system = reader.system(r.systemInstruction)
            if system is None:
                extras["systemInstruction"] = r.systemInstruction
            else:
                messages.extend(system)
        _contents(r.contents, messages)
        if r.tools is not UNSET:
            fields["tools"] = reader.tools(r.tools, extras)
        if r.toolConfig is not UNSET:
            fields["tool_choice"] = reader.tool_config(r.toolConfig, extras)
        if r.generationConfig is not UNSET:
            reader.generation(r.generationConfig, fields, extras)
        model = r.model
        if model is not UNSET:
            if type(model) is str:
                fields["model"] = model
                extras["~model"] = "body"
            else:
                extras["model"] = model
        if reader.snakes:
            extras.update(snake_hint(reader.snakes))
        return Request(tuple(messages), extras={NAME: extras} if extras else None, **fields)
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
            signature = part.thoughtSignature
            extras = None if signature is UNSET else {NAME: {"thoughtSignature": signature}}
            calls.append(ToolCall(call.id, call.name, Raw(_encode(call.args)), extras=extras))
            order.append("t")
            continue
        text = part.text
        if text is UNSET or _media(part) or part.functionResponse is not UNSET:
            raise _Decline  # kept opaque by the general path
        signature = part.thoughtSignature
        if part.thought is True:
            if signature is UNSET:
                content.append(ReasoningPart(text))
            else:
                content.append(ReasoningPart(text, signature=signature, provider=NAME))
        elif part.thought is UNSET:
            if signature is UNSET:
                content.append(TextPart(text))
            else:
                content.append(TextPart(text, extras={NAME: {"thoughtSignature": signature}}))
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
    elif len(content) == 1 and type(content[0]) is TextPart and content[0].extras is None:
        body = content[0].text
    else:
        body = tuple(content)
    return AssistantMessage(body, tuple(calls), (), extras=extras)


def _media(part: _Part) -> bool:
    return part.inlineData is not UNSET or part.fileData is not UNSET


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
            if (
                result is UNSET
                or part.text is not UNSET
                or part.thought is not UNSET
                or part.thoughtSignature is not UNSET
            ):
                raise _Decline
            if _media(part):
                raise _Decline
            out.append(_result(result, pending))
        return True
    others: list[ContentPart] = []
    for part in parts:
        if (
            part.functionResponse is not UNSET
            or part.thought is not UNSET
            or part.thoughtSignature is not UNSET
        ):
            raise _Decline
        inline = part.inlineData
        if part.text is not UNSET:
            if _media(part):
                raise _Decline
            others.append(TextPart(part.text))
        elif inline is not UNSET:
            if part.fileData is not UNSET:
                raise _Decline
            others.append(_inline(inline))
        elif part.fileData is not UNSET:
            others.append(_file(part.fileData))
        else:
            raise _Decline
    content: Any = tuple(others)
    if len(others) == 1 and type(others[0]) is TextPart and others[0].text:
        content = others[0].text
    out.append(UserMessage(content))
    return False


def _inline(inline: _Inline) -> ContentPart:
    mime = inline.mimeType
    if not mime:
        raise _Decline
    data = inline.data
    extras = None
    form = base64_form(data)
    if form is not None:
        # URL-safe or unpadded: standard base64 in the part, Gemini's spelling noted.
        data = to_standard_base64(data)
        extras = {NAME: {B64: form}}
    if mime.startswith("image/"):
        return ImagePart(data=data, media_type=mime, extras=extras)
    if mime.startswith("audio/"):
        return AudioPart(data=data, media_type=mime, extras=extras)
    return FilePart(data=data, media_type=mime, extras=extras)


def _file(data: _FileData) -> ContentPart:
    mime = data.mimeType
    if mime is UNSET:
        # No type said: none is guessed within Gemini, as the general path notes.
        return FilePart(url=data.fileUri, extras={NAME: {NO_MIME: 1}})
    if not mime:
        raise _Decline
    if mime.startswith("image/"):
        return ImagePart(url=data.fileUri, media_type=mime)
    if mime.startswith("audio/"):
        return AudioPart(url=data.fileUri, media_type=mime)
    return FilePart(url=data.fileUri, media_type=mime)


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
