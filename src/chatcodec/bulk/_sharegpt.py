"""ShareGPT conversations, as axolotl and LLaMA-Factory read them.

``{"conversations": [{"from": "system|human|gpt|function_call|observation",
"value": ...}], "system"?: ..., "tools"?: ...}``. LLaMA-Factory puts tool
calls in a ``function_call`` turn whose value is the JSON text of
``{"name", "arguments"}`` (a list of them for parallel calls) and their
results in the ``observation`` turn after it; ``tools`` is the JSON text of
a list of ``{"name", "description", "parameters"}``. Turns alternate, so the
results of parallel calls share one ``observation``, as a JSON list of texts.
Reading also takes ``role``/``content`` turns and ``tools`` as a list.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from .._codec import decode_json
from .._content import TextPart
from .._errors import ValidationError
from .._exchange import Request
from .._frozen import FrozenMap
from .._loss import Loss
from .._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._tools import ToolCall, ToolDefinition

__all__ = ["read", "write"]

_ROLES = FrozenMap(
    {
        "system": "system",
        "human": "user",
        "user": "user",
        "gpt": "assistant",
        "assistant": "assistant",
        "model": "assistant",
        "function_call": "function_call",
        "observation": "tool",
        "tool": "tool",
        "function": "tool",
    }
)
NO_IDS = "sharegpt has no tool-call ids"
EMPTY = "a turn with no text is left out"
NO_CALL = "a tool result with no function_call turn before it is left out"
TEXT_BESIDE_CALLS = "sharegpt cannot hold text beside tool calls in one turn: the text is left out"


def read(body: bytes, losses: list[Loss]) -> Request:
    """A ShareGPT record as a canonical request (tool-call ids derived from positions)."""
    values = decode_json(body, dict[str, Any])
    turns = values.get("conversations")
    if not isinstance(turns, list) or not turns:
        raise ValidationError("must be a non-empty list of turns", "$.conversations")
    messages: list[Message] = []
    system = values.get("system")
    if isinstance(system, str) and system:
        messages.append(SystemMessage(system))
    pending: list[str] = []
    for i, turn in enumerate(turns):
        path = f"$.conversations[{i}]"
        if not isinstance(turn, dict):
            raise ValidationError("must be an object", path)
        role = _ROLES.get(str(turn.get("from", turn.get("role", ""))).lower())
        value = turn.get("value", turn.get("content"))
        if role is None:
            raise ValidationError(
                "from must be system, human, gpt, function_call or observation", f"{path}.from"
            )
        if not isinstance(value, str):
            raise ValidationError("must be a string", f"{path}.value")
        if not value and role in ("system", "user", "assistant"):
            losses.append(Loss(f"{path}.value", EMPTY))
        elif role == "function_call":
            calls = _calls(value, i, f"{path}.value")
            pending = [call.id for call in calls]
            messages.append(AssistantMessage(tool_calls=tuple(calls)))
        elif role == "tool":
            messages.extend(_results(value, pending, f"{path}.value"))
            pending = []
        elif role == "system":
            messages.append(SystemMessage(value))
        elif role == "user":
            messages.append(UserMessage(value))
        else:
            messages.append(AssistantMessage(value))
    return Request(tuple(messages), tools=_tools(values.get("tools")))


def _calls(value: str, turn: int, path: str) -> list[ToolCall]:
    try:
        parsed = json.loads(value)
    except ValueError:
        raise ValidationError("must be the JSON text of a call or a list of calls", path) from None
    items = parsed if isinstance(parsed, list) else [parsed]
    calls: list[ToolCall] = []
    for j, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValidationError("a call must be an object with a name", path)
        arguments = item.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                arguments = None
        if not isinstance(arguments, dict):
            raise ValidationError("a call's arguments must be a JSON object", path)
        raw = msgspec.Raw(msgspec.json.encode(arguments))
        calls.append(ToolCall(f"call_{turn}_{j}", item["name"], raw))
    return calls


def _results(value: str, pending: list[str], path: str) -> list[ToolMessage]:
    if not pending:
        raise ValidationError("an observation must follow a function_call", path)
    if len(pending) > 1:
        try:
            parts = json.loads(value)
        except ValueError:
            parts = None
        if isinstance(parts, list) and len(parts) == len(pending):
            return [
                ToolMessage(call_id, p if isinstance(p, str) else json.dumps(p))
                for call_id, p in zip(pending, parts, strict=True)
            ]
    return [ToolMessage(pending[0], value)]


def _tools(value: object) -> tuple[ToolDefinition, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValidationError("must be the JSON text of a list of tools", "$.tools") from None
    if not isinstance(value, list):
        raise ValidationError("must be a list of tools", "$.tools")
    tools: list[ToolDefinition] = []
    for i, item in enumerate(value):
        if isinstance(item, dict) and isinstance(item.get("function"), dict):
            item = item["function"]
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValidationError("a tool must be an object with a name", f"$.tools[{i}]")
        tools.append(
            ToolDefinition(
                item["name"], item.get("description"), item.get("parameters"), strict=False
            )
        )
    return tuple(tools)


_DROPPED = ("model", "tool_choice", "max_tokens", "temperature", "top_p", "stop")


def write(request: Request, losses: list[Loss]) -> bytes:
    """A canonical request as a ShareGPT record; what it cannot hold goes to ``losses``."""
    turns: list[dict[str, str]] = []
    for field in _DROPPED:
        if getattr(request, field) is not None:
            losses.append(Loss(f"$.{field}", f"sharegpt has no place for {field}"))
    if request.response_format is not None:
        losses.append(Loss("$.response_format", "sharegpt has no place for response_format"))
    results: list[str] = []
    answering = False  # whether the turn before is a function_call
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if isinstance(message, ToolMessage):
            if answering:
                results.append(_text(message.content, path, losses))
            else:
                losses.append(Loss(path, NO_CALL))
            continue
        if results:
            turns.append(_observation(results))
            results = []
        answering = False
        text = ""
        if isinstance(message, SystemMessage | DeveloperMessage):
            text = _text(message.content, path, losses)
            turn = {"from": "system", "value": text}
        elif isinstance(message, UserMessage):
            text = _text(message.content, path, losses)
            turn = {"from": "human", "value": text}
        else:
            turn = _assistant(message, path, losses)
            text = turn["value"]
            answering = turn["from"] == "function_call"
        if text:
            turns.append(turn)
        else:
            losses.append(Loss(path, EMPTY))
    if results:
        turns.append(_observation(results))
    if not turns:
        raise ValidationError("has no messages to write", "$.messages")
    record: dict[str, Any] = {"conversations": turns}
    functions = [t for t in request.tools if isinstance(t, ToolDefinition)]
    if len(functions) < len(request.tools):
        losses.append(Loss("$.tools", "sharegpt has no place for a provider's own tools"))
    if functions:
        record["tools"] = json.dumps(
            [
                {
                    k: v
                    for k, v in (
                        ("name", t.name),
                        ("description", t.description),
                        ("parameters", t.parameters),
                    )
                    if v is not None
                }
                for t in functions
            ],
            ensure_ascii=False,
        )
    return msgspec.json.encode(record)


def _observation(results: list[str]) -> dict[str, str]:
    value = results[0] if len(results) == 1 else json.dumps(results, ensure_ascii=False)
    return {"from": "observation", "value": value}


def _assistant(message: AssistantMessage, path: str, losses: list[Loss]) -> dict[str, str]:
    calls = message.tool_calls
    if message.invalid_tool_calls:
        losses.append(Loss(f"{path}.invalid_tool_calls", "sharegpt has no invalid tool calls"))
    if not calls:
        return {"from": "gpt", "value": _text(message.content, path, losses)}
    if message.content:
        losses.append(Loss(f"{path}.content", TEXT_BESIDE_CALLS))
    losses.append(Loss(f"{path}.tool_calls", NO_IDS))
    items = [{"name": c.name, "arguments": json.loads(bytes(c.arguments))} for c in calls]
    value = json.dumps(items[0] if len(items) == 1 else items, ensure_ascii=False)
    return {"from": "function_call", "value": value}


def _text(content: object, path: str, losses: list[Loss]) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    parts: tuple[object, ...] = content  # type: ignore[assignment]  # a tuple of parts
    for j, part in enumerate(parts):
        if isinstance(part, TextPart):
            texts.append(part.text)
        else:
            losses.append(Loss(f"{path}.content[{j}]", "sharegpt holds text only"))
    return "".join(texts)
