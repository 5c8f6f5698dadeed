"""Finish reasons across the seven families: one table, read both ways.

Each family's names are read into a normalized :class:`FinishReason`
(``READ``); a reason is written back as the target family's nearest name
(``WRITE``). The rules, the same for every encoder (``convert``, the stream
encoders and ``translate_stream`` all write through :func:`write`):

- a raw name the target family reads as the same reason is written as is
  (a same-family round trip changes nothing), unless it is another family's
  name: ``OTHER`` written into Anthropic is not Gemini's ``OTHER``;
- a few names have an equal in one other family only (``stop_sequence``,
  ``model_context_window_exceeded``, Gemini's ``MALFORMED_FUNCTION_CALL`` and
  Bedrock's ``malformed_tool_use``): that equal is written;
- else the target's name for the reason (``SAFETY``, ``refusal``,
  ``content_filtered``...);
- a reason the target has no name for is reported lost, and written as its
  nearest name where the family's clients take a closed set (OpenAI Chat's
  five: a failure as ``content_filter``; Gemini's ``MALFORMED_RESPONSE``,
  Bedrock's ``malformed_model_output``; a block as Cohere's ``ERROR``), as
  the normalized name where the family's readers take any string (Ollama's
  ``"error"``), as a null
  Anthropic ``stop_reason``, or, for ``other`` (neither blocked nor failed),
  as the family's plain stop: a stop that means "blocked" or "failed" never
  becomes a plain stop. OpenAI dialects' own ``"error"`` is read, and goes
  back as it came only to OpenAI from an OpenAI body.

The finish-reason table of docs/providers.md is this module's ``WRITE``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from .._errors import ValidationError
from .._frozen import FrozenMap
from .._usage import FinishReason

K = TypeVar("K")

__all__ = ["READ", "WRITE", "reason_of", "write"]

_S, _L, _T = FinishReason.STOP, FinishReason.LENGTH, FinishReason.TOOL_CALLS
_C, _E, _O = FinishReason.CONTENT_FILTER, FinishReason.ERROR, FinishReason.OTHER


def _frozen(table: dict[K, dict[Any, Any]]) -> FrozenMap[K, FrozenMap[Any, Any]]:
    """A table of tables, read-only at both levels."""
    return FrozenMap({key: FrozenMap(inner) for key, inner in table.items()})


READ: Mapping[str, Mapping[str, FinishReason | None]] = _frozen(
    {
        "openai": {
            "stop": _S,
            "length": _L,
            "tool_calls": _T,
            "function_call": _T,
            "content_filter": _C,
            "error": _E,  # OpenRouter's, and what another family's failure is written as
            "": None,
        },
        "openai-responses": {  # a status, or an incomplete response's reason
            "completed": _S,
            "max_output_tokens": _L,
            "content_filter": _C,
            "failed": _E,
            "cancelled": _O,
            "in_progress": None,
            "queued": None,
        },
        "anthropic": {
            "end_turn": _S,
            "stop_sequence": _S,
            "max_tokens": _L,
            "model_context_window_exceeded": _L,
            "tool_use": _T,
            "refusal": _C,
            "pause_turn": _O,
        },
        "gemini": {
            "FINISH_REASON_UNSPECIFIED": None,  # no reason known, as the stream encoder writes one
            "STOP": _S,
            "MAX_TOKENS": _L,
            "CONTINUATION": _L,
            "SAFETY": _C,
            "RECITATION": _C,
            "LANGUAGE": _C,  # flagged for an unsupported language
            "BLOCKLIST": _C,
            "PROHIBITED_CONTENT": _C,
            "SPII": _C,
            "IMAGE_SAFETY": _C,
            "IMAGE_PROHIBITED_CONTENT": _C,
            "IMAGE_RECITATION": _C,
            "MODEL_ARMOR": _C,
            "ESCALATION": _C,
            "PUP_LIMITED_DISABLED": _C,
            "MALFORMED_FUNCTION_CALL": _E,
            "UNEXPECTED_TOOL_CALL": _E,
            "TOO_MANY_TOOL_CALLS": _E,
            "MISSING_THOUGHT_SIGNATURE": _E,
            "MALFORMED_RESPONSE": _E,
            "NO_IMAGE": _E,  # an image was expected and none was made
            "OTHER": _O,
            "IMAGE_OTHER": _O,
        },
        "ollama": {
            "stop": _S,
            "length": _L,
            "load": _O,
            "unload": _O,
            "content_filter": _C,  # other families' reasons with no equal, as written here
            "error": _E,
        },
        "bedrock": {
            "end_turn": _S,
            "stop_sequence": _S,
            "max_tokens": _L,
            "model_context_window_exceeded": _L,
            "tool_use": _T,
            "guardrail_intervened": _C,
            "content_filtered": _C,
            "malformed_model_output": _E,
            "malformed_tool_use": _E,
        },
        "cohere": {
            "COMPLETE": _S,
            "STOP_SEQUENCE": _S,
            "MAX_TOKENS": _L,
            "ERROR_LIMIT": _L,  # the model's context was full (Cohere's v1 name)
            "TOOL_CALL": _T,
            "ERROR_TOXIC": _C,  # v1's: the answer was blocked
            "ERROR": _E,
            "TIMEOUT": _E,
            "USER_CANCEL": _O,
        },
    }
)
"""Each family's names, normalized (a name not here is ``OTHER``)."""

WRITE: Mapping[str, Mapping[FinishReason, str | None]] = _frozen(
    {
        "openai": {
            _S: "stop",
            _L: "length",
            _T: "tool_calls",
            _C: "content_filter",
            _E: None,
            _O: None,
        },
        "openai-responses": {
            _S: "completed",
            _L: "max_output_tokens",
            _T: "completed",
            _C: "content_filter",
            _E: "failed",
            _O: None,
        },
        "anthropic": {
            _S: "end_turn",
            _L: "max_tokens",
            _T: "tool_use",
            _C: "refusal",
            _E: None,
            _O: None,
        },
        "gemini": {_S: "STOP", _L: "MAX_TOKENS", _T: "STOP", _C: "SAFETY", _E: None, _O: "OTHER"},
        "ollama": {_S: "stop", _L: "length", _T: "stop", _C: None, _E: None, _O: None},
        "bedrock": {
            _S: "end_turn",
            _L: "max_tokens",
            _T: "tool_use",
            _C: "content_filtered",
            _E: None,
            _O: None,
        },
        "cohere": {
            _S: "COMPLETE",
            _L: "MAX_TOKENS",
            _T: "TOOL_CALL",
            _C: None,
            _E: "ERROR",
            _O: None,
        },
    }
)
"""Each family's nearest name for a reason; None: it has none (written as below, reported)."""

# What a family with no name for a reason writes (reported): "error" where its readers
# take any string, a null Anthropic stop_reason (its SDK takes no other name), and the
# family's plain stop for ``other`` (neither blocked nor failed, and every SDK takes it).
_NO_EQUAL: Mapping[tuple[str, FinishReason], str | None] = FrozenMap(
    {
        ("openai", _O): "stop",
        ("anthropic", _E): None,
        ("anthropic", _O): "end_turn",
        ("ollama", _O): "stop",
        ("bedrock", _O): "end_turn",
        ("cohere", _O): "COMPLETE",
    }
)
_NEAREST: Mapping[str, Mapping[FinishReason, str]] = _frozen(
    {
        # OpenAI's clients take five names: a failure is nearest to a stop the
        # provider imposed (the answer is not a normal one), not a plain stop.
        "openai": {_E: "content_filter"},
        "gemini": {_E: "MALFORMED_RESPONSE"},
        "bedrock": {_E: "malformed_model_output"},
        # The v2 API's clients take its six names: a block is nearest to a failure.
        "cohere": {_C: "ERROR"},
    }
)
"""A name that is near but not equal: written, and reported."""

# Names with an equal in one other family, by (name, reason): the equal, by family.
_EQUALS: Mapping[tuple[str, FinishReason], Mapping[str, str]] = _frozen(
    {
        ("stop_sequence", _S): {
            "anthropic": "stop_sequence",
            "bedrock": "stop_sequence",
            "cohere": "STOP_SEQUENCE",
        },
        ("STOP_SEQUENCE", _S): {
            "anthropic": "stop_sequence",
            "bedrock": "stop_sequence",
            "cohere": "STOP_SEQUENCE",
        },
        ("model_context_window_exceeded", _L): {
            "anthropic": "model_context_window_exceeded",
            "bedrock": "model_context_window_exceeded",
        },
        ("MALFORMED_FUNCTION_CALL", _E): {
            "gemini": "MALFORMED_FUNCTION_CALL",
            "bedrock": "malformed_tool_use",
        },
        ("malformed_tool_use", _E): {
            "gemini": "MALFORMED_FUNCTION_CALL",
            "bedrock": "malformed_tool_use",
        },
        ("guardrail_intervened", _C): {"bedrock": "guardrail_intervened"},
    }
)

_KNOWN = frozenset(name for names in READ.values() for name in names)
# Names a family reads only because another family's reason is written so here.
_ADOPTED = FrozenMap({"ollama": frozenset(("content_filter", "error"))})


def reason_of(value: object, path: str) -> FinishReason:
    """A finish reason given as the enum or its plain string value."""
    if type(value) is FinishReason:
        return value
    if isinstance(value, str):
        try:
            return FinishReason(value)
        except ValueError:
            pass
    raise ValidationError("must be a FinishReason", path)


def write(
    family: str, reason: FinishReason, raw: str | int | None, meant: FinishReason | None
) -> tuple[str | None, str | None]:
    """The name ``family`` writes for ``reason``, and why it is a loss (None if not).

    ``meant`` is what ``family`` reads ``raw`` as (None when it cannot); the
    raw name is kept when it still says ``reason`` and is not another family's.
    """
    names = READ[family]
    if type(raw) is str:
        own = raw in names and raw not in _ADOPTED.get(family, ())
        if meant is reason and (own or raw not in _KNOWN):
            return raw, None
        equal = _EQUALS.get((raw, reason))
        if equal is not None and family in equal:
            return equal[family], None
    wire = WRITE[family][reason]
    if wire is not None:
        return wire, None
    near = _NEAREST.get(family, {}).get(reason)
    if near is not None:
        return near, f"{family} has no {reason.value} finish reason: written as {near}"
    wire = _NO_EQUAL.get((family, reason), reason.value)
    return wire, f"{family} has no {reason.value} finish reason: written as {wire or 'null'}"
