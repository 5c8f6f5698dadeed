"""Stream events: what a provider stream decoder reports as bytes arrive.

Small frozen values, one per thing that happened, in order. Tool-call
events come from the :class:`ToolCallAccumulator`; the rest from the provider
stream decoders (``chatcodec.providers.get(name).stream()``). ``choice`` is the
answer an event belongs to, when a response has several (OpenAI ``n``).
"""

from __future__ import annotations

import msgspec

from ._content import AssistantPart
from ._stream import ToolCallArgumentsDelta, ToolCallStarted
from ._tools import InvalidToolCall, ToolCall
from ._usage import FinishReason, Usage

__all__ = [
    "Finished",
    "PartReceived",
    "ReasoningDelta",
    "RefusalDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallCompleted",
    "UsageReported",
]


class TextDelta(msgspec.Struct, frozen=True):
    """More answer text."""

    text: str
    choice: int = 0


class ReasoningDelta(msgspec.Struct, frozen=True):
    """More reasoning (thinking) text, or its signature once complete."""

    text: str
    choice: int = 0
    signature: str | None = None


class RefusalDelta(msgspec.Struct, frozen=True):
    """More of the model's refusal."""

    text: str
    choice: int = 0


class PartReceived(msgspec.Struct, frozen=True):
    """A whole part arrived (a server-tool block, redacted reasoning...)."""

    part: AssistantPart
    choice: int = 0


class ToolCallCompleted(msgspec.Struct, frozen=True):
    """A tool call's arguments are complete: a call, or an invalid call."""

    slot: int
    call: ToolCall | InvalidToolCall
    choice: int = 0


class UsageReported(msgspec.Struct, frozen=True):
    """Token usage so far, for the whole response (not an increment)."""

    usage: Usage


class Finished(msgspec.Struct, frozen=True):
    """An answer ended, and why (normalized, and as the provider said it)."""

    finish_reason: FinishReason | None
    raw_finish_reason: str | int | None = None
    choice: int = 0


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | RefusalDelta
    | PartReceived
    | ToolCallStarted
    | ToolCallArgumentsDelta
    | ToolCallCompleted
    | UsageReported
    | Finished
)
"""Any stream event."""
