"""Cohere's streamed v2 Chat: SSE events in, stream events and one response out.

Each SSE ``data:`` payload is an event whose ``type`` says what it carries:

- ``message-start``: the response's ``id`` and the message's first keys
  (``role``, and empty ``content``, ``tool_plan``, ``tool_calls``,
  ``citations``);
- ``content-start`` / ``content-delta`` / ``content-end`` at an ``index``:
  a ``text`` or ``thinking`` content item and the pieces of its text;
- ``tool-plan-delta``: a piece of the message's ``tool_plan``;
- ``tool-call-start`` / ``tool-call-delta`` / ``tool-call-end`` at an
  ``index``: a call's id and name, then pieces of its ``arguments`` text;
- ``citation-start`` / ``citation-end``: a whole citation, given as a
  :class:`~chatcodec.CitationReceived` per source when it reads as one
  (:mod:`._cite`), its span counted in the answer's text so far;
- ``message-end``: the ``finish_reason`` and the ``usage``; its ``error``, when
  there is one, ends the stream with a :class:`~chatcodec.StreamError`.

The decoder folds them into the body Cohere would have answered without
streaming and reads that with the codec's own response mapping, so a
streamed answer and a plain one decode alike. Text and thinking pieces are
:class:`~chatcodec.TextDelta` and :class:`~chatcodec.ReasoningDelta`, the
plan's too (it is a reasoning part); a call is announced at its start and
completed at its end. Other event types (``debug``) say nothing about the
answer and are passed over; a ``[DONE]`` payload is, too.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._errors import DECODE_FAILURES, StreamError, ValidationError
from ..._events import (
    CitationReceived,
    Finished,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Framing, Limits
from ..._stream import ToolCallAccumulator, _join
from ..._tools import InvalidToolCall, ToolCallDelta
from ..._usage import FinishReason
from .._streaming import TRUNCATED, StreamDecoder, cut_off
from .._wire import expect_dict, expect_str, json_body
from ._cite import read_one, read_response
from ._common import FINISH, NAME
from ._decode import read_call, response_from

__all__ = ["CohereStreamDecoder"]

_decoder = msgspec.json.Decoder()
_STREAMED = ("content", "tool_plan", "tool_calls", "citations")


def _index(payload: dict[str, Any]) -> int:
    index = payload.get("index")
    if type(index) is not int or index < 0:
        raise ValidationError("must be a whole number", "$.index")
    return index


def _said(payload: dict[str, Any], key: str) -> Any:
    """``delta.message[key]`` of an event (``None`` when it says nothing)."""
    delta = payload.get("delta")
    if delta is None:
        return None
    message = expect_dict(delta, "$.delta").get("message")
    if message is None:
        return None
    return expect_dict(message, "$.delta.message").get(key)


class _Call:
    """One tool call as it arrives."""

    __slots__ = ("call", "cut", "fragments", "open")

    def __init__(self, call: dict[str, Any]) -> None:
        self.call = call  # the start's call, without its arguments
        self.fragments: list[str] = []
        self.open = True
        self.cut = False  # the input ended before its tool-call-end

    def built(self) -> dict[str, Any]:
        call = dict(self.call)
        call["function"] = {**call["function"], "arguments": _join(self.fragments)}
        return call


class CohereStreamDecoder(StreamDecoder):
    """Decode a Cohere v2 Chat stream; made by :func:`chatcodec.providers.cohere.stream`."""

    __slots__ = (
        "_acc",
        "_calls",
        "_citations",
        "_content",
        "_ended",
        "_message",
        "_plan",
        "_started",
        "_top",
    )

    _LAST = "message-end"

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._top: dict[str, Any] = {}
        self._message: dict[str, Any] | None = None
        self._content: dict[int, tuple[dict[str, Any], str | None, list[str]]] = {}
        self._plan: list[str] | None = None
        self._calls: dict[int, _Call] = {}
        self._citations: list[Any] = []
        self._ended = False
        self._started = False  # message-start came (it may say nothing)
        self._acc = ToolCallAccumulator(
            max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        if data == b"[DONE]":
            return
        try:
            payload = _decoder.decode(data)
        except DECODE_FAILURES:
            payload = None
        if type(payload) is not dict:
            payload = json_body(data)  # raises, naming what is wrong
        kind = payload.get("type")
        if kind == "content-delta":  # the usual event first
            self._content_delta(payload, events)
        elif kind == "message-start":
            self._start(payload)
        elif kind == "content-start":
            self._content_start(payload)
        elif kind == "tool-plan-delta":
            piece = expect_str(_said(payload, "tool_plan"), "$.delta.message.tool_plan")
            if self._plan is None:
                self._plan = []
            self._plan.append(piece)
            if piece:
                events.append(ReasoningDelta(piece))
        elif kind == "tool-call-start":
            self._call_start(payload, events)
        elif kind == "tool-call-delta":
            self._call_delta(payload, events)
        elif kind == "tool-call-end":
            self._call_end(_index(payload), events)
        elif kind == "citation-start":
            citation = _said(payload, "citations")
            if citation is not None:
                self._citations.append(citation)
                self._cite(citation, events)
        elif kind == "message-end":
            self._end_message(payload, events)
        # content-end and citation-end close what needs no closing; others
        # (debug) say nothing about the answer.

    def _cite(self, citation: Any, events: list[StreamEvent]) -> None:
        """A citation's events: its span counted in the answer's text so far."""
        texts = {
            index: _join(pieces)
            for index, (_, field, pieces) in sorted(self._content.items())
            if field == "text"
        }
        if not texts:
            return
        read = read_one(citation, texts, min(texts))
        if read is None:
            return  # kept as sent in the answer, not a canonical citation
        index, citations = read
        shift = sum(len(text) for k, text in texts.items() if k < index)
        for c in citations:
            assert c.start is not None
            assert c.end is not None
            moved = msgspec.structs.replace(c, start=c.start + shift, end=c.end + shift)
            events.append(CitationReceived(moved))

    def _start(self, payload: dict[str, Any]) -> None:
        self._started = True
        delta = payload.get("delta")
        message = expect_dict(delta, "$.delta").get("message") if delta is not None else None
        if message is not None:
            self._message = dict(expect_dict(message, "$.delta.message"))
        if "id" in payload:
            self._top["id"] = payload["id"]

    def _in_order(self, index: int) -> int:
        """``index``, unless a content item of a higher index has begun already.

        The events say each item's text as it comes and the response holds
        the items by index: the two agree when items come in index order, as
        Cohere sends them.
        """
        if self._content and index < max(self._content):
            raise ValidationError("content items come in the order of their index", "$.index")
        return index

    def _content_start(self, payload: dict[str, Any]) -> None:
        index = self._in_order(_index(payload))
        if index in self._content:
            # Its text so far is in the events said; starting over would drop it.
            raise ValidationError("a content item starts once", "$.index")
        said = _said(payload, "content")
        if said is None:  # a start that says nothing of its item: a text item begins
            said = {"type": "text", "text": ""}
        item = dict(expect_dict(said, "$.delta.message.content"))
        kind = item.get("type")
        # An item of another kind (or of none) has no text that deltas add to.
        field = kind if kind == "text" or kind == "thinking" else None
        pieces = []
        if field is not None and field in item:  # the item's text so far
            pieces.append(expect_str(item.pop(field), f"$.delta.message.content.{field}"))
            item[field] = ""  # its place among the item's keys
        self._content[index] = (item, field, pieces)

    def _content_delta(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index = self._in_order(_index(payload))
        said = expect_dict(_said(payload, "content") or {}, "$.delta.message.content")
        block = self._content.get(index)
        if block is None:  # a delta without its start: a text item begins
            block = self._content[index] = ({"type": "text", "text": ""}, "text", [])
        item, field, pieces = block
        if field is None and said:
            # The events would say text the item, written out, does not hold as text.
            rule = "a delta for an item that is not text or thinking"
            raise ValidationError(rule, "$.delta.message.content")
        for key, value in said.items():
            if key == field:
                pieces.append(expect_str(value, f"$.delta.message.content.{key}"))
                item.setdefault(field, "")
                if value:
                    events.append(TextDelta(value) if field == "text" else ReasoningDelta(value))
            elif key == "type" and value != item.get("type"):
                # Its text is in the events said; another type would hold it otherwise.
                path = "$.delta.message.content.type"
                raise ValidationError("a content item keeps its type", path)
            else:
                item[key] = value
        logprobs = payload.get("logprobs")
        if logprobs is not None:
            self._top.setdefault("logprobs", []).append(logprobs)

    def _call_start(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index = _index(payload)
        if index in self._calls:
            raise ValidationError("a call starts once", "$.index")
        call = dict(expect_dict(_said(payload, "tool_calls"), "$.delta.message.tool_calls"))
        fn = dict(expect_dict(call.get("function") or {}, "$.delta.message.tool_calls.function"))
        start = fn.pop("arguments", "")
        call["function"] = fn
        state = self._calls[index] = _Call(call)
        call_id, name = call.get("id"), fn.get("name")
        text = expect_str(start, "$.delta.message.tool_calls.function.arguments")
        if text:
            state.fragments.append(text)
        events.extend(
            self._acc.feed(
                ToolCallDelta(
                    index,
                    call_id if type(call_id) is str and call_id else None,
                    name if type(name) is str and name else None,
                    text or None,
                )
            )
        )

    def _call_delta(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        index = _index(payload)
        state = self._calls.get(index)
        said = expect_dict(_said(payload, "tool_calls") or {}, "$.delta.message.tool_calls")
        fn = expect_dict(said.get("function") or {}, "$.delta.message.tool_calls.function")
        text = expect_str(fn.get("arguments", ""), "$.delta.message.tool_calls.function.arguments")
        if state is None:
            raise ValidationError("a call's arguments came before its start", "$.index")
        if text:
            state.fragments.append(text)
            events.extend(self._acc.feed(ToolCallDelta(index, arguments_delta=text)))

    def _call_end(self, index: int, events: list[StreamEvent]) -> None:
        state = self._calls.get(index)
        if state is None or not state.open:
            return
        state.open = False
        call = read_call(state.built(), "$.delta.message.tool_calls", self._seed(), index)
        events.append(ToolCallCompleted(index, call))

    def _seed(self) -> str:
        seed = self._top.get("id")
        return seed if type(seed) is str else ""

    def _end_message(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        delta = expect_dict(payload.get("delta") or {}, "$.delta")
        error = delta.get("error")
        if error is not None:
            raise self._reported(NAME, None)
        reason = delta.get("finish_reason")
        if reason is not None:
            expect_str(reason, "$.delta.finish_reason")
        for index in sorted(self._calls):
            self._call_end(index, events)
        self._top.update(delta)
        if "id" in payload and "id" not in self._top:
            self._top["id"] = payload["id"]
        self._ended = True
        response = self._response()
        if response.usage is not None:
            events.append(UsageReported(response.usage))
        if reason is not None:
            events.append(Finished(FINISH.get(reason, FinishReason.OTHER), reason))

    def _end(self, events: list[StreamEvent]) -> None:
        # A call still open was cut off by the end of the input.
        for index in sorted(self._calls):
            state = self._calls[index]
            if state.open:
                state.open, state.cut = False, True
                built = state.built()
                fn = built["function"]
                name = fn.get("name")
                call_id = built.get("id")
                events.append(
                    ToolCallCompleted(
                        index,
                        InvalidToolCall(
                            call_id if type(call_id) is str else None,
                            name if type(name) is str else None,
                            fn["arguments"],
                            TRUNCATED,
                        ),
                    )
                )

    def _complete(self) -> bool:
        return self._ended

    def _release(self) -> None:
        self._top, self._message, self._content, self._calls = {}, None, {}, {}
        self._plan, self._citations, self._started = None, [], False
        self._acc = ToolCallAccumulator()

    def _body(self) -> dict[str, Any]:
        if (
            not self._started
            and self._message is None
            and not self._content
            and not self._calls
            and not self._top
        ):
            raise StreamError("the stream ended before message-start")
        streamed = self._plan is not None or self._content or self._calls or self._citations
        message = dict(self._message or {})
        if self._plan is not None:
            start = message.get("tool_plan")
            message["tool_plan"] = (start if type(start) is str else "") + _join(self._plan)
        if self._content:
            start = message.get("content")
            items = list(start) if type(start) is list else []
            for index in sorted(self._content):
                item, field, pieces = self._content[index]
                items.append({**item, field: _join(pieces)} if field in item else dict(item))
            message["content"] = items
        if self._calls:
            start = message.get("tool_calls")
            calls = list(start) if type(start) is list else []
            calls += [self._calls[index].built() for index in sorted(self._calls)]
            message["tool_calls"] = calls
        if self._citations:
            start = message.get("citations")
            message["citations"] = (list(start) if type(start) is list else []) + self._citations
        body: dict[str, Any] = {}
        if "id" in self._top:
            body["id"] = self._top["id"]
        if self._message is not None or streamed:
            body["message"] = message
        for key, value in self._top.items():
            if key != "id":
                body[key] = value
        return body

    def _response(self) -> Response:
        response = read_response(response_from(self._body()))
        cut = {state.call.get("id") for state in self._calls.values() if state.open or state.cut}
        return cut_off(response, cut)
