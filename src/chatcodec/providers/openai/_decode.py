"""OpenAI Chat Completions wire -> canonical.

Strategy: the body is parsed once into builtins (msgspec, in C), then each
object is mapped key by key. A key is *consumed* only when its value has the
canonical shape; anything else (``null``, a dialect's key, a value of an odd
shape) stays in the record's ``extras["openai"]`` as sent, and the encoder
writes it back wherever the canonical fields leave a gap.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._cache import CachePoint
from ..._content import ContentPart, TextPart
from ..._errors import DepthError, ValidationError
from ..._exchange import ProviderTool, Request, Tool, ToolChoice
from ..._messages import (
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import ToolDefinition
from .._cache import take_cache
from .._wire import MAX_BODY, check_size, derive_id, expect_dict, expect_list, expect_str, json_body
from ._common import (
    ABSENT,
    NAME,
    SETTINGS,
    encode_json,
    extras,
    is_closed,
    keep_or_fail,
    opt_str,
    rest,
    take_settings,
    wire_cache,
)
from ._decode_assistant import TYPE_TEXT, assistant
from ._fastreq import fast_request
from ._readers import forced, part, read_response_format

__all__ = ["GENERAL_KEYS", "decode_request", "general_request"]

_REQUEST = GENERAL_KEYS = frozenset(
    {
        "messages",
        "model",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "stop",
        "stream",
        "response_format",
        "functions",
        "function_call",
        *SETTINGS,
    }
)
_ROLE_CONTENT = frozenset({"role", "content"})
_TOOL_MESSAGE = frozenset({"role", "content", "tool_call_id", "name"})
_FUNCTION_MESSAGE = frozenset({"role", "content", "name"})
_TOOL = frozenset({"type", "function"})
_FUNCTION = frozenset({"name", "description", "parameters", "strict"})
_TOOL_CHOICES = frozenset({"auto", "none", "required"})


# -- requests -------------------------------------------------------------------


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read an OpenAI Chat Completions request body.

    Parameters
    ----------
    body : bytes or str
        The JSON body sent to ``/v1/chat/completions`` (OpenAI or a dialect:
        Groq, Mistral, DeepSeek, OpenRouter, Azure, vLLM, Ollama ``/v1``).
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Request
        Messages, tools and parameters; every other key stays in
        ``extras["openai"]``.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If it is not an object, or a field has the wrong type; the error
        names the JSON path and the rule.

    Examples
    --------
    >>> from chatcodec.providers import openai
    >>> request = openai.decode_request(
    ...     b'{"model":"gpt-4o","messages":[{"role":"developer","content":"Be brief."},'
    ...     b'{"role":"user","content":"Hi"}],"max_completion_tokens":50,"seed":7}'
    ... )
    >>> [m.role.value for m in request.messages], request.max_tokens, request.seed
    (['developer', 'user'], 50, 7)
    >>> request.extras
    {'openai': {'~max_tokens': 'max_completion_tokens'}}
    """
    check_size(body, max_bytes)
    request = fast_request(body)
    if request is not None:
        return request
    return general_request(body)


def general_request(body: bytes | str) -> Request:
    """:func:`decode_request` without the fast path: any shape, key by key."""
    obj = json_body(body)
    own: dict[str, Any] = rest(obj, _REQUEST) or {}
    messages = _messages(expect_list(obj.get("messages", []), "$.messages"))
    model = opt_str(obj, "model", "$.model", own)

    tools: tuple[Tool, ...] = ()
    raw_tools = obj.get("tools", ABSENT)
    if type(raw_tools) is list:
        tools = tuple(_tool(t, f"$.tools[{i}]") for i, t in enumerate(raw_tools))
        if not tools:
            own["tools"] = raw_tools
    elif raw_tools is not ABSENT:
        keep_or_fail(raw_tools, "tools", "$.tools", own, "must be an array")
    if "functions" in obj:
        functions = obj["functions"]
        if not tools and raw_tools is ABSENT and type(functions) is list:
            tools = tuple(_function_tool(f, f"$.functions[{i}]") for i, f in enumerate(functions))
            own["~functions"] = 1
        else:
            own["functions"] = functions

    tool_choice = _tool_choice(obj, own)
    parallel = _opt(obj, "parallel_tool_calls", bool, "must be a boolean", own)
    max_tokens = _opt(obj, "max_tokens", int, "must be an integer", own)
    if "max_completion_tokens" in obj:
        value = obj["max_completion_tokens"]
        if max_tokens is None and "max_tokens" not in obj and type(value) is int:
            max_tokens = value
            own["~max_tokens"] = "max_completion_tokens"
        else:
            own["max_completion_tokens"] = _check_int(value, "$.max_completion_tokens")
    temperature = _opt_number(obj, "temperature", own)
    top_p = _opt_number(obj, "top_p", own)
    stop = _stop(obj, own)
    stream = _opt(obj, "stream", bool, "must be a boolean", own)
    value = obj.get("response_format", ABSENT)
    response_format = None if value is ABSENT else read_response_format(value, own)
    settings = take_settings({key: obj[key] for key in SETTINGS if key in obj}, own)
    return Request(
        messages,
        model,
        tools,
        tool_choice,
        parallel,
        max_tokens,
        temperature,
        top_p,
        stop,
        stream,
        response_format,
        **settings,
        extras=extras(own),
    )


def _opt(obj: dict[str, Any], key: str, kind: type, rule: str, own: dict[str, Any]) -> Any:
    value = obj.get(key)
    if value is None:
        if key in obj:
            own[key] = None
        return None
    if type(value) is not kind:
        raise ValidationError(rule, f"$.{key}")
    return value


def _opt_number(obj: dict[str, Any], key: str, own: dict[str, Any]) -> float | None:
    value = obj.get(key)
    if value is None:
        if key in obj:
            own[key] = None
        return None
    kind = type(value)
    if kind is not float and kind is not int:
        raise ValidationError("must be a number", f"$.{key}")
    return value  # type: ignore[no-any-return]


def _check_int(value: Any, path: str) -> Any:
    if value is not None and type(value) is not int:
        raise ValidationError("must be an integer", path)
    return value


def _stop(obj: dict[str, Any], own: dict[str, Any]) -> tuple[str, ...] | None:
    value = obj.get("stop")
    if value is None:
        if "stop" in obj:
            own["stop"] = None
        return None
    if type(value) is str:
        own["~stop"] = "str"
        return (value,)
    for i, item in enumerate(expect_list(value, "$.stop")):
        expect_str(item, f"$.stop[{i}]")
    return tuple(value)


def _tool_choice(obj: dict[str, Any], own: dict[str, Any]) -> ToolChoice | None:
    key = "tool_choice"
    if key not in obj and "function_call" in obj:
        key = "function_call"
    choice = None
    if key in obj:
        value = obj[key]
        if type(value) is str:
            if value in _TOOL_CHOICES:
                choice = ToolChoice(value)  # type: ignore[arg-type]
            elif value == "any":  # Mistral's "required"
                choice = ToolChoice("required")
                own["~tool_choice"] = "any"
        elif type(value) is dict:
            choice = forced(value, key)
            if choice is not None and "type" not in value and key == "tool_choice":
                own["~tool_choice"] = "untyped"
        if choice is None:
            own[key] = value
        elif key == "function_call":
            own["~function_call"] = 1
    if key == "tool_choice" and "function_call" in obj:
        own["function_call"] = obj["function_call"]
    return choice


# -- tools ----------------------------------------------------------------------


def _tool(value: Any, path: str) -> Tool:
    tool = expect_dict(value, path)
    function = tool.get("function")
    kind = tool.get("type", ABSENT)
    if (kind == "function" or kind is ABSENT) and type(function) is dict:
        own = rest(tool, _TOOL) or {}
        if kind is ABSENT:
            own["~type"] = None
        cache, kept = wire_cache(own)
        try:
            definition = _definition(function, kept or {}, cache)
        except DepthError as exc:  # the place in the body, named only if it is too deep
            raise DepthError(exc.limit, f"{path}.function.parameters") from None
        if definition is not None:
            return definition
    return ProviderTool(NAME, Raw(encode_json(tool)))


def _function_tool(value: Any, path: str) -> Tool:
    function = expect_dict(value, path)
    try:
        definition = _definition(function, {})
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, f"{path}.parameters") from None
    return definition if definition is not None else ProviderTool(NAME, Raw(encode_json(function)))


def _definition(
    function: dict[str, Any], own: dict[str, Any], cache: CachePoint | None = None
) -> ToolDefinition | None:
    name = function.get("name")
    description = function.get("description")
    parameters = function.get("parameters")
    strict = function.get("strict")
    if type(name) is not str:
        return None
    inner = rest(function, _FUNCTION) or {}
    if description is not None and type(description) is not str:
        return None
    if parameters is not None and type(parameters) is not dict:
        return None
    for key in ("description", "parameters"):
        if key in function and function[key] is None:
            inner[key] = None
    if description == "":  # canonically absent; kept for the way back
        inner["description"] = ""
        description = None
    if strict is not True and "strict" in function:
        inner["strict"] = strict
    if strict is True and (parameters is None or not is_closed(parameters)):
        own["~asis"] = 1
    if inner:
        own["~function"] = inner
    try:
        return ToolDefinition(
            name, description, parameters, strict=strict is True, extras=extras(own), cache=cache
        )
    except ValidationError:
        return None


# -- messages -------------------------------------------------------------------


def _messages(items: list[Any]) -> tuple[Message, ...]:
    out: list[Message] = []
    # Legacy function results name their call; they answer the latest one.
    by_name: dict[str, str] = {}
    for i, item in enumerate(items):
        path = f"$.messages[{i}]"
        try:
            message = _message(item, path, i, by_name)
        except ValidationError as exc:
            if type(exc) is not ValidationError or exc.path.startswith("$.messages["):
                raise
            # A message's own rule names its field; the error names the message too.
            raise ValidationError(exc.rule, path + exc.path[1:]) from None
        out.append(message)
    return tuple(out)


def _message(item: Any, path: str, i: int, by_name: dict[str, str]) -> Message:
    m = expect_dict(item, path)
    role = expect_str(m.get("role"), f"{path}.role")
    message: Message
    if role == "user":
        own = rest(m, _ROLE_CONTENT)
        message = UserMessage(_user_content(m, path), extras=extras(own))
    elif role == "assistant":
        message = assistant(m, path, i)
        if message.extras and message.extras[NAME].get("~function_call"):
            call = (message.tool_calls or message.invalid_tool_calls)[0]
            if call.name and call.id:
                by_name[call.name] = call.id
    elif role == "tool":
        message = _tool_message(m, path, i)
    elif role in ("system", "developer"):
        message = _instruction(m, role, path)
    elif role == "function":
        message = _function_message(m, path, i, by_name)
    else:
        raise ValidationError("must be a known role", f"{path}.role")
    return message


def _instruction(m: dict[str, Any], role: str, path: str) -> Message:
    own = rest(m, _ROLE_CONTENT) or {}
    content = m.get("content")
    cache = None
    if type(content) is list:
        texts: list[str] = []
        parts: list[list[Any]] = []
        for j, part in enumerate(content):
            p = expect_dict(part, f"{path}.content[{j}]")
            text = p.get("text")
            if p.get("type") != "text" or type(text) is not str:
                raise ValidationError("must be a text part", f"{path}.content[{j}]")
            texts.append(text)
            parts.append([len(text), rest(p, TYPE_TEXT) or {}])
        if parts:
            # A cache point on the last part closes the instruction: the message's.
            cache, last = take_cache(parts[-1][1])
            if cache is not None:
                own["~cache"] = 1
            parts[-1][1] = last or {}
        own["~parts"] = parts
        content = "".join(texts)
    text = expect_str(content, f"{path}.content")
    cls = SystemMessage if role == "system" else DeveloperMessage
    return cls(text, extras=extras(own), cache=cache)


def _user_content(m: dict[str, Any], path: str) -> str | tuple[ContentPart, ...]:
    content = m.get("content")
    if type(content) is str:
        return content
    items = expect_list(content, f"{path}.content")
    return tuple(part(expect_dict(p, f"{path}.content[{j}]")) for j, p in enumerate(items))


def _tool_message(m: dict[str, Any], path: str, index: int) -> ToolMessage:
    own = rest(m, _TOOL_MESSAGE) or {}
    content: str | tuple[ContentPart, ...]
    raw = m.get("content", ABSENT)
    if type(raw) is str:
        content = raw
    elif raw is None or raw is ABSENT:
        content = ""
        own["~content"] = None if raw is None else "absent"
    else:
        items = expect_list(raw, f"{path}.content")
        content = tuple(part(expect_dict(p, f"{path}.content[{j}]")) for j, p in enumerate(items))
        if any(type(part) is not TextPart for part in content):
            own["~media"] = "in"  # the server took media in a tool message: kept there
    name = _result_name(m, own)
    call_id = m.get("tool_call_id")
    if type(call_id) is not str or not call_id:
        if "tool_call_id" in m:
            own["tool_call_id"] = call_id
        own["~id"] = "derived"
        call_id = derive_id("call_", index, "tool", m.get("name"))
    return ToolMessage(call_id, content, name=name, extras=extras(own))


def _result_name(m: dict[str, Any], own: dict[str, Any]) -> str | None:
    """The tool's name a result carries; one that is not a name stays in ``own``."""
    name = m.get("name")
    if type(name) is str and name:
        return name
    if "name" in m:
        own["name"] = name
    return None


def _function_message(
    m: dict[str, Any], path: str, index: int, by_name: dict[str, str]
) -> ToolMessage:
    own = rest(m, _FUNCTION_MESSAGE) or {}
    own["~role"] = "function"
    result_name = _result_name(m, own)
    content = m.get("content")
    if content is None:
        own["~content"] = None if "content" in m else "absent"
        content = ""
    else:
        content = expect_str(content, f"{path}.content")
    name = m.get("name")
    call_id = by_name.get(name) if type(name) is str else None
    if call_id is None:
        call_id = derive_id("call_", index, "function", name)
    return ToolMessage(call_id, content, name=result_name, extras=extras(own))
