"""Anthropic Messages streams written: events in, SSE with named events out.

The order Anthropic sends and its SDK folds: ``message_start`` with the
envelope, empty ``content`` and the usage so far; per content block,
``content_block_start`` at its ``index``, its deltas (``text_delta``,
``thinking_delta`` then ``signature_delta``, ``input_json_delta``) and
``content_block_stop``; then ``message_delta`` with the stop reason and the
usage (totals, never increments), and ``message_stop``.

Blocks are numbered in order of appearance. A text or thinking block stays
open while its kind of delta keeps coming; a ``tool_use`` block stays open
until its call completes, so calls whose fragments interleave (as OpenAI may
send them) each keep their own block. A call announced without an id or a
name (Ollama's) cannot open a block: it goes out whole once complete.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import AssistantPart, Citation, ReasoningPart, RefusalPart, TextPart
from ..._depth import refuses_depth
from ..._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    UsageReported,
)
from ..._exchange import Response
from ..._loss import Loss
from ..._stream import ToolCallArgumentsDelta
from ..._tools import InvalidToolCall, ToolCall
from .._stream_writer import BlockStreamEncoder, dumps, loads, read_whole, sse, tiny
from .._wire import Encoding
from ._cite import write_citation
from ._decode import NAME
from ._encode import encode_response

__all__ = ["AnthropicStreamEncoder", "encode_stream", "stream_encoder"]

_LATER = frozenset(("content", "stop_reason", "stop_sequence", "usage"))
_STOP = sse(b'{"type":"message_stop"}', "message_stop")
_PING = sse(b'{"type":"ping"}', "ping")


def _start_message(body: dict[str, Any], usage: Any) -> bytes:
    message = {key: value for key, value in body.items() if key not in _LATER}
    message["content"] = []
    message["stop_reason"] = None
    if "stop_sequence" in body:
        message["stop_sequence"] = None
    if usage is not None:
        message["usage"] = usage
    return sse(dumps({"type": "message_start", "message": message}), "message_start")


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    data = {"type": "content_block_start", "index": index, "content_block": block}
    return sse(dumps(data), "content_block_start")


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    data = {"type": "content_block_delta", "index": index, "delta": delta}
    return sse(dumps(data), "content_block_delta")


def _block_stop(index: int) -> bytes:
    return sse(dumps({"type": "content_block_stop", "index": index}), "content_block_stop")


def _message_delta(body: dict[str, Any], stop: Any, usage: Any) -> bytes:
    delta = {"stop_reason": stop}
    if "stop_sequence" in body:
        delta["stop_sequence"] = body["stop_sequence"]
    data: dict[str, Any] = {"type": "message_delta", "delta": delta}
    if usage is not None:
        data["usage"] = usage
    return sse(dumps(data), "message_delta")


def _whole(index: int, block: dict[str, Any]) -> bytes:
    """A block written as Anthropic streams it: empty at its start, then its deltas."""
    kind = block.get("type")
    out = []
    if kind == "text" and type(block.get("text")) is str:
        citations = block.get("citations")
        if type(citations) is list and citations:
            # As Anthropic sends them: an empty list at the start, each by a delta.
            out.append(_block_start(index, {**block, "text": "", "citations": []}))
            for citation in citations:
                delta = {"type": "citations_delta", "citation": citation}
                out.append(_block_delta(index, delta))
        else:
            out.append(_block_start(index, {**block, "text": ""}))
        if block["text"]:
            out.append(_block_delta(index, {"type": "text_delta", "text": block["text"]}))
    elif kind == "thinking" and type(block.get("thinking")) is str:
        start = {**block, "thinking": ""}
        signature = block.get("signature")
        if type(signature) is str:
            start["signature"] = ""
        out.append(_block_start(index, start))
        if block["thinking"]:
            out.append(
                _block_delta(index, {"type": "thinking_delta", "thinking": block["thinking"]})
            )
        if type(signature) is str and signature:
            out.append(_block_delta(index, {"type": "signature_delta", "signature": signature}))
    elif kind == "tool_use" and "input" in block:
        value = block["input"]
        text = (bytes(value) if isinstance(value, Raw) else dumps(value)).decode()
        out.append(_block_start(index, {**block, "input": {}}))
        if text.strip() != "{}" or not text:
            out.append(_block_delta(index, {"type": "input_json_delta", "partial_json": text}))
    else:
        out.append(_block_start(index, block))
    out.append(_block_stop(index))
    return b"".join(out)


_NO_USAGE = "no usage came: anthropic requires one, written as zero counts"


class AnthropicStreamEncoder(BlockStreamEncoder):
    """Write an Anthropic Messages stream; made by :func:`stream_encoder`, see there."""

    FAMILY = "anthropic"

    __slots__ = ("_body", "_ping", "_started", "_stop", "_tools", "_usage")

    @refuses_depth
    def __init__(
        self, head: Response | None = None, *, ping: bool = False, losses: list[Loss] | None = None
    ) -> None:
        super().__init__(losses)
        body = loads(encode_response(head)) if head is not None else {}
        body.setdefault("type", "message")
        body.setdefault("role", "assistant")
        self._body: dict[str, Any] = body
        # The head's tool_use blocks by id: their keys the events do not carry (``caller``).
        content = body.get("content")
        self._tools: dict[str, dict[str, Any]] = {
            block["id"]: block
            for block in (content if type(content) is list else ())
            if type(block) is dict
            and block.get("type") == "tool_use"
            and type(block.get("id")) is str
        }
        self._ping = ping
        self._started = False
        self._usage: Any = None
        self._stop: Any = None

    # -- writing --------------------------------------------------------------

    def _begin(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        usage = self._usage if self._usage is not None else {"input_tokens": 0, "output_tokens": 0}
        return _start_message(self._body, usage) + (_PING if self._ping else b"")

    def _block_start(self, index: int, kind: str) -> bytes:
        if kind == "thinking":
            return _block_start(index, {"type": "thinking", "thinking": "", "signature": ""})
        return _block_start(index, {"type": "text", "text": ""})

    def _block_stop(self, index: int) -> bytes:
        return _block_stop(index)

    def _call_start(self, index: int, id_: str, name: str) -> bytes:
        block = dict(self._tools.get(id_, {}))
        block.update(type="tool_use", id=id_, name=name, input={})
        return _block_start(index, block)

    def _call_delta(self, index: int, text: str) -> bytes:
        return _block_delta(index, {"type": "input_json_delta", "partial_json": text})

    def _content(
        self,
        *,
        part: AssistantPart | None = None,
        call: ToolCall | InvalidToolCall | None = None,
    ) -> Any:
        return tiny(encode_response, part=part, call=call, losses=self.losses)["content"]

    def _whole(self, index: int, block: Any) -> bytes:
        return _whole(index, block)

    def _event(self, event: StreamEvent) -> bytes:
        if type(event) is not UsageReported and getattr(event, "choice", 0) != 0:
            self._lose_once("$.choices[1]", "anthropic responses have one answer")
            return b""
        kind = type(event)
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            self._usage = tiny(encode_response, usage=event.usage)["usage"]
            return b""
        out = self._begin()
        if kind is TextDelta or kind is RefusalDelta:
            assert isinstance(event, TextDelta | RefusalDelta)
            if kind is RefusalDelta:
                self._lose_once(
                    "$.choices[0].message", "anthropic has no refusal block: sent as text"
                )
            if not event.text:
                return out
            more, index = self._text(event.text)
            return out + more + _block_delta(index, {"type": "text_delta", "text": event.text})
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            if event.choice != 0:
                return out
            return out + self._cite(event)
        if kind is ToolCallArgumentsDelta:
            assert isinstance(event, ToolCallArgumentsDelta)
            return out + self._fragment(event.slot, event.delta)
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            if event.text:
                more, index = self._open("thinking")
                out += more + _block_delta(
                    index, {"type": "thinking_delta", "thinking": event.text}
                )
            if event.signature is not None:
                more, index = self._open("thinking")
                delta = {"type": "signature_delta", "signature": event.signature}
                out += more + _block_delta(index, delta) + self._close()
            return out
        return out + self._calls_parts_end(kind, event)

    def _citation(self, citation: Citation, path: str) -> Any:
        return write_citation(citation, Encoding(NAME, self.losses), path + ".citation", False)

    def _citation_delta(self, index: int, wire: Any) -> bytes:
        return _block_delta(index, {"type": "citations_delta", "citation": wire})

    def _keep_stop(self, event: Finished) -> None:
        wire = tiny(
            encode_response,
            finish=(event.finish_reason, event.raw_finish_reason),
            losses=self.losses,
        )
        self._stop = wire.get("stop_reason")

    def _part(self, event: PartReceived) -> bytes:
        part = event.part
        if type(part) is TextPart and part.extras is None and not part.citations:
            if not part.text:
                return b""
            more, index = self._text(part.text)
            return more + _block_delta(index, {"type": "text_delta", "text": part.text})
        if type(part) is RefusalPart:
            return self._event(TextDelta(part.text)) if part.text else b""
        out = self._close()
        if type(part) is ReasoningPart and part.redacted is None and not part.text:
            return out
        return out + self._blocks(self._content(part=part))

    def _end(self) -> bytes:
        out = self._begin() + self._close() + self._stop_calls()
        # Anthropic's message_start and message_delta always have a usage (readers take
        # its counts): with none known, zeros were written, which are not the source's.
        usage = self._usage
        if usage is None:
            usage = {"output_tokens": 0}
            self._lose("$.usage", _NO_USAGE)
        return out + _message_delta(self._body, self._stop, usage) + _STOP


def stream_encoder(
    head: Response | None = None, *, ping: bool = False, losses: list[Loss] | None = None
) -> AnthropicStreamEncoder:
    r"""An encoder for an Anthropic Messages stream: events in, SSE bytes out.

    Sans-IO: :meth:`~AnthropicStreamEncoder.encode` takes one stream event
    (as any family's decoder makes them) and returns the bytes to send at
    once; :meth:`~AnthropicStreamEncoder.finish` closes the open blocks and
    returns ``message_delta`` (stop reason, usage) and ``message_stop``.

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: ``id``, ``model``, the keys kept in
        ``extras["anthropic"]`` (``stop_sequence``, ``container``...) and the
        keys of its ``tool_use`` blocks the events do not carry, by call id.
        Its content, usage and stop reason are not used.
    ping : bool, default False
        Send a ``ping`` event after ``message_start``, as Anthropic does.
    losses : list of Loss, optional
        Where to report what the stream cannot carry (a second answer, a
        refusal, parts Anthropic has no block for).

    Examples
    --------
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import anthropic
    >>> encoder = anthropic.stream_encoder(Response(id="msg_1", model="claude"))
    >>> raw = encoder.encode(TextDelta("Hi")) + encoder.finish()
    >>> names = [line[7:] for line in raw.decode().splitlines() if line.startswith("event: ")]
    >>> names  # doctest: +NORMALIZE_WHITESPACE
    ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop',
     'message_delta', 'message_stop']
    """
    return AnthropicStreamEncoder(head, ping=ping, losses=losses)


@refuses_depth
def encode_stream(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a whole response as the stream Anthropic would have sent for it.

    The stream decodes to the response :func:`decode_response` gives for
    :func:`encode_response`'s body: each block is started empty and filled
    by its deltas (a ``tool_use`` input by one ``input_json_delta`` holding
    its bytes), other blocks come whole in their start event.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    found: list[Loss] = []
    body = loads(encode_response(response, losses=found))
    # A body cannot hold a cut-off input, a stream can: an invalid call's
    # text goes out as its fragments, as the call arrived.
    cut = {}
    message = response.message
    if message is not None:
        for k, call in enumerate(message.invalid_tool_calls):
            # Empty or whole, its text would be read back as a valid call: it is
            # written as the body writes it, with the body's loss.
            if call.id is not None and not read_whole(call):
                cut[call.id] = call.arguments
                path = f"$.choices[0].message.invalid_tool_calls[{k}].arguments"
                found = [loss for loss in found if loss.path != path]
    if losses is not None:
        losses.extend(found)
    usage = body.get("usage")
    out = [_start_message(body, usage)]
    content = body.get("content")
    for index, block in enumerate(content if type(content) is list else ()):
        if type(block) is dict and block.get("type") == "tool_use" and block.get("id") in cut:
            block = {**block, "input": Raw(cut[block["id"]].encode())}
        out.append(_whole(index, block))
    out.append(_message_delta(body, body.get("stop_reason"), usage))
    out.append(_STOP)
    return b"".join(out)
