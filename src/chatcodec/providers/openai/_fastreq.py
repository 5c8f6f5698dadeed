"""The fast path of the request decoder: typed wire Structs for the usual requests.

The same strategy as :mod:`._fast` for responses: the usual request (a
history of text messages and tool calls, function tools, the common
parameters) decodes straight into the private Structs below, its messages
told apart by their ``role`` tag, and maps to the canonical form without a
scan of leftover keys; content parts, a forced tool choice and a response
format are read by the same functions as the general path (:mod:`._readers`).
Anything else (a dialect's key, a system message in parts, the legacy
``functions``...) fails the typed decode or a canonical rule, and the caller
takes the general path (:mod:`._decode`), which gives the same result.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import ContentPart, TextPart
from ..._exchange import Request, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import ToolCall, ToolDefinition
from .._fastpath import GIVE_UP, Wire, carrier
from ._common import NAME, is_closed, take_settings
from ._fast import AssistantFields, assistant
from ._readers import forced, part, read_response_format

__all__ = ["fast_request"]


class _Fallback(Exception):
    """A value the typed decode accepts but only the general path maps."""


class _Turn(Wire, tag_field="role"):
    """A message of the history, told apart by its role."""


class _Instruction(_Turn):
    content: str
    name: Any = UNSET
    tool_calls: Any = UNSET


class _System(_Instruction, tag="system"):
    pass


class _Developer(_Instruction, tag="developer"):
    pass


class _User(_Turn, tag="user"):
    content: str | list[Any]
    name: Any = UNSET
    tool_calls: Any = UNSET


class _ToolResult(_Turn, tag="tool"):
    tool_call_id: str
    content: str | list[Any]


class _Assistant(AssistantFields, tag_field="role", tag="assistant"):
    pass


class _FunctionSpec(Wire):
    name: str
    description: str | UnsetType | None = UNSET
    parameters: Any = UNSET
    strict: bool | UnsetType | None = UNSET


class _ToolSpec(Wire):
    function: _FunctionSpec
    type: Literal["function"] | UnsetType = UNSET


_Turns = _System | _Developer | _User | _Assistant | _ToolResult


class _Request(Wire):
    messages: list[_Turns] = msgspec.field(default_factory=list)
    model: str | UnsetType | None = UNSET
    tools: list[_ToolSpec] | UnsetType | None = UNSET
    tool_choice: Any = UNSET  # a string, or the object of a forced choice
    parallel_tool_calls: bool | UnsetType | None = UNSET
    max_tokens: int | UnsetType | None = UNSET
    max_completion_tokens: int | UnsetType | None = UNSET
    temperature: int | float | UnsetType | None = UNSET
    top_p: int | float | UnsetType | None = UNSET
    stop: str | list[str] | UnsetType | None = UNSET
    stream: bool | UnsetType | None = UNSET
    response_format: Any = UNSET  # read as the general path reads it
    # Settings: read by take_settings, as the general path reads them.
    n: Any = UNSET
    reasoning_effort: Any = UNSET
    seed: Any = UNSET
    user: Any = UNSET
    frequency_penalty: Any = UNSET
    presence_penalty: Any = UNSET
    top_k: Any = UNSET
    # Kept as sent, in extras.
    stream_options: Any = UNSET
    service_tier: Any = UNSET
    logprobs: Any = UNSET
    top_logprobs: Any = UNSET
    logit_bias: Any = UNSET
    metadata: Any = UNSET
    store: Any = UNSET
    prompt_cache_key: Any = UNSET
    modalities: Any = UNSET
    prediction: Any = UNSET
    audio: Any = UNSET
    web_search_options: Any = UNSET
    verbosity: Any = UNSET
    safety_identifier: Any = UNSET


_decoder = msgspec.json.Decoder(_Request)
CARRIED = (
    "stream_options", "service_tier", "logprobs", "top_logprobs", "logit_bias",
    "metadata", "store", "prompt_cache_key", "modalities", "prediction", "audio",
    "web_search_options", "verbosity", "safety_identifier",
)  # fmt: skip
"""The keys this path keeps in extras as sent, in the order it keeps them."""
_carry = carrier(_Request, *CARRIED)
# The settings, read by take_settings.
_carry_settings = carrier(
    _Request, "seed", "presence_penalty", "frequency_penalty", "n", "user", "top_k",
    "reasoning_effort",
)  # fmt: skip
_carry_instruction = carrier(_Instruction, "name", "tool_calls")
_raw = msgspec.json.Decoder(Raw)  # checks a call's arguments are JSON

# ToolChoice records are frozen values: one of each serves every request.
# "any" is Mistral's "required".
_CHOICES = FrozenMap(
    {mode: ToolChoice(mode) for mode in ("auto", "none", "required")}
    | {"any": ToolChoice("required")}
)


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        _carry(r, own)
        model = r.model
        if model is None:
            own["model"] = None
        tools: tuple[ToolDefinition, ...] = ()
        if type(r.tools) is list:
            if r.tools:
                tools = _tools(r.tools)
            else:
                own["tools"] = []
        elif r.tools is None:
            own["tools"] = None
        choice = None
        value = r.tool_choice
        if value is not UNSET:
            if type(value) is dict:
                choice = forced(value, "tool_choice")
                if choice is not None and "type" not in value:
                    own["~tool_choice"] = "untyped"
            elif type(value) is str:
                choice = _CHOICES.get(value)
                if value == "any":
                    own["~tool_choice"] = "any"
            if choice is None:
                own["tool_choice"] = value
        max_tokens = r.max_tokens
        limit = r.max_completion_tokens
        if max_tokens is None:
            own["max_tokens"] = None
        if limit is not UNSET:
            if max_tokens is UNSET and type(limit) is int:
                max_tokens = limit
                own["~max_tokens"] = "max_completion_tokens"
            else:
                own["max_completion_tokens"] = limit
        stop: tuple[str, ...] | None = None
        if type(r.stop) is list:
            stop = tuple(r.stop)
        elif type(r.stop) is str:
            own["~stop"] = "str"
            stop = (r.stop,)
        elif r.stop is None:
            own["stop"] = None
        if r.parallel_tool_calls is None:
            own["parallel_tool_calls"] = None
        if r.temperature is None:
            own["temperature"] = None
        if r.top_p is None:
            own["top_p"] = None
        if r.stream is None:
            own["stream"] = None
        response_format = None
        if r.response_format is not UNSET:
            response_format = read_response_format(r.response_format, own)
        found: dict[str, Any] = {}
        _carry_settings(r, found)
        settings = take_settings(found, own) if found else {}
        return Request(
            _messages(r.messages),
            model if model is not UNSET else None,
            tools,
            choice,
            r.parallel_tool_calls if r.parallel_tool_calls is not UNSET else None,
            max_tokens if max_tokens is not UNSET else None,
            r.temperature if r.temperature is not UNSET else None,
            r.top_p if r.top_p is not UNSET else None,
            stop,
            r.stream if r.stream is not UNSET else None,
            response_format,
            **settings,
            extras={NAME: own} if own else None,
        )
    except (*GIVE_UP, _Fallback):
        return None


def _messages(items: list[_Turns]) -> tuple[Message, ...]:
    out: list[Message] = []
    append = out.append
    raw = _raw.decode
    for item in items:
        m: Any = item  # told apart by type() below, which mypy does not narrow by
        kind = type(m)
        if kind is _Assistant:
            # The usual answer in a history (text and/or calls of type "function",
            # no other key) is built here; :func:`assistant` gives the same
            # message, and maps every other shape.
            content = m.content
            calls = m.tool_calls
            if (
                (content is UNSET or type(content) is str)
                and m.refusal is UNSET
                and m.reasoning_content is UNSET
                and m.reasoning is UNSET
                and m.annotations is UNSET
                and m.audio is UNSET
            ):
                if type(calls) is list and calls:
                    valid: list[ToolCall] = []
                    for c in calls:
                        if c.type != "function" or c.index is not UNSET:
                            break
                        f = c.function
                        valid.append(ToolCall(c.id, f.name, raw(f.arguments)))
                    else:
                        append(
                            AssistantMessage(
                                content if type(content) is str else None, tuple(valid)
                            )
                        )
                        continue
                elif calls is UNSET and type(content) is str:
                    append(AssistantMessage(content))
                    continue
            append(assistant(m))
        elif kind is _ToolResult:
            # An empty id fails ToolMessage's check; the general path derives one.
            content = m.content
            if type(content) is str:
                append(ToolMessage(m.tool_call_id, content))
            else:
                parts = _parts(content)
                # Media in a tool message is kept there, marked, as the general path does.
                media = any(type(p) is not TextPart for p in parts)
                own = {NAME: {"~media": "in"}} if media else None
                append(ToolMessage(m.tool_call_id, parts, extras=own))
        elif kind is _User:
            content = m.content if type(m.content) is str else _parts(m.content)
            if m.name is UNSET and m.tool_calls is UNSET:
                append(UserMessage(content))
            else:
                append(UserMessage(content, extras=_instruction_own(m)))
        elif kind is _System:
            append(SystemMessage(m.content, extras=_instruction_own(m)))
        elif kind is _Developer:
            append(DeveloperMessage(m.content, extras=_instruction_own(m)))
    return tuple(out)


def _parts(items: list[Any]) -> tuple[ContentPart, ...]:
    """The parts of a content array: a plain text part here, every other by :func:`part`."""
    out: list[ContentPart] = []
    for p in items:
        if type(p) is not dict:
            raise _Fallback  # the general path names it in its error
        text = p.get("text")
        if len(p) == 2 and type(text) is str and p.get("type") == "text":
            out.append(TextPart(text))
        else:
            out.append(part(p))
    return tuple(out)


def _instruction_own(m: _Instruction | _User) -> dict[str, Any] | None:
    if m.name is UNSET and m.tool_calls is UNSET:
        return None
    own: dict[str, Any] = {}
    _carry_instruction(m, own)
    return {NAME: own}


def _tools(items: list[_ToolSpec]) -> tuple[ToolDefinition, ...]:
    out: list[ToolDefinition] = []
    for t in items:
        f = t.function
        parameters = f.parameters
        if (
            t.type == "function"
            and f.strict is UNSET
            and type(f.description) is str
            and f.description
            and type(parameters) is dict
        ):
            # The usual tool: nothing to keep in extras (what _tool builds for it).
            out.append(ToolDefinition(f.name, f.description, parameters, strict=False))
        else:
            out.append(_tool(t))
    return tuple(out)


def _tool(t: _ToolSpec) -> ToolDefinition:
    f = t.function
    own: dict[str, Any] = {}
    if t.type is UNSET:
        own["~type"] = None
    description = f.description
    parameters = f.parameters
    strict = f.strict
    inner: dict[str, Any] = {}
    if description is UNSET:
        description = None
    elif description is None:
        inner["description"] = None
    elif description == "":  # canonically absent; kept for the way back
        inner["description"] = ""
        description = None
    if parameters is UNSET:
        parameters = None
    elif parameters is None:
        inner["parameters"] = None
    elif type(parameters) is not dict:
        raise _Fallback  # the general path keeps such a tool verbatim
    if strict is True:
        if parameters is None or not is_closed(parameters):
            own["~asis"] = 1
    elif strict is not UNSET:
        inner["strict"] = strict
    if inner:
        own["~function"] = inner
    # A name or schema ToolDefinition refuses fails the fast path; the general
    # path keeps the tool verbatim.
    return ToolDefinition(
        f.name, description, parameters, strict=strict is True, extras={NAME: own} if own else None
    )
