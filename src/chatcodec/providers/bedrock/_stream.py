"""Bedrock's ``ConverseStream``: event-stream frames in, events and one response out.

The frames (:mod:`chatcodec._eventstream`) carry JSON events named by their
``:event-type`` header: ``messageStart`` (the role), ``contentBlockStart``
(a ``toolUse`` or ``toolResult`` block's fixed fields), ``contentBlockDelta``
(text, reasoning text or signature, redacted reasoning, tool input text,
tool result content), ``contentBlockStop``, ``messageStop`` (the stop
reason) and ``metadata`` (usage, metrics, trace). Each event's ``p`` key is
padding and is dropped. A start of any other block (another kind, several
keys, a value of another type) holds that block whole, as it is: it is kept
as the body decoder keeps it (an opaque part), and no delta may add to it.

The decoder folds the blocks, by ``contentBlockIndex``, into the body
``Converse`` would have answered and decodes that with the codec's own
response mapping, so a streamed answer and a plain one decode alike. A frame
whose ``:message-type`` is ``exception`` or ``error`` ends the stream with a
:class:`~chatcodec.StreamError` naming the exception's type.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import ReasoningPart
from ..._errors import ProviderError, ValidationError
from ..._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._eventstream import MAX_FRAME, EventStreamReader
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Deframer, Limits, Pair, limits
from ..._paths import key_step
from ..._stream import ToolCallAccumulator
from ..._tools import InvalidToolCall, ToolCallDelta
from .._streaming import StreamDecoder, cut_off
from .._wire import expect_dict
from ._blocks import NAME, assistant_part
from ._cite import read_citations
from ._decode import _tool_use, _usage, finish_reason, response_from

__all__ = ["BedrockStreamDecoder", "stream"]

_decode_json = msgspec.json.Decoder().decode
_PADDING = "p"
_PLAIN = frozenset(("text", "reasoning", "toolUse"))


class _Frames(Deframer):
    """The framing reader of the base decoder, for AWS event-stream frames."""

    __slots__ = ("_events",)

    def __init__(self, max_frame: int, limit: str = "max_frame") -> None:
        super().__init__(None)
        self._events = EventStreamReader(max_frame, limit)

    def feed_pairs(self, data: bytes) -> list[Pair]:
        pairs: list[Pair] = []
        for headers, payload in self._events.feed(data):
            kind = headers.get(":message-type", "event")
            if kind == "exception" or kind == "error":
                raise _exception(headers, payload)
            name = headers.get(":event-type")
            pairs.append((name if type(name) is str else None, payload))
        return pairs

    def pair_feeder(self) -> Any:
        return self.feed_pairs

    def finish_pairs(self) -> list[Pair]:
        self._events.finish()
        return []

    def release(self) -> None:
        self._events.release()


def _exception(headers: dict[str, Any], payload: bytes) -> ProviderError:
    kind = headers.get(":exception-type", headers.get(":error-code"))
    message = headers.get(":error-message")
    body: Any = None
    try:
        body = _decode_json(payload) if payload else None
    except msgspec.DecodeError:
        body = None
    if type(body) is dict and type(body.get("message")) is str:
        message = body["message"]
    return ProviderError(
        NAME,
        type=kind if type(kind) is str else None,
        message=message if type(message) is str else None,
        body=body,
    )


_FIELDS = frozenset(("toolUse", "toolResult"))  # the starts whose fields are read


class _Block:
    """One content block while it streams."""

    __slots__ = (
        "citations",
        "closed",
        "content",
        "fields",
        "kind",
        "pieces",
        "redacted",
        "signature",
        "slot",
        "whole",
    )

    def __init__(self) -> None:
        self.closed = False  # its contentBlockStop came
        self.kind = "text"
        self.whole: dict[str, Any] | None = None  # a start of several kinds, kept as it came
        self.fields: Any = {}  # a toolUse or toolResult start
        self.pieces: list[str] = []  # text, reasoning text or tool input
        self.redacted: list[str] = []
        self.signature: str | None = None
        self.content: list[Any] = []  # a tool result's blocks
        self.slot = -1  # the tool call's slot, for a client call
        self.citations: list[Any] = []  # citation deltas (Claude citations, Nova grounding)

    def cited(self) -> dict[str, Any]:
        """The block's citations, as a block of their own after its text."""
        return {"citationsContent": {"content": [], "citations": self.citations}}

    def wire(self) -> dict[str, Any]:
        if self.whole is not None:
            return self.whole
        text = "".join(self.pieces)
        kind = self.kind
        if kind == "reasoning":
            if self.redacted:
                return {"reasoningContent": {"redactedContent": "".join(self.redacted)}}
            reasoning: dict[str, Any] = {"text": text}
            if self.signature is not None:
                reasoning["signature"] = self.signature
            return {"reasoningContent": {"reasoningText": reasoning}}
        if kind == "toolUse":
            value: Any = {}
            if text.strip():
                try:
                    value = _decode_json(text)
                except msgspec.DecodeError:
                    value = text  # kept as sent: the block decodes as an opaque part
            return {"toolUse": {**self.fields, "input": value}}
        if kind == "toolResult":
            return {"toolResult": {**self.fields, "content": self.content}}
        if kind == "text" and self.citations and read_citations(self.citations) is not None:
            # Text with what it cites: one block, as the body has it.
            return {"citationsContent": {"content": [{"text": text}], "citations": self.citations}}
        return {"text": text}

    def split(self) -> bool:
        """Whether the block's citations go in a block of their own (ones not read)."""
        return bool(self.citations) and (
            self.kind != "text" or read_citations(self.citations) is None
        )


class BedrockStreamDecoder(StreamDecoder):
    """Decoder for a Bedrock ``ConverseStream`` response; see :func:`stream`."""

    __slots__ = ("_acc", "_blocks", "_calls", "_message", "_metadata", "_stopped", "_top")

    _LAST = "messageStop and its metadata event"

    def __init__(self, max_frame: int = MAX_FRAME, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(None, limits)
        # A frame is the stream's line and its event at once: the smallest of
        # the three limits bounds it, and a frame past it names that one.
        size, name = min(
            (max_frame, "max_frame"),
            (limits.max_line, "max_line"),
            (limits.max_event, "max_event"),
            key=lambda pair: pair[0],
        )
        self._deframer = _Frames(size, name)
        self._pairs = self._deframer.pair_feeder()
        self._message: dict[str, Any] | None = None
        self._blocks: dict[int, _Block] = {}
        self._top: dict[str, Any] = {}  # stopReason, usage, metrics...
        self._acc = ToolCallAccumulator(
            max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self._calls = 0
        self._stopped = False  # messageStop came
        self._metadata = False  # the metadata event (usage, metrics) came

    def _block(self, event: dict[str, Any]) -> tuple[int, _Block]:
        index = event.get("contentBlockIndex")
        if type(index) is not int:
            raise ValidationError("must be an integer", "$.contentBlockIndex")
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block()
        return index, block

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        payload = expect_dict(_decode_json(data), "$")
        payload.pop(_PADDING, None)
        if event == "contentBlockDelta":
            self._delta(payload, events)
        elif event == "contentBlockStart":
            self._start(payload, events)
        elif event == "contentBlockStop":
            self._stop(payload, events)
        elif event == "messageStart":
            self._message = payload
        elif event == "messageStop":
            self._stopped = True
            self._top.update(payload)
            raw = payload.get("stopReason")
            if type(raw) is str:
                events.append(Finished(finish_reason(raw), raw))
        elif event == "metadata":
            self._metadata = True
            self._top.update(payload)
            if "usage" in payload:
                events.append(UsageReported(_usage(payload["usage"])))

    def _start(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index, block = self._block(payload)
        start = expect_dict(payload.get("start", {}), "$.start")
        kind, fields = next(iter(start.items())) if len(start) == 1 else ("", None)
        if kind not in _FIELDS or type(fields) is not dict:
            # Only a toolUse or toolResult start is read (the other kinds have none);
            # any other (another kind, several keys or none, a value of another
            # type) holds its block whole, kept as the body decoder keeps it.
            block.kind, block.whole = "", start
            return
        block.kind = kind
        block.fields = fields
        if kind == "toolUse" and fields.get("type") != "server_tool_use":
            call_id, name = fields.get("toolUseId"), fields.get("name")
            block.slot = self._calls
            self._calls += 1
            delta = ToolCallDelta(
                index,
                call_id if type(call_id) is str else None,
                name if type(name) is str else None,
            )
            events.extend(self._acc.feed(delta))

    def _delta(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index, block = self._block(payload)
        delta = expect_dict(payload.get("delta"), "$.delta")
        if block.whole is not None:
            # The block came whole in its start: more of it would be lost in the response.
            raise ValidationError("must not come for a block its start gave whole", "$.delta")
        for key, value in delta.items():
            if key == "text" and type(value) is str:
                block.pieces.append(value)
                if value:
                    events.append(TextDelta(value))
            elif key == "reasoningContent":
                block.kind = "reasoning"
                self._reasoning(block, expect_dict(value, "$.delta.reasoningContent"), events)
            elif key == "toolUse":
                piece = expect_dict(value, "$.delta.toolUse").get("input")
                if type(piece) is str:
                    block.pieces.append(piece)
                    if block.slot >= 0:
                        events.extend(self._acc.feed(ToolCallDelta(index, arguments_delta=piece)))
            elif key == "toolResult" and type(value) is list:
                block.content.extend(value)
            elif key == "citation":
                # What the text cites: kept, and given whole after the block's text.
                block.citations.append(expect_dict(value, "$.delta.citation"))
            else:
                rule = "is a delta this decoder does not know"
                raise ValidationError(rule, "$.delta" + key_step(key))

    def _reasoning(self, block: _Block, value: dict[str, Any], events: list[StreamEvent]) -> None:
        text, signature, redacted = (
            value.get("text"),
            value.get("signature"),
            value.get("redactedContent"),
        )
        if type(text) is str:
            block.pieces.append(text)
            if text:
                events.append(ReasoningDelta(text))
        if type(signature) is str:
            block.signature = (block.signature or "") + signature
            events.append(ReasoningDelta("", signature=signature))
        if type(redacted) is str:
            block.redacted.append(redacted)

    def _stop(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index, block = self._block(payload)
        block.closed = True
        if block.kind == "reasoning" and block.redacted:
            part = ReasoningPart(redacted="".join(block.redacted), provider=NAME)
            events.append(PartReceived(part))
        elif block.kind not in _PLAIN or (block.kind == "toolUse" and block.slot < 0):
            # A server-tool call or result, or a block of a kind chatcodec does not
            # model: kept whole in the response, and reported whole here.
            events.append(PartReceived(assistant_part(block.wire())))
        elif block.slot >= 0:
            wire = block.wire()
            call = _tool_use(wire)
            if call is None:
                fields = block.fields
                rule = "arguments are not a JSON object"
                name = fields.get("name")
                call_id = fields.get("toolUseId")
                text = "".join(block.pieces)
                bad = InvalidToolCall(
                    call_id if type(call_id) is str else None,
                    name if type(name) is str else None,
                    text,
                    rule,
                )
                events.append(ToolCallCompleted(block.slot, bad))
            else:
                events.append(ToolCallCompleted(block.slot, call))
        if block.split():
            events.append(PartReceived(assistant_part(block.cited())))
        elif block.citations:
            # Read: each one spans the block's text, among the answer's.
            start = sum(
                sum(map(len, other.pieces))
                for at, other in self._blocks.items()
                if at < index and other.kind == "text"
            )
            end = start + sum(map(len, block.pieces))
            for citation in read_citations(block.citations) or ():
                spanned = msgspec.structs.replace(citation, start=start, end=end)
                events.append(CitationReceived(spanned))

    def _end(self, events: list[StreamEvent]) -> None:
        """Nothing is pending at the end: unfinished blocks go in as they stand."""

    def _response(self) -> Response:
        body = dict(self._top)
        if self._message is not None or self._blocks:
            message = dict(self._message or {"role": "assistant"})
            content = message["content"] = []
            for key in sorted(self._blocks):
                block = self._blocks[key]
                split = block.split()
                if block.pieces or not split or block.kind != "text":
                    content.append(block.wire())
                if split:
                    content.append(block.cited())
            body["output"] = {"message": message}
        # The calls whose block never got its contentBlockStop.
        cut = {
            block.fields.get("toolUseId")
            for block in self._blocks.values()
            if block.slot >= 0 and not block.closed
        }
        return cut_off(response_from(body), cut)

    def _complete(self) -> bool:
        # ConverseStream always ends with metadata (the usage) after messageStop:
        # a stream without it was cut, and its usage lost.
        return self._stopped and self._metadata

    def _release(self) -> None:
        self._message, self._blocks, self._top = None, {}, {}


def stream(
    framing: None = None,
    *,
    max_frame: int = MAX_FRAME,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> BedrockStreamDecoder:
    r"""A decoder for a Bedrock ``ConverseStream`` response.

    Feed it the response bytes as they arrive (AWS event-stream frames, split
    anywhere); ``finish()`` returns the same :class:`~chatcodec.Response` as
    ``decode_response`` of the body ``Converse`` would have sent.

    Parameters
    ----------
    framing : None
        Bedrock streams have one framing; the parameter keeps the codec
        surface the same as the other families'.
    max_frame : int, optional
        The largest event-stream frame taken, in bytes (default AWS's
        largest, 24 MiB and 128 KiB of payload and 16 bytes).
    max_line, max_event : int, optional
        The limits every family's ``stream()`` takes: one frame is Bedrock's
        line and event at once, so each bounds a frame as ``max_frame`` does,
        and the smallest of the three given holds. Past it, ``feed`` raises
        ``StreamError`` whose ``.limit`` names the one that held
        (``"max_frame"`` by default).
    max_arguments, max_tool_calls : int, optional
        Limits: the most characters of one call's input (default 16 MiB) and
        the most tool calls (10,000).

    The stream is complete once ``messageStop`` and the ``metadata`` event
    after it (the usage and metrics, which ConverseStream always sends) have
    come; ``finish()`` of a stream cut off before raises ``StreamError``
    (``finish(allow_incomplete=True)`` returns the partial, whose ``usage``
    is None when the metadata never came), and a ``toolUse`` block the
    stream ended in is an invalid call whose arguments are truncated.

    Raises
    ------
    StreamError
        From ``feed``/``finish``: a frame fails its CRC, is over the frame
        limit (``.limit`` names it) or is cut off at the end; an ``exception`` frame (the
        message names its type, such as ``throttlingException``); or an
        event is malformed. ``partial`` holds the response so far.

    Examples
    --------
    >>> from chatcodec._eventstream import encode_message
    >>> from chatcodec.providers import bedrock
    >>> def frame(kind, payload):
    ...     headers = {":event-type": kind, ":content-type": "application/json",
    ...                ":message-type": "event"}
    ...     return encode_message(headers, payload)
    >>> data = b"".join([
    ...     frame("messageStart", b'{"role":"assistant"}'),
    ...     frame("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"Hi!"}}'),
    ...     frame("contentBlockStop", b'{"contentBlockIndex":0}'),
    ...     frame("messageStop", b'{"stopReason":"end_turn"}'),
    ...     frame("metadata", b'{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5}}'),
    ... ])
    >>> decoder = bedrock.stream()
    >>> events = decoder.feed(data)
    >>> events[0]
    TextDelta(text=<3 chars>)
    >>> decoder.finish().message.text
    'Hi!'
    """
    if framing is not None:
        raise ValidationError(
            "must be None: bedrock streams are AWS event-stream frames", "framing"
        )
    return BedrockStreamDecoder(
        max_frame, limits(max_line, max_event, max_arguments, max_tool_calls)
    )
