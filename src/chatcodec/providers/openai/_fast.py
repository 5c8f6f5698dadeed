"""The fast path of the OpenAI decoder: typed wire Structs for the usual shapes.

Most bodies have one shape: OpenAI's own response (id, model, choices with a
message of text and/or tool calls, usage with its two detail objects). msgspec
decodes such a body straight into the private Structs below, in C, checking
every type on the way; the mapping to the canonical form is then a handful of
attribute reads, with no scan of leftover keys. ``UNSET`` defaults tell an
absent key from a ``null``.

The shape is every family's (:mod:`.._fastpath`). Any body the Structs do
not fit (a dialect's key, a value of another type, an error body, Mistral's
content lists...) or a value that breaks a canonical rule (an empty call id,
arguments that are not a JSON object, a negative count) goes to the general
path (:mod:`._decode_assistant`), which gives the same result. Values that the general
path keeps as sent (``logprobs``,
``annotations``...) are decoded as builtins, so both paths build equal
records. The request fast path (:mod:`._fastreq`) reads the assistant
messages of a history with the same Struct and mapping.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import AssistantPart, ReasoningPart, RefusalPart, TextPart
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._cite import take_annotations
from ._common import FINISH, NAME

__all__ = ["AssistantFields", "assistant", "fast_response"]

_OTHER = FinishReason.OTHER
_ERROR = FinishReason.ERROR
_raw = msgspec.json.Decoder(Raw)


class _Function(Wire):
    name: str
    arguments: str


class _Call(Wire):
    id: str
    function: _Function
    type: str | UnsetType = UNSET
    index: Any = UNSET


class AssistantFields(Wire):
    """The keys of an assistant message, in a response and in a request's history."""

    content: str | UnsetType | None = UNSET
    refusal: str | UnsetType | None = UNSET
    tool_calls: list[_Call] | UnsetType | None = UNSET
    annotations: Any = UNSET
    audio: Any = UNSET
    reasoning_content: str | UnsetType | None = UNSET
    reasoning: str | UnsetType | None = UNSET


class _Message(AssistantFields, kw_only=True):
    # A tag alone would let an absent role through; the general path hints it.
    role: Literal["assistant"]


class _Choice(Wire):
    index: int
    message: _Message
    finish_reason: str | UnsetType | None = UNSET
    logprobs: Any = UNSET


class _PromptDetails(Wire):
    cached_tokens: int | UnsetType = UNSET
    audio_tokens: Any = UNSET
    cache_write_tokens: Any = UNSET
    text_tokens: Any = UNSET
    image_tokens: Any = UNSET


class _CompletionDetails(Wire):
    reasoning_tokens: int | UnsetType = UNSET
    audio_tokens: Any = UNSET
    accepted_prediction_tokens: Any = UNSET
    rejected_prediction_tokens: Any = UNSET
    text_tokens: Any = UNSET
    image_tokens: Any = UNSET


class _Usage(Wire):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: _PromptDetails | UnsetType | None = UNSET
    completion_tokens_details: _CompletionDetails | UnsetType | None = UNSET


class _Response(Wire):
    id: str
    model: str
    choices: list[_Choice]
    usage: _Usage | UnsetType | None = UNSET
    object: Any = UNSET
    created: Any = UNSET
    system_fingerprint: Any = UNSET
    service_tier: Any = UNSET


_decoder = msgspec.json.Decoder(_Response)
_carry = carrier(_Response, "object", "created", "system_fingerprint", "service_tier")
_carry_prompt = carrier(
    _PromptDetails, "audio_tokens", "cache_write_tokens", "text_tokens", "image_tokens"
)
_carry_completion = carrier(
    _CompletionDetails, "audio_tokens", "accepted_prediction_tokens",
    "rejected_prediction_tokens", "text_tokens", "image_tokens",
)  # fmt: skip


def fast_response(body: bytes | str) -> Response | None:
    """The canonical response of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        choices = r.choices
        # An absent "object" is not written back.
        own: dict[str, Any] = {} if r.object is not UNSET else {"~object": None}
        _carry(r, own)
        u = r.usage
        usage = None
        if type(u) is _Usage:
            usage = _usage(u)
        elif u is None:
            own["usage"] = None
        return Response(
            (_choice(choices[0]),) if len(choices) == 1 else tuple(map(_choice, choices)),
            r.id,
            r.model,
            usage,
            extras={NAME: own} if own else None,
        )
    except GIVE_UP:
        return None


def _choice(c: _Choice) -> Choice:
    message = assistant(c.message)
    own = {"logprobs": c.logprobs} if c.logprobs is not UNSET else {}
    finish = c.finish_reason
    if type(finish) is str:
        reason = FINISH.get(finish, _OTHER)
        if reason is _OTHER or reason is _ERROR:
            own["~finish"] = "raw"  # a dialect's own name, not in OpenAI's set
        return Choice(message, reason, finish, c.index, extras={NAME: own} if own else None)
    if finish is None:
        own["finish_reason"] = None
    return Choice(message, None, None, c.index, extras={NAME: own} if own else None)


def assistant(m: AssistantFields) -> AssistantMessage:
    """The canonical form of a typed assistant message."""
    own: dict[str, Any] = {}
    if m.annotations is not UNSET:
        own["annotations"] = m.annotations
    if m.audio is not UNSET:
        own["audio"] = m.audio
    reasoning: tuple[AssistantPart, ...] = ()
    if m.reasoning_content is not UNSET or m.reasoning is not UNSET:
        reasoning = _reasoning(m, own)
    content = m.content
    refusal = m.refusal
    result: str | tuple[AssistantPart, ...] | None
    if type(content) is str:
        cited = take_annotations(own) if "annotations" in own else None
        if reasoning or type(refusal) is str or cited:
            own["~content"] = "str"
            result = (*reasoning, TextPart(content, cited or ()))
        else:
            result = content
    else:
        if content is None:
            own["content"] = None
        result = reasoning if reasoning or type(refusal) is str else None
    if type(refusal) is str:
        result = (*(result or ()), RefusalPart(refusal))
    elif refusal is None:
        own["refusal"] = None

    calls = m.tool_calls
    valid: tuple[ToolCall, ...] = ()
    if type(calls) is list:
        if calls:
            valid = _calls(calls)
        else:
            own["tool_calls"] = calls
    elif calls is None:
        own["tool_calls"] = None
    if result is None and not valid:
        result = ()
    return AssistantMessage(result, valid, extras={NAME: own} if own else None)


def _reasoning(m: AssistantFields, own: dict[str, Any]) -> tuple[AssistantPart, ...]:
    # The first key holding a string is the reasoning; the other is kept as sent.
    parts: tuple[AssistantPart, ...] = ()
    if m.reasoning_content is not UNSET:
        if type(m.reasoning_content) is str:
            parts = (ReasoningPart(m.reasoning_content),)
            own["~reasoning"] = "reasoning_content"
        else:
            own["reasoning_content"] = None
    if m.reasoning is not UNSET:
        if type(m.reasoning) is str and not parts:
            parts = (ReasoningPart(m.reasoning),)
            own["~reasoning"] = "reasoning"
        else:
            own["reasoning"] = m.reasoning
    return parts


def _calls(calls: list[_Call]) -> tuple[ToolCall, ...]:
    # Only well-formed calls: ToolCall's own checks (id, name, an object) and
    # the JSON scan of the arguments raise on anything else, and the general
    # path keeps it (as an invalid call, with a derived id...).
    if len(calls) == 1:
        c = calls[0]
        extras = None if c.type == "function" and c.index is UNSET else _call_own(c)
        f = c.function
        return (ToolCall(c.id, f.name, _raw.decode(f.arguments), extras=extras),)
    out: list[ToolCall] = []
    for c in calls:
        extras = None if c.type == "function" and c.index is UNSET else _call_own(c)
        f = c.function
        out.append(ToolCall(c.id, f.name, _raw.decode(f.arguments), extras=extras))
    return tuple(out)


def _call_own(c: _Call) -> dict[str, Any] | None:
    own: dict[str, Any] = {}
    if c.index is not UNSET:
        own["index"] = c.index
    if c.type is UNSET:
        own["~type"] = None
    elif c.type != "function":
        own["type"] = c.type
    return {NAME: own} if own else None


def _usage(u: _Usage) -> Usage:
    own: dict[str, Any] = {}
    cached: int | None = None
    reasoning: int | None = None
    written: int | None = None
    p = u.prompt_tokens_details
    if type(p) is _PromptDetails:
        rest: dict[str, Any] = {}
        _carry_prompt(p, rest)
        count = p.cache_write_tokens
        if type(count) is int and count >= 0:
            written = count
            del rest["cache_write_tokens"]  # the canonical count
        count = p.cached_tokens
        if type(count) is int:
            if count >= 0:
                cached = count
            else:
                rest["cached_tokens"] = count
        own["prompt_tokens_details"] = rest
    elif p is None:
        own["prompt_tokens_details"] = None
    c = u.completion_tokens_details
    if type(c) is _CompletionDetails:
        rest = {}
        _carry_completion(c, rest)
        count = c.reasoning_tokens
        if type(count) is int:
            if count >= 0:
                reasoning = count
            else:
                rest["reasoning_tokens"] = count
        own["completion_tokens_details"] = rest
    elif c is None:
        own["completion_tokens_details"] = None
    # A negative count fails Usage's own check, and the general path keeps it.
    return Usage(
        u.prompt_tokens,
        u.completion_tokens,
        u.total_tokens,
        cached,
        reasoning,
        written,
        extras={NAME: own} if own else None,
    )
