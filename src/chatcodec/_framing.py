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
them. A CR at the very end of a chunk is held back until the next byte says
whether it was half of a CRLF.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, NamedTuple

from ._errors import StreamError

__all__ = ["Deframer", "Frame", "Framing", "Pair", "detect_framing"]

Framing = Literal["sse", "ndjson", "json-array"]

_BOM = b"\xef\xbb\xbf"
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

    __slots__ = ("_head", "_reader", "framing")

    def __init__(self, framing: Framing | None = None) -> None:
        self.framing: Framing | None = framing
        self._reader: _SSE | _NDJSON | _JSONArray | None = _READERS[framing]() if framing else None
        self._head = b""

    def feed(self, data: bytes) -> list[Frame]:
        """Take the next bytes; return the frames they complete."""
        return [tuple.__new__(Frame, pair) for pair in self.feed_pairs(data)]

    def finish(self) -> list[Frame]:
        """The stream has ended: return what its last bytes complete.

        Raises
        ------
        StreamError
            When the stream stopped inside a JSON array or one of its elements.
        """
        return [tuple.__new__(Frame, pair) for pair in self.finish_pairs()]

    def feed_pairs(self, data: bytes) -> list[Pair]:
        """:meth:`feed`, with each frame a plain ``(event, data)`` tuple (for decoders)."""
        reader = self._reader
        if reader is None:
            self._head += data
            framing = detect_framing(self._head)
            if framing is None:
                return []
            data, self._head = self._head, b""
            if data.startswith(_BOM):
                data = data[3:]
            self.framing = framing
            reader = self._reader = _READERS[framing]()
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


class _SSE:
    """Server-sent events, per the WHATWG rules, plus the unterminated last event.

    The buffer is cut at blank lines into whole events first; the usual event,
    a single ``data:`` line, then costs one comparison. Line endings are made
    LF before the cut (CRLF, then lone CRs), so one rule serves all three.
    """

    __slots__ = ("_buf", "_started")

    def __init__(self) -> None:
        self._buf = b""
        self._started = False

    def feed(self, data: bytes) -> list[Pair]:
        buf = self._buf + data if self._buf else data
        if not self._started and buf:
            if len(buf) < 3 and _BOM.startswith(buf):
                self._buf = buf
                return []
            self._started = True
            if buf.startswith(_BOM):
                buf = buf[3:]
        # A CR at the end may be the first half of a CRLF: wait for the next byte.
        held = buf.endswith(b"\r")
        if held:
            buf = buf[:-1]
        if b"\r" in buf:
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events = buf.split(b"\n\n")
        rest = events.pop()
        self._buf = rest + b"\r" if held else rest
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
        return frames

    def finish(self) -> list[Pair]:
        frames: list[Pair] = []
        rest, self._buf = self._buf, b""
        rest = rest.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        for event in rest.split(b"\n\n"):
            if event:
                self._event(event.split(b"\n"), frames)
        return frames

    @staticmethod
    def _event(lines: list[bytes], frames: list[Pair]) -> None:
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
            # id and retry steer reconnection, which is the transport's business.
        if data:
            frames.append((name, data[0] if len(data) == 1 else b"\n".join(data)))


class _NDJSON:
    """One JSON value per line; blank lines are skipped."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, data: bytes) -> list[Pair]:
        buf = self._buf + data if self._buf else data
        *lines, self._buf = buf.split(b"\n")
        return [(None, text) for line in lines if (text := line.strip(_SPACE))]

    def finish(self) -> list[Pair]:
        text, self._buf = self._buf.strip(_SPACE), b""
        return [(None, text)] if text else []


# What can change the nesting: brackets, and quotes and backslashes, which
# decide whether a bracket is inside a string.
_STRUCTURAL = re.compile(rb'["\\\[\]{}]')
_OPENERS = frozenset(b"[{")
_BETWEEN = b" \t\r\n,"


class _JSONArray:
    """The elements of one top-level JSON array, each as soon as it is complete.

    Scans each byte once: the scan resumes where the last one stopped, with
    the nesting depth and the in-string state carried over.
    """

    __slots__ = ("_buf", "_depth", "_done", "_item", "_last", "_pos", "_skip", "_string")

    def __init__(self) -> None:
        self._buf = b""
        self._pos = 0  # where the scan resumes
        self._depth = 0
        self._string = False
        self._skip = -1  # index of an escaped byte inside a string
        self._item = -1  # where the element in progress began
        self._last = 0  # where the text between elements began
        self._done = False

    def feed(self, data: bytes) -> list[Pair]:
        if self._done:
            if data.strip(_SPACE):
                raise StreamError("data after the end of the JSON array")
            return []
        buf = self._buf + data if self._buf else data
        frames: list[Pair] = []
        depth, string, skip = self._depth, self._string, self._skip
        item, last = self._item, self._last
        for match in _STRUCTURAL.finditer(buf, self._pos):
            i = match.start()
            if i == skip:
                continue
            byte = buf[i]
            if string:
                if byte == 0x5C:  # backslash: the next byte is escaped
                    skip = i + 1
                elif byte == 0x22:
                    string = False
                continue
            if byte == 0x22:
                string = True
                if depth == 1:
                    raise StreamError("a JSON array stream must hold objects")
            elif byte in _OPENERS:
                if depth == 0:
                    if byte != 0x5B or buf[:i].strip(_SPACE):
                        raise StreamError("the stream is not a JSON array")
                    last = i + 1
                elif depth == 1:
                    if byte != 0x7B or buf[last:i].strip(_BETWEEN):
                        raise StreamError("a JSON array stream must hold objects")
                    item = i
                depth += 1
            else:
                depth -= 1
                if depth == 1:
                    frames.append((None, buf[item : i + 1]))
                    last, item = i + 1, -1
                elif depth == 0:
                    if buf[last:i].strip(_BETWEEN) or buf[i + 1 :].strip(_SPACE):
                        raise StreamError("a JSON array stream must hold objects")
                    self._done = True
                    break
                else:
                    if depth < 0:
                        raise StreamError("the stream is not a JSON array")
        # Keep only what is still needed (the element in progress, or the
        # text since the last one), rebased to index 0.
        keep = item if item >= 0 else last if depth == 1 else len(buf)
        self._buf = buf[keep:]
        self._pos = len(buf) - keep
        self._skip = skip - keep if skip >= keep else -1
        self._item = item - keep if item >= 0 else -1
        self._last = max(last - keep, 0)
        self._depth, self._string = depth, string
        return frames

    def finish(self) -> list[Pair]:
        if not self._done:
            raise StreamError("the stream ended inside the JSON array")
        return []


_READERS: dict[Framing | None, type[_SSE] | type[_NDJSON] | type[_JSONArray]] = {
    "sse": _SSE,
    "ndjson": _NDJSON,
    "json-array": _JSONArray,
}
