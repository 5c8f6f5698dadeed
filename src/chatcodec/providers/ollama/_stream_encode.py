"""Ollama ``/api/chat`` streams written: events in, NDJSON lines out.

Each line is a chat response chunk with the envelope (``model``,
``created_at``), a ``message`` holding the new piece (``content``,
``thinking``, or whole ``tool_calls``) and ``"done": false``. The last line
has ``"done": true``, ``done_reason``, the token counts
(``prompt_eval_count``, ``eval_count``) and the durations. Ollama sends
calls whole, so a call goes out when it is complete; its fragments are not
sent.
"""

from __future__ import annotations

from typing import Any

from ..._content import ReasoningPart, TextPart
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
from .._stream_writer import (
    NO_STREAM_FORM,
    StreamEncoder,
    dumps,
    loads,
    one_line,
    tiny,
)
from ._common import NAME
from ._encode import encode_response

__all__ = ["OllamaStreamEncoder", "encode_stream", "stream_encoder"]

_ENVELOPE = ("model", "created_at")
_STREAMED = frozenset(("content", "thinking", "tool_calls"))
# What the events say on the last line: the rest of the head's keys go there as they are.
_SAID = frozenset(("message", "done", "done_reason", "prompt_eval_count", "eval_count"))


def _line(value: dict[str, Any]) -> bytes:
    return one_line(dumps(value)) + b"\n"


class OllamaStreamEncoder(StreamEncoder):
    """Write an Ollama chat stream; made by :func:`stream_encoder`, see there."""

    __slots__ = ("_counts", "_envelope", "_last", "_message", "_reason", "_signed")

    @refuses_depth
    def __init__(self, head: Response | None = None, *, losses: list[Loss] | None = None) -> None:
        super().__init__(losses)
        body = loads(encode_response(head)) if head is not None else {}
        self._envelope = {key: body[key] for key in _ENVELOPE if key in body}
        message = body.get("message")
        message = message if type(message) is dict else {}
        self._message = {k: v for k, v in message.items() if k not in _STREAMED}
        self._message.setdefault("role", "assistant")
        self._last = {k: v for k, v in body.items() if k not in _SAID}
        self._counts: dict[str, Any] = {}
        self._reason: Any = None
        self._signed = False

    def _piece(self, message: dict[str, Any]) -> bytes:
        line = dict(self._envelope)
        line["message"] = {"role": self._message["role"], **message}
        line["done"] = False
        return _line(line)

    def _event(self, event: StreamEvent) -> bytes:
        kind = type(event)
        if getattr(event, "choice", 0) != 0:
            self._lose("$.choices[1]", "ollama answers have one choice")
            return b""
        if kind is TextDelta or kind is RefusalDelta:
            assert isinstance(event, TextDelta | RefusalDelta)
            if kind is RefusalDelta:
                self._lose("$.choices[0].message", "ollama has no refusal: sent as text")
            return self._piece({"content": event.text}) if event.text else b""
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            if event.signature is not None and not self._signed:
                self._signed = True
                self._lose("$.choices[0].message", "ollama has no reasoning signature")
            return self._piece({"content": "", "thinking": event.text}) if event.text else b""
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            wire = tiny(encode_response, call=event.call, losses=self.losses)
            calls = wire["message"].get("tool_calls")
            return self._piece({"content": "", "tool_calls": calls}) if calls else b""
        if kind is CitationReceived:
            return self._uncited(0, "ollama")
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            part = event.part
            if type(part) is TextPart and part.extras is None:
                if part.citations:
                    self._uncited(0, "ollama")
                return self._event(TextDelta(part.text))
            if type(part) is ReasoningPart and part.redacted is None and part.extras is None:
                return self._event(ReasoningDelta(part.text, signature=part.signature))
            wire = tiny(encode_response, part=part, losses=self.losses)["message"]
            message = {k: v for k, v in wire.items() if k != "role"}
            return self._piece(message) if any(message.values()) else b""
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            wire = tiny(encode_response, usage=event.usage)
            self._counts = {k: v for k, v in wire.items() if k not in ("message", "done")}
            return b""
        if kind is Finished:
            assert isinstance(event, Finished)
            wire = tiny(
                encode_response,
                finish=(event.finish_reason, event.raw_finish_reason),
                losses=self.losses,
            )
            self._reason = wire.get("done_reason")
        return b""  # a call's start and fragments: the call goes out whole when complete

    def _end(self) -> bytes:
        line = dict(self._envelope)
        line["message"] = {**self._message, "content": ""}
        line["done"] = True
        if self._reason is not None:
            line["done_reason"] = self._reason
        line.update(self._last)
        line.update(self._counts)
        return _line(line)


def stream_encoder(
    head: Response | None = None, *, losses: list[Loss] | None = None
) -> OllamaStreamEncoder:
    r"""An encoder for an Ollama ``/api/chat`` stream: events in, NDJSON lines out.

    Sans-IO: :meth:`~OllamaStreamEncoder.encode` takes one stream event (as
    any family's decoder makes them) and returns the line to send at once;
    :meth:`~OllamaStreamEncoder.finish` returns the ``"done": true`` line
    with the finish reason and the counts.

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: ``model``, and the keys kept in
        ``extras["ollama"]`` (``created_at``, the durations). Its content,
        calls, usage and finish reason are not used.
    losses : list of Loss, optional
        Where to report what the stream cannot carry.

    Examples
    --------
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import ollama
    >>> encoder = ollama.stream_encoder(Response(model="llama3.2"))
    >>> encoder.encode(TextDelta("Hi"))
    b'{"model":"llama3.2","message":{"role":"assistant","content":"Hi"},"done":false}\n'
    >>> encoder.finish()
    b'{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true}\n'
    """
    return OllamaStreamEncoder(head, losses=losses)


@refuses_depth
def encode_stream(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a whole response as the stream Ollama would have sent for it.

    A line with the message's text and thinking, a line with its calls, and
    the last line with everything else. The stream decodes to the response
    :func:`decode_response` gives for :func:`encode_response`'s body.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    body = loads(encode_response(response, losses=losses))
    own = (response.extras or {}).get(NAME)
    if not (type(own) is dict and "done" in own):
        # A stream ends with "done": true, a reason or not, and whether or not the
        # body said "done" (a body without it is read all the same). A recorded
        # chunk keeps its "done": false: written out, it is a stream cut before
        # its last line.
        body["done"] = True
    elif type(own["done"]) is not bool:
        # A body keeps such a value as it came; a stream's last line says true.
        body["done"] = True
        if losses is not None:
            losses.append(Loss("$.done", NO_STREAM_FORM))
    envelope = {key: body[key] for key in _ENVELOPE if key in body}
    message = body.get("message")
    if type(message) is not dict:
        return _line(body)
    role = {"role": message["role"]} if "role" in message else {}
    out = []
    done = {"done": False} if "done" in body else {}
    first = {k: v for k, v in message.items() if k != "tool_calls"}
    out.append(_line({**envelope, "message": first, **done}))
    if "tool_calls" in message:
        calls = {**role, "tool_calls": message["tool_calls"]}
        out.append(_line({**envelope, "message": calls, **done}))
    last = {k: v for k, v in message.items() if k not in _STREAMED}
    if "content" in message:
        last["content"] = ""
    out.append(_line({**body, "message": last}))
    return b"".join(out)
