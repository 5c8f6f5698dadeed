"""Cohere v2 Chat wire -> canonical: ``POST /v2/chat`` requests and responses.

Strategy: the body is parsed to builtins once (msgspec, in C); each message
is read by its ``role`` key by key. A key is consumed only when its value has
the canonical shape; anything else (a ``null``, ``citations``, ``documents``,
``safety_mode``...) stays in the record's ``extras["cohere"]`` as sent and the
encoder writes it back. The hints are listed in :mod:`._common`.

An assistant message spreads over ``tool_plan``, ``content`` (a string, or
``text`` and ``thinking`` items) and ``tool_calls`` (``function.arguments``
is JSON text); the canonical content is the plan (a reasoning part), then
the content items in order. A tool result's ``content`` is a string, or
``text`` and ``document`` items; a document is held as a text part whose
text is its ``data`` as JSON.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import AssistantPart, ContentPart, ImagePart, OpaquePart, ReasoningPart, TextPart
from ..._errors import DepthError, ProviderError, ValidationError
from ..._exchange import (
    Choice,
    ProviderTool,
    Reasoning,
    Request,
    Response,
    ResponseFormat,
    Tool,
    ToolChoice,
)
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import InvalidToolCall, ToolCall, ToolDefinition, parse_tool_call
from ..._usage import FinishReason, Usage
from .._wire import (
    derive_id,
    encode_body,
    expect_dict,
    expect_list,
    expect_str,
    json_body,
    rest_of,
)
from ._common import ABSENT, DERIVED, FINISH, NAME, split_data_url

__all__ = ["assistant_message", "decode_request", "read_call", "response_from"]

_REQUEST_KEYS = frozenset(
    {
        *("model", "messages", "tools", "strict_tools", "response_format", "max_tokens"),
        *("stop_sequences", "temperature", "seed", "frequency_penalty", "presence_penalty"),
        *("k", "p", "tool_choice", "thinking", "stream"),
    }
)
_INSTRUCTION_KEYS = frozenset({"role", "content"})
_USER_KEYS = frozenset({"role", "content"})
_ASSISTANT_KEYS = frozenset({"role", "content", "tool_plan", "tool_calls"})
_TOOL_KEYS = frozenset({"role", "content", "tool_call_id"})
_TEXT_KEYS = frozenset({"type", "text"})
_CALL_KEYS = frozenset({"id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_TOOL_DEF_KEYS = frozenset({"type", "function"})
_TOOL_FUNCTION_KEYS = frozenset({"name", "description", "parameters"})
_RESPONSE_KEYS = frozenset({"id", "finish_reason", "message", "usage"})
_USAGE_KEYS = frozenset({"tokens", "cached_tokens"})
_TOKENS = frozenset({"input_tokens", "output_tokens"})
_CHOICES = FrozenMap({"REQUIRED": ToolChoice("required"), "NONE": ToolChoice("none")})
_FLOATS = ("temperature", "p", "frequency_penalty", "presence_penalty")
_INTS = ("max_tokens", "seed", "k")
_FIELDS = FrozenMap({"p": "top_p", "k": "top_k"})
_EXACT = 2**53  # the ints a float holds exactly: the rest stay as sent

_MISSING: Any = object()


def _extras(own: dict[str, Any]) -> dict[str, Any] | None:
    return {NAME: own} if own else None


# -- requests -------------------------------------------------------------


def decode_request(body: bytes | str) -> Request:
    data = json_body(body)
    own = rest_of(data, _REQUEST_KEYS)
    model = data.get("model")
    if model is not None:
        expect_str(model, "$.model")
    elif "model" in data:
        own["model"] = None

    messages: tuple[Message, ...] = ()
    items = data.get("messages")
    if items:
        messages = _messages(expect_list(items, "$.messages"))
    elif "messages" in data:
        own["messages"] = items

    strict = data.get("strict_tools", _MISSING)
    tools: tuple[Tool, ...] = ()
    items = data.get("tools")
    if strict is not _MISSING and not (strict is True and items and type(items) is list):
        own["strict_tools"] = strict  # strict tools are the tools' own flag; the rest as sent
    if items:
        tools = tuple(
            _tool_definition(item, f"$.tools[{k}]", strict is True)
            for k, item in enumerate(expect_list(items, "$.tools"))
        )
    elif "tools" in data:
        own["tools"] = items

    fields: dict[str, Any] = {}
    ints: list[str] = []
    for key in _FLOATS:
        value = data.get(key, _MISSING)
        kind = type(value)
        if kind is float:
            fields[_FIELDS.get(key, key)] = value
        elif kind is int and -_EXACT <= value <= _EXACT:
            fields[_FIELDS.get(key, key)] = float(value)
            ints.append(key)
        elif value is not _MISSING:
            own[key] = value
    for key in _INTS:
        value = data.get(key, _MISSING)
        if type(value) is int and (key == "seed" or value >= 0):
            fields[_FIELDS.get(key, key)] = value
        elif value is not _MISSING:
            own[key] = value
    if ints:
        own["~int"] = ints
    stop = data.get("stop_sequences", _MISSING)
    if type(stop) is list and all(type(item) is str for item in stop):
        fields["stop"] = tuple(stop)
    elif stop is not _MISSING:
        own["stop_sequences"] = stop
    stream = data.get("stream", _MISSING)
    if type(stream) is bool:
        fields["stream"] = stream
    elif stream is not _MISSING:
        own["stream"] = stream
    choice = data.get("tool_choice", _MISSING)
    if type(choice) is str and choice in _CHOICES:
        fields["tool_choice"] = _CHOICES[choice]
    elif choice is not _MISSING:
        own["tool_choice"] = choice
    fields["response_format"] = _format(data.get("response_format", _MISSING), own)
    fields["reasoning"] = _thinking(data.get("thinking", _MISSING), own)
    return Request(messages, model, tools, **fields, extras=_extras(own))


def _format(value: Any, own: dict[str, Any]) -> ResponseFormat | None:
    if value is _MISSING:
        return None
    if type(value) is dict:
        kind = value.get("type")
        if value.keys() == {"type"} and kind in ("text", "json_object"):
            return ResponseFormat(kind)
        schema = value.get("json_schema")
        if (
            kind == "json_object"
            and value.keys() == {"type", "json_schema"}
            and type(schema) is dict
        ):
            try:
                return ResponseFormat("json_schema", schema=schema)
            except DepthError as exc:
                raise DepthError(exc.limit, "$.response_format.json_schema") from None
    own["response_format"] = value  # a shape chatcodec does not model: kept as sent
    return None


def _thinking(value: Any, own: dict[str, Any]) -> Reasoning | None:
    if value is _MISSING:
        return None
    if type(value) is dict:
        kind = value.get("type")
        budget = value.get("token_budget", _MISSING)
        if kind == "disabled" and value.keys() == {"type"}:
            return Reasoning("none")
        if kind == "enabled" and value.keys() == {"type"}:
            return Reasoning()
        if (
            kind == "enabled"
            and value.keys() == {"type", "token_budget"}
            and type(budget) is int
            and budget > 0
        ):
            return Reasoning(budget_tokens=budget)
    own["thinking"] = value
    return None


def _messages(items: list[Any]) -> tuple[Message, ...]:
    out: list[Message] = []
    for i, item in enumerate(items):
        p = f"$.messages[{i}]"
        m = expect_dict(item, p)
        role = m.get("role")
        if role == "user":
            out.append(_user(m, p))
        elif role == "assistant":
            out.append(assistant_message(m, p, i))
        elif role == "tool":
            out.append(_tool(m, p))
        elif role == "system":
            out.append(_system(m, p))
        else:
            raise ValidationError("must be system, user, assistant or tool", p + ".role")
    return tuple(out)


def _system(m: dict[str, Any], path: str) -> SystemMessage:
    own = rest_of(m, _INSTRUCTION_KEYS)
    content = m.get("content")
    if type(content) is list:
        texts = []
        for k, item in enumerate(content):
            p = f"{path}.content[{k}]"
            if type(item) is not dict or item.keys() != {"type", "text"} or item["type"] != "text":
                raise ValidationError("must be a text item", p)
            texts.append(expect_str(item["text"], p + ".text"))
        own["~parts"] = [len(text) for text in texts]
        content = "".join(texts)
    content = expect_str(content, path + ".content")
    if not content:
        raise ValidationError("must not be empty", path + ".content")
    return SystemMessage(content, extras=_extras(own))


def _parts(items: list[Any], path: str, *, documents: bool) -> tuple[ContentPart, ...]:
    """The items of a user's or a tool result's ``content``, as parts."""
    parts: list[ContentPart] = []
    for k, item in enumerate(items):
        p = f"{path}[{k}]"
        c = expect_dict(item, p)
        kind = c.get("type")
        if kind == "text" and type(c.get("text")) is str:
            parts.append(
                TextPart(c["text"], extras=_extras(rest_of(c, frozenset({"type", "text"}))))
            )
            continue
        if kind == "image_url" and not documents:
            image = _image(c, p)
            if image is not None:
                parts.append(image)
                continue
        if kind == "document" and documents:
            document = c.get("document")
            data = document.get("data") if type(document) is dict else None
            if type(data) is dict or type(data) is str:
                assert type(document) is dict
                keys = rest_of(c, frozenset({"type", "document"}))
                keys.update(rest_of(document, frozenset({"data"})))
                # The data is an object, or (as Cohere's examples send it) its JSON text.
                text = data if isinstance(data, str) else encode_body(data).decode()
                hint: dict[str, Any] = {"~document": "object" if type(data) is dict else "str"}
                parts.append(TextPart(text, extras={NAME: {**hint, **keys}}))
                continue
        parts.append(OpaquePart(NAME, Raw(encode_body(c))))
    return tuple(parts)


def _image(c: dict[str, Any], path: str) -> ImagePart | None:
    inner = c.get("image_url")
    if type(inner) is not dict or type(inner.get("url")) is not str:
        return None
    own = rest_of(c, frozenset({"type", "image_url"}))
    own.update(rest_of(inner, frozenset({"url", "detail"})))
    detail = inner.get("detail")
    if detail not in (None, "auto", "low", "high") or ("detail" in inner and detail is None):
        return None
    url = inner["url"]
    split = split_data_url(url)
    try:
        if split is not None:
            own["~url"] = "data"
            return ImagePart(data=split[1], media_type=split[0], detail=detail, extras=_extras(own))
        return ImagePart(url=url, detail=detail, extras=_extras(own))
    except ValidationError:  # an image the canonical rules refuse: kept whole
        return None


def _user(m: dict[str, Any], path: str) -> UserMessage:
    own = rest_of(m, _USER_KEYS)
    content = m.get("content", _MISSING)
    if type(content) is list:
        parts = _parts(content, path + ".content", documents=False)
        if not parts:
            own["~content"] = "empty"
        return UserMessage(parts or (TextPart(""),), extras=_extras(own))
    if content is _MISSING:
        own["~content"] = ABSENT
        return UserMessage((TextPart(""),), extras=_extras(own))
    if expect_str(content, path + ".content"):
        return UserMessage(content, extras=_extras(own))
    own["~content"] = "str"  # an empty string: the canonical form holds it as an empty part
    return UserMessage((TextPart(""),), extras=_extras(own))


def _tool(m: dict[str, Any], path: str) -> ToolMessage:
    own = rest_of(m, _TOOL_KEYS)
    call_id = expect_str(m.get("tool_call_id"), path + ".tool_call_id")
    content = m.get("content", _MISSING)
    if type(content) is list:
        result: str | tuple[ContentPart, ...] = _parts(content, path + ".content", documents=True)
    elif content is _MISSING:
        own["~content"] = ABSENT
        result = ""
    else:
        result = expect_str(content, path + ".content")
    return ToolMessage(call_id, result, extras=_extras(own))


def assistant_message(
    m: dict[str, Any], path: str, index: int | str, *, role: bool = True
) -> AssistantMessage:
    """One assistant message (of a request's history, or a response's ``message``)."""
    own = rest_of(m, _ASSISTANT_KEYS)
    if not role:
        own["~role"] = ABSENT
    parts: list[AssistantPart] = []
    plan = m.get("tool_plan", _MISSING)
    if type(plan) is str and plan:
        parts.append(ReasoningPart(plan, provider=NAME, extras={NAME: {"~plan": True}}))
    elif plan is not _MISSING:
        own["tool_plan"] = plan  # "" or null: not a plan
    content = m.get("content", _MISSING)
    text: str | None = None
    if type(content) is list:
        parts.extend(_assistant_parts(content, path + ".content"))
    elif type(content) is str:
        text = content
    elif content is not _MISSING:
        own["content"] = content
    calls: tuple[ToolCall, ...] = ()
    invalid: tuple[InvalidToolCall, ...] = ()
    items = m.get("tool_calls", _MISSING)
    if type(items) is list and items:
        calls, invalid = _calls(items, path, index)
    elif items is not _MISSING:
        own["tool_calls"] = items
    body: str | tuple[AssistantPart, ...] | None
    if text is not None and not parts:
        body = text
    elif text is not None:
        own["~content"] = "str"
        body = (*parts, TextPart(text))
    elif parts or type(content) is list:
        body = tuple(parts)
    else:
        body = None if calls or invalid else ()
    if content is _MISSING and body is not None:
        own["~content"] = ABSENT
    return AssistantMessage(body, calls, invalid, extras=_extras(own))


def _assistant_parts(items: list[Any], path: str) -> list[AssistantPart]:
    parts: list[AssistantPart] = []
    for k, item in enumerate(items):
        c = expect_dict(item, f"{path}[{k}]")
        kind = c.get("type")
        if kind == "text" and type(c.get("text")) is str:
            parts.append(
                TextPart(c["text"], extras=_extras(rest_of(c, frozenset({"type", "text"}))))
            )
        elif kind == "thinking" and type(c.get("thinking")) is str:
            rest = rest_of(c, frozenset({"type", "thinking"}))
            parts.append(ReasoningPart(c["thinking"], provider=NAME, extras=_extras(rest)))
        else:
            parts.append(OpaquePart(NAME, Raw(encode_body(c))))
    return parts


def _calls(
    items: list[Any], path: str, index: int | str
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(items):
        call = read_call(item, f"{path}.tool_calls[{j}]", index, j)
        if type(call) is ToolCall:
            calls.append(call)
        else:
            invalid.append(call)  # type: ignore[arg-type]
    return tuple(calls), tuple(invalid)


def read_call(item: Any, path: str, index: int | str, j: int) -> ToolCall | InvalidToolCall:
    """One of a message's ``tool_calls`` (the ``j``-th of message ``index``)."""
    c = expect_dict(item, path)
    own = rest_of(c, _CALL_KEYS)
    kind = c.get("type", _MISSING)
    if kind is _MISSING:
        own["~type"] = ABSENT
    elif kind != "function":
        own["type"] = kind
    fn = expect_dict(c.get("function"), path + ".function")
    fn_own = rest_of(fn, _FUNCTION_KEYS)
    name = fn.get("name")
    if name is not None:
        name = expect_str(name, path + ".function.name")
    elif "name" in fn:
        fn_own["name"] = None
    arguments = fn.get("arguments", _MISSING)
    if type(arguments) is str:
        data = arguments.encode("utf-8", "surrogatepass")
    elif arguments is _MISSING:
        data = b""
        own["~arguments"] = ABSENT
    else:
        raise ValidationError("must be a string of JSON", path + ".function.arguments")
    wire_id = c.get("id")
    if type(wire_id) is str and wire_id:
        call_id = wire_id
    else:
        if "id" in c:
            own["id"] = wire_id
        own["~id"] = DERIVED
        call_id = derive_id("call_", index, j, name or "", data)
    if fn_own:
        own["function"] = fn_own
    extras = _extras(own)
    call = parse_tool_call(call_id, name or "", data)
    if isinstance(call, ToolCall):
        return ToolCall(call.id, call.name, call.arguments, extras=extras)
    return InvalidToolCall(call.id, name, call.arguments, call.error, extras=extras)


def _tool_definition(item: Any, path: str, strict: bool) -> Tool:
    t = expect_dict(item, path)
    fn = t.get("function")
    if t.get("type", "function") != "function" or type(fn) is not dict:
        return ProviderTool(NAME, Raw(encode_body(t)))
    own = rest_of(t, _TOOL_DEF_KEYS)
    if "type" not in t:
        own["~type"] = ABSENT
    fn_own = rest_of(fn, _TOOL_FUNCTION_KEYS)
    if fn_own:
        own["function"] = fn_own
    name = fn.get("name")
    description = fn.get("description", _MISSING)
    parameters = fn.get("parameters")
    if (
        type(name) is not str
        or (description is not _MISSING and (type(description) is not str or not description))
        or type(parameters) is not dict
    ):
        return ProviderTool(NAME, Raw(encode_body(t)))
    try:
        return ToolDefinition(
            name,
            None if description is _MISSING else description,
            parameters,
            strict=strict,
            extras=_extras(own),
        )
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, f"{path}.function.parameters") from None
    except ValidationError:  # a name or schema the canonical rules refuse: kept as sent
        return ProviderTool(NAME, Raw(encode_body(t)))


# -- responses ------------------------------------------------------------


def response_from(data: dict[str, Any]) -> Response:
    """The response a parsed body holds (the stream decoder builds such bodies)."""
    if "finish_reason" not in data and (
        type(data.get("message")) is str or type(data.get("error")) is dict
    ):
        raise _provider_error(data)
    own = rest_of(data, _RESPONSE_KEYS)
    response_id = data.get("id")
    if response_id is not None:
        expect_str(response_id, "$.id")
    elif "id" in data:
        own["id"] = None

    message: AssistantMessage | None = None
    m = data.get("message", _MISSING)
    if type(m) is dict:
        role = m.get("role", _MISSING)
        if role is not _MISSING and role != "assistant":
            raise ValidationError('must be "assistant"', "$.message.role")
        message = assistant_message(m, "$.message", response_id or "", role=role is not _MISSING)
    elif m is not _MISSING:
        own["message"] = m

    reason = data.get("finish_reason")
    finish: FinishReason | None = None
    if type(reason) is str:
        finish = FINISH.get(reason, FinishReason.OTHER)
    elif reason is not None:
        raise ValidationError("must be a string", "$.finish_reason")
    elif "finish_reason" in data:
        own["finish_reason"] = None

    usage = _usage(data.get("usage", _MISSING), own)
    choice = Choice(message, finish, reason if finish is not None else None)
    return Response((choice,), response_id, None, usage, extras=_extras(own))


def _usage(value: Any, own: dict[str, Any]) -> Usage | None:
    if value is _MISSING:
        return None
    if type(value) is dict:
        tokens = value.get("tokens")
        cached = value.get("cached_tokens", _MISSING)
        if (
            type(tokens) is dict
            and tokens.keys() == _TOKENS
            and type(tokens["input_tokens"]) is int
            and type(tokens["output_tokens"]) is int
            and tokens["input_tokens"] >= 0
            and tokens["output_tokens"] >= 0
            and (cached is _MISSING or (type(cached) is int and cached >= 0))
        ):
            rest = rest_of(value, _USAGE_KEYS)
            return Usage(
                tokens["input_tokens"],
                tokens["output_tokens"],
                cached_tokens=None if cached is _MISSING else cached,
                extras=_extras(rest),
            )
    own["usage"] = value  # counts chatcodec cannot read as tokens: kept as sent
    return None


def _provider_error(data: dict[str, Any]) -> ProviderError:
    # Cohere's errors carry a message and, at most, an id: no type or code. A
    # gateway in front of it may answer in OpenAI's shape, {"error": {...}}.
    error = data.get("error")
    if type(error) is not dict:
        return ProviderError(NAME, message=data["message"], body=data)
    said = {key: error.get(key) for key in ("message", "type", "code")}
    return ProviderError(
        NAME,
        type=said["type"] if type(said["type"]) is str else None,
        code=said["code"] if type(said["code"]) in (str, int) else None,
        message=said["message"] if type(said["message"]) is str else None,
        body=data,
    )
