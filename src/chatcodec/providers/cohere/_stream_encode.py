"""Cohere v2 Chat streams written: events in, SSE with named events out.

The order Cohere sends and its SDK reads: ``message-start`` with the
response's ``id`` and the message's ``role``; per content item, by its
``index``, ``content-start``, its ``content-delta`` pieces and
``content-end``; the plan as ``tool-plan-delta`` pieces; per call, by its own
``index``, ``tool-call-start`` (id, name, empty arguments), its
``tool-call-delta`` pieces and ``tool-call-end``; per citation
``citation-start`` and ``citation-end``; last ``message-end`` with the
``finish_reason`` and the ``usage``.

A :class:`~chatcodec.CitationReceived` is written at once, as Cohere sends
its citations after the text they cite: its span, counted in the answer's
text so far, is turned into one of the text item holding it; a citation
across items, or with no text before it, is left out and reported.

A text or thinking item stays open while its kind of delta keeps coming; a
call's item from its start to its completion, so calls whose fragments
interleave each keep their own. A call announced without an id or a name
goes out whole once complete. Reasoning deltas are ``thinking`` items, or
the plan when the head's answer had one (a Cohere answer); a reasoning part
that was Cohere's ``tool_plan`` goes out as the plan.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from ..._content import Citation, ReasoningPart, TextPart
from ..._depth import refuses_depth
from ..._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._exchange import Response
from ..._loss import Loss
from ..._stream import ToolCallArgumentsDelta, ToolCallStarted
from .._stream_writer import (
    DIFFERENT_ARGUMENTS,
    StreamEncoder,
    arguments_rest,
    dumps,
    loads,
    report_extras,
    report_read_valid,
    sse,
    tiny,
)
from .._wire import Encoding
from ._cite import write_citations
from ._common import NAME
from ._encode import encode_response

__all__ = ["CohereStreamEncoder", "encode_stream", "stream_encoder"]

_any = msgspec.json.Decoder().decode
_NOTHING: frozenset[str] = frozenset()  # Cohere's arguments are JSON text: nothing kept as bytes
_STREAMED = frozenset(("content", "tool_plan", "tool_calls", "citations"))
_SAID = frozenset(("id", "message", "finish_reason", "usage", "error"))
ERROR_KEPT = "an error key kept from a body: in a stream's message-end it says the stream failed"
"""The loss of a body's kept ``error``, which a stream's ``message-end`` reads as a failure."""
UNCITED = "a citation came before any text: left out"
ACROSS = "cohere cites within one content item: a citation across items is left out"


def _event(kind: str, fields: dict[str, Any]) -> bytes:
    return sse(dumps({"type": kind, **fields}), kind)


def _item_start(index: int, item: dict[str, Any]) -> bytes:
    return _event("content-start", {"index": index, "delta": {"message": {"content": item}}})


def _item_delta(index: int, field: str, text: str) -> bytes:
    return _event(
        "content-delta", {"index": index, "delta": {"message": {"content": {field: text}}}}
    )


def _item_end(index: int) -> bytes:
    return _event("content-end", {"index": index})


def _plan(text: str) -> bytes:
    return _event("tool-plan-delta", {"delta": {"message": {"tool_plan": text}}})


def _call_start(index: int, call: dict[str, Any]) -> bytes:
    return _event("tool-call-start", {"index": index, "delta": {"message": {"tool_calls": call}}})


def _call_delta(index: int, text: str) -> bytes:
    fragment = {"tool_calls": {"function": {"arguments": text}}}
    return _event("tool-call-delta", {"index": index, "delta": {"message": fragment}})


def _call_end(index: int) -> bytes:
    return _event("tool-call-end", {"index": index})


def _whole_call(index: int, call: dict[str, Any]) -> bytes:
    """A call sent at once: its start with empty arguments, one delta, its end."""
    fn = call.get("function")
    fn = fn if type(fn) is dict else {}
    arguments = fn.get("arguments")
    if type(arguments) is Raw:  # kept as its bytes by the shared reader: Cohere's is text
        arguments = _any(arguments)
    start = {**call, "function": {**fn, "arguments": ""}} if "arguments" in fn else call
    out = _call_start(index, start)
    if type(arguments) is str and arguments:
        out += _call_delta(index, arguments)
    return out + _call_end(index)


def _whole_item(index: int, item: dict[str, Any]) -> bytes:
    """A content item sent at once: its start, its text as one delta, its end.

    Only a text or thinking item has text that deltas add to; an item of
    another kind (or of none) is said whole in its start.
    """
    kind = item.get("type")
    field = "thinking" if kind == "thinking" else "text"
    text = item.get(field) if kind == field else None
    if type(text) is not str:
        return _item_start(index, item) + _item_end(index)
    out = _item_start(index, {**item, field: ""})
    if text:
        out += _item_delta(index, field, text)
    return out + _item_end(index)


def _citation(index: int, citation: Any) -> bytes:
    start = {"index": index, "delta": {"message": {"citations": citation}}}
    return _event("citation-start", start) + _event("citation-end", {"index": index})


class CohereStreamEncoder(StreamEncoder):
    """Write a Cohere v2 Chat stream; made by :func:`stream_encoder`, see there."""

    __slots__ = (
        "_calls",
        "_citations",
        "_cited",
        "_current",
        "_end_keys",
        "_id",
        "_kind",
        "_next_call",
        "_next_item",
        "_planned",
        "_reason",
        "_role",
        "_sent",
        "_signed",
        "_started",
        "_texts",
        "_usage",
    )

    @refuses_depth
    def __init__(self, head: Response | None = None, *, losses: list[Loss] | None = None) -> None:
        super().__init__(losses)
        body = loads(encode_response(head), _NOTHING) if head is not None else {}
        self._id = body.get("id")
        message = body.get("message")
        message = message if type(message) is dict else {}
        # The head's message keys start the message (the streamed ones as it had them
        # empty); its citations that no event carries go out before the end.
        self._role = {k: v for k, v in message.items() if k not in _STREAMED or not v}
        self._role.setdefault("role", "assistant")
        # Only those kept as sent: the text parts' come as CitationReceived events.
        answer = head.choices[0].message if head is not None and head.choices else None
        own = (answer.extras or {}).get(NAME) if answer is not None else None
        citations = own.get("citations") if type(own) is dict else None
        self._citations = citations if type(citations) is list else []
        # A head whose answer had a plan (a Cohere answer's): its reasoning is the plan.
        plan = message.get("tool_plan")
        self._planned = type(plan) is str and bool(plan)
        self._end_keys = {k: v for k, v in body.items() if k not in _SAID}
        if "error" in body:
            self._lose("$.extras.cohere.error", ERROR_KEPT)
        self._started = False
        self._current: int | None = None  # the open text or thinking item
        self._kind: str | None = None  # its field: "text" or "thinking"
        self._next_item = 0
        self._next_call = 0
        self._calls: dict[int, int] = {}  # slot -> index of its open call
        self._sent: dict[int, list[str]] = {}  # slot -> the argument fragments written
        self._usage: Any = None
        self._reason: Any = None
        self._signed = False
        self._texts: list[tuple[int, list[str]]] = []  # each text item: index, pieces
        self._cited = 0  # the citations written

    def _start(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        head: dict[str, Any] = {"id": self._id} if self._id is not None else {}
        return _event("message-start", {**head, "delta": {"message": self._role}})

    def _close(self) -> bytes:
        if self._current is None:
            return b""
        index, self._current, self._kind = self._current, None, None
        return _item_end(index)

    def _text(self, field: str, text: str) -> bytes:
        out = self._start()
        if self._kind != field or self._current is None:
            out += self._close()
            index = self._current = self._next_item
            self._next_item += 1
            self._kind = field
            out += _item_start(index, {"type": field, field: ""})
            if field == "text":
                self._texts.append((index, []))
        if field == "text":
            self._texts[-1][1].append(text)
        return out + _item_delta(self._current, field, text)

    def _event(self, event: StreamEvent) -> bytes:
        if getattr(event, "choice", 0) != 0:
            self._lose_once("$.choices[1]", "cohere answers have one choice")
            return b""
        kind = type(event)
        if kind is TextDelta:
            assert isinstance(event, TextDelta)
            return self._text("text", event.text) if event.text else b""
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            if event.signature is not None and not self._signed:
                self._signed = True
                self._lose("$.choices[0].message", "cohere has no reasoning signature")
            if not event.text:
                return b""
            if self._planned:
                return self._start() + self._close() + _plan(event.text)
            return self._text("thinking", event.text)
        if kind is RefusalDelta:
            assert isinstance(event, RefusalDelta)
            self._lose_once("$.choices[0].message", "cohere has no refusal: sent as text")
            return self._text("text", event.text) if event.text else b""
        if kind is ToolCallStarted:
            assert isinstance(event, ToolCallStarted)
            out = self._start() + self._close()
            if event.id is None or event.name is None:
                return out  # sent whole once complete
            index = self._calls[event.slot] = self._next_call
            self._next_call += 1
            call = {"id": event.id, "type": "function"}
            call["function"] = {"name": event.name, "arguments": ""}  # type: ignore[assignment]
            return out + _call_start(index, call)
        if kind is ToolCallArgumentsDelta:
            assert isinstance(event, ToolCallArgumentsDelta)
            open_call = self._calls.get(event.slot)
            if open_call is None or not event.delta:
                return b""
            self._sent.setdefault(event.slot, []).append(event.delta)
            return _call_delta(open_call, event.delta)
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            return self._completed(event)
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            return self._part(event)
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            return self._cite(event.citation)
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            self._usage = tiny(encode_response, usage=event.usage).get("usage")
            return b""
        if kind is Finished:
            assert isinstance(event, Finished)
            finish = (event.finish_reason, event.raw_finish_reason)
            wire = tiny(encode_response, finish=finish, losses=self.losses)
            self._reason = wire.get("finish_reason")
            return self._close()
        return b""

    def _completed(self, event: ToolCallCompleted) -> bytes:
        index = self._calls.pop(event.slot, None)
        if index is not None:
            report_read_valid(event.call, event.choice, self.losses)
            rest = arguments_rest(self._sent.pop(event.slot, []), event.call)
            where = f"$.choices[0].message.tool_calls[{event.slot}]"
            report_extras(NAME, event.call, where, self.losses)
            out = b""
            if rest is None:
                self._lose("$.choices[0].message.tool_calls", DIFFERENT_ARGUMENTS)
            elif rest:
                out = _call_delta(index, rest)
            return out + _call_end(index)
        wire = tiny(encode_response, call=event.call, losses=self.losses)
        calls = (wire.get("message") or {}).get("tool_calls") or []
        out = self._start() + self._close()
        for call in calls:
            out += _whole_call(self._next_call, call)
            self._next_call += 1
        return out

    def _part(self, event: PartReceived) -> bytes:
        part = event.part
        if type(part) is TextPart and part.extras is None:
            return self._event(TextDelta(part.text))
        own = (part.extras or {}).get(NAME) if type(part) is ReasoningPart else None
        if type(own) is dict and own.get("~plan") is True:
            assert isinstance(part, ReasoningPart)
            return self._start() + self._close() + _plan(part.text)
        if type(part) is ReasoningPart and part.extras is None and part.redacted is None:
            return self._event(ReasoningDelta(part.text, signature=part.signature))
        message = tiny(encode_response, part=part, losses=self.losses).get("message") or {}
        out = self._start() + self._close()
        plan = message.get("tool_plan")
        if type(plan) is str and plan:
            out += _plan(plan)
        for item in message.get("content") or ():
            if type(item) is dict:
                if item.get("type") == "text" and type(item.get("text")) is str:
                    self._texts.append((self._next_item, [item["text"]]))
                out += _whole_item(self._next_item, item)
                self._next_item += 1
        return out

    def _cite(self, citation: Citation) -> bytes:
        """A citation of text already written, on the text item holding its span."""
        path = "$.choices[0].message"
        if not self._texts:
            self._lose(path, UNCITED)
            return b""
        at = 0
        for index, pieces in self._texts:
            text = "".join(pieces)
            if citation.start is None:
                if index == self._texts[-1][0]:  # no span: the last text item, whole
                    break
            elif at <= citation.start and (citation.end or citation.start) <= at + len(text):
                end = citation.end if citation.end is not None else citation.start
                start = citation.start - at
                citation = msgspec.structs.replace(citation, start=start, end=end - at)
                break
            at += len(text)
        else:
            self._lose(path, ACROSS)
            return b""
        part = TextPart(text, (citation,))
        enc = Encoding(NAME, self.losses)
        out = b""
        for wire in write_citations([(index, part, path)], self._texts[0][0], enc):
            out += _citation(self._cited, wire)
            self._cited += 1
        return out

    def _end(self) -> bytes:
        out = self._start() + self._close()
        for index in sorted(self._calls.values()):
            out += _call_end(index)
        self._calls.clear()
        for citation in self._citations:
            out += _citation(self._cited, citation)
            self._cited += 1
        delta: dict[str, Any] = {}
        if self._reason is not None:
            delta["finish_reason"] = self._reason
        if self._usage is not None:
            delta["usage"] = self._usage
        delta.update(self._end_keys)
        return out + _event("message-end", {"delta": delta})


def stream_encoder(
    head: Response | None = None, *, losses: list[Loss] | None = None
) -> CohereStreamEncoder:
    r"""An encoder for a Cohere v2 Chat stream: events in, SSE out.

    Sans-IO: :meth:`~CohereStreamEncoder.encode` takes one stream event (as
    any family's decoder makes them) and returns the bytes to send at once;
    :meth:`~CohereStreamEncoder.finish` returns what closes the stream (the
    open items and ``message-end`` with the finish reason and the usage).

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: the ``id``, and the keys kept in
        ``extras["cohere"]``. Its content, calls, usage and finish reason
        are not used.
    losses : list of Loss, optional
        Where to report what the stream cannot carry.

    Examples
    --------
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import cohere
    >>> encoder = cohere.stream_encoder(Response(id="r1"))
    >>> out = encoder.encode(TextDelta("Hi"))
    >>> [line for line in out.decode().splitlines() if line.startswith("event:")]
    ['event: message-start', 'event: content-start', 'event: content-delta']
    >>> out.splitlines()[-2]
    b'data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}'
    >>> encoder.finish().splitlines()[1::3]
    [b'data: {"type":"content-end","index":0}', b'data: {"type":"message-end","delta":{}}']
    """
    return CohereStreamEncoder(head, losses=losses)


@refuses_depth
def encode_stream(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a whole response as the stream Cohere would have sent for it.

    Each content item, the plan, each call and each citation as their
    events, then ``message-end``. The stream decodes to the response
    :func:`decode_response` gives for :func:`encode_response`'s body.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    body = loads(encode_response(response, losses=losses), _NOTHING)
    message = body.get("message")
    head: dict[str, Any] = {"id": body["id"]} if "id" in body else {}
    out: list[bytes] = []
    if type(message) is dict:
        first = {k: v for k, v in message.items() if k not in _STREAMED or not v}
        out.append(_event("message-start", {**head, "delta": {"message": first}}))
        plan = message.get("tool_plan")
        if type(plan) is str and plan:
            out.append(_plan(plan))
        content = message.get("content")
        if type(content) is list:
            out += [_whole_item(k, item) for k, item in enumerate(content) if type(item) is dict]
        calls = message.get("tool_calls")
        if type(calls) is list:
            out += [_whole_call(k, call) for k, call in enumerate(calls) if type(call) is dict]
        citations = message.get("citations")
        if type(citations) is list and citations:
            out += [_citation(k, citation) for k, citation in enumerate(citations)]
    else:
        out.append(_event("message-start", head))
    delta = {k: v for k, v in body.items() if k not in ("id", "message", "error")}
    if "error" in body and losses is not None:
        losses.append(Loss("$.extras.cohere.error", ERROR_KEPT))
    out.append(_event("message-end", {"delta": delta}))
    return b"".join(out)
