"""Anthropic's streamed Messages API: events in, stream events and one response out.

An Anthropic stream is SSE with named events. The decoder folds them into the
message Anthropic would have sent without streaming, as builtins, and decodes
that with the codec's own response mapping, so a streamed answer and a plain
one decode alike:

- ``message_start`` gives the message envelope (id, model, input usage);
- ``content_block_start`` opens a block at its ``index``; the content is the
  blocks in index order. ``text_delta`` and ``thinking_delta`` add to the
  block's text, ``signature_delta`` sets a thinking block's signature,
  ``citations_delta`` adds a citation, ``input_json_delta`` adds a fragment of
  the block's ``input`` (``tool_use``, and server-tool blocks). A delta of
  another type adds its strings to the block's strings of the same key and
  sets its other keys (``compaction_delta``);
- a ``tool_use`` input is its fragments joined: the call's arguments keep
  their bytes, and fragments cut off give an invalid call that says so. With
  no fragment the input is the start block's (``{}``), sent as one argument
  delta when the block stops so that the deltas still add up to the
  arguments. A server-tool block gets its fragments parsed as its ``input``
  (``partial_json`` keeps them when they do not parse);
- ``message_delta`` sets the stop reason, stop sequence and the message's
  other keys, and its ``usage`` replaces the counts it names: Anthropic's
  counts there are totals so far, never increments;
- ``message_stop`` ends the stream: without it the stream was cut off;
- ``ping`` and unknown events change nothing; ``error`` ends the stream with
  a :class:`~chatcodec.StreamError` carrying the error's type.

A block is complete at its ``content_block_stop``, or when ``message_delta``
gives a stop reason; a ``tool_use`` block then gives ``ToolCallCompleted`` and
a block kept whole (redacted thinking, server tools, unknown types) gives
``PartReceived``. A ``tool_use`` block the stream ended in (cut off) is an
:class:`~chatcodec.InvalidToolCall` saying its arguments are truncated,
whatever its fragments hold so far.

Speed: the usual event, a ``text_delta``, ``thinking_delta`` or
``input_json_delta`` for an open block, is decoded in C into a typed Struct and
taken inline; every other event is decoded as builtins and read key by key.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._errors import ValidationError
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
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Framing, Limits, limits, over_limit
from ..._stream import ToolCallAccumulator, _join, _problem
from ..._tools import ToolCallDelta
from ..._usage import FinishReason, Usage
from .._fastpath import Wire
from .._streaming import TRUNCATED, StreamDecoder
from .._wire import encode_body, expect_dict, expect_str
from ._cite import read_citations
from ._decode import FINISH, Streamed, _reasoning, _tool_use, _usage, response_from

__all__ = ["AnthropicStreamDecoder", "stream"]

_decode_json = msgspec.json.Decoder().decode
_MESSAGE_EVENT_KEYS = frozenset(("type", "delta", "usage"))


# -- the usual event, typed: more text, thinking or arguments for an open block -----


class _Wire(Wire, tag_field="type"):
    """Base of the wire Structs, told apart by their ``type``."""


class _TextDelta(_Wire, tag="text_delta"):
    text: str


class _ThinkingDelta(_Wire, tag="thinking_delta"):
    thinking: str


class _JSONDelta(_Wire, tag="input_json_delta"):
    partial_json: str


class _BlockDelta(_Wire, tag="content_block_delta"):
    index: int
    delta: _TextDelta | _ThinkingDelta | _JSONDelta


_decode_delta = msgspec.json.Decoder(_BlockDelta).decode


def _index(payload: dict[str, Any]) -> int:
    index = payload.get("index")
    if type(index) is not int:
        raise ValidationError("must be an integer", "$.index")
    return index


class _Block:
    """One content block as it arrives."""

    __slots__ = ("block", "cut", "field", "fragments", "index", "open", "pieces", "size", "slot")

    def __init__(self, index: int, block: dict[str, Any], open: bool = True) -> None:
        self.index = index
        self.block = block  # the start block, updated by the deltas
        self.field: str | None = None  # "text" or "thinking": the text built from pieces
        self.pieces: list[str] = []
        self.fragments: list[str] | None = None  # input_json_delta text, once any came
        self.slot: int | None = None  # the tool-call slot of a tool_use block
        self.size = 0  # characters of fragments so far
        self.open = open
        self.cut = False  # the stream ended while the block was open

    def built(self, streamed: bool = False) -> dict[str, Any]:
        """The block as the non-streaming message would hold it.

        With ``streamed``, a ``tool_use`` input is a :class:`Streamed` that
        keeps the fragments' bytes (and says when they were cut off).
        """
        block = dict(self.block)
        field = self.field
        if field is not None:
            pieces = self.pieces
            if len(pieces) > 1:
                pieces[:] = [_join(pieces)]
            block[field] = pieces[0] if pieces else ""
        fragments = self.fragments
        if self.slot is not None and streamed and (self.open or self.cut):
            # Never stopped: whatever came so far, the input was cut off.
            block["input"] = Streamed(_join(fragments) if fragments else "", TRUNCATED)
        elif fragments is not None:
            if len(fragments) > 1:
                fragments[:] = [_join(fragments)]
            text = fragments[0] if fragments else ""
            if self.slot is not None and streamed:
                if text:
                    block["input"] = Streamed(text, _problem(text))
            elif text:
                try:
                    block["input"] = _decode_json(text)
                except (msgspec.DecodeError, RecursionError):
                    block["partial_json"] = text
        return block


class AnthropicStreamDecoder(StreamDecoder):
    """Decode an Anthropic Messages stream (SSE with named events).

    Made by :func:`stream`; see there.
    """

    __slots__ = (
        "_acc",
        "_blocks",
        "_calls",
        "_message",
        "_stopped",
        "_text",
        "_usage",
        "_usage_raw",
    )

    _LAST = "message_stop"

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._message: dict[str, Any] = {}
        self._blocks: dict[int, _Block] = {}
        self._acc = ToolCallAccumulator(
            max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self._stopped = False  # message_stop came
        self._calls = 0
        self._text = 0  # characters of answer text streamed, where the next block starts
        self._usage_raw: dict[str, Any] | None = None
        self._usage: Usage | None = None

    # -- events -----------------------------------------------------------

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        if event == "content_block_delta" or event is None:
            # The usual event, inline: a typed decode, then what _delta does with it.
            try:
                typed = _decode_delta(data)
            except msgspec.DecodeError:  # a ValidationError too: not that shape
                pass
            else:
                state = self._blocks.get(typed.index)
                if state is not None and state.open:
                    delta = typed.delta
                    field = state.field
                    if type(delta) is _TextDelta:
                        if field == "text":
                            text = delta.text
                            if text:
                                state.pieces.append(text)
                                events.append(TextDelta(text))
                            return
                    elif type(delta) is _ThinkingDelta:
                        if field == "thinking":
                            text = delta.thinking
                            if text:
                                state.pieces.append(text)
                                events.append(ReasoningDelta(text))
                            return
                    elif type(delta) is _JSONDelta:
                        text = delta.partial_json
                        if state.fragments is None:
                            state.fragments = []
                        if text:
                            state.fragments.append(text)
                            state.size += len(text)
                            if state.size > self._limits.max_arguments:
                                raise over_limit("max_arguments", self._limits.max_arguments)
                            if state.slot is not None:
                                more = ToolCallDelta(state.index, arguments_delta=text)
                                events.extend(self._acc.feed(more))
                        return
        payload = expect_dict(_decode_json(data), "$")
        kind = payload.get("type", event)
        if kind == "content_block_delta":
            self._delta(payload, events)
        elif kind == "content_block_start":
            self._start(payload, events)
        elif kind == "content_block_stop":
            block = self._blocks.get(_index(payload))
            if block is None:
                raise ValidationError("no content block was started at this index", "$.index")
            self._close(block, events)
        elif kind == "message_start":
            self._message_start(payload, events)
        elif kind == "message_delta":
            self._message_delta(payload, events)
        elif kind == "message_stop":
            self._stopped = True
        elif kind == "error" or event == "error":
            error = payload.get("error")
            raise self._reported("anthropic", error.get("type") if type(error) is dict else None)
        # ping and unknown events change nothing

    def _more(self, state: _Block, text: str) -> None:
        """One more fragment of a block's input, within the limit."""
        assert state.fragments is not None
        state.fragments.append(text)
        state.size += len(text)
        if state.size > self._limits.max_arguments:
            raise over_limit("max_arguments", self._limits.max_arguments)

    def _message_start(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        message = dict(expect_dict(payload.get("message"), "$.message"))
        content = message.get("content")
        if type(content) is list:
            for k, item in enumerate(content):
                block = expect_dict(item, f"$.message.content[{k}]")
                self._blocks.setdefault(k, _Block(k, block, open=False))
        self._message = {**message, **self._message}  # a message_delta first keeps its keys
        usage = message.get("usage")
        if type(usage) is dict:
            self._report_usage(dict(usage), events)

    def _start(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index = _index(payload)
        if index in self._blocks:
            raise ValidationError("a content block was already started at this index", "$.index")
        block = dict(expect_dict(payload.get("content_block"), "$.content_block"))
        state = self._blocks[index] = _Block(index, block)
        kind = block.get("type")
        if kind == "text" or kind == "thinking":
            field = "text" if kind == "text" else "thinking"
            text = block.get(field)
            if kind == "text" and type(text) is not str:
                # As a body's text block without its text is refused: not at the
                # end only, where the events have passed it on.
                raise ValidationError("must be a string", "$.content_block.text")
            if type(text) is str:
                state.field = field
                if text:
                    state.pieces.append(text)
                    events.append(TextDelta(text) if kind == "text" else ReasoningDelta(text))
        elif kind == "tool_use":
            state.slot = self._calls
            self._calls += 1
            id_, name = block.get("id"), block.get("name")
            start = ToolCallDelta(
                index,
                id_ if type(id_) is str and id_ else None,
                name if type(name) is str and name else None,
            )
            events.extend(self._acc.feed(start))

    def _delta(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        state = self._blocks.get(_index(payload))
        if state is None:
            raise ValidationError("no content block was started at this index", "$.index")
        if not state.open:
            # Its events are out (a call completed): more would make the response say
            # otherwise than the events did.
            raise ValidationError("a delta for a content block that has stopped", "$.index")
        delta = expect_dict(payload.get("delta"), "$.delta")
        kind = delta.get("type")
        if kind == "text_delta" and state.field == "text":
            text = expect_str(delta.get("text"), "$.delta.text")
            if text:
                state.pieces.append(text)
                events.append(TextDelta(text))
        elif kind == "input_json_delta":
            text = expect_str(delta.get("partial_json"), "$.delta.partial_json")
            if state.fragments is None:
                state.fragments = []
            if text:
                self._more(state, text)
                if state.slot is not None:
                    events.extend(self._acc.feed(ToolCallDelta(state.index, arguments_delta=text)))
        elif kind == "thinking_delta" and state.field == "thinking":
            text = expect_str(delta.get("thinking"), "$.delta.thinking")
            if text:
                state.pieces.append(text)
                events.append(ReasoningDelta(text))
        elif kind == "signature_delta":
            signature = expect_str(delta.get("signature"), "$.delta.signature")
            state.block["signature"] = signature
            if state.field == "thinking":
                events.append(ReasoningDelta("", signature=signature))
        elif kind == "citations_delta":
            citations = state.block.get("citations")
            if type(citations) is list:
                citations.append(delta.get("citation"))
            else:
                state.block["citations"] = [delta.get("citation")]
        else:
            self._other_delta(state, delta, events)

    @staticmethod
    def _other_delta(state: _Block, delta: dict[str, Any], events: list[StreamEvent]) -> None:
        """A delta of another type: strings add to strings, other values replace.

        A string added to the block's text or thinking is an event too, as the
        response holds it.
        """
        block = state.block
        for key, value in delta.items():
            if key == "type":
                continue
            if key == state.field:
                if type(value) is str:
                    state.pieces.append(value)
                    if value:
                        events.append(TextDelta(value) if key == "text" else ReasoningDelta(value))
                    continue
                state.field = None  # no longer text: the value replaces it
                state.pieces = []
            current = block.get(key)
            if type(current) is str and type(value) is str:
                block[key] = current + value
            else:
                block[key] = value

    def _message_delta(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        message = self._message
        delta = payload.get("delta")
        stop = None
        if type(delta) is dict:
            stop = delta.get("stop_reason")
            if stop is not None and type(stop) is not str:
                raise ValidationError("must be a string", "$.delta.stop_reason")
            message.update(delta)
        elif delta is not None:
            raise ValidationError("must be an object", "$.delta")
        for key, value in payload.items():
            if key not in _MESSAGE_EVENT_KEYS:
                message[key] = value
        if stop is not None:
            for state in sorted(self._blocks.values(), key=lambda b: b.index):
                self._close(state, events)
            events.append(Finished(FINISH.get(stop, FinishReason.OTHER), stop))
        usage = payload.get("usage")
        if usage is not None:
            usage = expect_dict(usage, "$.usage")
            merged = dict(self._usage_raw) if self._usage_raw is not None else {}
            for key, value in usage.items():
                # Totals so far: a count replaces the one before; a count left
                # out (or null) keeps the value message_start gave.
                if value is not None or key not in merged:
                    merged[key] = value
            self._report_usage(merged, events)

    def _report_usage(self, raw: dict[str, Any], events: list[StreamEvent]) -> None:
        """Take the usage so far (checked first, so a bad one leaves the last)."""
        usage = _usage(raw) if type(raw.get("input_tokens")) is int else None
        self._usage_raw = raw
        if usage is not None and usage != self._usage:
            self._usage = usage
            events.append(UsageReported(usage))

    # -- completion -------------------------------------------------------

    def _close(self, state: _Block, events: list[StreamEvent]) -> None:
        """The block is complete: report a tool call or a whole part."""
        if not state.open:
            return
        state.open = False
        if state.field is not None:
            # Text and thinking went out as deltas; a text block's citations
            # follow its text, each spanning the block.
            if state.field == "text":
                size = sum(map(len, state.pieces))
                begins = self._text
                self._text += size
                if "citations" in state.block and not state.cut:
                    cited = read_citations(state.block["citations"])
                    for citation in cited or ():
                        spanned = msgspec.structs.replace(citation, start=begins, end=begins + size)
                        events.append(CitationReceived(spanned))
            return
        path = f"$.content[{sum(1 for index in self._blocks if index < state.index)}]"
        if state.slot is not None:
            start = state.block.get("input")
            if not state.fragments and type(start) is dict and not state.cut:
                # No fragment: the input is the start block's ({}), sent as one delta.
                text = encode_body(start).decode()
                state.fragments = [text]
                events.extend(self._acc.feed(ToolCallDelta(state.index, arguments_delta=text)))
            call = _tool_use(state.built(streamed=True), path)
            events.append(ToolCallCompleted(state.slot, call))
        else:
            events.append(PartReceived(_reasoning(state.built(), path)))

    def _end(self, events: list[StreamEvent]) -> None:
        # A block still open was cut off by the end of the input.
        for state in sorted(self._blocks.values(), key=lambda b: b.index):
            if state.open:
                state.cut = True
                self._close(state, events)

    def _complete(self) -> bool:
        return self._stopped

    def _release(self) -> None:
        self._message, self._blocks, self._usage_raw = {}, {}, None
        self._acc = ToolCallAccumulator()

    def _body(self, streamed: bool = False) -> dict[str, Any]:
        """The message so far; a cut-off input is left as ``partial_json``."""
        body = dict(self._message)
        blocks = self._blocks
        body["content"] = [blocks[index].built(streamed) for index in sorted(blocks)]
        if self._usage_raw is not None:
            body["usage"] = self._usage_raw
        return body

    def _response(self) -> Response:
        return response_from(self._body(streamed=True))


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> AnthropicStreamDecoder:
    r"""A decoder for a streamed Messages API response (``"stream": true``).

    Feed it the bytes as they arrive, split anywhere; ``finish()`` returns the
    same :class:`~chatcodec.Response` as ``decode_response`` of the message
    Anthropic would have sent unstreamed (tool-call arguments keep the bytes
    of their fragments). Each ``UsageReported`` is the total so far.

    The stream is complete at ``message_stop``; ``finish()`` of a stream
    cut off before raises ``StreamError`` (see
    :meth:`~chatcodec.providers._streaming.StreamDecoder.finish`), and a
    ``tool_use`` block the stream ended in is an invalid call whose
    arguments are truncated.

    Parameters
    ----------
    framing : {"sse"}, optional
        The framing, if known (Anthropic streams are SSE).
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line and event of the stream in bytes (default
        32 and 64 MiB), the most characters of one block's input (16 MiB)
        and the most tool calls (10,000).

    Raises
    ------
    StreamError
        From ``feed``/``finish``: an ``error`` event (the message names its
        type, and so do ``.provider`` and ``.type``), bytes that are not SSE,
        a payload that is not JSON, a limit passed (``.limit``), a stream cut
        off, or feeding after ``finish()``; ``partial`` holds the response so
        far.

    Examples
    --------
    >>> from chatcodec.providers import anthropic
    >>> decoder = anthropic.stream()
    >>> events = decoder.feed(
    ...     b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    ...     b'"type":"message","role":"assistant","model":"claude","content":[],'
    ...     b'"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
    ...     b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    ...     b'"content_block":{"type":"text","text":""}}\n\n'
    ...     b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    ...     b'"delta":{"type":"text_delta","text":"Hi!"}}\n\n'
    ...     b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    ...     b'event: message_delta\ndata: {"type":"message_delta","delta":'
    ...     b'{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\n'
    ...     b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    ... )
    >>> [type(event).__name__ for event in events]
    ['UsageReported', 'TextDelta', 'Finished', 'UsageReported']
    >>> response = decoder.finish()
    >>> response.message.text, response.finish_reason, response.usage.completion_tokens
    ('Hi!', <FinishReason.STOP: 'stop'>, 3)
    """
    return AnthropicStreamDecoder(
        framing, limits(max_line, max_event, max_arguments, max_tool_calls)
    )
