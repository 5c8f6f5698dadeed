"""Stream events: what a provider stream decoder reports as bytes arrive.

Small frozen values, one per thing that happened, in order. Tool-call
events come from the :class:`ToolCallAccumulator`; the rest from the provider
stream decoders (``chatcodec.providers.get(name).stream()``). ``choice`` is the
answer an event belongs to, when a response has several (OpenAI ``n``).
Like the messages, an event's repr shows each field's type and size, never its
text: ``TextDelta(text=<5 chars>)``.
"""

from __future__ import annotations

from ._content import AssistantPart, Citation
from ._stream import Event, ToolCallArgumentsDelta, ToolCallStarted
from ._tools import InvalidToolCall, ToolCall
from ._usage import FinishReason, Usage

__all__ = [
    "CitationReceived",
    "Finished",
    "PartReceived",
    "ReasoningDelta",
    "RefusalDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallCompleted",
    "UsageReported",
]


class TextDelta(Event, frozen=True):
    """More answer text."""

    text: str
    choice: int = 0


class ReasoningDelta(Event, frozen=True):
    """More reasoning (thinking) text, or its signature once complete."""

    text: str
    choice: int = 0
    signature: str | None = None


class RefusalDelta(Event, frozen=True):
    """More of the model's refusal."""

    text: str
    choice: int = 0


class PartReceived(Event, frozen=True):
    """A whole part arrived (a server-tool block, redacted reasoning...)."""

    part: AssistantPart
    choice: int = 0


class CitationReceived(Event, frozen=True):
    """A citation of answer text already streamed.

    Its ``start`` and ``end`` count characters of the answer's text streamed
    so far in this choice (every :class:`TextDelta`), not of one part: a
    family that cites whole text blocks (Anthropic, Bedrock) gives the
    block's span.
    """

    citation: Citation
    choice: int = 0


class ToolCallCompleted(Event, frozen=True):
    """A tool call's arguments are complete: a call, or an invalid call."""

    slot: int
    call: ToolCall | InvalidToolCall
    choice: int = 0


class UsageReported(Event, frozen=True):
    """Token usage so far, for the whole response (not an increment)."""

    usage: Usage


class Finished(Event, frozen=True):
    """An answer ended, and why (normalized, and as the provider said it)."""

    finish_reason: FinishReason | None
    raw_finish_reason: str | int | None = None
    choice: int = 0


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | RefusalDelta
    | PartReceived
    | CitationReceived
    | ToolCallStarted
    | ToolCallArgumentsDelta
    | ToolCallCompleted
    | UsageReported
    | Finished
)
"""Any stream event."""
