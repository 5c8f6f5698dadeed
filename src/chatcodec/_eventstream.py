"""AWS event-stream framing: binary messages in, headers and payloads out. No I/O.

Amazon Bedrock's ``ConverseStream`` (and every AWS streaming API) answers in
binary frames, not text. Each frame is::

    total length    uint32, big-endian, the whole frame
    headers length  uint32, big-endian
    prelude CRC32   uint32, of the 8 bytes before it
    headers         name length (uint8), name, value type (uint8), value; repeated
    payload         total - headers - 16 bytes
    message CRC32   uint32, of every byte before it

Header value types: 0 true, 1 false, 2 int8, 3 int16, 4 int32, 5 int64,
6 bytes and 7 string (both with a uint16 length), 8 timestamp (int64
milliseconds), 9 UUID (16 bytes).

Strategy: the reader keeps the bytes not yet framed and cuts whole frames
from them as soon as their length is known, so input may be split anywhere.
The prelude is checked as soon as its 12 bytes are there (a stream that is
not event-stream framing fails at its first read, not after a made-up length
worth of bytes), the length against a limit, and the whole frame against its
CRC. Every failure is a :class:`~chatcodec.StreamError`.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Mapping
from typing import NamedTuple

from ._errors import StreamError
from ._framing import over_limit
from ._frozen import FrozenMap

__all__ = ["MAX_FRAME", "EventStreamMessage", "EventStreamReader", "HeaderValue", "encode_message"]

MAX_FRAME = 24 * 1024 * 1024 + 128 * 1024 + 16
"""The default limit of one frame: AWS's largest payload, headers and prelude."""

HeaderValue = bool | int | bytes | str | uuid.UUID
"""A header's value, by its wire type (a timestamp is milliseconds, an int)."""

_PRELUDE = struct.Struct(">III")
_CRC = struct.Struct(">I")
_MIN_FRAME = 16  # a prelude and a message CRC, nothing else
_INTS = FrozenMap(
    {
        2: struct.Struct(">b"),
        3: struct.Struct(">h"),
        4: struct.Struct(">i"),
        5: struct.Struct(">q"),
    }
)
_TIMESTAMP = 8
_LENGTH = struct.Struct(">H")


class EventStreamMessage(NamedTuple):
    """One frame: its headers by name, and its payload bytes."""

    headers: dict[str, HeaderValue]
    payload: bytes


def _headers(data: bytes, start: int, end: int) -> dict[str, HeaderValue]:
    headers: dict[str, HeaderValue] = {}
    at = start
    try:
        while at < end:
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode()
            at += 1 + size
            kind = data[at]
            at += 1
            value: HeaderValue
            if kind == 0 or kind == 1:
                value = kind == 0
            elif kind in _INTS:
                reader = _INTS[kind]
                (value,) = reader.unpack_from(data, at)
                at += reader.size
            elif kind == _TIMESTAMP:
                (value,) = _INTS[5].unpack_from(data, at)
                at += 8
            elif kind == 6 or kind == 7:
                (length,) = _LENGTH.unpack_from(data, at)
                raw = data[at + 2 : at + 2 + length]
                if len(raw) != length:
                    raise StreamError("an event-stream header runs past its frame")
                value = raw.decode() if kind == 7 else bytes(raw)
                at += 2 + length
            elif kind == 9:
                value = uuid.UUID(bytes=bytes(data[at : at + 16]))
                at += 16
            else:
                raise StreamError(f"an event-stream header has unknown value type {kind}")
            headers[name] = value
    except (IndexError, struct.error, ValueError) as exc:
        if isinstance(exc, StreamError):
            raise
        raise StreamError("an event-stream header is malformed") from None
    if at != end:
        raise StreamError("an event-stream header runs past its frame")
    return headers


class EventStreamReader:
    """Cut AWS event-stream frames from bytes split anywhere.

    Parameters
    ----------
    max_frame : int, optional
        The largest frame taken, in bytes; a longer one raises
        :class:`~chatcodec.StreamError` before its bytes are waited for, whose
        ``.limit`` is ``limit``.
    limit : str, default "max_frame"
        The name of the limit ``max_frame`` stands for: a stream decoder that
        took ``max_line`` or ``max_event`` as its frame limit names that one.

    Examples
    --------
    >>> frame = encode_message({":event-type": "messageStart"}, b'{"role":"assistant"}')
    >>> reader = EventStreamReader()
    >>> reader.feed(frame[:7]), len(reader.feed(frame[7:]))
    ([], 1)
    >>> reader.feed(frame)[0].headers[":event-type"]
    'messageStart'
    """

    __slots__ = ("_buffer", "_checked", "limit", "max_frame")

    def __init__(self, max_frame: int = MAX_FRAME, limit: str = "max_frame") -> None:
        self.max_frame = max_frame
        self.limit = limit
        self._buffer = bytearray()
        self._checked = False  # whether the prelude at the front was checked

    def feed(self, data: bytes) -> list[EventStreamMessage]:
        """Take the next bytes; return the frames they complete.

        Raises
        ------
        StreamError
            On a bad prelude or message CRC, a length below 16 bytes, or
            malformed headers; above ``max_frame``, with ``.limit`` naming it.
        """
        buffer = self._buffer
        buffer += data
        out: list[EventStreamMessage] = []
        while len(buffer) >= 12:
            total, header_length, crc = _PRELUDE.unpack_from(buffer, 0)
            if not self._checked:
                if zlib.crc32(buffer[:8]) != crc:
                    raise StreamError("an event-stream prelude fails its CRC32")
                if total < _MIN_FRAME or header_length > total - _MIN_FRAME:
                    raise StreamError("an event-stream frame has impossible lengths")
                if total > self.max_frame:
                    self.release()  # nothing of a frame over the limit is kept
                    raise over_limit(self.limit, self.max_frame)
                self._checked = True
            if len(buffer) < total:
                break
            frame = bytes(buffer[:total])
            del buffer[:total]
            self._checked = False
            (expected,) = _CRC.unpack_from(frame, total - 4)
            if zlib.crc32(memoryview(frame)[: total - 4]) != expected:
                raise StreamError("an event-stream frame fails its message CRC32")
            headers = _headers(frame, 12, 12 + header_length)
            out.append(EventStreamMessage(headers, frame[12 + header_length : total - 4]))
        return out

    def release(self) -> None:
        """Drop every byte held (after an error: the stream is over)."""
        self._buffer.clear()
        self._checked = False

    def finish(self) -> None:
        """End the input.

        Raises
        ------
        StreamError
            If the input stopped inside a frame.
        """
        if self._buffer:
            raise StreamError("the event stream stopped inside a frame")


def _header(name: str, value: HeaderValue) -> bytes:
    key = name.encode()
    head = bytes((len(key),)) + key
    if type(value) is bool:
        return head + bytes((0 if value else 1,))
    if type(value) is int:
        return head + b"\x04" + _INTS[4].pack(value)
    if type(value) is uuid.UUID:
        return head + b"\x09" + value.bytes
    raw = value.encode() if isinstance(value, str) else bytes(value)  # type: ignore[arg-type]
    return head + (b"\x07" if isinstance(value, str) else b"\x06") + _LENGTH.pack(len(raw)) + raw


def encode_message(headers: Mapping[str, HeaderValue], payload: bytes) -> bytes:
    """Write one event-stream frame (strings as type 7, ints as int32).

    Parameters
    ----------
    headers : mapping
        Header names and values, in order.
    payload : bytes
        The frame's payload.
    """
    block = b"".join(_header(name, value) for name, value in headers.items())
    total = 16 + len(block) + len(payload)
    prelude = struct.pack(">II", total, len(block))
    prelude += _CRC.pack(zlib.crc32(prelude))
    body = prelude + block + payload
    return body + _CRC.pack(zlib.crc32(body))
