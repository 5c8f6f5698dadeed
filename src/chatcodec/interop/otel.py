"""OpenTelemetry GenAI messages: chat history as observability tools read it.

The GenAI semantic conventions record a model call's messages as JSON span
attributes: ``gen_ai.input.messages`` (the history sent), ``gen_ai.output.messages``
(the choices, each with a ``finish_reason``) and ``gen_ai.system_instructions``
(a system prompt the API takes apart from the history). A message is a ``role``
and typed ``parts``:

========================  ====================================================
chatcodec                 OpenTelemetry part
========================  ====================================================
text                      ``{"type": "text", "content"}``
tool call                 ``{"type": "tool_call", "id", "name", "arguments"}``
tool result message       role ``tool``, ``{"type": "tool_call_response", "id",
                          "response"}``
reasoning                 ``{"type": "reasoning", "content"}``
image, audio, file        by URL ``{"type": "uri", "modality", "mime_type",
                          "uri"}``; inline ``{"type": "blob", "modality",
                          "mime_type", "content"}`` (base64); by id ``{"type":
                          "file", "modality", "file_id"}``
anything else             a part of its own ``type`` with chatcodec's fields
                          (the conventions' generic part)
========================  ====================================================

What the conventions have no field for (an image's ``detail``, a reasoning
signature, a tool result's ``is_error``, a message's ``id`` and ``metadata``)
is written as more properties of the part or message, which the schemas
allow, so that :func:`from_otel` reads back what :func:`to_otel` wrote. Tool
call arguments are written as the JSON value they hold (the conventions'
form), and read back as compact JSON.

Examples
--------
>>> import chatcodec as cc
>>> from chatcodec.interop import otel
>>> call = cc.tool_call("call_1", "weather", {"city": "Paris"})
>>> history = [cc.user("Weather in Paris?"), cc.assistant(None, tool_calls=[call]),
...            cc.tool_result("call_1", "18 C")]
>>> for message in otel.to_otel(history):
...     print(message["role"], message["parts"])
user [{'type': 'text', 'content': 'Weather in Paris?'}]
assistant [{'type': 'tool_call', 'id': 'call_1', 'name': 'weather', 'arguments': {'city': 'Paris'}}]
tool [{'type': 'tool_call_response', 'id': 'call_1', 'response': '18 C'}]
>>> otel.from_otel(otel.to_otel(history)) == history
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import msgspec

from .._cache import CachePoint
from .._content import (
    AudioPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
)
from .._control import UnknownPart, UnknownRecord
from .._errors import ValidationError, from_msgspec
from .._exchange import Choice, Request, Response
from .._frozen import FrozenMap
from .._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._tools import InvalidToolCall, ToolCall, ToolResultDetails
from .._usage import FinishReason
from ._common import json_values, own_part

__all__ = [
    "from_otel",
    "from_otel_output",
    "span_attributes",
    "to_otel",
    "to_otel_output",
    "to_otel_system",
]

_T = TypeVar("_T")

NAME = "otel"
"""The key under which what chatcodec cannot hold of a part is kept in ``extras``."""

_ENCODE = msgspec.json.Encoder()
_DECODE = msgspec.json.Decoder()

# The conventions' finish reasons, and chatcodec's for each.
_FINISH: FrozenMap[FinishReason, str] = FrozenMap(
    {
        FinishReason.STOP: "stop",
        FinishReason.LENGTH: "length",
        FinishReason.TOOL_CALLS: "tool_call",
        FinishReason.CONTENT_FILTER: "content_filter",
        FinishReason.ERROR: "error",
        FinishReason.OTHER: "other",
    }
)
_FINISH_BACK: FrozenMap[str, FinishReason] = FrozenMap(
    {value: key for key, value in _FINISH.items()} | {"tool_calls": FinishReason.TOOL_CALLS}
)

# Parts with a type of their own in the conventions, and the fields each has.
_OWN_FIELDS = FrozenMap(
    {
        "text": frozenset({"type", "content"}),
        "reasoning": frozenset({"type", "content"}),
        "uri": frozenset({"type", "modality", "mime_type", "uri"}),
        "blob": frozenset({"type", "modality", "mime_type", "content"}),
        "file": frozenset({"type", "modality", "mime_type", "file_id"}),
    }
)
_MEDIA = frozenset({"url", "data", "media_type", "extras", "type"})


def _modality(media_type: str | None, default: str) -> str:
    if media_type:
        head = media_type.split("/", 1)[0]
        if head in ("image", "audio", "video"):
            return head
        return "document"
    return default


def _more(part: Any, skip: frozenset[str] | set[str]) -> dict[str, Any]:
    """The part's other fields, set ones only, and what another adapter kept."""
    more = {
        key: value
        for key, value in json_values(part).items()
        if key not in skip and value is not None
    }
    kept = (part.extras or {}).get(NAME)
    if isinstance(kept, Mapping):
        more.update(kept)
    other = {key: value for key, value in (part.extras or {}).items() if key != NAME}
    if other:
        more["extras"] = other
    return more


def _part(part: Any) -> dict[str, Any]:
    """One canonical content part as a conventions part."""
    if type(part) is str:
        return {"type": "text", "content": part}
    kind = type(part)
    if kind is TextPart:
        return {"type": "text", "content": part.text, **_more(part, {"text", "type"})}
    if kind is ReasoningPart:
        return {"type": "reasoning", "content": part.text, **_more(part, {"text", "type"})}
    if kind is ImagePart or kind is AudioPart:
        modality = "image" if kind is ImagePart else "audio"
        return _media(part, modality, part.url, part.data, part.media_type, _MEDIA)
    if kind is FilePart:
        skip = _MEDIA | {"file_id"}
        if part.file_id is not None:
            out = {"type": "file", "modality": _modality(part.media_type, "document")}
            out["file_id"] = part.file_id
            if part.media_type is not None:
                out["mime_type"] = part.media_type
            return out | _more(part, skip)
        return _media(part, "document", part.url, part.data, part.media_type, skip)
    if isinstance(part, UnknownPart):
        value = _DECODE.decode(part.data)
        return value if isinstance(value, dict) else {"type": "unknown", "value": value}
    # A part the conventions have no type for: its own, with its fields.
    return json_values(part)  # type: ignore[no-any-return]


def _media(
    part: Any,
    default: str,
    url: str | None,
    data: str | None,
    media_type: str | None,
    skip: frozenset[str],
) -> dict[str, Any]:
    modality = _modality(media_type, default)
    out: dict[str, Any]
    if url is not None:
        out = {"type": "uri", "modality": modality}
        if media_type is not None:
            out["mime_type"] = media_type
        out["uri"] = url
    else:
        out = {"type": "blob", "modality": modality, "mime_type": media_type, "content": data}
    if modality != default:
        out["kind"] = type(part).__name__.removesuffix("Part").lower()
    return out | _more(part, skip)


def _content(content: str | tuple[Any, ...] | None) -> list[dict[str, Any]]:
    if content is None:
        return []
    if type(content) is str:
        return [{"type": "text", "content": content}]
    return [_part(part) for part in content]


# A message property for content that is parts yet reads as text or nothing
# (no part, or one plain text part): so that it reads back as parts.
_PARTS_FORM = "chatcodec.content"


def _reads_otherwise(content: object) -> bool:
    if type(content) is not tuple:
        return False
    return not content or (
        len(content) == 1 and type(content[0]) is TextPart and content[0].extras is None
    )


def _arguments(raw: msgspec.Raw) -> Any:
    try:
        return _DECODE.decode(raw)
    except msgspec.DecodeError:  # kept as sent: the text itself
        return bytes(raw).decode("utf-8", "replace")


def _message(message: Message | UnknownRecord) -> dict[str, Any]:
    if isinstance(message, UnknownRecord):  # a kind this version does not know, as it was read
        value: dict[str, Any] = _DECODE.decode(message.data)
        return value
    out: dict[str, Any] = {"role": message.role.value}
    entry: dict[str, Any]
    if isinstance(message, AssistantMessage):
        parts = _content(message.content)
        for call in message.tool_calls:
            entry = {"type": "tool_call", "id": call.id, "name": call.name}
            entry["arguments"] = _arguments(call.arguments)
            parts.append(entry | _more(call, {"id", "name", "arguments"}))
        # A call whose arguments are no JSON: a part of its own type, not a tool_call.
        parts.extend(
            json_values(bad) | {"type": "invalid_tool_call"} for bad in message.invalid_tool_calls
        )
        out["parts"] = parts
    elif isinstance(message, ToolMessage):
        response: Any = message.content
        if type(response) is not str:
            response = _content(response)
        entry = {"type": "tool_call_response", "id": message.tool_call_id}
        entry["response"] = response
        if message.is_error:
            entry["is_error"] = True
        if message.name is not None:
            entry["name"] = message.name
        if message.details is not None:
            entry["details"] = json_values(message.details)
        out["parts"] = [entry]
    else:
        out["parts"] = _content(message.content)
    if _reads_otherwise(getattr(message, "content", None)):
        out[_PARTS_FORM] = "parts"
    if message.id is not None:
        out["id"] = message.id
    if message.metadata is not None:
        out["metadata"] = json_values(message.metadata)
    if message.extras:
        out["extras"] = json_values(message.extras)
    cache = getattr(message, "cache", None)  # instructions and tool results close one
    if cache is not None:
        out["cache"] = msgspec.to_builtins(cache)
    return out


def to_otel(messages: Iterable[Message | UnknownRecord]) -> list[dict[str, Any]]:
    """The messages as ``gen_ai.input.messages`` holds them (JSON values).

    System and developer messages stay in the history with their role; use
    :func:`to_otel_system` for a system prompt the API takes apart.

    Parameters
    ----------
    messages : iterable of Message
        A history (``request.messages``); a record of a kind this version
        does not know (:class:`~chatcodec.UnknownRecord`) is written as read.

    Returns
    -------
    list of dict
        Encode it as the attribute's JSON string (``json.dumps``,
        ``msgspec.json.encode``) or use :func:`span_attributes`.
    """
    return [_message(message) for message in messages]


def to_otel_system(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """The system and developer messages' parts, as ``gen_ai.system_instructions`` holds them."""
    return [
        {"type": "text", "content": message.content}
        for message in messages
        if type(message) is SystemMessage or type(message) is DeveloperMessage
    ]


def to_otel_output(response: Response) -> list[dict[str, Any]]:
    """The response's choices as ``gen_ai.output.messages`` holds them, each with its finish reason.

    A choice without a finish reason (a stream cut short) says ``"error"``:
    the conventions require one.
    """
    out = []
    for choice in response.choices:
        message: dict[str, Any] = {"role": "assistant", "parts": []}  # no message (blocked)
        if choice.message is not None:
            message = _message(choice.message)
        reason = _FINISH.get(choice.finish_reason) if choice.finish_reason else None
        message["finish_reason"] = reason or "error"
        if choice.raw_finish_reason is not None:
            message["raw_finish_reason"] = choice.raw_finish_reason
        out.append(message)
    return out


def _expect(value: object, kind: type, path: str, rule: str) -> Any:
    if not isinstance(value, kind):
        raise ValidationError(rule, path)
    return value


def _load(data: bytes | str | list[Any]) -> list[Any]:
    if isinstance(data, bytes | str):
        try:
            value = _DECODE.decode(data)
        except (msgspec.DecodeError, RecursionError) as exc:
            raise from_msgspec(exc) from None
    else:
        value = data
    return _expect(value, list, "$", "must be an array of messages")  # type: ignore[no-any-return]


def _rest(part: Mapping[str, Any], own: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in part.items() if key not in own}


def _read_part(part: Any, path: str) -> Any:
    part = _expect(part, dict, path, "must be an object")
    kind = _expect(part.get("type"), str, f"{path}.type", "must be a string")
    if kind == "text":
        text = _expect(part.get("content"), str, f"{path}.content", "must be a string")
        return _with(TextPart, {"text": text}, _rest(part, _OWN_FIELDS["text"]), path)
    if kind == "reasoning":
        text = _expect(part.get("content"), str, f"{path}.content", "must be a string")
        return _with(ReasoningPart, {"text": text}, _rest(part, _OWN_FIELDS["reasoning"]), path)
    if kind in ("uri", "blob", "file"):
        rest = _rest(part, _OWN_FIELDS[kind])
        named = rest.pop("kind", None)
        modality = part.get("modality")
        cls: type[Any] = {"image": ImagePart, "audio": AudioPart}.get(
            named if isinstance(named, str) else modality, FilePart
        )
        if named == "file":
            cls = FilePart
        fields: dict[str, Any] = {"media_type": part.get("mime_type")}
        if kind == "uri":
            fields["url"] = part.get("uri")
        elif kind == "blob":
            fields["data"] = part.get("content")
        else:
            cls = FilePart
            fields["file_id"] = part.get("file_id")
        return _with(cls, fields, rest, path)
    return own_part(part, path)


def _with(cls: type[Any], fields: dict[str, Any], rest: dict[str, Any], path: str) -> Any:
    """A canonical part from its own fields, chatcodec's fields kept in ``rest``, and the others."""
    names = set(cls.__struct_fields__)
    extras = rest.pop("extras", None)
    extras = dict(extras) if isinstance(extras, dict) else {}
    own = {key: value for key, value in rest.items() if key in names and key != "extras"}
    other = {key: value for key, value in rest.items() if key not in names}
    if other:
        extras[NAME] = other
    try:
        return msgspec.convert({**fields, **own, "extras": extras or None}, cls)
    except (msgspec.ValidationError, ValidationError) as exc:
        raise ValidationError(f"must be a {cls.__name__}: {exc}", path) from None


def _parts(value: Any, path: str) -> list[Any]:
    parts = _expect(value, list, path, "must be an array of parts")
    return [_read_part(part, f"{path}[{n}]") for n, part in enumerate(parts)]


def _text_or_parts(parts: list[Any], as_parts: bool) -> str | tuple[Any, ...]:
    if not as_parts and len(parts) == 1 and type(parts[0]) is TextPart and parts[0].extras is None:
        return str(parts[0].text)
    return tuple(parts)


def _read_message(value: Any, path: str) -> Message:
    value = _expect(value, dict, path, "must be an object")
    role = _expect(value.get("role"), str, f"{path}.role", "must be a string")
    raw_parts = _expect(value.get("parts"), list, f"{path}.parts", "must be an array of parts")
    common: dict[str, Any] = {}
    for key in ("id", "metadata", "extras"):
        if value.get(key) is not None:
            common[key] = value[key]
    if value.get("cache") is not None:
        try:
            common["cache"] = msgspec.convert(value["cache"], CachePoint)
        except msgspec.ValidationError:
            raise ValidationError("must be a cache point", f"{path}.cache") from None
    as_parts = value.get(_PARTS_FORM) == "parts"
    if role == "tool":
        if len(raw_parts) != 1 or not isinstance(raw_parts[0], dict):
            raise ValidationError("must hold one tool_call_response part", f"{path}.parts")
        entry = raw_parts[0]
        at = f"{path}.parts[0]"
        if entry.get("type") != "tool_call_response":
            raise ValidationError("must be a tool_call_response part", f"{at}.type")
        call_id = _expect(entry.get("id"), str, f"{at}.id", "must be a string")
        response = entry.get("response")
        content: Any
        if type(response) is str:
            content = response
        elif type(response) is list:
            content = tuple(_parts(response, f"{at}.response"))
        else:  # any other JSON value: its JSON text
            content = _ENCODE.encode(response).decode()
        fields = {"tool_call_id": call_id, "content": content, **common}
        for key in ("is_error", "name"):
            if entry.get(key) is not None:
                fields[key] = entry[key]
        if entry.get("details") is not None:
            try:
                fields["details"] = msgspec.convert(entry["details"], ToolResultDetails)
            except msgspec.ValidationError as exc:
                raise ValidationError(
                    f"must be tool result details: {exc}", f"{at}.details"
                ) from None
        return _convert(fields, ToolMessage, path)
    if role == "assistant":
        parts, calls, invalid = [], [], []
        for n, part in enumerate(raw_parts):
            at = f"{path}.parts[{n}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "tool_call":
                calls.append(_read_call(part, at))
            elif kind == "invalid_tool_call":
                invalid.append(_convert(_rest(part, frozenset({"type"})), InvalidToolCall, at))
            else:
                parts.append(_read_part(part, at))
        body: dict[str, Any] = {"tool_calls": tuple(calls), "invalid_tool_calls": tuple(invalid)}
        body.update(common)
        body["content"] = _text_or_parts(parts, as_parts) if parts or as_parts else None
        return _convert(body, AssistantMessage, path)
    parts = _parts(raw_parts, f"{path}.parts")
    if role in ("system", "developer"):
        cls: type[SystemMessage | DeveloperMessage] = (
            SystemMessage if role == "system" else DeveloperMessage
        )
        texts = [part.text for part in parts if type(part) is TextPart]
        if len(texts) != len(parts):
            raise ValidationError(f"a {role} message holds text parts only", f"{path}.parts")
        return _convert({"content": "".join(texts), **common}, cls, path)
    if role == "user":
        return _convert({"content": _text_or_parts(parts, as_parts), **common}, UserMessage, path)
    raise ValidationError("must be system, developer, user, assistant or tool", f"{path}.role")


def _read_call(part: dict[str, Any], path: str) -> ToolCall:
    call_id = _expect(part.get("id"), str, f"{path}.id", "must be a string")
    name = _expect(part.get("name"), str, f"{path}.name", "must be a string")
    arguments = part.get("arguments", {})
    raw = arguments.encode() if type(arguments) is str else _ENCODE.encode(arguments)
    fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": msgspec.Raw(raw)}
    for key in ("approval", "extras"):
        if part.get(key) is not None:
            fields[key] = part[key]
    return _convert(fields, ToolCall, path)


def _convert(fields: dict[str, Any], cls: type[_T], path: str) -> _T:
    try:
        return cls(**fields)
    except ValidationError as exc:  # the rule, at its path in this message
        raise ValidationError(exc.rule, path + exc.path[1:]) from None
    except TypeError:
        raise ValidationError(f"must be a {cls.__name__}", path) from None


def from_otel(data: bytes | str | list[Any]) -> list[Message]:
    """Messages read from ``gen_ai.input.messages`` (its JSON text or its value).

    Parts of types chatcodec does not know are kept as
    :class:`~chatcodec.UnknownPart`; more properties of a part that chatcodec
    has no field for are kept in its ``extras["otel"]``.

    Raises
    ------
    DecodeError
        If the text is not JSON.
    ValidationError
        If a message or part breaks the conventions' schema; the path names it.
    """
    messages = _load(data)
    return [_read_message(value, f"$[{n}]") for n, value in enumerate(messages)]


def from_otel_output(data: bytes | str | list[Any], *, model: str | None = None) -> Response:
    """A response read from ``gen_ai.output.messages``: one choice per message."""
    messages = _load(data)
    choices = []
    for n, value in enumerate(messages):
        path = f"$[{n}]"
        value = _expect(value, dict, path, "must be an object")
        fields = {
            key: item
            for key, item in value.items()
            if key not in ("finish_reason", "raw_finish_reason")
        }
        message: AssistantMessage | None = None
        if fields.get("parts") != [] or _PARTS_FORM in fields:
            message = _read_message({**fields, "role": "assistant"}, path)  # type: ignore[assignment]
        said = value.get("finish_reason")
        reason = _FINISH_BACK.get(said) if type(said) is str else None
        raw = value.get("raw_finish_reason", said if reason is None else None)
        choices.append(
            Choice(
                message, finish_reason=reason or FinishReason.OTHER, raw_finish_reason=raw, index=n
            )
        )
    return Response(tuple(choices), model=model)


def span_attributes(
    request: Request | None = None,
    response: Response | None = None,
    *,
    provider: str | None = None,
    system_apart: bool = False,
) -> dict[str, Any]:
    """The GenAI span attributes a model call's request and response give.

    ``gen_ai.input.messages``, ``gen_ai.output.messages`` and
    ``gen_ai.system_instructions`` are JSON text, as the conventions ask of
    attributes that hold structures; the request's settings and the response's
    id, model, finish reasons and usage are plain values.

    Parameters
    ----------
    request, response : optional
        The call's request and its response.
    provider : str, optional
        ``gen_ai.provider.name`` (``"openai"``, ``"anthropic"``,
        ``"gcp.gemini"``, ``"aws.bedrock"``...).
    system_apart : bool, default False
        Record system and developer messages in ``gen_ai.system_instructions``
        and leave them out of the input messages, as for an API that takes the
        system prompt apart (Anthropic, Gemini, Bedrock).

    Examples
    --------
    >>> import chatcodec as cc
    >>> from chatcodec.interop import otel
    >>> request = cc.Request((cc.system("Be brief."), cc.user("Hi")), model="gpt-5",
    ...                      max_tokens=64)
    >>> attributes = otel.span_attributes(request, system_apart=True)
    >>> attributes["gen_ai.system_instructions"]
    '[{"type":"text","content":"Be brief."}]'
    >>> attributes["gen_ai.input.messages"]
    '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]'
    >>> attributes["gen_ai.request.model"], attributes["gen_ai.request.max_tokens"]
    ('gpt-5', 64)
    """
    out: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    if provider is not None:
        out["gen_ai.provider.name"] = provider
    if request is not None:
        messages = request.messages
        if system_apart:
            system = to_otel_system(messages)
            if system:
                out["gen_ai.system_instructions"] = _ENCODE.encode(system).decode()
            messages = tuple(
                m
                for m in messages
                if type(m) is not SystemMessage and type(m) is not DeveloperMessage
            )
        out["gen_ai.input.messages"] = _ENCODE.encode(to_otel(messages)).decode()
        for name, value in (
            ("model", request.model),
            ("max_tokens", request.max_tokens),
            ("temperature", request.temperature),
            ("top_p", request.top_p),
            ("top_k", request.top_k),
            ("seed", request.seed),
            ("presence_penalty", request.presence_penalty),
            ("frequency_penalty", request.frequency_penalty),
            ("stop_sequences", list(request.stop) if request.stop else None),
            ("stream", request.stream),
        ):
            if value is not None:
                out[f"gen_ai.request.{name}"] = value
    if response is not None:
        output = to_otel_output(response)
        out["gen_ai.output.messages"] = _ENCODE.encode(output).decode()
        out["gen_ai.response.finish_reasons"] = [message["finish_reason"] for message in output]
        if response.id is not None:
            out["gen_ai.response.id"] = response.id
        if response.model is not None:
            out["gen_ai.response.model"] = response.model
        usage = response.usage
        if usage is not None:
            out["gen_ai.usage.input_tokens"] = usage.prompt_tokens
            out["gen_ai.usage.output_tokens"] = usage.completion_tokens
            if usage.cached_tokens is not None:
                out["gen_ai.usage.cache_read.input_tokens"] = usage.cached_tokens
            if usage.cache_write_tokens is not None:
                out["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens
            if usage.reasoning_tokens is not None:
                out["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens
    return out
