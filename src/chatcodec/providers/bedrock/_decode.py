"""Converse wire to canonical: ``Converse`` request and response bodies.

A ``user`` turn becomes one tool message per ``toolResult`` block and user
messages for the blocks between them, in their order; an ``assistant`` turn
becomes one assistant message, its ``toolUse`` blocks as tool calls (with an
``~order`` hint when a call comes before other blocks). The encoder joins
consecutive messages of one wire role back into one turn; a turn that
followed another of the same role carries a ``~turn`` hint.

What has no canonical field stays under ``extras["bedrock"]``: the request's
``additionalModelRequestFields``, ``guardrailConfig``, ``promptVariables``
and the like verbatim, the keys of ``inferenceConfig`` and ``toolConfig``
chatcodec does not model (in objects of those names), and the response's
``metrics``, ``trace`` and ``performanceConfig``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from ..._content import AssistantPart, ContentPart, TextPart
from ..._errors import DepthError, ProviderError, ValidationError
from ..._exchange import (
    Choice,
    ProviderTool,
    Request,
    Response,
    ResponseFormat,
    Tool,
    ToolChoice,
)
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import ToolCall, ToolDefinition
from ..._usage import Usage
from .._wire import (
    MAX_BODY,
    check_size,
    encode_body,
    expect_dict,
    expect_list,
    extras_for,
    json_body,
    leftover,
)
from ._blocks import (
    AFTER,
    NAME,
    TURN,
    assistant_part,
    cache_point,
    closable,
    closed,
    finish_reason,
    user_part,
)
from ._fast import fast_response

__all__ = [
    "decode_request",
    "decode_response",
    "finish_reason",
    "general_response",
    "response_from",
]

_TOP = frozenset(("messages", "system", "toolConfig", "inferenceConfig", "modelId", "outputConfig"))
_INFERENCE = FrozenMap({"maxTokens": "max_tokens", "temperature": "temperature", "topP": "top_p"})
_TOOL_USE = frozenset(("toolUseId", "name", "input"))
_TOOL_RESULT = frozenset(("toolUseId", "content", "status"))
_SPEC = frozenset(("name", "description", "inputSchema", "strict"))
_TURN_KEYS = frozenset(("role", "content"))
_OUTPUT_KEYS = frozenset(("message",))
_RESPONSE = frozenset(("output", "stopReason", "usage"))
_ERROR_KEYS = frozenset(("message", "Message"))
_CHOICES = FrozenMap({"auto": "auto", "any": "required", "tool": "tool"})
_USAGE = (
    "inputTokens", "outputTokens", "totalTokens", "cacheReadInputTokens", "cacheWriteInputTokens"
)  # fmt: skip
_USAGE_KEYS = frozenset(_USAGE)


def _number(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and value == value


class _Turns:
    """The canonical messages of the ``messages`` array, turn by turn."""

    __slots__ = ("messages", "previous")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.previous: Any = None

    def turn(self, value: Any, path: str) -> None:
        wire = expect_dict(value, path)
        role, content = wire.get("role"), wire.get("content")
        if role != "user" and role != "assistant":
            raise ValidationError('must be "user" or "assistant"', f"{path}.role")
        blocks = expect_list(content, f"{path}.content")
        head: dict[str, Any] = {}
        if len(wire) > 2:
            rest = leftover(wire, _TURN_KEYS)
            head[TURN] = rest  # not a hint: another family reports it lost
        if role == self.previous:
            head["~turn"] = True
        self.previous = role
        if role == "assistant":
            self.messages.append(self.assistant(blocks, path, head))
        else:
            self.user(blocks, path, head)

    def assistant(self, blocks: list[Any], path: str, head: dict[str, Any]) -> AssistantMessage:
        parts: list[AssistantPart] = []
        calls: list[ToolCall] = []
        order: list[str] = []
        for block in blocks:
            if type(block) is dict and "cachePoint" in block and order:
                # The cache point of the block before it, if that takes one.
                if order[-1] == "t":
                    call = closed(calls[-1], block)
                    if call is not None:
                        calls[-1] = call
                        continue
                elif closable(parts[-1]):
                    part = closed(parts[-1], block)
                    if part is not None:
                        parts[-1] = part
                        continue
            call = _tool_use(block)
            if call is not None:
                calls.append(call)
                order.append("t")
            else:
                parts.append(assistant_part(block))
                order.append("c")
        hints = dict(head)
        shown = "".join(order)
        if "tc" in shown:
            hints["~order"] = shown
        content: str | tuple[AssistantPart, ...] | None
        if (
            len(parts) == 1
            and type(parts[0]) is TextPart
            and parts[0].text
            and not parts[0].extras
            and parts[0].cache is None
            and not parts[0].citations
        ):
            content = parts[0].text
        elif parts or not calls:
            content = tuple(parts)
        else:
            content = None
        return AssistantMessage(
            content=content, tool_calls=tuple(calls), extras=extras_for(NAME, hints or None)
        )

    def user(self, blocks: list[Any], path: str, head: dict[str, Any]) -> None:
        if not blocks:
            raise ValidationError("must not be empty", f"{path}.content")
        pending: list[ContentPart] = []
        hints: dict[str, Any] | None = head
        result_last = False  # the block before is a tool result (the last message)
        for j, block in enumerate(blocks):
            body = block.get("toolResult") if type(block) is dict and len(block) == 1 else None
            result = _tool_result(body, f"{path}.content[{j}]") if type(body) is dict else None
            if result is None:
                if type(block) is dict and "cachePoint" in block:
                    # The cache point of the block before it, if that takes one.
                    if result_last:
                        message = closed(self.messages[-1], block)
                        if message is not None:
                            self.messages[-1] = message
                            result_last = False
                            continue
                    elif pending and closable(pending[-1]):
                        part = closed(pending[-1], block)
                        if part is not None:
                            pending[-1] = part
                            continue
                result_last = False
                pending.append(user_part(block))
                continue
            result_last = True
            if pending:
                self.messages.append(_user(pending, hints))
                pending, hints = [], None
            tool, own = result
            if hints:
                own.update(hints)
            hints = None
            self.messages.append(
                ToolMessage(
                    tool_call_id=tool[0], content=tool[1], is_error=tool[2], extras=_own(own)
                )
            )
        if pending:
            self.messages.append(_user(pending, hints))


def _own(keep: dict[str, Any] | None) -> dict[str, Any] | None:
    return extras_for(NAME, keep or None)


def _user(parts: list[ContentPart], hints: dict[str, Any] | None) -> UserMessage:
    if (
        len(parts) == 1
        and type(parts[0]) is TextPart
        and parts[0].text
        and not parts[0].extras
        and parts[0].cache is None
    ):
        return UserMessage(parts[0].text, extras=_own(hints))
    return UserMessage(tuple(parts), extras=_own(hints))


def _tool_use(block: Any) -> ToolCall | None:
    body = block.get("toolUse") if type(block) is dict and len(block) == 1 else None
    if type(body) is not dict or not body.keys() >= _TOOL_USE:
        return None
    call_id, name, arguments = body["toolUseId"], body["name"], body["input"]
    if type(call_id) is not str or not call_id or type(name) is not str or not name:
        return None
    if type(arguments) is not dict or body.get("type") == "server_tool_use":
        return None  # a call the server runs itself is kept whole, with its result
    rest = leftover(body, _TOOL_USE)
    return ToolCall(id=call_id, name=name, arguments=Raw(encode_body(arguments)), extras=_own(rest))


def _tool_result(
    body: dict[str, Any], path: str
) -> tuple[tuple[str, str | tuple[ContentPart, ...], bool], dict[str, Any]] | None:
    call_id = body.get("toolUseId")
    if type(call_id) is not str or not call_id:
        return None
    own = leftover(body, _TOOL_RESULT) or {}
    status = body.get("status")
    if "status" in body and status != "error":
        if status == "success":
            own["~status"] = status
        else:
            own["status"] = status
    content: str | tuple[ContentPart, ...] = ""
    if "content" not in body:
        own["~content"] = None
    else:
        blocks = expect_list(body["content"], f"{path}.toolResult.content")
        parts = [user_part(block) for block in blocks]
        if len(parts) == 1 and type(parts[0]) is TextPart and not parts[0].extras:
            content = parts[0].text
        elif parts:
            content = tuple(parts)
        else:
            own["~content"] = []
    return (call_id, content, status == "error"), own


def _system(value: Any) -> list[SystemMessage] | None:
    """System messages, each with the non-text blocks after it; ``None`` if irregular."""
    if type(value) is not list or not value:
        return None
    out: list[tuple[str, list[Any]]] = []
    for block in value:
        text = block.get("text") if type(block) is dict and len(block) == 1 else None
        if type(text) is str and text:
            out.append((text, []))
        elif out and type(block) is dict and "text" not in block:
            out[-1][1].append(block)
        else:
            return None
    messages = []
    for text, after in out:
        cache = cache_point(after[0]) if after else None
        if cache is not None:
            del after[0]
        messages.append(
            SystemMessage(text, extras=_own({AFTER: after} if after else None), cache=cache)
        )
    return messages


def _tool_at(value: Any, k: int) -> Tool:
    try:
        return _tool(value)
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, f"$.toolConfig.tools[{k}].toolSpec.inputSchema.json") from None


def _tool(value: Any) -> Tool:
    spec = value.get("toolSpec") if type(value) is dict and len(value) == 1 else None
    if type(spec) is dict and "name" in spec and "inputSchema" in spec:
        name, description, schema = spec["name"], spec.get("description"), spec["inputSchema"]
        strict = spec.get("strict")
        inner = schema.get("json") if type(schema) is dict and len(schema) == 1 else None
        described = "description" not in spec or (type(description) is str and description)
        if (
            type(name) is str
            and described
            and type(inner) is dict
            and (strict is None or type(strict) is bool)
        ):
            rest: dict[str, Any] = leftover(spec, _SPEC) or {}
            if "strict" in spec:
                rest["~strict"] = strict
            try:
                return ToolDefinition(
                    name, description, inner, strict=strict is True, extras=_own(rest)
                )
            except ValidationError:
                pass  # a name or schema the canonical rules refuse: kept as is
    return ProviderTool(provider=NAME, data=Raw(encode_body(value)))


def _tool_config(value: Any, fields: dict[str, Any], extras: dict[str, Any]) -> None:
    if type(value) is not dict:
        extras["toolConfig"] = value
        return
    rest = dict(value)
    tools = rest.get("tools")
    if type(tools) is list and tools:
        kept: list[Tool] = []
        for k, tool in enumerate(tools):
            if kept and type(kept[-1]) is ToolDefinition and type(tool) is dict:
                # A cache point after a tool: that tool's.
                definition = closed(kept[-1], tool) if "cachePoint" in tool else None
                if definition is not None:
                    kept[-1] = definition
                    continue
            kept.append(_tool_at(tool, k))
        fields["tools"] = tuple(kept)
        del rest["tools"]
    choice = rest.get("toolChoice")
    found = choice.items() if type(choice) is dict and len(choice) == 1 else ()
    for key, body in found:
        mode = _CHOICES.get(key)
        if mode == "tool" and type(body) is dict and body.keys() == {"name"}:
            if type(body["name"]) is str and body["name"]:
                fields["tool_choice"] = ToolChoice("tool", body["name"])
                del rest["toolChoice"]
        elif mode is not None and body == {}:
            fields["tool_choice"] = ToolChoice(mode)  # type: ignore[arg-type]
            del rest["toolChoice"]
    extras["toolConfig"] = rest


def _inference(value: Any, fields: dict[str, Any], extras: dict[str, Any]) -> None:
    if type(value) is not dict:
        extras["inferenceConfig"] = value
        return
    rest: dict[str, Any] = {}
    for key, item in value.items():
        name = _INFERENCE.get(key)
        if (name == "max_tokens" and type(item) is int) or (
            name is not None and name != "max_tokens" and _number(item)
        ):
            fields[name] = item
        elif (
            key == "stopSequences"
            and type(item) is list
            and all(type(stop) is str for stop in item)
        ):
            fields["stop"] = tuple(item)
        else:
            rest[key] = item
    extras["inferenceConfig"] = rest


_TEXT_FORMAT = frozenset(("type", "structure"))
_JSON_SCHEMA = frozenset(("schema", "name", "description"))


def response_format(value: Any) -> ResponseFormat | None:
    """The answer's shape an ``outputConfig.textFormat`` asks for, or None when it is another.

    Converse takes a JSON schema as JSON text (``structure.jsonSchema.schema``),
    with a name and a description; a form with any other key is not read.
    """
    if type(value) is not dict or value.keys() != _TEXT_FORMAT or value["type"] != "json_schema":
        return None
    structure = value["structure"]
    if type(structure) is not dict or structure.keys() != {"jsonSchema"}:
        return None
    spec = structure["jsonSchema"]
    if type(spec) is not dict or not spec.keys() <= _JSON_SCHEMA:
        return None
    text, name, description = spec.get("schema"), spec.get("name"), spec.get("description")
    if type(text) is not str or (name is not None and type(name) is not str):
        return None
    if description is not None and type(description) is not str:
        return None
    try:
        schema = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return None
    if type(schema) is not dict:
        return None
    extras = {NAME: {"description": description}} if description is not None else None
    try:
        return ResponseFormat("json_schema", name=name, schema=schema, extras=extras)
    except (ValidationError, DepthError):
        return None


def _output(value: Any, fields: dict[str, Any], extras: dict[str, Any]) -> None:
    form = response_format(value.get("textFormat")) if type(value) is dict else None
    if form is None:
        extras["outputConfig"] = value
        return
    fields["response_format"] = form
    extras["~outputConfig"] = value  # as sent: written back whole while the shape is the same
    rest = {key: item for key, item in value.items() if key != "textFormat"}
    if rest:  # effort...: kept, and reported where another family has no place for it
        extras["outputConfig"] = rest


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read a Bedrock ``Converse`` (or ``ConverseStream``) request body.

    ``system`` blocks become system messages at the start; each ``toolResult``
    becomes a tool message (``status: "error"`` sets ``is_error``);
    ``inferenceConfig`` gives ``max_tokens``, ``temperature``, ``top_p`` and
    ``stop``. The model is named in the URL, so ``Request.model`` is
    ``None`` unless the body has a ``modelId``.

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If a field has the wrong type; the error names its JSON path.

    Examples
    --------
    >>> from chatcodec.providers import bedrock
    >>> body = (
    ...     b'{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]},'
    ...     b'{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1",'
    ...     b'"name":"get_weather","input":{"city":"Paris"}}}]},{"role":"user",'
    ...     b'"content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"Sunny"}]}}]}],'
    ...     b'"inferenceConfig":{"maxTokens":256}}'
    ... )
    >>> request = bedrock.decode_request(body)
    >>> request.messages[2].content, request.max_tokens
    ('Sunny', 256)
    >>> bedrock.encode_request(request) == body
    True
    """
    check_size(body, max_bytes)
    data = json_body(body)
    extras: dict[str, Any] = leftover(data, _TOP) or {}
    fields: dict[str, Any] = {}
    messages: list[Message] = []
    if "system" in data:
        system = _system(data["system"])
        if system is None:
            extras["system"] = data["system"]
        else:
            messages.extend(system)
    if "messages" in data:
        turns = _Turns()
        for i, turn in enumerate(expect_list(data["messages"], "$.messages")):
            turn_path = f"$.messages[{i}]"
            turns.turn(turn, turn_path)
        messages.extend(turns.messages)
        if not turns.messages:
            extras["~messages"] = []
    if "toolConfig" in data:
        _tool_config(data["toolConfig"], fields, extras)
    elif any(call for m in messages if type(m) is AssistantMessage for call in m.tool_calls):
        extras["~undeclared"] = True  # the encoder declares called tools unless the wire did not
    if "inferenceConfig" in data:
        _inference(data["inferenceConfig"], fields, extras)
    if "outputConfig" in data:
        _output(data["outputConfig"], fields, extras)
    if "modelId" in data:
        model = data["modelId"]
        if type(model) is str:
            fields["model"] = model
            extras["~model"] = "body"
        else:
            extras["modelId"] = model
    return Request(tuple(messages), extras=_own(extras), **fields)


# --- responses ---------------------------------------------------------------


def _count(usage: dict[str, Any], key: str) -> int | None:
    count = usage.get(key)
    if count is not None and (type(count) is not int or count < 0):
        raise ValidationError("must be a non-negative integer", "$.usage." + key)
    return count


def _usage(value: Any) -> Usage:
    usage = expect_dict(value, "$.usage")
    inputs, outputs, total = (
        _count(usage, _USAGE[0]),
        _count(usage, _USAGE[1]),
        _count(usage, _USAGE[2]),
    )
    cached, written = _count(usage, _USAGE[3]), _count(usage, _USAGE[4])
    rest: dict[str, Any] | None = None
    if len(usage) != 3 or inputs is None or outputs is None or total is None:
        # Anything but the three counts: the other keys, nulls, and what was left out.
        counts = (inputs, outputs, total, cached, written)
        rest = leftover(usage, _USAGE_KEYS) or {}
        for key, count in zip(_USAGE, counts, strict=True):
            if count is None and key in usage:
                rest[key] = None
        omitted = [key for key, count in zip(_USAGE[:3], counts, strict=False) if count is None]
        if omitted:
            rest["~omit"] = omitted
    prompt = (inputs or 0) + (cached or 0) + (written or 0)
    return Usage(prompt, outputs or 0, total, cached, None, written, extras=_own(rest))


def _error(data: dict[str, Any]) -> ProviderError:
    message = data.get("message", data.get("Message"))
    kind = data.get("__type")
    return ProviderError(
        NAME,
        type=kind if type(kind) is str else None,
        message=message if type(message) is str else None,
        body=data,
    )


def response_from(data: dict[str, Any]) -> Response:
    """Read a ``Converse`` response body already parsed to builtins."""
    if (
        "output" not in data
        and "stopReason" not in data
        and ("message" in data or "Message" in data)
    ):
        raise _error(data)
    extras = leftover(data, _RESPONSE) or {}
    message = None
    if "output" in data:
        output = data["output"]
        wrapped = output.get("message") if type(output) is dict else None
        if type(wrapped) is dict:
            rest = leftover(output, _OUTPUT_KEYS)
            hints: dict[str, Any] = {"output": rest} if rest else {}
            role = wrapped.get("role")
            if role != "assistant":
                hints["~role"] = role if "role" in wrapped else "~absent"
            turn = wrapped
            if role != "assistant":
                turn = {key: value for key, value in wrapped.items() if key != "role"}
                turn["role"] = "assistant"
            turns = _Turns()
            turns.turn(turn, "$.output.message")
            answer = turns.messages[0]
            assert isinstance(answer, AssistantMessage)  # an assistant turn gives one
            message = answer
            if hints:
                extras.update(hints)
        else:
            extras["output"] = output
    raw = data.get("stopReason")
    reason = None
    if type(raw) is str:
        reason = finish_reason(raw)
    elif "stopReason" in data:
        extras["stopReason"] = raw
        raw = None
    usage = _usage(data["usage"]) if "usage" in data else None
    choice = Choice(message, reason, raw)
    return Response((choice,), usage=usage, extras=_own(extras))


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read a Bedrock ``Converse`` response body.

    One choice, from ``output.message``; ``stopReason`` is normalized
    (``end_turn`` is ``stop``, ``tool_use`` is ``tool_calls``...) and kept in
    ``raw_finish_reason``. ``usage.prompt_tokens`` counts every input token,
    the cache reads and writes included (``inputTokens`` does not).

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    ProviderError
        If the body is an error body (``{"message": ...}``).
    DecodeError
        If the body is not JSON.
    ValidationError
        If a field has the wrong type; the error names its JSON path.

    Examples
    --------
    >>> from chatcodec.providers import bedrock
    >>> response = bedrock.decode_response(
    ...     b'{"output":{"message":{"role":"assistant","content":[{"text":"Hi!"}]}},'
    ...     b'"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":2,'
    ...     b'"totalTokens":5},"metrics":{"latencyMs":120}}'
    ... )
    >>> response.message.text, response.finish_reason, response.usage.total
    ('Hi!', <FinishReason.STOP: 'stop'>, 5)
    """
    check_size(body, max_bytes)
    response = fast_response(body)
    if response is not None:
        return response
    return general_response(body)


def general_response(body: bytes | str) -> Response:
    """:func:`decode_response` without the typed fast path: any shape, key by key."""
    return response_from(json_body(body))
