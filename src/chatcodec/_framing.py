r"""Stream framing: bytes in, one frame per JSON payload out. No I/O.

Providers frame their streams three ways:

- **SSE** (OpenAI family, Anthropic, Gemini with ``alt=sse``): lines ended by
  LF, CRLF or a lone CR; ``:`` comment lines (keep-alives); ``event:``,
  ``id:`` and ``retry:`` fields; ``data:`` lines, several of which join with
  ``\n``; a blank line ends an event. Recordings often end without the last
  blank line: :meth:`Deframer.finish` dispatches that event too.
- **NDJSON** (Ollama native): one JSON value per line.
- **A JSON array** (Gemini without ``alt=sse``): ``[{...},{...}]`` arriving in
  pieces; each element is a frame as soon as its closing brace arrives.

Everything here works on bytes. The separators are ASCII, which never occurs
inside a multibyte UTF-8 character, so a character split between two network
chunks needs no special case: its bytes are joined before anything decodes
them. A CR ending a chunk is a line end at once; an LF starting the next
chunk that is not empty is then the other half of a CRLF and is dropped (an
empty chunk between them changes nothing).

Feeding costs O(bytes) however the input is split: a chunk that completes no
frame is only appended to a list (after a search of the chunk itself), and the
pieces of a frame are joined once, when it completes. What a reader may hold
is bounded (:class:`Limits`): past a limit it raises :class:`StreamError`
naming the limit and drops what it held.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from ._errors import StreamError
from ._frozen import FrozenMap

__all__ = [
    "DEFAULT_LIMITS",
    "Deframer",
    "Frame",
    "Framing",
    "Limits",
    "Pair",
    "detect_framing",
    "limits",
    "over_limit",
]

Framing = Literal["sse", "ndjson", "json-array"]

_BOM = b"\xef\xbb\xbf"
_MIB = 1 << 20
_SPACE = b" \t\r\n"


class Frame(NamedTuple):
    """One payload of a stream.

    ``event`` is the SSE event name (``None`` without one, and for NDJSON and
    JSON arrays); ``data`` is the payload's bytes (JSON, or a sentinel such as
    ``[DONE]``).
    """

    event: str | None
    data: bytes


Pair = tuple[str | None, bytes]
"""A frame as a plain ``(event, data)`` tuple: what the readers make, cheaply."""


class Limits(NamedTuple):
    """How much one stream may hold; past a limit, a :class:`StreamError` naming it.

    ``max_line``: bytes of one line (SSE, NDJSON) or JSON-array element;
    ``max_event``: bytes of one SSE event, all its lines (what a reader holds
    while an event arrives); ``max_arguments``: characters of one tool call's
    arguments; ``max_tool_calls``: tool calls in one response.
    """

    max_line: int = 32 * _MIB
    max_event: int = 64 * _MIB
    max_arguments: int = 16 * _MIB
    max_tool_calls: int = 10_000


DEFAULT_LIMITS = Limits()


def limits(
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> Limits:
    """The limits given, and the defaults for those left as None."""
    if max_line is max_event is max_arguments is max_tool_calls is None:
        return DEFAULT_LIMITS
    given = (max_line, max_event, max_arguments, max_tool_calls)
    return Limits(
        *(
            default if value is None else value
            for value, default in zip(given, DEFAULT_LIMITS, strict=True)
        )
    )


def over_limit(name: str, value: int) -> StreamError:
    """The error for a stream past the limit ``name`` (whose value is ``value``)."""
    what = _WHAT[name]
    return StreamError(f"{what} is over the limit {name}={value}", limit=name)


_WHAT = FrozenMap(
    {
        "max_line": "a line of the stream",
        "max_event": "an event of the stream",
        "max_arguments": "a tool call's arguments",
        "max_tool_calls": "the number of tool calls",
        "max_frame": "an event-stream frame",
    }
)


def detect_framing(head: bytes) -> Framing | None:
    r"""Tell the framing from a stream's first bytes; ``None`` until it can.

    Examples
    --------
    >>> detect_framing(b'data: {"id":1}'), detect_framing(b'{"model":"x"}\n')
    ('sse', 'ndjson')
    >>> detect_framing(b"\r\n[{"), detect_framing(b"  ")
    ('json-array', None)
    """
    text = head[3:] if head.startswith(_BOM) else head
    text = text.lstrip(_SPACE)
    if not text:
        return None
    first = text[:1]
    if first == b"[":
        return "json-array"
    if first == b"{":
        return "ndjson"
    return "sse"


class Deframer:
    r"""Split a byte stream into frames, detecting the framing if not given.

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        The framing; detected from the first bytes when omitted.
    limits : Limits, optional
        How long a line and an event may be.

    Examples
    --------
    >>> deframer = Deframer()
    >>> deframer.feed(b'event: ping\r\ndata: {"a":')
    []
    >>> deframer.feed(b'1}\r\n\r\ndata: [DONE]')
    [Frame(event='ping', data=b'{"a":1}')]
    >>> deframer.finish()
    [Frame(event=None, data=b'[DONE]')]
    """

    __slots__ = ("_head", "_limits", "_reader", "framing")

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.framing: Framing | None = framing
        self._limits = limits
        self._reader: _SSE | _NDJSON | _JSONArray | None = (
            _READERS[framing](limits) if framing else None
        )
        self._head = b""

    def feed(self, data: bytes) -> list[Frame]:
        """Take the next bytes; return the frames they complete."""
        return [tuple.__new__(Frame, pair) for pair in self.feed_pairs(data)]

    def finish(self) -> list[Frame]:
        """The stream has ended: return what its last bytes complete.

        Raises
        ------
        StreamError
            When the stream stopped inside an element of a JSON array.
        """
        return [tuple.__new__(Frame, pair) for pair in self.finish_pairs()]

    def feed_pairs(self, data: bytes) -> list[Pair]:
        """:meth:`feed`, with each frame a plain ``(event, data)`` tuple (for decoders)."""
        reader = self._reader
        if reader is None:
            self._head += data
            framing = detect_framing(self._head)
            if framing is None:
                if len(self._head) > self._limits.max_line:
                    self._head = b""
                    raise over_limit("max_line", self._limits.max_line)
                return []
            data, self._head = self._head, b""
            if data.startswith(_BOM):
                data = data[3:]
            self.framing = framing
            reader = self._reader = _READERS[framing](self._limits)
        return reader.feed(data)

    def pair_feeder(self) -> Callable[[bytes], list[Pair]] | None:
        """Once the framing is known, the bound :meth:`feed_pairs` of its reader.

        The same result without the detection step: decoders call it per read.
        """
        return None if self._reader is None else self._reader.feed

    def finish_pairs(self) -> list[Pair]:
        """:meth:`finish`, with each frame a plain ``(event, data)`` tuple."""
        if self._reader is None:
            return []
        return self._reader.finish()

    def release(self) -> None:
        """Drop every byte held (after an error: the stream is over)."""
        self._head = b""
        if self._reader is not None:
            self._reader.release()


class _SSE:
    """Server-sent events, per the WHATWG rules, plus the unterminated last event.

    Line endings are made LF as chunks arrive (CRLF, then lone CRs), so one
    rule serves all three. Each chunk is cut at blank lines into whole events;
    a chunk holding none is kept in a list, and the pieces of an event are
    joined once, when its blank line comes. The usual event, a single
    ``data:`` line, then costs one comparison. Before the first ``data:`` line, a line that is no
    SSE field, comment or blank line means the body is not SSE at all (an HTML
    error page, plain text): a :class:`StreamError`; after it, WHATWG's rule
    holds and such a line is skipped.
    """

    __slots__ = (
        "_cr",
        "_framed",
        "_limits",
        "_line",
        "_max_event",
        "_max_line",
        "_parts",
        "_rest",
        "_size",
        "_started",
    )

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self._max_line = limits.max_line
        self._max_event = limits.max_event
        # The event in progress: the rest of the last chunk that ended an event,
        # or, once a chunk ends none, its pieces.
        self._rest = b""
        self._parts: list[bytes] = []
        self._size = 0  # their bytes
        self._line = 0  # bytes of the line in progress (-1: not measured yet)
        self._cr = False  # the last chunk ended with a CR (made an LF)
        self._started = False
        self._framed = False  # a data line has come
        self._limits = limits

    def feed(self, data: bytes) -> list[Pair]:
        if not data:
            # Nothing to read, and nothing to forget: a CR that ended the last
            # chunk still waits for the LF of its CRLF in the next.
            return []
        if not self._started:
            head = b"".join(self._parts) + data
            if len(head) < 3 and _BOM.startswith(head):
                self._parts[:] = [head]
                self._size = len(head)
                return []
            self._parts.clear()
            self._size = 0
            self._started = True
            data = head[3:] if head.startswith(_BOM) else head
        if self._cr:
            self._cr = False
            if data[:1] == b"\n":
                data = data[1:]  # the LF of a CRLF split between two chunks
        if b"\r" in data:
            self._cr = data[-1:] == b"\r"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events = data.split(b"\n\n")
        parts = self._parts
        rest = self._rest
        held = self._size
        if len(events) == 1 and not (
            data[:1] == b"\n" and (parts[-1] if parts else rest)[-1:] == b"\n"
        ):
            # No event ends in this chunk: keep it, and check what is held.
            if data:
                if rest:
                    parts.append(rest)
                    self._rest = b""
                end = data.rfind(b"\n")
                if end >= 0:
                    self._line = len(data) - end - 1
                else:
                    self._line = (self._line if self._line >= 0 else self._last_line()) + len(data)
                parts.append(data)
                self._size = held + len(data)
                if self._size > self._max_event or self._line > self._max_line:
                    raise self._over()
            return []
        # The event in progress ends here: its pieces are joined once.
        if parts:
            if len(events) == 1:  # the blank line straddles the two chunks
                parts.append(data)
                events = b"".join(parts).split(b"\n\n")
            else:
                parts.append(events[0])
                events[0] = b"".join(parts)
            parts.clear()
        elif rest:
            if len(events) == 1:  # the blank line straddles the two chunks
                events = (rest + data).split(b"\n\n")
            else:
                events[0] = rest + events[0]
        self._rest = rest = events.pop()
        self._size = len(rest)
        self._line = -1  # measured when next needed
        if held + len(data) > self._max_line:
            self._check(events, rest)
        frames: list[Pair] = []
        for event in events:
            if event[:6] == b"data: " and b"\n" not in event:
                frames.append((None, event[6:]))
            elif event[:7] == b"event: " and event.count(b"\n") == 1:
                head, _, line = event.partition(b"\n")
                if line[:6] != b"data: " or not head[7:].isascii():
                    self._event([head, line], frames)
                else:
                    frames.append((head[7:].decode(), line[6:]))
            elif event:
                self._event(event.split(b"\n"), frames)
        if frames:
            self._framed = True
        return frames

    def finish(self) -> list[Pair]:
        frames: list[Pair] = []
        rest = b"".join(self._parts) if self._parts else self._rest
        self.release()
        for event in rest.split(b"\n\n"):
            if event:
                self._event(event.split(b"\n"), frames)
        return frames

    def release(self) -> None:
        self._parts.clear()
        self._rest = b""
        self._size = self._line = 0

    def _last_line(self) -> int:
        """Bytes of the line in progress at the end of what is held."""
        length = 0
        for part in reversed(self._parts):
            end = part.rfind(b"\n")
            if end >= 0:
                return length + len(part) - end - 1
            length += len(part)
        return length

    def _check(self, events: list[bytes], rest: bytes) -> None:
        """Every event and line against the limits (for a read longer than a line may be)."""
        limits = self._limits
        for event in (*events, rest):
            if len(event) > limits.max_event:
                raise self._over("max_event")
            if len(event) > limits.max_line and max(map(len, event.split(b"\n"))) > limits.max_line:
                raise self._over("max_line")

    def _over(self, name: str | None = None) -> StreamError:
        if name is None:
            name = "max_event" if self._size > self._max_event else "max_line"
        self.release()
        return over_limit(name, getattr(self._limits, name))

    def _event(self, lines: list[bytes], frames: list[Pair]) -> None:
        data: list[bytes] = []
        name: str | None = None
        for line in lines:
            if not line:  # a blank line left by an odd number of newlines
                if data:
                    frames.append((name, b"\n".join(data)))
                data, name = [], None
                continue
            if line[:1] == b":":  # a comment: keep-alive
                continue
            field, colon, value = line.partition(b":")
            if colon and value[:1] == b" ":
                value = value[1:]
            if field == b"data":
                data.append(value)
            elif field == b"event":
                try:
                    name = value.decode()
                except UnicodeDecodeError:
                    raise StreamError("an SSE event name must be UTF-8") from None
            elif field not in _FIELDS and not (data or frames or self._framed):
                raise StreamError("the stream is not server-sent events: a line is no SSE field")
            # id and retry steer reconnection, which is the transport's business.
        if data:
            frames.append((name, data[0] if len(data) == 1 else b"\n".join(data)))


_FIELDS = frozenset((b"id", b"retry"))


class _NDJSON:
    """One JSON value per line; blank lines are skipped."""

    __slots__ = ("_max_line", "_parts", "_size")

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self._max_line = limits.max_line
        self._parts: list[bytes] = []  # the line in progress, in pieces
        self._size = 0

    def feed(self, data: bytes) -> list[Pair]:
        lines = data.split(b"\n")
        parts = self._parts
        held = self._size
        if len(lines) == 1:
            if data:
                parts.append(data)
                self._size = held + len(data)
                if self._size > self._max_line:
                    raise self._over()
            return []
        if parts:  # the line in progress ends here: its pieces are joined once
            if len(parts) == 1:
                lines[0] = parts[0] + lines[0]
            else:
                parts.append(lines[0])
                lines[0] = b"".join(parts)
            parts.clear()
        rest = lines.pop()
        self._size = len(rest)
        if rest:
            parts.append(rest)
        longest = self._max_line
        if held + len(data) > longest and max(map(len, (*lines, rest))) > longest:
            raise self._over()
        return [(None, text) for line in lines if (text := line.strip(_SPACE))]

    def finish(self) -> list[Pair]:
        text = b"".join(self._parts).strip(_SPACE)
        self.release()
        return [(None, text)] if text else []

    def release(self) -> None:
        self._parts.clear()
        self._size = 0

    def _over(self) -> StreamError:
        self.release()
        return over_limit("max_line", self._max_line)


# What can change the nesting: brackets, and quotes and backslashes, which
# decide whether a bracket is inside a string.
_STRUCTURAL = re.compile(rb'["\\\[\]{}]')
_OPENERS = frozenset(b"[{")
_BETWEEN = b" \t\r\n,"


class _JSONArray:
    """The elements of one top-level JSON array, each as soon as it is complete.

    Scans each byte once, chunk by chunk, with the nesting depth, the
    in-string state and a pending escape carried over; the pieces of the
    element in progress are kept in a list and joined when it closes. The
    text between elements is checked as it arrives.
    """

    __slots__ = ("_depth", "_done", "_escape", "_limits", "_parts", "_size", "_string")

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self._parts: list[bytes] = []  # the element in progress, in pieces
        self._size = 0
        self._depth = 0
        self._string = False
        self._escape = False  # the next byte is escaped (a backslash ended the last chunk)
        self._done = False
        self._limits = limits

    def feed(self, data: bytes) -> list[Pair]:
        if self._done:
            if data.strip(_SPACE):
                raise StreamError("data after the end of the JSON array")
            return []
        frames: list[Pair] = []
        depth, string = self._depth, self._string
        skip = 0 if self._escape else -1  # index of an escaped byte inside a string
        item = 0 if depth >= 2 else -1  # where the element in progress began in data
        last = 0  # where the text outside any element began in data
        end = len(data)
        for match in _STRUCTURAL.finditer(data):
            i = match.start()
            if i == skip:
                continue
            byte = data[i]
            if string:
                if byte == 0x5C:  # backslash: the next byte is escaped
                    skip = i + 1
                elif byte == 0x22:
                    string = False
                continue
            if depth <= 1 and data[last:i].strip(_BETWEEN if depth else _SPACE):
                raise StreamError("a JSON array stream must hold objects" if depth else _NOT_ARRAY)
            if byte == 0x22:
                if depth <= 1:
                    raise StreamError(
                        "a JSON array stream must hold objects" if depth else _NOT_ARRAY
                    )
                string = True
            elif byte in _OPENERS:
                if depth == 0:
                    if byte != 0x5B:
                        raise StreamError(_NOT_ARRAY)
                    last = i + 1
                elif depth == 1:
                    if byte != 0x7B:
                        raise StreamError("a JSON array stream must hold objects")
                    item = i
                depth += 1
            else:
                depth -= 1
                if depth == 1:
                    piece = data[item : i + 1]
                    if self._parts:
                        self._parts.append(piece)
                        piece = b"".join(self._parts)
                        self._parts.clear()
                    self._size = 0
                    if len(piece) > self._limits.max_line:
                        raise self._over()
                    frames.append((None, piece))
                    last, item = i + 1, -1
                elif depth == 0:
                    if data[i + 1 :].strip(_SPACE):
                        raise StreamError("data after the end of the JSON array")
                    self._done = True
                    end = last = i + 1
                    break
                elif depth < 0:
                    raise StreamError(_NOT_ARRAY)
        else:
            if depth <= 1 and data[last:].strip(_BETWEEN if depth else _SPACE):
                raise StreamError("a JSON array stream must hold objects" if depth else _NOT_ARRAY)
        if item >= 0 and not self._done:
            piece = data[item:end]
            self._parts.append(piece)
            self._size += len(piece)
            if self._size > self._limits.max_line:
                raise self._over()
        self._escape = skip == end
        self._depth, self._string = depth, string
        return frames

    def finish(self) -> list[Pair]:
        # Between elements, a missing "]" is the end of the input, like an SSE
        # stream without its last blank line: the decoder judges whether the
        # answer was complete. Inside an element, the element was cut off.
        if self._depth >= 2:
            self.release()
            raise StreamError("the stream ended inside an element of the JSON array")
        return []

    def release(self) -> None:
        self._parts.clear()
        self._size = 0

    def _over(self) -> StreamError:
        self.release()
        return over_limit("max_line", self._limits.max_line)


_NOT_ARRAY = "the stream is not a JSON array"

_READERS: Mapping[Framing | None, type[_SSE] | type[_NDJSON] | type[_JSONArray]] = FrozenMap(
    {
        "sse": _SSE,
        "ndjson": _NDJSON,
        "json-array": _JSONArray,
    }
)
