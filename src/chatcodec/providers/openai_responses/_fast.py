"""The fast path of the Responses decoder: typed wire Structs for the usual answer.

Most answers are a response object whose ``output`` holds assistant
``message`` items of ``output_text`` (or ``refusal``) parts, ``reasoning``
items with their summary texts, and ``function_call`` items, beside a
``usage`` with its two detail objects and the request's settings echoed back.
msgspec decodes such a body straight into the private Structs below, in C;
the echoed keys are fields typed ``Any`` and kept as sent.

The shape is every family's (:mod:`.._fastpath`). The items are decoded one
by one: an item of another kind the model made (a built-in tool call...) is
read as the general path reads it (:func:`._decode_items.model_item`) and kept in
place. Any body the Structs do not fit (a key OpenAI added since, an item the
model did not make, an error body...), that the mapping does not build (an
empty call id, a negative count) or over 64 KiB (an image in base64: the
parse is the cost, not the mapping) goes to the general path
(:func:`._response.read_response`), which gives the same result; a test
proves it on every recorded body. The general path keeps unknown keys in the
order the wire sent them; here they come in the order of the Structs'
fields, which is the recorded bodies' order.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import AssistantPart, ReasoningPart, RefusalPart, TextPart
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import InvalidToolCall, ToolCall, parse_tool_call
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._cite import read_annotations
from ._common import (
    ABSENT,
    NAME,
    extras,
    finish_of,
    input_details,
    output_details,
    reasoning_text,
    summary_lengths,
)
from ._decode_items import Run, model_item

__all__ = ["fast_response"]


class _Other(Exception):
    """A shape the fast path does not build: the general path does."""


class _Tagged(Wire, tag_field="type"):
    """An item or part, told apart by its ``type``."""


class _OutputText(_Tagged, tag="output_text"):
    text: str
    annotations: Any = UNSET
    logprobs: Any = UNSET


class _Refusal(_Tagged, tag="refusal"):
    refusal: str


class _Message(_Tagged, tag="message"):
    content: list[_OutputText | _Refusal]
    role: Literal["assistant"]
    id: Any = UNSET
    phase: Any = UNSET
    status: Any = UNSET


class _Summary(_Tagged, tag="summary_text"):
    text: str


class _Reasoning(_Tagged, tag="reasoning"):
    content: Any = UNSET
    encrypted_content: str | UnsetType | None = UNSET
    id: Any = UNSET
    status: Any = UNSET
    summary: list[_Summary] | UnsetType = UNSET


class _FunctionCall(_Tagged, tag="function_call"):
    arguments: str
    call_id: str
    name: str
    id: Any = UNSET
    namespace: Any = UNSET
    status: Any = UNSET


_decode_item = msgspec.json.Decoder(_Message | _Reasoning | _FunctionCall).decode
_decode_any = msgspec.json.Decoder().decode
# A larger body is an image, a file or a tool's output in base64: parsing it
# costs more than any mapping, and the typed decode would read it twice.
_LARGE = 1 << 16
_CALL_KINDS = frozenset({"function_call", "custom_tool_call"})
_NOT_MODEL = frozenset({"function_call_output", "custom_tool_call_output"})


class _Usage(Wire):
    input_tokens: int
    output_tokens: int
    total_tokens: int | UnsetType | None = UNSET
    input_tokens_details: dict[str, Any] | UnsetType = UNSET
    output_tokens_details: dict[str, Any] | UnsetType = UNSET


class _Response(Wire):
    # The echoed settings and the response's own keys, in the recorded order.
    background: Any = UNSET
    billing: Any = UNSET
    completed_at: Any = UNSET
    content_filters: Any = UNSET
    conversation: Any = UNSET
    created_at: Any = UNSET
    error: Any = UNSET
    frequency_penalty: Any = UNSET
    id: str | UnsetType | None = UNSET
    incomplete_details: Any = UNSET
    instructions: Any = UNSET
    max_output_tokens: Any = UNSET
    max_tool_calls: Any = UNSET
    metadata: Any = UNSET
    model: str | UnsetType | None = UNSET
    moderation: Any = UNSET
    object: Any = UNSET
    # Items one by one: an item of another kind is read the general way.
    output: list[Raw] | UnsetType = UNSET
    parallel_tool_calls: Any = UNSET
    presence_penalty: Any = UNSET
    previous_response_id: Any = UNSET
    prompt_cache_key: Any = UNSET
    prompt_cache_retention: Any = UNSET
    reasoning: Any = UNSET
    safety_identifier: Any = UNSET
    service_tier: Any = UNSET
    status: Any = UNSET
    status_details: Any = UNSET
    store: Any = UNSET
    temperature: Any = UNSET
    text: Any = UNSET
    tool_choice: Any = UNSET
    tool_usage: Any = UNSET
    tools: Any = UNSET
    top_logprobs: Any = UNSET
    top_p: Any = UNSET
    truncation: Any = UNSET
    usage: _Usage | UnsetType | None = UNSET
    user: Any = UNSET


_decoder = msgspec.json.Decoder(_Response)
_carry = carrier(
    _Response, "background", "billing", "completed_at", "content_filters", "conversation",
    "created_at", "error", "frequency_penalty", "incomplete_details", "instructions",
    "max_output_tokens", "max_tool_calls", "metadata", "moderation", "object",
    "parallel_tool_calls", "presence_penalty", "previous_response_id", "prompt_cache_key",
    "prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "status_details",
    "store", "temperature", "text", "tool_choice", "tool_usage", "tools", "top_logprobs",
    "top_p", "truncation", "user",
    nulls=("id", "model"),
)  # fmt: skip
_carry_place = carrier(_Message, "id", "status")
_carry_text = carrier(_OutputText, "annotations", "logprobs")
_carry_reasoning = carrier(_Reasoning, "content", "id", "status")
_carry_call = carrier(_FunctionCall, "id", "namespace", "status")


def fast_response(body: bytes | str) -> Response | None:
    """The canonical response of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON, or an error body: the general path
    raises the error.
    """
    if len(body) > _LARGE:
        return None
    try:
        r = _decoder.decode(body)
        output = r.output
        if output is UNSET:
            return None
        own: dict[str, Any] = {}
        _carry(r, own)
        message = None
        calls = False
        if output:
            message, calls = _message(output)
        else:
            own["~output"] = 1
        status = r.status
        details = r.incomplete_details
        finish, raw = finish_of(status, None if details is UNSET else details)
        if finish is FinishReason.STOP and calls:
            finish = FinishReason.TOOL_CALLS
        # The status as read: the finish reason alone does not always name it.
        choice_own = {"~nostatus": 1} if status is UNSET else {"~status": status}
        u = r.usage
        usage = None
        if type(u) is _Usage:
            usage = _usage(u)
        elif u is None:
            own["usage"] = None
        id_, model = r.id, r.model
        return Response(
            (Choice(message, finish, raw, extras={NAME: choice_own}),),
            None if id_ is UNSET else id_,
            None if model is UNSET else model,
            usage,
            extras=extras(own),
        )
    except (*GIVE_UP, _Other):
        return None


def _message(items: list[Raw]) -> tuple[AssistantMessage, bool]:
    """The one assistant message of ``items``, and whether a tool call is among them."""
    run = Run()
    calls = False
    for raw in items:
        try:
            item = _decode_item(raw)
        except msgspec.DecodeError:
            # Another item the model made (a built-in tool call...) is read as
            # the general path reads it; one it did not make is not a reply.
            wire = _decode_any(raw)
            if type(wire) is not dict:
                raise _Other from None
            kind, role = wire.get("type"), wire.get("role")
            if kind is not None and type(kind) is not str:
                raise _Other from None  # the general path names what is wrong
            if kind in _NOT_MODEL or (type(role) is str and role != "assistant"):
                raise _Other from None
            calls = calls or kind in _CALL_KINDS
            model_item(wire, kind, role, run)
            continue
        if type(item) is _Message:
            run.content(_parts(item))
        elif type(item) is _Reasoning:
            run.content([_reasoning(item)])
        elif type(item) is _FunctionCall:
            calls = True
            call = _call(item)
            if type(call) is ToolCall:
                run.calls.append(call)
                run.layout.append("c")
            elif type(call) is InvalidToolCall:
                run.invalid.append(call)
                run.layout.append("x")
    return run.message(), calls


def _parts(item: _Message) -> list[AssistantPart]:
    content = item.content
    if not content:
        raise _Other  # kept whole by the general path
    parts: list[AssistantPart] = []
    for j, part in enumerate(content):
        own: dict[str, Any] = {}
        if type(part) is _OutputText:
            _carry_text(part, own)
            if part.annotations is UNSET:
                own["~noann"] = 1
            citations = read_annotations(part.annotations)
            if citations is not None:
                del own["annotations"]
            if j == 0:
                _item_keys(item, own)
            parts.append(TextPart(part.text, citations or (), extras=extras(own)))
        elif type(part) is _Refusal:
            if j == 0:
                _item_keys(item, own)
            parts.append(RefusalPart(part.refusal, extras=extras(own)))
    return parts


def _item_keys(item: _Message, own: dict[str, Any]) -> None:
    """The first part's share of its item's keys (as ``._decode_items._item_keys`` places them)."""
    hint: dict[str, Any] = {}
    _carry_place(item, hint)
    hint["type"] = "message"
    if item.phase is not UNSET:  # not a place: it sits beside the part's keys
        own["phase"] = item.phase
        hint["~keys"] = ["phase"]
    own["~item"] = hint


def _reasoning(item: _Reasoning) -> ReasoningPart:
    own: dict[str, Any] = {}
    _carry_reasoning(item, own)
    summary = item.summary
    texts: list[str] = []
    if summary is UNSET:
        own["~summary"] = None
    else:
        texts = [s.text for s in summary]
        summary_lengths(texts, own)
    signature = item.encrypted_content
    if signature is UNSET:
        signature = None
    elif signature is None:
        own["encrypted_content"] = None
    text = reasoning_text(texts, own)
    return ReasoningPart(text, signature=signature, provider=NAME, extras=extras(own))


def _call(item: _FunctionCall) -> ToolCall | InvalidToolCall:
    if not item.call_id or not item.name:
        raise _Other  # kept whole by the general path, with its keys in order
    own: dict[str, Any] = {}
    _carry_call(item, own)
    call = parse_tool_call(item.call_id, item.name, item.arguments)
    if isinstance(call, ToolCall):
        return ToolCall(call.id, call.name, call.arguments, extras=extras(own))
    return InvalidToolCall(call.id, call.name, call.arguments, call.error, extras=extras(own))


def _usage(u: _Usage) -> Usage:
    inputs, outputs = u.input_tokens, u.output_tokens
    if inputs < 0 or outputs < 0:
        raise _Other  # the general path keeps a count it cannot use
    own: dict[str, Any] = {}
    total = u.total_tokens
    if total is UNSET:
        total = None
    elif total is None:
        own["total_tokens"] = None
    elif total < 0:
        raise _Other
    inside, outside = u.input_tokens_details, u.output_tokens_details
    cached, written = input_details(ABSENT if inside is UNSET else inside, own)
    reasoning = output_details(ABSENT if outside is UNSET else outside, own)
    return Usage(inputs, outputs, total, cached, reasoning, written, extras=extras(own))
