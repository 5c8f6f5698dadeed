"""Bedrock ``ConverseStream`` written: events in, AWS event-stream frames out.

Each frame (:func:`chatcodec._eventstream.encode_message`, CRCs included)
has the headers Bedrock sends (``:event-type``, ``:content-type``
``application/json``, ``:message-type`` ``event``) and a JSON payload. The
order Bedrock sends and botocore reads: ``messageStart`` with the role; per
content block, by its ``contentBlockIndex``, a ``contentBlockStart`` for a
``toolUse`` or ``toolResult`` block (text and reasoning blocks have none),
its ``contentBlockDelta`` events (``text``, ``reasoningContent`` text then
signature, ``toolUse`` input text, ``toolResult`` content) and
``contentBlockStop``; then ``messageStop`` with the ``stopReason``, and
``metadata`` with the ``usage`` and the ``metrics``.

Blocks are numbered in order of appearance, as in the Anthropic encoder: a
text or reasoning block stays open while its kind of delta keeps coming, a
``toolUse`` block until its call completes. A call announced without an id
or a name cannot open a block: it goes out whole once complete.
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
from ..._eventstream import encode_message
from ..._exchange import Response
from ..._loss import Loss
from ..._stream import ToolCallArgumentsDelta
from ..._tools import InvalidToolCall, ToolCall
from .._stream_writer import BlockStreamEncoder, dumps, loads, tiny
from .._wire import Encoding
from ._blocks import NAME, _only, assistant_part
from ._cite import read_citations, write_citation
from ._encode import encode_response

__all__ = ["BedrockStreamEncoder", "encode_stream", "stream_encoder"]

# The keys of a Converse body that messageStop carries; metadata has the others.
_STOP_KEYS = ("stopReason", "additionalModelResponseFields")
_SAID = frozenset(("output", "usage", *_STOP_KEYS))


def _frame(kind: str, payload: dict[str, Any]) -> bytes:
    headers = {
        ":event-type": kind,
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return encode_message(headers, dumps(payload))


def _delta(index: int, delta: dict[str, Any]) -> bytes:
    return _frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta})


def _start(index: int, start: dict[str, Any]) -> bytes:
    return _frame("contentBlockStart", {"contentBlockIndex": index, "start": start})


def _stop(index: int) -> bytes:
    return _frame("contentBlockStop", {"contentBlockIndex": index})


def _input_text(value: Any) -> str:
    if isinstance(value, Raw):
        return bytes(value).decode()
    return value if type(value) is str else dumps(value).decode()


def _citations_only(block: dict[str, Any]) -> bool:
    cited = block.get("citationsContent")
    return (
        type(cited) is dict
        and not cited.get("content")
        and type(cited.get("citations")) is list
        and all(type(c) is dict for c in cited["citations"])
    )


def _cited_text(block: dict[str, Any]) -> bool:
    cited = block.get("citationsContent")
    if type(cited) is not dict or cited.keys() != {"content", "citations"}:
        return False
    content = cited["content"]
    return (
        type(content) is list
        and len(content) == 1
        and type(content[0]) is dict
        and content[0].keys() == {"text"}
        and type(content[0]["text"]) is str
        and read_citations(cited["citations"]) is not None
    )


# A body's toolUse without its "input" is read as an opaque block; a stream has
# no such form (its toolUse start is read as a call whose input comes in deltas).
_NO_INPUT = "a toolUse block without input has no stream form: a stream's reads as a call"
# A block that is no object: a body keeps it opaque, a contentBlockStart holds an object.
_NO_OBJECT = "a content block that is no object has no stream form"
_CONTENT = "$.choices[0].message.content"


def _unstreamable(block: Any) -> str | None:
    """Why a body's block cannot be streamed (a loss to report), or ``None``."""
    if type(block) is not dict:
        return _NO_OBJECT
    use = block.get("toolUse")
    return _NO_INPUT if type(use) is dict and "input" not in use else None


def _whole(index: int, block: dict[str, Any]) -> bytes:
    """A block written as Bedrock streams it: its start (if it has one), deltas and stop.

    A text or reasoning block is sent as deltas only when the body decoder reads
    it as a part (one key, the shape it knows); a block of any other shape
    (several keys, a value of another type) goes whole in its start, as it is,
    and the stream decoder keeps it so (an opaque part, as the body's).
    """
    out = []
    found = _only(block)
    kind, value = found if found is not None else ("", None)
    if kind == "toolUse" and type(value) is dict:
        fields = dict(value)
        arguments = fields.pop("input", None)
        out.append(_start(index, {"toolUse": fields}))
        text = _input_text(arguments) if arguments is not None else ""
        if text:
            out.append(_delta(index, {"toolUse": {"input": text}}))
    elif _cited_text(block):
        # Text with its citations: the text's delta, then each citation's.
        cited = block["citationsContent"]
        out.append(_delta(index, {"text": cited["content"][0]["text"]}))
        for citation in cited["citations"]:
            out.append(_delta(index, {"citation": citation}))
    elif kind == "toolResult" and type(value) is dict:
        fields = dict(value)
        content = fields.pop("content", None)
        out.append(_start(index, {"toolResult": fields}))
        if type(content) is list and content:
            out.append(_delta(index, {"toolResult": content}))
    elif _citations_only(block):
        # Citations that followed a text (as the decoder gives them): their deltas.
        for citation in block["citationsContent"]["citations"]:
            out.append(_delta(index, {"citation": citation}))
    elif kind == "text" and type(assistant_part(block)) is TextPart:
        out.append(_delta(index, {"text": value}))
    elif kind == "reasoningContent" and type(assistant_part(block)) is ReasoningPart:
        assert type(value) is dict  # as the part says
        said = value.get("reasoningText")
        if type(said) is dict:
            out.append(_delta(index, {"reasoningContent": {"text": said["text"]}}))
            if type(said.get("signature")) is str:
                signature = {"signature": said["signature"]}
                out.append(_delta(index, {"reasoningContent": signature}))
        else:
            out.append(_delta(index, {"reasoningContent": value}))
    else:
        out.append(_start(index, block))
    out.append(_stop(index))
    return b"".join(out)


def _tail(body: dict[str, Any], stop: Any, usage: Any) -> bytes:
    """``messageStop`` and ``metadata``: the stop reason, then the usage and the rest."""
    last = {key: body[key] for key in _STOP_KEYS[1:] if key in body}
    if stop is not None:
        last = {"stopReason": stop, **last}
    out = _frame("messageStop", last)
    metadata = {key: value for key, value in body.items() if key not in _SAID}
    if usage is not None:
        metadata = {"usage": usage, **metadata}
    # Written even when empty: it ends every ConverseStream, and a stream
    # without it reads as cut off.
    return out + _frame("metadata", metadata)


def _role(body: dict[str, Any]) -> dict[str, Any]:
    output = body.get("output")
    message = output.get("message") if type(output) is dict else None
    if type(message) is dict and "role" in message:
        return {"role": message["role"]}
    return {"role": "assistant"} if not message else {}


class BedrockStreamEncoder(BlockStreamEncoder):
    """Write a Bedrock ``ConverseStream``; made by :func:`stream_encoder`, see there."""

    FAMILY = "bedrock"

    __slots__ = ("_body", "_started", "_stop_reason", "_tools", "_usage")

    @refuses_depth
    def __init__(self, head: Response | None = None, *, losses: list[Loss] | None = None) -> None:
        super().__init__(losses)
        self._body: dict[str, Any] = loads(encode_response(head)) if head is not None else {}
        # The head's toolUse blocks by id: their keys the events do not carry ("type").
        output = self._body.get("output")
        message = output.get("message") if type(output) is dict else None
        content = message.get("content") if type(message) is dict else None
        self._tools: dict[str, dict[str, Any]] = {}
        for block in content if type(content) is list else ():
            spec = block.get("toolUse") if type(block) is dict else None
            if type(spec) is dict and type(spec.get("toolUseId")) is str:
                self._tools[spec["toolUseId"]] = spec
        self._started = False
        self._usage: Any = None
        self._stop_reason: Any = None

    def _begin(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        return _frame("messageStart", _role(self._body))

    def _block_start(self, index: int, kind: str) -> bytes:
        return b""  # a text or reasoning block opens with its first delta

    def _block_stop(self, index: int) -> bytes:
        return _stop(index)

    def _call_start(self, index: int, id_: str, name: str) -> bytes:
        spec = {k: v for k, v in self._tools.get(id_, {}).items() if k != "input"}
        spec.update(toolUseId=id_, name=name)
        return _start(index, {"toolUse": spec})

    def _call_delta(self, index: int, text: str) -> bytes:
        return _delta(index, {"toolUse": {"input": text}})

    def _content(
        self,
        *,
        part: AssistantPart | None = None,
        call: ToolCall | InvalidToolCall | None = None,
    ) -> Any:
        wire = tiny(encode_response, part=part, call=call, losses=self.losses)
        return wire["output"]["message"]["content"]

    def _whole(self, index: int, block: Any) -> bytes:
        return _whole(index, block)

    def _blocks(self, blocks: Any) -> bytes:
        kept = []
        for block in blocks:
            reason = _unstreamable(block)
            if reason is None:
                kept.append(block)
            else:
                self._lose(_CONTENT, reason)
        return super()._blocks(kept)

    def _event(self, event: StreamEvent) -> bytes:
        kind = type(event)
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            found: list[Loss] = []
            self._usage = tiny(encode_response, usage=event.usage, losses=found)["usage"]
            for loss in found:  # once per stream, not once per report of the usage so far
                self._lose_once(loss.path, loss.reason)
            return b""
        if getattr(event, "choice", 0) != 0:
            self._lose_once("$.choices[1]", "bedrock answers with one message")
            return b""
        out = self._begin()
        if kind is TextDelta or kind is RefusalDelta:
            assert isinstance(event, TextDelta | RefusalDelta)
            if kind is RefusalDelta:
                self._lose_once(
                    "$.choices[0].message", "bedrock has no refusal block: sent as text"
                )
            if not event.text:
                return out
            more, index = self._text(event.text)
            return out + more + _delta(index, {"text": event.text})
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            return out + self._cite(event)
        if kind is ToolCallArgumentsDelta:
            assert isinstance(event, ToolCallArgumentsDelta)
            return out + self._fragment(event.slot, event.delta)
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            if event.text:
                more, index = self._open("reasoning")
                out += more + _delta(index, {"reasoningContent": {"text": event.text}})
            if event.signature is not None:
                more, index = self._open("reasoning")
                signature = {"reasoningContent": {"signature": event.signature}}
                out += more + _delta(index, signature) + self._close()
            return out
        return out + self._calls_parts_end(kind, event)

    def _citation(self, citation: Citation, path: str) -> Any:
        return write_citation(citation, Encoding(NAME, self.losses), path + ".citation")

    def _citation_delta(self, index: int, wire: Any) -> bytes:
        return _delta(index, {"citation": wire})

    def _keep_stop(self, event: Finished) -> None:
        wire = tiny(
            encode_response,
            finish=(event.finish_reason, event.raw_finish_reason),
            losses=self.losses,
        )
        self._stop_reason = wire.get("stopReason")

    def _part(self, event: PartReceived) -> bytes:
        part = event.part
        if type(part) is TextPart and part.extras is None and not part.citations:
            return self._event(TextDelta(part.text)) if part.text else b""
        if type(part) is RefusalPart:
            return self._event(RefusalDelta(part.text)) if part.text else b""
        if type(part) is ReasoningPart and part.redacted is None and part.extras is None:
            return self._event(ReasoningDelta(part.text, signature=part.signature))
        out = self._close()
        return out + self._blocks(self._content(part=part))

    def _end(self) -> bytes:
        out = self._begin() + self._close() + self._stop_calls()
        return out + _tail(self._body, self._stop_reason, self._usage)


def stream_encoder(
    head: Response | None = None, *, losses: list[Loss] | None = None
) -> BedrockStreamEncoder:
    r"""An encoder for a Bedrock ``ConverseStream``: events in, event-stream frames out.

    Sans-IO: :meth:`~BedrockStreamEncoder.encode` takes one stream event (as
    any family's decoder makes them) and returns the frames to send at once;
    :meth:`~BedrockStreamEncoder.finish` closes the open blocks and returns
    ``messageStop`` (the stop reason) and ``metadata`` (the usage, and the
    head's ``metrics``).

    Parameters
    ----------
    head : Response, optional
        Where the keys the events do not carry come from: those kept in
        ``extras["bedrock"]`` (``metrics``, ``trace``...) and the keys of its
        ``toolUse`` blocks (``type``), by call id. Its content, usage and
        stop reason are not used.
    losses : list of Loss, optional
        Where to report what the stream cannot carry (a second answer, a
        refusal, parts Bedrock has no block for).

    Examples
    --------
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec._eventstream import EventStreamReader
    >>> from chatcodec.providers import bedrock
    >>> encoder = bedrock.stream_encoder()
    >>> raw = encoder.encode(TextDelta("Hi")) + encoder.finish()
    >>> [frame.headers[":event-type"] for frame in EventStreamReader().feed(raw)]
    ['messageStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata']
    """
    return BedrockStreamEncoder(head, losses=losses)


@refuses_depth
def encode_stream(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a whole response as the ``ConverseStream`` Bedrock would have sent for it.

    The stream decodes to the response :func:`decode_response` gives for
    :func:`encode_response`'s body: each block whole (a ``toolUse`` input as
    one delta holding its text), then ``messageStop`` and ``metadata``.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    body = loads(encode_response(response, losses=losses))
    out = [_frame("messageStart", _role(body))]
    output = body.get("output")
    message = output.get("message") if type(output) is dict else None
    content = message.get("content") if type(message) is dict else None
    index = 0
    for block in content if type(content) is list else ():
        reason = _unstreamable(block)
        if reason is not None:
            if losses is not None:
                losses.append(Loss(_CONTENT, reason))
            continue
        out.append(_whole(index, block))
        index += 1
    out.append(_tail(body, body.get("stopReason"), body.get("usage")))
    return b"".join(out)
