"""What the stream encoders share: their surface, framing, and bodies as trees.

A stream encoder is the mirror of a stream decoder, sans-IO: canonical
events in (:meth:`StreamEncoder.encode`), the family's wire bytes out, and
:meth:`StreamEncoder.finish` for what closes the stream. The events say
what was said (text, reasoning, calls, usage, why it ended); the rest of a
response (its id, model, and the keys only one family has, kept in
``extras``) comes from an optional ``head``: a :class:`~chatcodec.Response`
whose family body the encoder reads once for those keys. Its content,
calls, usage and finish reasons are never used: the events bring those.

Rules are written once: what a usage, a finish reason, a whole part or a
call looks like on the wire is asked of the family's own
``encode_response``, on a response holding just that one thing. Those are
the rare events; text, reasoning and argument fragments are written here.

A whole response written as a stream (``encode_stream``) does not go through
events at all: the family's body is cut into the chunks the family would
have sent, which the family's decoder folds back into that very body.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from msgspec import Raw

from .._content import AssistantPart, Citation
from .._depth import too_deep
from .._errors import DepthError, StreamError
from .._events import CitationReceived, Finished, PartReceived, StreamEvent, ToolCallCompleted
from .._exchange import Choice, Response
from .._loss import Loss
from .._messages import AssistantMessage
from .._stream import ToolCallStarted
from .._tools import InvalidToolCall, ToolCall, parse_tool_call
from .._usage import FinishReason, Usage
from ._wire import READ_VALID, Encoding

CITED_NOTHING = "a citation came with no text block open: left out"
WIDENED = "the family cites whole text blocks: a citation's span was widened to its block"

__all__ = [
    "ARGUMENTS",
    "NO_STREAM_FORM",
    "BlockStreamEncoder",
    "StreamEncoder",
    "dumps",
    "loads",
    "one_line",
    "sse",
    "tiny",
]

EncodeResponse = Callable[..., bytes]

_encoder = msgspec.json.Encoder()
_raws = msgspec.json.Decoder(dict[str, Raw])
_raw_list = msgspec.json.Decoder(list[Raw])
_any = msgspec.json.Decoder()

ARGUMENTS = frozenset(("input", "args", "arguments"))
"""The keys whose values are a call's arguments: kept as their bytes."""

NO_STREAM_FORM = "a value a chunk cannot hold there: a stream has no form for it"
"""The rule of a value a body keeps as it came and a stream chunk may not hold."""


def dumps(value: Any) -> bytes:
    """Compact JSON; ``Raw`` values are written as their bytes."""
    return _encoder.encode(value)


def loads(data: bytes | Raw, keep: frozenset[str] = ARGUMENTS) -> Any:
    """Parse JSON into builtins, leaving the values under ``keep`` as ``Raw``.

    Tool-call arguments written as JSON objects keep their exact bytes this
    way, so that a stream carries what the body said, byte for byte. A loop
    over the containers still to read, not recursion: a body is as deep as
    its unknown fields, which no limit of chatcodec's bounds.
    """
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, bytes]] = [(root, 0, bytes(data))]
    pop, push = todo.pop, todo.append
    while todo:
        into, at, text = pop()
        first = text.lstrip()[:1]
        if first == b"{":
            out: Any = _raws.decode(text)
            for key, value in out.items():
                if key not in keep:
                    push((out, key, bytes(value)))
        elif first == b"[":
            out = _raw_list.decode(text)
            for i, item in enumerate(out):
                push((out, i, bytes(item)))
        else:
            out = _any.decode(text)
        into[at] = out
    return root[0]


def one_line(data: bytes) -> bytes:
    """JSON ``data`` on one line: a line break in it is whitespace (inside a string it is escaped).

    Arguments kept as their bytes may be pretty-printed (Cohere's are): the
    families that write them as JSON values (Gemini's ``args``, Ollama's
    ``arguments``) must not break their SSE or NDJSON lines there. The others
    write arguments as JSON strings, whose line breaks are escaped.
    """
    if _LF in data or _CR in data:
        return data.replace(b"\r", b" ").replace(b"\n", b" ")
    return data


# Byte values: ``10 in data`` is one memchr, several times faster than ``b"\n" in data``.
_LF, _CR = 10, 13


def sse(data: bytes, event: str | None = None, end: bytes = b"\n") -> bytes:
    """One server-sent event: an optional name, one ``data:`` line, a blank line."""
    head = b"event: " + event.encode() + end if event is not None else b""
    return head + b"data: " + data + end + end


def tiny(
    encode_response: EncodeResponse,
    *,
    part: AssistantPart | None = None,
    call: ToolCall | InvalidToolCall | None = None,
    usage: Usage | None = None,
    finish: tuple[FinishReason | None, str | int | None] | None = None,
    losses: list[Loss] | None = None,
) -> Any:
    """The family body of a response holding one thing: how the family writes it.

    The body of a finish reason alone is the same every time: it is kept, and
    shared (a caller reads it, never changes it).
    """
    if finish is None or part is not None or call is not None or usage is not None:
        return _tiny(encode_response, part, call, usage, finish, losses)
    key = (encode_response, *finish)
    body = _FINISHES.get(key)
    if body is None:
        found: list[Loss] = []
        body = _tiny(encode_response, None, None, None, finish, found)
        if not found and len(_FINISHES) < _MAX_FINISHES:
            _FINISHES[key] = body
        if losses is not None:
            losses.extend(found)
    return body


# The bodies of finish reasons, by family and reason: a stream ends with one, and the
# reasons a family sends are few (a source may send any string: the count is bounded).
_FINISHES: dict[tuple[Any, ...], Any] = {}
_MAX_FINISHES = 256


def _tiny(
    encode_response: EncodeResponse,
    part: AssistantPart | None,
    call: ToolCall | InvalidToolCall | None,
    usage: Usage | None,
    finish: tuple[FinishReason | None, str | int | None] | None,
    losses: list[Loss] | None,
) -> Any:
    message = None
    if part is not None:
        message = AssistantMessage(content=(part,))
    elif type(call) is ToolCall:
        message = AssistantMessage(tool_calls=(call,))
    elif type(call) is InvalidToolCall:
        message = AssistantMessage(invalid_tool_calls=(call,))
    choices: tuple[Choice, ...] = ()
    if message is not None or finish is not None:
        reason, raw = finish if finish is not None else (None, None)
        choices = (Choice(message, reason, raw),)
    found: list[Loss] = []
    data = encode_response(Response(choices, usage=usage), losses=found)
    # Only a part or a call holds arguments whose bytes must be kept.
    body = loads(data) if message is not None else _any.decode(data)
    if losses is not None:
        losses.extend(found)
    return body


def arguments_rest(sent: list[str], call: ToolCall | InvalidToolCall) -> str | None:
    """What of a completed call's arguments its fragments have not said yet.

    Some sources send a call's arguments only with its completion (a
    Responses ``function_call_arguments.done`` without deltas, an Anthropic
    ``content_block_start`` holding the whole ``input``): then the rest is
    the whole. ``""`` when the fragments said it all; ``None`` when they are
    not its beginning (what was sent cannot be taken back).
    """
    whole = bytes(call.arguments).decode() if type(call) is ToolCall else str(call.arguments)
    said = "".join(sent)
    if whole.startswith(said):
        return whole[len(said) :]
    try:  # the same value spelled otherwise (a decoder that compacts the JSON): all was said
        if _any.decode(said) == _any.decode(whole):
            return ""
    except msgspec.DecodeError:
        pass
    return None


def report_extras(
    family: str, call: ToolCall | InvalidToolCall, path: str, losses: list[Loss]
) -> None:
    """Report what another family kept on a call a stream wrote in fragments.

    A call written whole goes through the family's body encoder, which
    reports it; one written fragment by fragment says only its id, name and
    arguments, so the rest (a Gemini call's thought signature...) is reported
    here, as the body encoder would report it.
    """
    if call.extras:
        Encoding(family, losses).own(call.extras, path)


DIFFERENT_ARGUMENTS = "a call's arguments differ from the fragments sent before it completed"
LATE_ARGUMENTS = "a call's arguments completed after the stop closed its block"
READ_WHOLE = "an invalid call's arguments are empty or an object: a block reads it as a whole call"


def report_read_valid(
    call: ToolCall | InvalidToolCall, choice: int, losses: list[Loss] | None
) -> None:
    """Report an invalid call written in fragments that will read back valid.

    As :func:`._wire.lose_if_read_valid` reports one a body encoder writes
    (a call sent whole goes through it): its arguments are a whole JSON
    object, so the call that comes back is valid, and what made it invalid
    (a stream cut in its middle) is lost.
    """
    if type(call) is not InvalidToolCall or losses is None or not call.id or not call.name:
        return  # a valid call, or one that reads back invalid for its id or name
    if type(parse_tool_call(call.id, call.name, call.arguments)) is ToolCall:
        losses.append(Loss(f"$.choices[{choice}].message.invalid_tool_calls", READ_VALID))


def read_whole(call: InvalidToolCall) -> bool:
    """Whether a block family reads ``call`` back as a valid call.

    A ``tool_use`` or ``toolUse`` block is closed when it is written, and one
    without input fragments has the input ``{}``: an invalid call (cut off, or
    refused by a decoder) whose text is empty or a whole JSON object comes
    back valid, so writing it so is a loss to report.
    """
    text = call.arguments
    if not text.strip():
        return True
    try:
        return type(_any.decode(text)) is dict
    except msgspec.DecodeError:
        return False


class StreamEncoder(abc.ABC):
    """Base of the provider stream encoders: events in, wire bytes out.

    Subclasses implement ``_event`` (one event in, bytes out) and ``_end``
    (what closes the stream).
    """

    __slots__ = ("_finished", "_warned", "losses")

    def __init__(self, losses: list[Loss] | None) -> None:
        self.losses: list[Loss] = losses if losses is not None else []
        self._finished = False
        self._warned: set[str] = set()

    def encode(self, event: StreamEvent) -> bytes:
        """Take one event; return the bytes to send for it (may be empty).

        Raises
        ------
        StreamError
            After :meth:`finish`.
        """
        if self._finished:
            raise StreamError("the encoder was given an event after finish()")
        try:
            return self._event(event)
        except (RecursionError, DepthError):
            # A value of the event's too deep to write: named where the event holds
            # it (a family's encode_response, asked for a part, names its own place).
            error = too_deep(event)
            if error is None:
                raise
        raise error from None

    def encode_all(self, events: Iterable[StreamEvent]) -> bytes:
        """Take several events; return their bytes, joined."""
        return b"".join([self.encode(event) for event in events])

    def finish(self) -> bytes:
        """End the stream; return the bytes that close it (once; then ``b""``)."""
        if self._finished:
            return b""
        self._finished = True
        return self._end()

    def _lose(self, path: str, reason: str) -> None:
        self.losses.append(Loss(path, reason))

    def _uncited(self, choice: int, family: str) -> bytes:
        """Report that ``family``'s stream has no place for citations (once); no bytes."""
        self._lose_once(f"$.choices[{choice}].message", f"{family} streams carry no citations")
        return b""

    def _lose_once(self, path: str, reason: str) -> None:
        """Report a loss the first time its reason comes up in the stream."""
        if reason not in self._warned:
            self._warned.add(reason)
            self._lose(path, reason)

    @abc.abstractmethod
    def _event(self, event: StreamEvent) -> bytes:
        """The bytes for one event."""

    @abc.abstractmethod
    def _end(self) -> bytes:
        """The bytes that close the stream."""


class BlockStreamEncoder(StreamEncoder):
    """Base of the encoders whose stream is content blocks by index (Anthropic, Bedrock).

    One text or reasoning block is open at a time (its ``kind``); a call gets
    a block of its own, open from its start to its completion, by slot. The
    stop closes every open block: a call completed after it has no more to
    send. Subclasses write a block's start (``_block_start``, possibly
    nothing), its stop (``_block_stop``) and a whole block (``_whole``).
    """

    FAMILY = ""
    """The family written (what another family kept on a call is reported)."""

    __slots__ = (
        "_calls",
        "_cited",
        "_current",
        "_ended",
        "_from",
        "_kind",
        "_next",
        "_sent",
        "_written",
    )

    def __init__(self, losses: list[Loss] | None) -> None:
        super().__init__(losses)
        self._written = 0  # characters of answer text written
        self._from = 0  # where the open text block's text starts among them
        self._cited = False  # the open text block has citations: more text opens another
        self._next = 0  # the next block's index
        self._current: int | None = None  # the open text or reasoning block
        self._kind: str | None = None  # its kind
        self._calls: dict[int, int] = {}  # slot -> index of its open call block
        self._ended: set[int] = set()  # slots whose block the stop closed before their call
        self._sent: dict[int, list[str]] = {}  # slot -> the argument fragments written

    def _new(self) -> int:
        index = self._next
        self._next += 1
        return index

    def _close(self) -> bytes:
        """Close the open text or reasoning block."""
        self._cited = False
        if self._current is None:
            return b""
        index, self._current, self._kind = self._current, None, None
        return self._block_stop(index)

    def _open(self, kind: str) -> tuple[bytes, int]:
        """The open block of ``kind``, opened (after closing another) if need be."""
        if self._kind == kind and self._current is not None:
            return b"", self._current
        out = self._close()
        index = self._current = self._new()
        self._kind = kind
        return out + self._block_start(index, kind), index

    def _text(self, text: str) -> tuple[bytes, int]:
        """The text block ``text`` goes in (another one after a cited block); counted."""
        out = self._close() if self._cited else b""
        if self._kind != "text" or self._current is None:
            self._from = self._written
        more, index = self._open("text")
        self._written += len(text)
        return out + more, index

    def _cite(self, event: CitationReceived) -> bytes:
        """A citation, on the open text block (the family cites whole blocks)."""
        path = f"$.choices[{event.choice}].message"
        if self._kind != "text" or self._current is None:
            self._lose(path, CITED_NOTHING)
            return b""
        citation = event.citation
        if citation.start is not None and (citation.start, citation.end) != (
            self._from,
            self._written,
        ):
            self._lose_once(path, WIDENED)
        wire = self._citation(citation, path)
        if wire is None:
            return b""
        self._cited = True
        return self._citation_delta(self._current, wire)

    @abc.abstractmethod
    def _citation(self, citation: Citation, path: str) -> Any:
        """The family's wire citation, or None (reported) when it has none for it."""

    @abc.abstractmethod
    def _citation_delta(self, index: int, wire: Any) -> bytes:
        """The bytes that add citation ``wire`` to text block ``index``."""

    def _blocks(self, blocks: Any) -> bytes:
        return b"".join([self._whole(self._new(), block) for block in blocks])

    def _start_call(self, event: ToolCallStarted) -> bytes:
        """A call started: the open block closed, and a block of its own opened."""
        out = self._close()
        if event.id is None or event.name is None:
            return out  # a block needs both: the call goes out whole when complete
        index = self._calls[event.slot] = self._new()
        return out + self._call_start(index, event.id, event.name)

    def _fragment(self, slot: int, delta: str) -> bytes:
        """An argument fragment of the call in ``slot``, written in its block."""
        index = self._calls.get(slot)
        if index is None:
            return b""  # no block for the call yet: it goes out whole when complete
        self._sent.setdefault(slot, []).append(delta)
        return self._call_delta(index, delta)

    def _completed(self, event: ToolCallCompleted) -> bytes:
        """A call complete: what its fragments left unsaid, its block closed; or sent whole."""
        index = self._calls.pop(event.slot, None)
        rest = arguments_rest(self._sent.pop(event.slot, []), event.call)
        call = event.call
        opened = index is not None or event.slot in self._ended
        if opened and type(call) is InvalidToolCall and read_whole(call):
            # Sent whole, the family's body writer reports it; a block closed when
            # written reads whole even without input, and this reports it.
            self._lose(f"$.choices[{event.choice}].message.invalid_tool_calls", READ_WHOLE)
        if index is not None:
            out = b""
            where = f"$.choices[{event.choice}].message.tool_calls[{event.slot}]"
            report_extras(self.FAMILY, call, where, self.losses)
            if rest is None:
                self._lose(f"$.choices[{event.choice}].message.tool_calls", DIFFERENT_ARGUMENTS)
            elif rest:
                out = self._call_delta(index, rest)
            return out + self._block_stop(index)
        if event.slot in self._ended:
            if rest != "":  # its block was closed at the stop
                self._lose(f"$.choices[{event.choice}].message.tool_calls", LATE_ARGUMENTS)
            return b""
        out = self._close()
        return out + self._blocks(self._content(call=event.call))

    def _stop_calls(self) -> bytes:
        """Close the open call blocks (at the stop)."""
        out = b"".join([self._block_stop(index) for index in self._calls.values()])
        self._ended.update(self._calls)
        self._calls.clear()
        return out

    def _calls_parts_end(self, kind: type, event: StreamEvent) -> bytes:
        """A call's start or completion, a whole part, or the end (``Finished``).

        The part of the dispatch every block family writes alike; at the end
        every open block is closed and :meth:`_keep_stop` keeps the reason.
        """
        if kind is ToolCallStarted:
            assert isinstance(event, ToolCallStarted)
            return self._start_call(event)
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            return self._completed(event)
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            return self._part(event)
        assert isinstance(event, Finished)
        out = self._close() + self._stop_calls()
        self._keep_stop(event)
        return out

    @abc.abstractmethod
    def _part(self, event: PartReceived) -> bytes:
        """The bytes of a part received whole."""

    @abc.abstractmethod
    def _keep_stop(self, event: Finished) -> None:
        """Keep what the end event says (the family's stop reason)."""

    @abc.abstractmethod
    def _block_start(self, index: int, kind: str) -> bytes:
        """The bytes that open a text or reasoning block of ``kind``."""

    @abc.abstractmethod
    def _block_stop(self, index: int) -> bytes:
        """The bytes that close block ``index``."""

    @abc.abstractmethod
    def _call_start(self, index: int, id_: str, name: str) -> bytes:
        """The bytes that open the block of a call streamed in fragments."""

    @abc.abstractmethod
    def _call_delta(self, index: int, text: str) -> bytes:
        """The bytes of an argument fragment of the call in block ``index``."""

    @abc.abstractmethod
    def _content(
        self,
        *,
        part: AssistantPart | None = None,
        call: ToolCall | InvalidToolCall | None = None,
    ) -> Any:
        """The family's content blocks of a response holding ``part`` or ``call``."""

    @abc.abstractmethod
    def _whole(self, index: int, block: Any) -> bytes:
        """The bytes of a whole block (a part or call sent at once)."""
