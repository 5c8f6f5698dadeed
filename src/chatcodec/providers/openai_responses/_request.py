"""Responses API requests (``POST /v1/responses``): wire <-> canonical.

``instructions`` is the first (system) message; the ``input`` items follow
it (see :mod:`._decode_items`). Function tools map to tool definitions (``strict``
at the tool's top level); built-in tools (web search, file search, MCP...)
are kept verbatim as provider tools. ``text.format`` is the response format,
``max_output_tokens`` the token limit. ``previous_response_id``,
``conversation`` and ``store`` stay in ``extras``: the earlier turns they
name live on OpenAI's side, and another family's encoder reports them.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._depth import refuses_depth
from ..._errors import DepthError, ValidationError
from ..._exchange import (
    ProviderTool,
    Reasoning,
    Request,
    ResponseFormat,
    Tool,
    ToolChoice,
    effort_of,
)
from ..._loss import Loss, cannot_run
from ..._messages import DeveloperMessage, Message, SystemMessage, UserMessage
from ..._schema import thaw
from ..._tools import ToolDefinition
from .._cache import report_cache
from .._ids import unique_call_ids
from .._lower import lower
from .._wire import (
    MAX_BODY,
    Encoding,
    check_size,
    choice_written,
    encode_body,
    expect_dict,
    fill,
    json_body,
)
from ..openai._common import is_closed
from ._common import NAME, encode_json, extras, opt_str, opt_typed, rest
from ._decode_items import read_items
from ._encode_items import write_message
from ._fastreq import fast_request

__all__ = ["decode_request", "encode_request"]

_REQUEST = frozenset(
    {
        "input",
        "instructions",
        "model",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_output_tokens",
        "temperature",
        "top_p",
        "stream",
        "text",
        "user",
        "reasoning",
    }
)
_EFFORTS = frozenset({"none", "minimal", "low", "medium", "high"})
_FUNCTION = frozenset({"type", "name", "description", "parameters", "strict"})
_CHOICES = frozenset({"auto", "none", "required"})
_FORMATS = frozenset({"text", "json_object", "json_schema"})
_SCHEMA = frozenset({"type", "name", "schema", "strict"})
_NUMBER = (int, float)


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read an OpenAI Responses API request body.

    Parameters
    ----------
    body : bytes or str
        The JSON body sent to ``/v1/responses``.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Request
        ``instructions`` as the first message, then the ``input`` items as
        messages; tools and parameters. Every other key (``reasoning``,
        ``include``, ``previous_response_id``, ``store``...) stays in
        ``extras["openai-responses"]``.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If it is not an object, or a field has the wrong type; the error
        names the JSON path and the rule.

    Examples
    --------
    >>> from chatcodec import providers
    >>> codec = providers.get("openai-responses")
    >>> request = codec.decode_request(
    ...     b'{"model":"gpt-5","instructions":"Be brief.","input":"Hi",'
    ...     b'"max_output_tokens":50,"store":false}'
    ... )
    >>> [m.role.value for m in request.messages], request.max_tokens
    (['system', 'user'], 50)
    >>> request.extras
    {'openai-responses': {'store': False, '~input': 'str'}}
    """
    check_size(body, max_bytes)
    fast = fast_request(body)
    return fast if fast is not None else general_request(body)


def general_request(body: bytes | str) -> Request:
    """:func:`decode_request` without the fast path: any shape, key by key."""
    obj = json_body(body)
    own = rest(obj, _REQUEST)
    messages: list[Message] = []
    instructions = obj.get("instructions")
    if type(instructions) is str and instructions:
        messages.append(SystemMessage(instructions))
    elif "instructions" in obj:
        own["instructions"] = instructions
    text = obj.get("input")
    if type(text) is str and text:
        messages.append(UserMessage(text))
        own["~input"] = "str"
    elif type(text) is list:
        messages += read_items(text, "$.input")
        if not text:
            own["~input"] = "list"
    elif "input" in obj:
        own["input"] = text
    model = opt_str(obj, "model", "$.model", own)
    tools: tuple[Tool, ...] = ()
    raw_tools = obj.get("tools")
    if type(raw_tools) is list and raw_tools:
        tools = tuple(_tool(t, f"$.tools[{i}]") for i, t in enumerate(raw_tools))
    elif "tools" in obj:
        own["tools"] = raw_tools
    return Request(
        tuple(messages),
        model,
        tools,
        _tool_choice(obj, own),
        opt_typed(obj, "parallel_tool_calls", (bool,), "must be a boolean", own),
        opt_typed(obj, "max_output_tokens", (int,), "must be an integer", own),
        opt_typed(obj, "temperature", _NUMBER, "must be a number", own),
        opt_typed(obj, "top_p", _NUMBER, "must be a number", own),
        None,
        opt_typed(obj, "stream", (bool,), "must be a boolean", own),
        _text_format(obj, own),
        user=opt_str(obj, "user", "$.user", own),
        reasoning=_reasoning(obj, own),
        extras=extras(own),
    )


def _reasoning(obj: dict[str, Any], own: dict[str, Any]) -> Reasoning | None:
    """``reasoning`` as the canonical setting when it is only an effort; else kept as sent."""
    value = obj.get("reasoning")
    if type(value) is dict and value.keys() == {"effort"}:
        effort = value["effort"]
        if type(effort) is str and effort in _EFFORTS:  # any JSON value may come: not a key
            return Reasoning(value["effort"])
    if "reasoning" in obj:
        own["reasoning"] = value
    return None


def _tool(value: Any, path: str) -> Tool:
    tool = expect_dict(value, path)
    if tool.get("type") == "function":
        try:
            definition = _definition(tool)
        except DepthError as exc:  # the place in the body, named only if it is too deep
            raise DepthError(exc.limit, f"{path}.parameters") from None
        if definition is not None:
            return definition
    return ProviderTool(NAME, Raw(encode_json(tool)))


def _definition(tool: dict[str, Any]) -> ToolDefinition | None:
    name, description = tool.get("name"), tool.get("description")
    parameters, strict = tool.get("parameters"), tool.get("strict")
    if type(name) is not str or (description is not None and type(description) is not str):
        return None
    if parameters is not None and type(parameters) is not dict:
        return None
    own = rest(tool, _FUNCTION)
    for key in ("description", "parameters"):
        if key in tool and tool[key] is None:
            own[key] = None
    if "parameters" not in tool:
        own["~noparams"] = 1
    if description == "":
        own["description"] = ""
        description = None
    if "strict" not in tool:
        own["~strict"] = 1
    elif type(strict) is not bool:
        own["strict"] = strict
    if strict is True and (parameters is None or not is_closed(parameters)):
        own["~asis"] = 1
    try:
        return ToolDefinition(
            name, description, parameters, strict=strict is True, extras=extras(own)
        )
    except ValidationError:  # a name or schema the canonical form refuses
        return None


def _tool_choice(obj: dict[str, Any], own: dict[str, Any]) -> ToolChoice | None:
    value = obj.get("tool_choice")
    if type(value) is str and value in _CHOICES:
        return ToolChoice(value)  # type: ignore[arg-type]
    if type(value) is dict and value.keys() == {"type", "name"} and value["type"] == "function":
        name = value["name"]
        if type(name) is str and name:
            return ToolChoice("tool", name)
    if "tool_choice" in obj:
        own["tool_choice"] = value
    return None


def _text_format(obj: dict[str, Any], own: dict[str, Any]) -> ResponseFormat | None:
    text = obj.get("text")
    if type(text) is not dict or type(text.get("format")) is not dict:
        if "text" in obj:
            own["text"] = text
        return None
    spec = text["format"]
    kind = spec.get("type")
    others = rest(text, frozenset({"format"}))
    if kind in ("text", "json_object") and spec.keys() == {"type"}:
        fmt = ResponseFormat(kind)
    elif kind == "json_schema" and type(spec.get("schema")) is dict:
        name, strict = spec.get("name"), spec.get("strict")
        if (name is not None and type(name) is not str) or (
            strict is not None and type(strict) is not bool
        ):
            own["text"] = text
            return None
        part_own = rest(spec, _SCHEMA)
        for key in ("name", "strict"):
            if key in spec and spec[key] is None:
                part_own[key] = None
        if "name" not in spec:
            part_own["~noname"] = 1
        fmt = ResponseFormat(kind, name, spec["schema"], strict, extras=extras(part_own))
    else:
        own["text"] = text
        return None
    if others:
        own["text"] = others
    return fmt


@refuses_depth
def encode_request(request: Request, *, losses: list[Loss] | None = None) -> bytes:
    """Write an OpenAI Responses API request body.

    Parameters
    ----------
    request : Request
        The canonical request (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry (stop sequences, another
        provider's blocks and fields...).

    Returns
    -------
    bytes
        The JSON body. A first system or developer message that did not come
        from ``input`` is written as ``instructions``.

    Examples
    --------
    >>> from chatcodec import Request, system, user
    >>> from chatcodec import providers
    >>> codec = providers.get("openai-responses")
    >>> codec.encode_request(Request((system("Be brief."), user("Hi")), model="gpt-5"))
    b'{"model":"gpt-5","instructions":"Be brief.","input":[{"role":"user","content":"Hi"}]}'
    """
    enc = Encoding(NAME, losses)
    request = unique_call_ids(lower(request, enc, result_names=False), enc)
    report_cache(request, enc)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    messages = request.messages
    start = 0
    if messages and isinstance(messages[0], SystemMessage | DeveloperMessage):
        first = messages[0]
        first_own = first.extras.get(NAME) if first.extras else None
        if not (isinstance(first_own, dict) and "~input" in first_own):
            enc.own(first.extras, "$.messages[0]")
            out["instructions"] = first.content
            start = 1
    items: list[Any] = []
    for i in range(start, len(messages)):
        write_message(messages[i], f"$.messages[{i}]", enc, items)
    hint = own.get("~input")
    if hint == "str" and len(items) == 1 and items[0].keys() == {"role", "content"}:
        out["input"] = items[0]["content"]
    elif items or hint == "list":
        out["input"] = items
    sent: list[Any] = []
    if request.tools:
        tools = [_write_tool(t, f"$.tools[{i}]", enc) for i, t in enumerate(request.tools)]
        sent = [tool for tool in tools if tool is not None]
        if sent:
            out["tools"] = sent
    choice = choice_written(request, len(sent), enc)
    if choice is not None:
        out["tool_choice"] = (
            {"type": "function", "name": choice.name} if choice.mode == "tool" else choice.mode
        )
    if request.parallel_tool_calls is not None:
        out["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_tokens is not None:
        out["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.top_p is not None:
        out["top_p"] = request.top_p
    if request.stop is not None:
        enc.lose("$.stop", f"{NAME} has no stop sequences")
    if request.user is not None:
        out["user"] = request.user
    _write_settings(request, out, enc)
    if request.stream is not None:
        out["stream"] = request.stream
    if request.response_format is not None:
        text = own.get("text")
        out["text"] = {
            **(text if type(text) is dict else {}),
            "format": _write_format(request.response_format, enc),
        }
    return encode_body(fill(out, own))


def _write_settings(request: Request, out: dict[str, Any], enc: Encoding) -> None:
    """The canonical settings the Responses API has no place for, each reported by name."""
    for value, path, said in (
        (request.top_k, "$.top_k", "top_k sampling"),
        (request.seed, "$.seed", "a seed"),
        (request.presence_penalty, "$.presence_penalty", "a presence penalty"),
        (request.frequency_penalty, "$.frequency_penalty", "a frequency penalty"),
    ):
        if value is not None:
            enc.lose(path, f"{said}: {NAME} has no such setting")
    if request.n is not None and request.n != 1:
        enc.lose("$.n", f"several answers: {NAME} gives one answer per request")
    if request.reasoning is not None:
        out["reasoning"] = reasoning_field(request.reasoning, enc)


def reasoning_field(reasoning: Reasoning, enc: Encoding) -> dict[str, Any]:
    """``reasoning`` for a reasoning setting (a budget as the effort nearest it, reported)."""
    if reasoning.effort is not None:
        return {"effort": reasoning.effort}
    if reasoning.budget_tokens is None:
        return {}  # thinking at the provider's default
    effort = effort_of(reasoning.budget_tokens)
    rule = f"a thinking budget: {NAME} takes an effort, not tokens (sent as {effort!r})"
    enc.lose("$.reasoning.budget_tokens", rule)
    return {"effort": effort}


def _write_tool(tool: Tool, path: str, enc: Encoding) -> Any:
    if isinstance(tool, ProviderTool):
        if tool.provider == NAME:
            return tool.data
        enc.lose(path, cannot_run(tool.provider, NAME))
        return None
    own = enc.own(tool.extras, path)
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    if "~noparams" not in own and "parameters" not in own:
        if "~asis" in own or not tool.strict:
            out["parameters"] = thaw(tool.parameters) if tool.parameters is not None else None
        else:
            out["parameters"] = tool.emitted_parameters()
    if "~strict" not in own and "strict" not in own:
        out["strict"] = tool.strict
    return fill(out, own)


def _write_format(fmt: ResponseFormat, enc: Encoding) -> dict[str, Any]:
    own = enc.own(fmt.extras, "$.response_format")
    out: dict[str, Any] = {"type": fmt.type}
    if fmt.type == "json_schema":
        if fmt.name is not None:
            out["name"] = fmt.name
        elif "name" not in own and "~noname" not in own:
            out["name"] = "response"  # required by the API
        out["schema"] = fmt.schema if fmt.schema is not None else {"type": "object"}
        if fmt.strict is not None:
            out["strict"] = fmt.strict
    return fill(out, own)
