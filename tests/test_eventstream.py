"""AWS event-stream framing: frames cut from bytes split anywhere, every failure a StreamError."""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from pathlib import Path
from typing import Any

import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import given, settings
from hypothesis import strategies as st

from chatcodec import StreamError
from chatcodec._eventstream import (
    EventStreamMessage,
    EventStreamReader,
    HeaderValue,
    encode_message,
)

STREAMS = Path(__file__).parent / "data" / "streams"
RECORDED = sorted(STREAMS.glob("bedrock__*.json"))


def recorded(path: Path) -> bytes:
    return base64.b64decode(json.loads(path.read_bytes())["raw_base64"])


def frames(data: bytes, sizes: list[int] | None = None, **options: Any) -> list[EventStreamMessage]:
    reader = EventStreamReader(**options)
    out: list[EventStreamMessage] = []
    if sizes is None:
        out += reader.feed(data)
    else:
        at = 0
        for size in sizes:
            out += reader.feed(data[at : at + size])
            at += size
        out += reader.feed(data[at:])
    reader.finish()
    return out


EVENT = {
    ":event-type": "messageStart",
    ":content-type": "application/json",
    ":message-type": "event",
}


class TestRecorded:
    """The recorded ConverseStream bytes, whole and at every kind of split."""

    @pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem[:60])
    def test_same_as_botocore(self, path: Path) -> None:
        data = recorded(path)
        buffer = EventStreamBuffer()
        buffer.add_data(data)
        theirs = [(message.headers, message.payload) for message in buffer]
        ours = [(message.headers, message.payload) for message in frames(data)]
        assert ours == theirs
        names = json.loads(path.read_bytes())["event_names"]
        assert [headers[":event-type"] for headers, _ in ours] == names

    @pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem[:60])
    def test_byte_by_byte(self, path: Path) -> None:
        data = recorded(path)
        assert frames(data, [1] * len(data)) == frames(data)

    @settings(max_examples=30, deadline=None)
    @given(cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=12))
    def test_any_split(self, cuts: list[int]) -> None:
        data = recorded(RECORDED[0])
        points = sorted({cut % (len(data) + 1) for cut in cuts})
        sizes = [b - a for a, b in zip([0, *points], points, strict=False)]
        assert frames(data, sizes) == frames(data)


class TestHeaders:
    """Every header value type reads back as written."""

    def test_types(self) -> None:
        value = uuid.UUID(int=7)
        headers: dict[str, HeaderValue] = {"s": "text", "b": b"\x00\x01", "t": True, "i": -5}
        headers |= {"f": False, "u": value}
        (message,) = frames(encode_message(headers, b"{}"))
        assert message.headers == headers
        assert message.payload == b"{}"

    def test_small_ints_and_timestamp(self) -> None:
        block = b"\x01a\x02\xff" + b"\x01b\x03\x01\x00" + b"\x01c\x05" + struct.pack(">q", 2**40)
        block += b"\x01d\x08" + struct.pack(">q", 1700000000000)
        prelude = struct.pack(">II", 16 + len(block), len(block))
        body = prelude + struct.pack(">I", zlib.crc32(prelude)) + block
        data = body + struct.pack(">I", zlib.crc32(body))
        (message,) = frames(data)
        assert message.headers == {"a": -1, "b": 256, "c": 2**40, "d": 1700000000000}

    def test_unknown_type(self) -> None:
        block = b"\x01a\x0a"
        prelude = struct.pack(">II", 16 + len(block), len(block))
        body = prelude + struct.pack(">I", zlib.crc32(prelude)) + block
        with pytest.raises(StreamError, match="unknown value type 10"):
            frames(body + struct.pack(">I", zlib.crc32(body)))


class TestBroken:
    """Bad CRCs, cut frames and oversize frames raise StreamError."""

    def test_prelude_crc(self) -> None:
        data = bytearray(encode_message(EVENT, b"{}"))
        data[9] ^= 1
        with pytest.raises(StreamError, match="prelude fails its CRC32"):
            EventStreamReader().feed(bytes(data))

    def test_message_crc(self) -> None:
        data = bytearray(encode_message(EVENT, b'{"role":"assistant"}'))
        data[-6] ^= 1
        with pytest.raises(StreamError, match="message CRC32"):
            EventStreamReader().feed(bytes(data))

    def test_truncated(self) -> None:
        data = encode_message(EVENT, b"{}")
        reader = EventStreamReader()
        assert reader.feed(data[:-1]) == []
        with pytest.raises(StreamError, match="stopped inside a frame"):
            reader.finish()

    def test_oversize(self) -> None:
        data = encode_message(EVENT, b"x" * 100)
        with pytest.raises(StreamError, match="over the limit max_frame=64") as raised:
            EventStreamReader(max_frame=64).feed(data[:12])
        assert raised.value.limit == "max_frame"
        with pytest.raises(StreamError, match="over the limit max_line=64") as named:
            EventStreamReader(max_frame=64, limit="max_line").feed(data[:12])
        assert named.value.limit == "max_line"

    def test_impossible_lengths(self) -> None:
        prelude = struct.pack(">II", 15, 0)
        with pytest.raises(StreamError, match="impossible lengths"):
            EventStreamReader().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))

    def test_not_event_stream(self) -> None:
        with pytest.raises(StreamError):
            EventStreamReader().feed(b'data: {"type":"message_start"}\n\n')
