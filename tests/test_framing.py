"""Stream framing: SSE, NDJSON and JSON arrays, split anywhere."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec._framing import DEFAULT_LIMITS, Deframer, Frame, Framing, Limits, detect_framing
from corpus_root import CORPUS, HAVE_CORPUS

CURATED = Path(__file__).parent / "data" / "streams"


def whole(data: bytes, framing: Framing | None = None) -> list[Frame]:
    deframer = Deframer(framing)
    return deframer.feed(data) + deframer.finish()


def in_pieces(data: bytes, sizes: list[int], framing: Framing | None = None) -> list[Frame]:
    deframer = Deframer(framing)
    frames: list[Frame] = []
    start = 0
    for size in sizes:
        frames += deframer.feed(data[start : start + size])
        start += size
    frames += deframer.feed(data[start:])
    return frames + deframer.finish()


def bytewise(data: bytes, framing: Framing | None = None) -> list[Frame]:
    return in_pieces(data, [1] * len(data), framing)


def every_split(data: bytes) -> None:
    expected = whole(data)
    for cut in range(len(data) + 1):
        assert in_pieces(data, [cut]) == expected, cut


class TestDetect:
    """The framing is told from the first bytes."""

    @pytest.mark.parametrize(
        ("head", "framing"),
        [
            (b"data: x", "sse"),
            (b"event: ping", "sse"),
            (b": keep-alive\n", "sse"),
            (b"\xef\xbb\xbfdata: x", "sse"),
            (b'{"model": "llama3"}', "ndjson"),
            (b"\r\n  [", "json-array"),
            (b"\xef\xbb\xbf[", "json-array"),
        ],
    )
    def test_detect(self, head: bytes, framing: Framing) -> None:
        assert detect_framing(head) == framing

    def test_waits_for_a_telling_byte(self) -> None:
        deframer = Deframer()
        assert deframer.feed(b"\r\n ") == []
        assert deframer.framing is None
        assert deframer.feed(b'{"a":1}\n') == [Frame(None, b'{"a":1}')]
        assert deframer.framing == "ndjson"

    def test_nothing_fed(self) -> None:
        assert Deframer().finish() == []


class TestSSE:
    """Server-sent events by the WHATWG rules, and what real servers add."""

    def test_line_endings_agree(self) -> None:
        lf = b'event: a\ndata: {"x":1}\n\ndata: [DONE]\n\n'
        expected = [Frame("a", b'{"x":1}'), Frame(None, b"[DONE]")]
        assert whole(lf) == expected
        assert whole(lf.replace(b"\n", b"\r\n")) == expected
        assert whole(lf.replace(b"\n", b"\r")) == expected

    def test_comments_and_other_fields_are_skipped(self) -> None:
        data = b": OPENROUTER PROCESSING\n\nid: 7\nretry: 10\ndata: {}\nnoise\n\n"
        assert whole(data) == [Frame(None, b"{}")]

    def test_multi_line_data_joins_with_newlines(self) -> None:
        assert whole(b'data: {\ndata:  "a": 1\ndata: }\n\n') == [Frame(None, b'{\n "a": 1\n}')]

    def test_field_without_space_or_value(self) -> None:
        assert whole(b"data:x\n\ndata\n\n") == [Frame(None, b"x"), Frame(None, b"")]

    def test_event_name_resets_after_each_event(self) -> None:
        data = b"event: error\ndata: {}\n\ndata: {}\n\n"
        assert whole(data) == [Frame("error", b"{}"), Frame(None, b"{}")]

    def test_event_without_data_is_not_dispatched(self) -> None:
        assert whole(b"event: ping\n\ndata: 1\n\n") == [Frame(None, b"1")]

    def test_last_event_without_blank_line(self) -> None:
        assert whole(b"data: 1\n\ndata: 2") == [Frame(None, b"1"), Frame(None, b"2")]
        assert whole(b"data: 1\r\n") == [Frame(None, b"1")]

    def test_bom_is_dropped(self) -> None:
        assert whole(b"\xef\xbb\xbfdata: 1\n\n", "sse") == [Frame(None, b"1")]
        assert bytewise(b"\xef\xbb\xbfdata: 1\n\n", "sse") == [Frame(None, b"1")]

    def test_split_inside_crlf_and_utf8(self) -> None:
        data = 'data: {"t":"é€😀"}\r\n\r\ndata: 2\r\n\r\n'.encode()
        every_split(data)
        assert bytewise(data) == whole(data)
        assert json.loads(whole(data)[0].data) == {"t": "é€😀"}

    def test_cr_at_a_chunk_end_ends_the_line_at_once(self) -> None:
        deframer = Deframer("sse")
        assert deframer.feed(b"data: 1\r") == []
        # A second CR ends the event whether or not an LF follows it.
        assert deframer.feed(b"\r") == [Frame(None, b"1")]
        assert deframer.feed(b"\ndata: 2\r") == []  # the LF completes the CRLF: no blank line
        assert deframer.feed(b"\n\r\n") == [Frame(None, b"2")]

    def test_bad_event_name(self) -> None:
        with pytest.raises(cc.StreamError, match="UTF-8"):
            whole(b"event: \xff\ndata: 1\n\n")

    @given(st.lists(st.integers(0, 40), max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
    # An empty chunk between the CR and the LF of a CRLF once made the LF a blank
    # line: the event ended early, without its data (its name lost) ...
    @example(sizes=[14, 0], eol="\r\n")
    # ... or in the middle of its data lines ("a" and "b" as two events).
    @example(sizes=[43, 0], eol="\r\n")
    def test_any_split(self, sizes: list[int], eol: str) -> None:
        data = eol.join(
            [": c", "event: x", 'data: {"a":"é"}', "", "data: a", "data: b", "", "data: [DONE]"]
        ).encode()
        assert in_pieces(data, sizes) == whole(data)

    def test_an_empty_chunk_between_cr_and_lf(self) -> None:
        deframer = Deframer("sse")
        assert deframer.feed(b"event: x\r") == []
        assert deframer.feed(b"") == []
        assert deframer.feed(b'\ndata: {"a":1}\r') == []
        assert deframer.feed(b"") == []
        assert deframer.feed(b"\ndata: 2\r\n\r\n") == [Frame("x", b'{"a":1}\n2')]


EMPTY_CHUNKS = [
    b'event: x\r\ndata: {"a":1}\r\ndata: 2\r\n\r\n: c\r\ndata: [DONE]\r\n\r\n',
    b"event: x\rdata: 1\r\rdata: 2\r\r",
    b'{"a":1}\r\n\r\n{"b":2}\r\n',
    b'[{"a": "\\"]"}\r\n,\r\n{"b": [1]}\r\n]\r\n',
]


@pytest.mark.parametrize("data", EMPTY_CHUNKS)
def test_empty_chunks_change_nothing(data: bytes) -> None:
    """An empty read anywhere (between the CR and LF of a CRLF too) changes no framing."""
    expected = whole(data)
    assert expected
    for cut in range(len(data) + 1):
        assert in_pieces(data, [cut, 0, 0]) == expected, cut
        assert in_pieces(data, [0, cut, 0]) == expected, cut


class TestNDJSON:
    """One JSON value per line."""

    def test_lines(self) -> None:
        data = b'{"a":1}\n\n{"b":2}\r\n  \n{"c":3}'
        expected = [Frame(None, b'{"a":1}'), Frame(None, b'{"b":2}'), Frame(None, b'{"c":3}')]
        assert whole(data) == expected
        assert bytewise(data) == expected
        every_split(data)


class TestJSONArray:
    """Elements of a top-level array, each as soon as it closes."""

    DATA = b'[{"a": "x]}\\"{\\\\", "b": [1, {"c": [3]}]}\r\n,\r\n{"d": "\xc3\xa9"}\r\n]\r\n'

    def test_elements(self) -> None:
        frames = whole(self.DATA)
        assert [json.loads(frame.data) for frame in frames] == [
            {"a": 'x]}"{\\', "b": [1, {"c": [3]}]},
            {"d": "é"},
        ]

    def test_split_anywhere(self) -> None:
        every_split(self.DATA)
        assert bytewise(self.DATA) == whole(self.DATA)

    def test_element_emitted_when_it_closes(self) -> None:
        deframer = Deframer()
        assert deframer.feed(b'[{"a":1}') == [Frame(None, b'{"a":1}')]
        assert deframer.feed(b",{") == []

    def test_cut_between_elements_is_the_end_of_input(self) -> None:
        # Whether the answer was complete is the decoder's to judge, as for SSE.
        assert whole(b'[{"a":1}') == whole(b'[{"a":1},') == [Frame(None, b'{"a":1}')]

    def test_empty_array(self) -> None:
        assert whole(b"[]") == []
        assert whole(b" [ \n ] ") == []

    @pytest.mark.parametrize(
        "data",
        [
            b'[{"a":1},{"b":',  # cut off inside an element
            b"[1, 2]",  # not objects
            b'["a"]',
            b"[[1]]",
            b'[{"a":1} x, {"b":2}]',
            b'[{"a":1}] {"b":2}',
            b'[{"a":1}]]',
        ],
    )
    def test_malformed(self, data: bytes) -> None:
        with pytest.raises(cc.StreamError):
            whole(data, "json-array")

    def test_data_after_the_end(self) -> None:
        deframer = Deframer()
        deframer.feed(b"[]")
        with pytest.raises(cc.StreamError):
            deframer.feed(b"{")

    @given(st.lists(st.integers(0, 12), max_size=40))
    def test_any_split(self, sizes: list[int]) -> None:
        assert in_pieces(self.DATA, sizes) == whole(self.DATA)


class TestNotTheFraming:
    """Bytes that are not SSE before its first data line are an error, not an empty stream."""

    @pytest.mark.parametrize(
        "data",
        [
            b"<html>502 Bad Gateway</html>",
            b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n\r\n</html>\r\n",
            b"Internal Server Error",
            b"upstream connect error\n\ndata: {}\n\n",
        ],
    )
    def test_raises(self, data: bytes) -> None:
        with pytest.raises(cc.StreamError, match="not server-sent events"):
            whole(data)
        with pytest.raises(cc.StreamError, match="not server-sent events"):
            bytewise(data)

    def test_after_a_data_line_unknown_lines_are_skipped(self) -> None:
        assert whole(b"data: 1\n\nnoise\n\ndata: 2\n\n") == [Frame(None, b"1"), Frame(None, b"2")]


def frames_of(deframer: Deframer, pieces: list[bytes]) -> list[Frame]:
    out: list[Frame] = []
    for piece in pieces:
        out += deframer.feed(piece)
    return out + deframer.finish()


def cut(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


BIG = {
    "sse": b'data: {"a":"' + b"x" * 5000 + b'"}\r\n\r\nevent: e\r\ndata: {}\r\n\r\n',
    "ndjson": b'{"a":"' + b"x" * 5000 + b'"}\n{"b":1}\n',
    "json-array": b'[{"a":"' + b'\\"]}' * 1000 + b'"},{"b":1}]',
}


class TestBigFrames:
    """A frame far longer than the pieces it comes in: the same frames at every piece size."""

    @pytest.mark.parametrize("framing", list(BIG))
    @pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1000, 4096])
    def test_same_frames_at_every_piece_size(self, framing: Framing, size: int) -> None:
        data = BIG[framing]
        assert frames_of(Deframer(framing), cut(data, size)) == whole(data, framing)

    def test_array_escape_split_from_its_byte(self) -> None:
        data = b'[{"a":"\\"}"}]'
        assert in_pieces(data, [8]) == whole(data) == [Frame(None, b'{"a":"\\"}"}')]


class TestLimits:
    """Past a limit the reader raises a StreamError naming it, and drops what it held."""

    @pytest.mark.parametrize(
        ("framing", "head"),
        [("sse", b"data: "), ("ndjson", b'{"a":"'), ("json-array", b'[{"a":"')],
    )
    def test_a_line_too_long(self, framing: Framing, head: bytes) -> None:
        deframer = Deframer(framing, Limits(max_line=100))
        deframer.feed(head + b"x" * 50)
        with pytest.raises(cc.StreamError, match="max_line=100") as caught:
            deframer.feed(b"x" * 60)
        assert caught.value.limit == "max_line"
        # What was held is dropped: nothing of the long line is left to finish.
        if framing == "json-array":
            with pytest.raises(cc.StreamError, match="ended inside"):
                deframer.finish_pairs()
        else:
            assert deframer.finish_pairs() == []

    @pytest.mark.parametrize("first", [b"data: 1\n\n", b"data: 1\n\ndata: 2", b"data: 1\n\n: c\n"])
    def test_a_line_too_long_after_an_event(self, first: bytes) -> None:
        deframer = Deframer("sse", Limits(max_line=20))
        assert deframer.feed(first) == [Frame(None, b"1")]
        line = len(first) - first.rfind(b"\n") - 1  # the line in progress
        while line + 3 <= 20:
            assert deframer.feed(b"xxx") == []
            line += 3
        with pytest.raises(cc.StreamError, match="max_line=20"):
            deframer.feed(b"xxx")

    @pytest.mark.parametrize("framing", ["sse", "ndjson", "json-array"])
    def test_a_line_too_long_in_one_read(self, framing: Framing) -> None:
        data = BIG[framing]
        with pytest.raises(cc.StreamError, match="max_line") as caught:
            Deframer(framing, Limits(max_line=1000)).feed(data)
        assert caught.value.limit == "max_line"

    def test_an_event_too_long(self) -> None:
        deframer = Deframer("sse", Limits(max_line=100, max_event=150))
        deframer.feed(b"data: " + b"x" * 90 + b"\n")
        with pytest.raises(cc.StreamError, match="max_event=150") as caught:
            deframer.feed(b"data: " + b"x" * 90 + b"\n")
        assert caught.value.limit == "max_event"
        with pytest.raises(cc.StreamError, match="max_event"):
            Deframer("sse", Limits(max_line=100, max_event=150)).feed(
                (b"data: " + b"x" * 90 + b"\n") * 2 + b"\n"
            )

    def test_undetected_head_too_long(self) -> None:
        deframer = Deframer(limits=Limits(max_line=10))
        with pytest.raises(cc.StreamError, match="max_line"):
            deframer.feed(b" " * 11)

    def test_within_the_limits(self) -> None:
        data = BIG["sse"]
        assert whole(data) == frames_of(Deframer("sse", Limits(max_line=5014)), cut(data, 3))
        with pytest.raises(cc.StreamError, match="max_line"):
            frames_of(Deframer("sse", Limits(max_line=5013)), cut(data, 3))

    def test_defaults(self) -> None:
        assert Limits(32 << 20, 64 << 20, 16 << 20, 10_000) == DEFAULT_LIMITS


class TestPairs:
    """The plain-tuple feed that decoders use gives what feed gives."""

    @pytest.mark.parametrize(
        "data",
        [
            b'data: {"a":1}\r\n\r\n: ping\n\nevent: x\ndata: 2\n\ndata: 3',
            b'{"a":1}\n{"b":2}',
            b"[{},{}]",
        ],
    )
    def test_pairs_are_the_frames(self, data: bytes) -> None:
        deframer = Deframer()
        assert deframer.pair_feeder() is None  # nothing read, framing unknown
        pairs = deframer.feed_pairs(data[:5])
        feed = deframer.pair_feeder()
        assert feed is not None
        pairs += feed(data[5:]) + deframer.finish_pairs()
        assert [tuple(frame) for frame in whole(data)] == pairs
        assert all(type(pair) is tuple for pair in pairs)

    def test_given_framing_needs_no_detection(self) -> None:
        feed = Deframer("ndjson").pair_feeder()
        assert feed is not None
        assert feed(b'{"a":1}\n') == [(None, b'{"a":1}')]


def stream_files() -> list[Any]:
    paths = sorted(CURATED.glob("*.json"))
    if HAVE_CORPUS:
        paths += sorted(CORPUS.glob("*/stream/*.json"))
    return [pytest.param(path, id=path.name[:90]) for path in paths]


@pytest.mark.parametrize("path", stream_files())
def test_recorded_streams(path: Path) -> None:
    """Every recorded stream deframes to its recorded payloads, however it is split."""
    record = json.loads(path.read_bytes())
    if record["framing"] not in ("sse", "ndjson", "json-array"):
        pytest.skip(f"framing {record['framing']!r} is not a wire framing")
    raw = record["raw"].encode()
    frames = whole(raw)
    payloads = [frame.data for frame in frames if frame.data != b"[DONE]"]
    expected = record["events"]
    got = [json.loads(data) for data in payloads if data not in record["non_json_data"]]
    assert got == expected
    assert (b"[DONE]" in [frame.data for frame in frames]) == record["done_sentinel"]
    if record["framing"] == "sse" and record.get("event_names"):
        assert [frame.event for frame in frames if frame.data != b"[DONE]"] == [
            *record["event_names"]
        ]
    assert bytewise(raw) == frames
    rng = random.Random(path.name)
    sizes = [rng.randint(1, 64) for _ in range(len(raw) // 8 + 1)]
    assert in_pieces(raw, sizes) == frames
