"""The typed fast paths of the Cohere decoders: the usual request and answer.

The usual answer is an id, an assistant message of ``text`` and ``thinking``
items, a plan and calls, maybe citations, a ``finish_reason`` and the usage
(``billed_units``, ``tokens``). The usual request is a model, a history of
messages whose content is a string (an assistant's plan and calls beside
it), function tools, and the common settings. msgspec decodes those shapes
straight into the private Structs below, in C; the mapping to the canonical
form is a handful of attribute reads.

The shape is every family's (:mod:`.._fastpath`). Any body the Structs do
not fit (another key, a value of another type, an error body, content given
as items in a request...) or that breaks a canonical rule (an empty call id,
a negative count) goes to the general path (:mod:`._decode`), which gives
the same result: a test proves it on every recorded body. Values the
general path keeps as sent (``citations``, ``billed_units``, ``logprobs``,
``documents``...) are decoded as builtins, so both paths build equal
records.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ..._content import AssistantPart, ReasoningPart, TextPart
from ..._exchange import Choice, Request, Response, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import InvalidToolCall, ToolCall, ToolDefinition, parse_tool_call
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._common import ABSENT, FINISH, NAME

__all__ = ["fast_request", "fast_response"]

_OTHER = FinishReason.OTHER


class _Item(Wire, tag_field="type"):
    pass


class _Text(_Item, tag="text"):
    text: str


class _Thinking(_Item, tag="thinking"):
    thinking: str


class _Function(Wire):
    name: str
    arguments: str


class _Call(Wire):
    id: str
    type: Literal["function"]
    function: _Function


class _Answer(Wire):
    role: Literal["assistant"]
    tool_plan: str | UnsetType = UNSET
    tool_calls: list[_Call] | UnsetType = UNSET
    content: list[_Text | _Thinking] | UnsetType = UNSET
    citations: Any = UNSET


class _Tokens(Wire):
    input_tokens: int
    output_tokens: int


class _Usage(Wire):
    billed_units: Any = UNSET
    tokens: _Tokens | UnsetType = UNSET
    cached_tokens: int | UnsetType = UNSET


class _Response(Wire):
    id: str
    message: _Answer
    finish_reason: str
    usage: _Usage | UnsetType = UNSET
    logprobs: Any = UNSET


_decode_response = msgspec.json.Decoder(_Response).decode
_carry_response = carrier(_Response, "logprobs")
_carry_usage = carrier(_Usage, "billed_units")


def _calls(
    calls: list[_Call],
) -> tuple[tuple[ToolCall, ...], tuple[InvalidToolCall, ...]]:
    valid: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for c in calls:
        if not c.id:
            raise ValueError("an empty id: the general path derives one")
        call = parse_tool_call(
            c.id, c.function.name, c.function.arguments.encode("utf-8", "surrogatepass")
        )
        if type(call) is ToolCall:
            valid.append(call)
        else:
            invalid.append(call)  # type: ignore[arg-type]
    return tuple(valid), tuple(invalid)


def _answer(m: _Answer, own: dict[str, Any]) -> AssistantMessage:
    """An assistant message, as :func:`._decode.assistant_message` reads it."""
    parts: list[AssistantPart] = []
    plan = m.tool_plan
    if plan:
        parts.append(ReasoningPart(plan, provider=NAME, extras={NAME: {"~plan": True}}))
    elif plan is not UNSET:
        own["tool_plan"] = plan
    content = m.content
    if content is not UNSET:
        for item in content:
            if type(item) is _Text:
                parts.append(TextPart(item.text))
            else:
                parts.append(ReasoningPart(item.thinking, provider=NAME))  # type: ignore[union-attr]
    calls: tuple[ToolCall, ...] = ()
    invalid: tuple[InvalidToolCall, ...] = ()
    if m.tool_calls:
        calls, invalid = _calls(m.tool_calls)
    elif m.tool_calls is not UNSET:
        own["tool_calls"] = m.tool_calls
    if m.citations is not UNSET:
        own["citations"] = m.citations
    body: tuple[AssistantPart, ...] | None = tuple(parts)
    if not parts and content is UNSET:
        body = None if calls or invalid else ()
    if content is UNSET and body is not None:
        own["~content"] = ABSENT
    return AssistantMessage(body, calls, invalid, extras={NAME: own} if own else None)


def fast_response(body: bytes | str) -> Response | None:
    """The usual answer, typed; ``None`` for the general path."""
    try:
        r = _decode_response(body)
        own: dict[str, Any] = {}
        _carry_response(r, own)
        message = _answer(r.message, {})
        usage = None
        u = r.usage
        if u is not UNSET:
            tokens = u.tokens
            if tokens is UNSET:
                return None  # counts the general path keeps as sent
            kept: dict[str, Any] = {}
            _carry_usage(u, kept)
            usage = Usage(
                tokens.input_tokens,
                tokens.output_tokens,
                cached_tokens=None if u.cached_tokens is UNSET else u.cached_tokens,
                extras={NAME: kept} if kept else None,
            )
        reason = r.finish_reason
        choice = Choice(message, FINISH.get(reason, _OTHER), reason)
        return Response((choice,), r.id, None, usage, extras={NAME: own} if own else None)
    except (*GIVE_UP, ValueError):
        return None


# -- requests -------------------------------------------------------------


class _Message(Wire, tag_field="role"):
    pass


class _System(_Message, tag="system"):
    content: str


class _User(_Message, tag="user"):
    content: str


class _Assistant(_Message, tag="assistant"):
    tool_plan: str | UnsetType = UNSET
    tool_calls: list[_Call] | UnsetType = UNSET
    content: str | UnsetType = UNSET


class _Tool(_Message, tag="tool"):
    tool_call_id: str
    content: str


class _ToolFunction(Wire):
    name: str
    parameters: dict[str, Any]
    description: str | UnsetType = UNSET


class _ToolDef(Wire):
    type: Literal["function"]
    function: _ToolFunction


class _Request(Wire):
    model: str
    messages: list[_System | _User | _Assistant | _Tool]
    tools: list[_ToolDef] | UnsetType = UNSET
    strict_tools: bool | UnsetType = UNSET
    documents: Any = UNSET
    citation_options: Any = UNSET
    safety_mode: Any = UNSET
    max_tokens: int | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    seed: int | UnsetType = UNSET
    k: int | UnsetType = UNSET
    p: int | float | UnsetType = UNSET
    tool_choice: Literal["REQUIRED", "NONE"] | UnsetType = UNSET
    stream: bool | UnsetType = UNSET


_decode_request = msgspec.json.Decoder(_Request).decode
_carry_request = carrier(_Request, "documents", "citation_options", "safety_mode")
_CHOICES = FrozenMap({"REQUIRED": ToolChoice("required"), "NONE": ToolChoice("none")})


def fast_request(body: bytes | str) -> Request | None:
    """The usual request, typed; ``None`` for the general path."""
    try:
        r = _decode_request(body)
        if type(r.temperature) is int or type(r.p) is int or not r.messages:
            return None  # an integral number is kept as sent by a hint: the general path's
        own: dict[str, Any] = {}
        _carry_request(r, own)
        messages: list[Message] = []
        for m in r.messages:
            kind = type(m)
            if kind is _User:
                if not m.content:
                    return None
                messages.append(UserMessage(m.content))
            elif kind is _Assistant:
                assert isinstance(m, _Assistant)
                messages.append(_history_answer(m))
            elif kind is _Tool:
                assert isinstance(m, _Tool)
                messages.append(ToolMessage(m.tool_call_id, m.content))
            else:
                if not m.content:
                    return None
                messages.append(SystemMessage(m.content))
        strict = r.strict_tools is True and bool(r.tools)
        if r.strict_tools is not UNSET and not strict:
            own["strict_tools"] = r.strict_tools
        tools: tuple[ToolDefinition, ...] = ()
        if r.tools:
            tools = tuple(
                ToolDefinition(
                    t.function.name,
                    None if t.function.description is UNSET else t.function.description,
                    t.function.parameters,
                    strict=strict,
                )
                for t in r.tools
                if t.function.description != ""
            )
            if len(tools) != len(r.tools):
                return None
        elif r.tools is not UNSET:
            own["tools"] = r.tools
        if r.max_tokens is not UNSET and r.max_tokens < 0:
            return None
        if r.k is not UNSET and r.k < 0:
            return None
        return Request(
            tuple(messages),
            r.model,
            tools,
            None if r.tool_choice is UNSET else _CHOICES[r.tool_choice],
            None,
            None if r.max_tokens is UNSET else r.max_tokens,
            None if r.temperature is UNSET else r.temperature,
            None if r.p is UNSET else r.p,
            None if r.stop_sequences is UNSET else tuple(r.stop_sequences),
            None if r.stream is UNSET else r.stream,
            top_k=None if r.k is UNSET else r.k,
            seed=None if r.seed is UNSET else r.seed,
            extras={NAME: own} if own else None,
        )
    except (*GIVE_UP, ValueError):
        return None


def _history_answer(m: _Assistant) -> AssistantMessage:
    own: dict[str, Any] = {}
    parts: list[AssistantPart] = []
    if m.tool_plan:
        parts.append(ReasoningPart(m.tool_plan, provider=NAME, extras={NAME: {"~plan": True}}))
    elif m.tool_plan is not UNSET:
        own["tool_plan"] = m.tool_plan
    calls: tuple[ToolCall, ...] = ()
    invalid: tuple[InvalidToolCall, ...] = ()
    if m.tool_calls:
        calls, invalid = _calls(m.tool_calls)
    elif m.tool_calls is not UNSET:
        own["tool_calls"] = m.tool_calls
    content = m.content
    body: str | tuple[AssistantPart, ...] | None
    if content is not UNSET and not parts:
        body = content
    elif content is not UNSET:
        own["~content"] = "str"
        body = (*parts, TextPart(content))
    elif parts:
        body = tuple(parts)
    else:
        body = None if calls or invalid else ()
    if content is UNSET and body is not None:
        own["~content"] = ABSENT
    return AssistantMessage(body, calls, invalid, extras={NAME: own} if own else None)
