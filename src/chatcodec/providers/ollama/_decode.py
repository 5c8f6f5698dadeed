"""Ollama native ``/api/chat`` bodies into canonical requests and responses.

The body is parsed once into builtins; each message is read by its role into
the canonical message, and every key with no canonical field is kept in the
record's ``extras["ollama"]``. A ``null`` where a canonical value was expected
is kept there too (the canonical field stays unset), so ``null`` and absent
both survive.

Ollama tool calls carry no id and tool results name their call by
``tool_name``: calls get :func:`~chatcodec.providers._wire.derive_id` ids, and
a result takes the id of the first unanswered earlier call of that name.
"""

from __future__ import annotations

from typing import Any, cast

from msgspec import Raw

from ..._content import ContentPart, ImagePart, ReasoningPart, TextPart
from ..._errors import DepthError, ProviderError, ValidationError
from ..._exchange import Choice, ProviderTool, Reasoning, Request, Response, ResponseFormat, Tool
from ..._frozen import FrozenMap
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
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
from ._common import ABSENT, DERIVED, FINISH, NAME, guess_media_type, nonstandard_base64
from ._fast import fast_response

__all__ = ["decode_request", "decode_response", "general_response", "response_from"]

# The top-level keys the request decoder reads; it keeps the others as sent.
REQUEST_KEYS = frozenset({"model", "messages", "tools", "format", "options", "stream", "think"})
_OPTION_KEYS = frozenset(
    {
        "temperature",
        "top_p",
        "num_predict",
        "stop",
        "top_k",
        "seed",
        "presence_penalty",
        "frequency_penalty",
    }
)
_THINK = FrozenMap({False: Reasoning("none"), True: Reasoning()})
_THINK_LEVELS = frozenset({"low", "medium", "high"})
_INSTRUCTION_KEYS = frozenset({"role", "content"})
_USER_KEYS = frozenset({"role", "content", "images"})
_ASSISTANT_KEYS = frozenset({"role", "content", "thinking", "tool_calls"})
_TOOL_KEYS = frozenset({"role", "content", "images", "tool_name", "tool_call_id"})
_CALL_KEYS = frozenset({"id", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_PLAIN_CALL_KEYS = frozenset({"function"})
_TOOL_DEF_KEYS = frozenset({"type", "function"})
_TOOL_FUNCTION_KEYS = frozenset({"name", "description", "parameters"})
_RESPONSE_KEYS = frozenset({"model", "message", "done_reason", "prompt_eval_count", "eval_count"})

_MISSING: Any = object()


def _extras(own: dict[str, Any]) -> dict[str, Any] | None:
    return {NAME: own} if own else None


def _text(obj: dict[str, Any], key: str, path: str, own: dict[str, Any]) -> str | None:
    """A string field: ``None`` when absent or ``null`` (a ``null`` is kept in ``own``)."""
    value = obj.get(key, _MISSING)
    if value is _MISSING:
        return None
    if value is None:
        own[key] = None
        return None
    return expect_str(value, f"{path}.{key}")


# -- requests -------------------------------------------------------------


def decode_request(body: bytes | str) -> Request:
    data = json_body(body)
    own = rest_of(data, REQUEST_KEYS)
    model = _text(data, "model", "$", own)

    messages: tuple[Message, ...] = ()
    items = data.get("messages")
    if items:
        messages = _messages(expect_list(items, "$.messages"), "$.messages")
    elif "messages" in data:
        own["messages"] = expect_list(items, "$.messages") if items is not None else None

    tools: tuple[Tool, ...] = ()
    items = data.get("tools")
    if items:
        tools = tuple(
            _tool_definition(item, f"$.tools[{k}]")
            for k, item in enumerate(expect_list(items, "$.tools"))
        )
    elif "tools" in data:
        own["tools"] = expect_list(items, "$.tools") if items is not None else None

    response_format = _format(data, own)

    stream = data.get("stream")
    if stream is None:
        if "stream" in data:
            own["stream"] = None
        else:  # Ollama streams by default; the encoder must not add "stream": false
            own["~stream"] = ABSENT
    elif type(stream) is not bool:
        raise ValidationError("must be a boolean", "$.stream")

    sampling: dict[str, Any] = {}
    options = data.get("options", _MISSING)
    if type(options) is dict:
        sampling = _options(options, own)
    elif options is not _MISSING:
        if options is not None:
            raise ValidationError("must be an object", "$.options")
        own["options"] = None

    reasoning = None
    if "think" in data:
        think = data["think"]
        if type(think) is bool:
            reasoning = _THINK[think]
        elif type(think) is str and think in _THINK_LEVELS:
            reasoning = Reasoning(think)  # type: ignore[arg-type]
        else:
            own["think"] = think

    return Request(
        messages,
        model,
        tools,
        None,
        None,
        sampling.get("max_tokens"),
        sampling.get("temperature"),
        sampling.get("top_p"),
        sampling.get("stop"),
        stream,
        response_format,
        top_k=sampling.get("top_k"),
        seed=sampling.get("seed"),
        presence_penalty=sampling.get("presence_penalty"),
        frequency_penalty=sampling.get("frequency_penalty"),
        reasoning=reasoning,
        extras=_extras(own),
    )


def _format(data: dict[str, Any], own: dict[str, Any]) -> ResponseFormat | None:
    value = data.get("format", _MISSING)
    if value is _MISSING:
        return None
    if value == "":
        return ResponseFormat("text")
    if value == "json":
        return ResponseFormat("json_object")
    if type(value) is dict:
        return ResponseFormat("json_schema", schema=value)
    # null, or a value Ollama refuses (check_request says so): kept as sent.
    own["format"] = value
    return None


_EXACT = 2**53  # the ints a float holds exactly: the rest stay as sent


def _options(options: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """The canonical sampling fields of ``options``; the rest stays in ``own``."""
    rest = rest_of(options, _OPTION_KEYS)
    out: dict[str, Any] = {}
    ints: list[str] = []
    for key in ("temperature", "top_p"):
        value = options.get(key)
        kind = type(value)
        if kind is float:
            out[key] = value
        elif kind is int and -_EXACT <= cast(int, value) <= _EXACT:
            out[key] = float(cast(int, value))
            ints.append(key)
        elif key in options:  # null, not a number, or an int no float holds exactly
            rest[key] = value
    value = options.get("num_predict")
    if type(value) is int and value >= 0:
        out["max_tokens"] = value
    elif "num_predict" in options:  # -1 (no limit), -2 (fill the context)...
        rest["num_predict"] = value
    value = options.get("stop")
    if type(value) is list and all(type(item) is str for item in value):
        out["stop"] = tuple(value)
    elif "stop" in options:
        rest["stop"] = value
    for key in ("top_k", "seed", "presence_penalty", "frequency_penalty"):
        if key in options:
            value = options[key]
            kind = type(value)
            if kind is int or (kind is float and key.endswith("penalty")):
                out[key] = value  # as sent: 1 stays 1
            else:
                rest[key] = value
    if rest or not options:
        own["options"] = rest
    if ints:
        own["~int"] = ints
    return out


def _messages(items: list[Any], path: str) -> tuple[Message, ...]:
    out: list[Message] = []
    # Calls not answered yet, in order, for results that name their call.
    pending: list[tuple[str, str | None]] = []
    names: dict[str, str] = {}
    for i, item in enumerate(items):
        p = f"{path}[{i}]"
        m = expect_dict(item, p)
        role = m.get("role")
        message: Message
        if role == "user":
            message = _user(m, p)
        elif role == "assistant":
            message = _assistant(m, p, i)
            for call in message.tool_calls:
                pending.append((call.id, call.name))
                names[call.id] = call.name
            for bad in message.invalid_tool_calls:
                if bad.id is not None:
                    pending.append((bad.id, bad.name))
                    if bad.name is not None:
                        names[bad.id] = bad.name
        elif role == "tool":
            message = _tool(m, p, i, pending, names)
        elif role == "system" or role == "developer":
            message = _instruction(m, p, role)
        else:
            raise ValidationError("must be system, developer, user, assistant or tool", p + ".role")
        out.append(message)
    return tuple(out)


def _instruction(m: dict[str, Any], path: str, role: str) -> Message:
    own = rest_of(m, _INSTRUCTION_KEYS)
    content = _text(m, "content", path, own)
    if not content:
        raise ValidationError("must not be empty", path + ".content")
    if role == "developer":
        own["~role"] = "developer"
        return DeveloperMessage(content, extras=_extras(own))
    return SystemMessage(content, extras=_extras(own))


def _media(
    m: dict[str, Any], path: str, own: dict[str, Any]
) -> str | tuple[ContentPart, ...] | None:
    """``content`` and ``images``: text, text and images as parts, or ``None``."""
    text = _text(m, "content", path, own)
    images = m.get("images")
    if not images:
        if "images" in m:
            own["images"] = expect_list(images, path + ".images") if images is not None else None
        return text
    parts: list[ContentPart] = [] if text is None else [TextPart(text)]
    for j, image in enumerate(expect_list(images, path + ".images")):
        data = expect_str(image, f"{path}.images[{j}]")
        # A new dict each time: extras are the caller's, never shared.
        extras = {NAME: {"~data": "verbatim"}} if nonstandard_base64(data) else None
        parts.append(ImagePart(data=data, media_type=guess_media_type(data), extras=extras))
    return tuple(parts)


def _user(m: dict[str, Any], path: str) -> UserMessage:
    own = rest_of(m, _USER_KEYS)
    content = _media(m, path, own)
    if not content:
        if content is None:
            own["~content"] = ABSENT
        content = (TextPart(""),)
    return UserMessage(content, extras=_extras(own))


def _tool(
    m: dict[str, Any],
    path: str,
    index: int,
    pending: list[tuple[str, str | None]],
    names: dict[str, str],
) -> ToolMessage:
    own = rest_of(m, _TOOL_KEYS)
    content = _media(m, path, own)
    if content is None:
        own["~content"] = ABSENT
        content = ""
    name = m.get("tool_name", _MISSING)
    if name is not _MISSING and name is not None:
        expect_str(name, path + ".tool_name")
    wire_id = m.get("tool_call_id", _MISSING)
    if type(wire_id) is str and wire_id:
        call_id = wire_id
        for k, (pending_id, _) in enumerate(pending):
            if pending_id == call_id:
                del pending[k]
                break
    else:
        if wire_id is not _MISSING:
            own["tool_call_id"] = wire_id
        own["~tool_call_id"] = DERIVED
        for k, (pending_id, pending_name) in enumerate(pending):
            if pending_name == name:
                call_id = pending_id
                del pending[k]
                break
        else:
            call_id = derive_id("call_", index, "result", name if type(name) is str else "")
    # The encoder finds the name from the call's id; keep the wire's own only
    # where that would not give it back.
    result_name: str | None = None
    if name is _MISSING:
        own["~tool_name"] = ABSENT
    elif type(name) is str and name and names.get(call_id) != name:
        result_name = name
    elif name is None or names.get(call_id) != name:
        own["tool_name"] = name
    return ToolMessage(call_id, content, name=result_name, extras=_extras(own))


def _assistant(
    m: dict[str, Any], path: str, index: int | str, *, role: bool = True
) -> AssistantMessage:
    own = rest_of(m, _ASSISTANT_KEYS)
    if not role:
        own["~role"] = ABSENT
    text = _text(m, "content", path, own)
    thinking = _text(m, "thinking", path, own)
    calls: tuple[ToolCall, ...] = ()
    invalid: tuple[InvalidToolCall, ...] = ()
    items = m.get("tool_calls")
    if items:
        calls, invalid, kinds = _calls(expect_list(items, path + ".tool_calls"), path, index)
        if invalid and kinds != "v" * len(calls) + "i" * len(invalid):
            own["~calls"] = kinds
    elif "tool_calls" in m:
        own["tool_calls"] = expect_list(items, path + ".tool_calls") if items is not None else None
    content: str | tuple[ReasoningPart | TextPart, ...] | None
    if thinking is not None:
        content = (
            (ReasoningPart(thinking),)
            if text is None
            else (ReasoningPart(thinking), TextPart(text))
        )
    elif text is None and not calls and not invalid:
        content = ()
    else:
        content = text
    return AssistantMessage(content, calls, invalid, extras=_extras(own))


def _calls(
    items: list[Any], path: str, index: int | str
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...], str]:
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    kinds: list[str] = []
    for j, item in enumerate(items):
        # The usual call, {"function": {"name": ..., "arguments": {...}}}, in
        # a few C-level checks; anything else takes the general path below.
        if type(item) is dict and item.keys() == _PLAIN_CALL_KEYS:
            fn = item["function"]
            if type(fn) is dict and fn.keys() == _FUNCTION_KEYS:
                name, arguments = fn["name"], fn["arguments"]
                if type(name) is str and name and type(arguments) is dict:
                    data = _object_bytes(arguments, path, j)
                    call_id = derive_id("call_", index, j, name, data)
                    calls.append(
                        ToolCall(call_id, name, Raw(data), extras={NAME: {"~id": DERIVED}})
                    )
                    kinds.append("v")
                    continue
        p = f"{path}.tool_calls[{j}]"
        c = expect_dict(item, p)
        own = rest_of(c, _CALL_KEYS)
        fn = expect_dict(c.get("function"), p + ".function")
        fn_own = rest_of(fn, _FUNCTION_KEYS)
        name = _text(fn, "name", p + ".function", fn_own) or ""
        if name == "" and "name" in fn and fn["name"] is not None:
            fn_own["name"] = ""
        arguments = fn.get("arguments", _MISSING)
        if type(arguments) is dict:
            data = _object_bytes(arguments, path, j)
        elif type(arguments) is str:
            data = arguments.encode("utf-8", "surrogatepass")
            own["~arguments"] = "string"
        elif arguments is _MISSING:
            data = b""
            own["~arguments"] = ABSENT
        else:  # null, an array, a number: kept as its JSON text
            data = _object_bytes(arguments, path, j)
            own["~arguments"] = "json"
        wire_id = c.get("id")
        if type(wire_id) is str and wire_id:
            call_id = wire_id
        else:
            if "id" in c:
                own["id"] = wire_id
            own["~id"] = DERIVED
            call_id = derive_id("call_", index, j, name, data)
        if fn_own:
            own["function"] = fn_own
        extras = _extras(own)
        if type(arguments) is dict and name:
            calls.append(ToolCall(call_id, name, Raw(data), extras=extras))
            kinds.append("v")
            continue
        call = parse_tool_call(call_id, name, data)
        if isinstance(call, ToolCall):
            calls.append(ToolCall(call.id, call.name, call.arguments, extras=extras))
            kinds.append("v")
        else:
            invalid.append(
                InvalidToolCall(call.id, call.name, call.arguments, call.error, extras=extras)
            )
            kinds.append("i")
    return tuple(calls), tuple(invalid), "".join(kinds)


def _object_bytes(value: Any, path: str, j: int) -> bytes:
    """A call's arguments as compact JSON; ``path`` is its message's."""
    try:
        return encode_body(value)
    except UnicodeError:
        where = f"{path}.tool_calls[{j}].function.arguments"
        raise ValidationError("must not hold an unpaired surrogate", where) from None


def _tool_definition(item: Any, path: str) -> Tool:
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
    description = fn.get("description")
    parameters = fn.get("parameters")
    if (
        type(name) is not str
        or (description is not None and type(description) is not str)
        or ("description" in fn and description is None)
        or ("parameters" in fn and parameters is None)
    ):
        return ProviderTool(NAME, Raw(encode_body(t)))
    if description == "":  # canonically absent; kept for the way back
        own["function"] = {**own.get("function", {}), "description": ""}
        description = None
    try:
        return ToolDefinition(name, description, parameters, strict=False, extras=_extras(own))
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, f"{path}.function.parameters") from None
    except ValidationError:
        # A name or schema the canonical rules refuse (a dash in a name, a
        # schema without "type": "object"): kept as Ollama's own tool.
        return ProviderTool(NAME, Raw(encode_body(t)))


# -- responses ------------------------------------------------------------


def decode_response(body: bytes | str) -> Response:
    response = fast_response(body)
    if response is not None:
        return response
    return response_from(json_body(body))


def general_response(body: bytes | str) -> Response:
    """:func:`decode_response` without the fast path: any shape, key by key."""
    return response_from(json_body(body))


def response_from(data: dict[str, Any]) -> Response:
    """The response a parsed body holds (the stream decoder builds such bodies)."""
    if "error" in data:
        raise _provider_error(data)
    own = rest_of(data, _RESPONSE_KEYS)
    if "done" not in data:
        own["~done"] = ABSENT
    model = _text(data, "model", "$", own)

    message: AssistantMessage | None = None
    m = data.get("message", _MISSING)
    if m is _MISSING:
        own["~message"] = ABSENT
    elif m is None:
        own["message"] = None
    else:
        m = expect_dict(m, "$.message")
        role = m.get("role", _MISSING)
        if role is not _MISSING and role != "assistant":
            raise ValidationError('must be "assistant"', "$.message.role")
        created = data.get("created_at")
        seed = created if type(created) is str else ""
        message = _assistant(m, "$.message", seed, role=role is not _MISSING)

    reason = data.get("done_reason")
    finish: FinishReason | None = None
    if type(reason) is str:
        finish = FINISH.get(reason, FinishReason.OTHER)
        if (
            finish is FinishReason.STOP
            and message is not None
            and (message.tool_calls or message.invalid_tool_calls)
        ):
            finish = FinishReason.TOOL_CALLS
    elif reason is not None:
        raise ValidationError("must be a string", "$.done_reason")
    elif "done_reason" in data:
        own["done_reason"] = None

    usage = _usage(data, own)
    choice = Choice(message, finish, reason if finish is not None else None)
    return Response((choice,), None, model, usage, extras=_extras(own))


def _usage(data: dict[str, Any], own: dict[str, Any]) -> Usage | None:
    prompt = data.get("prompt_eval_count")
    completion = data.get("eval_count")
    if type(prompt) is int and type(completion) is int and prompt >= 0 and completion >= 0:
        return Usage(prompt, completion)
    counts: list[int] = []
    absent: list[str] = []
    for key in ("prompt_eval_count", "eval_count"):
        value = data.get(key, _MISSING)
        if type(value) is int:
            counts.append(value)
            continue
        if value is _MISSING:
            absent.append(key)
        elif value is None:
            own[key] = None
            absent.append(key)
        else:
            raise ValidationError("must be an integer", f"$.{key}")
        counts.append(0)
    if len(absent) == 2:
        return None
    if counts[0] < 0 or counts[1] < 0:
        key = "prompt_eval_count" if counts[0] < 0 else "eval_count"
        raise ValidationError("must not be negative", f"$.{key}")
    return Usage(counts[0], counts[1], extras={NAME: {"~absent": absent}} if absent else None)


def _provider_error(data: dict[str, Any]) -> ProviderError:
    error = data["error"]
    type_ = code = message = None
    if type(error) is str:
        message = error
    elif type(error) is dict:  # the OpenAI shape, from a proxy in front of Ollama
        message = error.get("message") if type(error.get("message")) is str else None
        type_ = error.get("type") if type(error.get("type")) is str else None
        code = error.get("code") if type(error.get("code")) in (str, int) else None
    return ProviderError(NAME, type=type_, code=code, message=message, body=data)
