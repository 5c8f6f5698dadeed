"""The fast path of the Ollama response decoder: typed wire Structs for the usual shape.

Nearly every ``/api/chat`` answer has one shape: the model, ``created_at``, a
message with text, ``thinking`` and/or tool calls (a function with a name and
an object of arguments), ``done``, ``done_reason``, the two token counts and
four durations. msgspec decodes such a body straight into the private Structs
below, in C, checking every type on the way; the mapping to the canonical form
is then a handful of attribute reads, with no scan of leftover keys. ``UNSET``
defaults tell an absent key from a ``null``.

The shape is every family's (:mod:`.._fastpath`). Any body the Structs do
not fit (another key, a value of another type, an error body...) or a value
that breaks a canonical rule (an empty tool name, a negative count) goes to
the general path (:func:`._decode.general_response`), which gives the same
result. Values that the general
path only carries in ``extras`` (``created_at``, ``done``, the durations,
``images``) are decoded as builtins, so both paths build equal records; tool
calls get the same derived ids (the answer's ``created_at``, the call's index,
name and compact arguments).
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._content import ReasoningPart, TextPart
from ..._errors import ValidationError
from ..._exchange import Choice, Response
from ..._messages import AssistantMessage
from ..._tools import ToolCall
from ..._usage import FinishReason, Usage
from .._fastpath import GIVE_UP, Wire, carrier
from ._common import ABSENT, DERIVED, FINISH, NAME

__all__ = ["fast_response"]

_OTHER = FinishReason.OTHER
_STOP = FinishReason.STOP
_TOOL_CALLS = FinishReason.TOOL_CALLS
_encode = msgspec.json.Encoder().encode


class _Function(Wire):
    name: str
    arguments: dict[str, Any]
    index: Any = UNSET


class _Call(Wire):
    function: _Function
    id: str | UnsetType = UNSET


class _Message(Wire):
    role: Literal["assistant"] | UnsetType = UNSET
    content: str | UnsetType | None = UNSET
    thinking: str | UnsetType | None = UNSET
    tool_calls: list[_Call] | UnsetType | None = UNSET
    images: Any = UNSET


class _Response(Wire):
    model: str | UnsetType | None = UNSET
    created_at: Any = UNSET
    message: _Message | UnsetType | None = UNSET
    done_reason: str | UnsetType | None = UNSET
    done: Any = UNSET
    total_duration: Any = UNSET
    load_duration: Any = UNSET
    prompt_eval_count: int | UnsetType | None = UNSET
    prompt_eval_duration: Any = UNSET
    eval_count: int | UnsetType | None = UNSET
    eval_duration: Any = UNSET


_decoder = msgspec.json.Decoder(_Response)
# The carried keys, in the wire's usual order (as the general path keeps them).
_carry = carrier(
    _Response, "created_at", "done", "total_duration", "load_duration", "prompt_eval_duration",
    "eval_duration",
)  # fmt: skip


def fast_response(body: bytes | str) -> Response | None:
    """The canonical response of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON, or an error body: the general path
    raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        _carry(r, own)
        if r.done is UNSET:
            own["~done"] = ABSENT
        model = r.model
        if model is UNSET:
            model = None
        elif model is None:
            own["model"] = None

        m = r.message
        message: AssistantMessage | None = None
        if type(m) is _Message:
            created = r.created_at
            message = _assistant(m, created if type(created) is str else "")
        elif m is None:
            own["message"] = None
        else:
            own["~message"] = ABSENT

        reason = r.done_reason
        if type(reason) is str:
            finish = FINISH.get(reason, _OTHER)
            if finish is _STOP and message is not None and message.tool_calls:
                finish = _TOOL_CALLS
            choice = Choice(message, finish, reason)
        else:
            if reason is None:
                own["done_reason"] = None
            choice = Choice(message, None, None)

        prompt = r.prompt_eval_count
        completion = r.eval_count
        if type(prompt) is int and type(completion) is int and prompt >= 0 and completion >= 0:
            usage: Usage | None = Usage(prompt, completion)
        else:
            usage = _usage(prompt, completion, own)
        return Response((choice,), None, model, usage, extras={NAME: own} if own else None)
    except GIVE_UP:
        return None


def _assistant(m: _Message, seed: str) -> AssistantMessage:
    own: dict[str, Any] = {}
    if m.images is not UNSET:
        own["images"] = m.images
    if m.role is UNSET:
        own["~role"] = ABSENT
    text = m.content
    if text is UNSET:
        text = None
    elif text is None:
        own["content"] = None
    thinking = m.thinking
    if thinking is UNSET:
        thinking = None
    elif thinking is None:
        own["thinking"] = None
    items = m.tool_calls
    calls: tuple[ToolCall, ...] = ()
    if items:
        calls = _calls(items, seed)
    elif items is not UNSET:
        own["tool_calls"] = items  # [] or null, kept as sent
    content: str | tuple[ReasoningPart | TextPart, ...] | None
    if thinking is not None:
        content = (
            (ReasoningPart(thinking),)
            if text is None
            else (ReasoningPart(thinking), TextPart(text))
        )
    elif text is None and not calls:
        content = ()
    else:
        content = text
    return AssistantMessage(content, calls, (), extras={NAME: own} if own else None)


def _calls(items: list[_Call], seed: str) -> tuple[ToolCall, ...]:
    # Only well-formed calls: an empty name fails ToolCall's own check, and
    # the general path keeps it as an invalid call.
    out: list[ToolCall] = []
    for j, c in enumerate(items):
        f = c.function
        name = f.name
        data = _encode(f.arguments)
        wire_id = c.id
        own: dict[str, Any]
        if type(wire_id) is str and wire_id:
            call_id = wire_id
            own = {}
        else:
            own = {"id": wire_id, "~id": DERIVED} if wire_id == "" else {"~id": DERIVED}
            # derive_id("call_", seed, j, name, data), inlined: the same bytes hashed.
            key = b"%b\0%d\0%b\0%b\0" % (
                seed.encode("utf-8", "replace"),
                j,
                name.encode("utf-8", "replace"),
                data,
            )
            call_id = "call_" + blake2b(key, digest_size=8).hexdigest()
        if f.index is not UNSET:
            own["function"] = {"index": f.index}
        out.append(ToolCall(call_id, name, Raw(data), extras={NAME: own} if own else None))
    return tuple(out)


def _usage(prompt: Any, completion: Any, own: dict[str, Any]) -> Usage | None:
    """The usage when a count is absent, ``null`` or negative (the last fails)."""
    absent: list[str] = []
    if type(prompt) is not int:
        if prompt is None:
            own["prompt_eval_count"] = None
        absent.append("prompt_eval_count")
        prompt = 0
    if type(completion) is not int:
        if completion is None:
            own["eval_count"] = None
        absent.append("eval_count")
        completion = 0
    if len(absent) == 2:
        return None
    if prompt < 0 or completion < 0:
        raise ValidationError("must not be negative", "$")  # the general path says where
    return Usage(prompt, completion, extras={NAME: {"~absent": absent}} if absent else None)
