"""Bedrock ConverseStream: recorded event-stream bytes at any split, events, errors."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any, ClassVar

import pytest
from corpus import STREAMS, corpus, needs_corpus, random_sizes, run_stream

import chatcodec as cc
from chatcodec import FinishReason, OpaquePart, ReasoningPart, StreamError, TextPart, ToolCall, http
from chatcodec._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._eventstream import MAX_FRAME, encode_message
from chatcodec.providers import bedrock

CURATED = [
    pytest.param(path, id=path.stem[:80]) for path in sorted(STREAMS.glob("bedrock__*.json"))
]


def raw(path: Path) -> bytes:
    data = json.loads(path.read_bytes())
    assert data["framing"] == "aws-eventstream"
    return base64.b64decode(data["raw_base64"])


def frame(kind: str, payload: dict[str, Any], message_type: str = "event") -> bytes:
    headers = {":message-type": message_type, ":content-type": "application/json"}
    key = ":exception-type" if message_type == "exception" else ":event-type"
    return encode_message({key: kind, **headers}, json.dumps(payload).encode())


def check(path: Path) -> None:
    data = raw(path)
    events, response = run_stream(bedrock.stream, data)
    for sizes in ([1] * len(data), random_sizes(len(data), 1), random_sizes(len(data), 2)):
        again, same = run_stream(bedrock.stream, data, sizes)
        assert (again, same) == (events, response)
    # The folded answer is a Converse response: it survives its own round trip.
    assert bedrock.decode_response(bedrock.encode_response(response)) == response
    message = response.message
    assert message is not None
    text = "".join(event.text for event in events if type(event) is TextDelta)
    assert text == message.text
    completed = [event.call for event in events if type(event) is ToolCallCompleted]
    assert completed == list(message.tool_calls)
    finished = [event for event in events if type(event) is Finished]
    assert [event.finish_reason for event in finished] == [response.finish_reason]
    usage = [event.usage for event in events if type(event) is UsageReported]
    assert usage[-1:] == [response.usage]


class TestRecorded:
    """Every recorded stream gives one response, fed whole, byte by byte and at random splits."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("bedrock", "stream")))
    def test_corpus(self, path: Path) -> None:
        check(path)

    @pytest.mark.parametrize("path", CURATED)
    def test_curated(self, path: Path) -> None:
        check(path)

    def test_server_tool_blocks_are_parts(self) -> None:
        path = next(p for p in STREAMS.glob("bedrock__*code_execution*.json"))
        events, response = run_stream(bedrock.stream, raw(path))
        parts = [event.part for event in events if type(event) is PartReceived]
        assert response.message is not None
        assert isinstance(response.message.content, tuple)
        assert [type(part) for part in parts] == [OpaquePart, OpaquePart]
        assert response.message.content[:2] == tuple(parts)

    def test_redacted_reasoning_is_a_part(self) -> None:
        path = next(p for p in STREAMS.glob("bedrock__*redacted*.json"))
        events, response = run_stream(bedrock.stream, raw(path))
        parts = [event.part for event in events if type(event) is PartReceived]
        assert parts
        assert all(isinstance(part, ReasoningPart) and part.redacted for part in parts)
        assert response.message is not None
        assert isinstance(response.message.content, tuple)
        assert response.message.content[: len(parts)] == tuple(parts)


BUILT = b"".join(
    [
        frame("messageStart", {"role": "assistant", "p": "abc"}),
        frame(
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think"}}},
        ),
        frame(
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig"}}},
        ),
        frame("contentBlockStop", {"contentBlockIndex": 0}),
        frame("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Let me look."}}),
        frame("contentBlockStop", {"contentBlockIndex": 1}),
        frame(
            "contentBlockStart",
            {
                "contentBlockIndex": 2,
                "start": {"toolUse": {"toolUseId": "t1", "name": "get_weather"}},
            },
        ),
        frame(
            "contentBlockDelta",
            {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"city":'}}},
        ),
        frame(
            "contentBlockDelta",
            {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '"Paris"}'}}},
        ),
        frame("contentBlockStop", {"contentBlockIndex": 2}),
        frame("messageStop", {"stopReason": "tool_use"}),
        frame(
            "metadata",
            {
                "usage": {"inputTokens": 5, "outputTokens": 7, "totalTokens": 12},
                "metrics": {"latencyMs": 3},
            },
        ),
    ]
)


class TestFolding:
    """The events of each block kind, and the response they fold into."""

    def test_events(self) -> None:
        events, response = run_stream(bedrock.stream, BUILT)
        kinds = [type(event).__name__ for event in events]
        assert kinds == [
            "ReasoningDelta",
            "ReasoningDelta",
            "TextDelta",
            "ToolCallStarted",
            "ToolCallArgumentsDelta",
            "ToolCallArgumentsDelta",
            "ToolCallCompleted",
            "Finished",
            "UsageReported",
        ]
        assert events[1] == ReasoningDelta("", signature="sig")
        assert response.finish_reason is FinishReason.TOOL_CALLS
        call = response.tool_calls[0]
        assert call == ToolCall("t1", "get_weather", call.arguments)
        assert bytes(call.arguments) == b'{"city":"Paris"}'
        assert response.extras == {"bedrock": {"metrics": {"latencyMs": 3}}}

    def test_cut_off_inside_a_call(self) -> None:
        """A call whose block never closed is invalid, whatever its input says so far."""
        cut = BUILT[: BUILT.index(frame("contentBlockStop", {"contentBlockIndex": 2}))]
        decoder = bedrock.stream()
        decoder.feed(cut)
        with pytest.raises(StreamError):
            decoder.finish()
        decoder = bedrock.stream()
        decoder.feed(cut)
        message = decoder.finish(allow_incomplete=True).message
        assert message is not None
        assert message.tool_calls == ()
        [call] = message.invalid_tool_calls
        assert (call.id, call.name, call.arguments) == ("t1", "get_weather", '{"city":"Paris"}')
        assert call.error == "arguments are truncated"

    def test_same_as_the_plain_body(self) -> None:
        body = (
            b'{"output":{"message":{"role":"assistant","content":[{"reasoningContent":'
            b'{"reasoningText":{"text":"think","signature":"sig"}}},{"text":"Let me look."},'
            b'{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}}]}},'
            b'"stopReason":"tool_use","usage":{"inputTokens":5,"outputTokens":7,"totalTokens":12},'
            b'"metrics":{"latencyMs":3}}'
        )
        _, response = run_stream(bedrock.stream, BUILT)
        assert response == bedrock.decode_response(body)


class TestErrors:
    """Exception frames and broken framing end the stream with StreamError."""

    def test_exception_frame(self) -> None:
        data = BUILT[: len(frame("messageStart", {"role": "assistant", "p": "abc"}))]
        data += frame("throttlingException", {"message": "Too many requests"}, "exception")
        decoder = bedrock.stream()
        with pytest.raises(StreamError, match="throttlingException") as caught:
            decoder.feed(data)
        assert "Too many" not in str(caught.value)
        with pytest.raises(StreamError):
            decoder.feed(b"")

    def test_bad_crc_keeps_the_partial_response(self) -> None:
        good = frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}})
        bad = bytearray(
            frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "!"}})
        )
        bad[-1] ^= 1
        decoder = bedrock.stream()
        assert decoder.feed(good) == [TextDelta("Hi")]
        with pytest.raises(StreamError, match="CRC32") as caught:
            decoder.feed(bytes(bad))
        partial = caught.value.partial
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Hi"

    def test_truncated(self) -> None:
        decoder = bedrock.stream()
        decoder.feed(BUILT[:-3])
        with pytest.raises(StreamError, match="stopped inside a frame"):
            decoder.finish()

    def test_oversize(self) -> None:
        with pytest.raises(StreamError, match="over the limit max_frame=64") as raised:
            bedrock.stream(max_frame=64).feed(BUILT)
        assert raised.value.limit == "max_frame"
        assert raised.value.partial is None

    def test_a_frame_past_the_default_limit_names_it(self) -> None:
        prelude = struct.pack(">II", 0xFFFFFFFF, 0)
        decoder = bedrock.stream()
        with pytest.raises(StreamError) as raised:
            decoder.feed(prelude + struct.pack(">I", zlib.crc32(prelude)))
        assert raised.value.limit == "max_frame"
        with pytest.raises(StreamError) as again:
            decoder.feed(b"")
        assert again.value.limit == "max_frame"

    @pytest.mark.parametrize(
        ("limits", "name"),
        [
            ({"max_line": 64}, "max_line"),
            ({"max_event": 64}, "max_event"),
            ({"max_line": 64, "max_event": 32}, "max_event"),
            ({"max_frame": 32, "max_line": 64}, "max_frame"),
        ],
    )
    def test_max_line_and_max_event_bound_a_frame(self, limits: dict[str, int], name: str) -> None:
        """The limits every stream() takes: a frame is Bedrock's line and event at once."""
        decoder = bedrock.stream(
            max_frame=limits.get("max_frame", MAX_FRAME),
            max_line=limits.get("max_line"),
            max_event=limits.get("max_event"),
        )
        with pytest.raises(StreamError, match=f"over the limit {name}=") as raised:
            decoder.feed(BUILT)
        assert raised.value.limit == name
        whole = bedrock.stream(max_line=len(BUILT), max_event=len(BUILT))
        whole.feed(BUILT)
        reference = bedrock.stream()
        reference.feed(BUILT)
        assert whole.finish(allow_incomplete=True) == reference.finish(allow_incomplete=True)

    def test_read_stream_passes_the_limits(self) -> None:
        decoder = http.read_stream("bedrock", 200, {}, max_line=64, max_event=1 << 20)
        with pytest.raises(StreamError) as raised:
            decoder.feed(BUILT)
        assert raised.value.limit == "max_line"


class TestCutBeforeMetadata:
    """Cut after messageStop, before its metadata: a cut stream, its usage not lost silently."""

    def test_own_stream_cut_before_its_metadata(self) -> None:
        response = cc.Response(
            choices=(cc.Choice(cc.assistant("Hello"), finish_reason=cc.FinishReason.STOP),),
            id="r1",
            model="m",
            usage=cc.Usage(prompt_tokens=3, completion_tokens=7, total_tokens=10),
        )
        body = bedrock.encode_stream(response)
        at = 0
        while b"\x08metadata" not in body[at : at + int.from_bytes(body[at : at + 4], "big")]:
            at += int.from_bytes(body[at : at + 4], "big")
        assert 0 < at < len(body)
        decoder = bedrock.stream()
        decoder.feed(body[:at])
        with pytest.raises(StreamError, match="ended before messageStop and its metadata") as cut:
            decoder.finish()
        assert not decoder.complete
        partial = cut.value.partial
        assert partial is not None
        assert partial.message is not None
        assert (partial.message.text, partial.usage) == ("Hello", None)
        assert decoder.finish(allow_incomplete=True) == partial
        whole = bedrock.stream()
        whole.feed(body)
        assert whole.finish().usage == response.usage
        assert whole.complete

    def test_metadata_without_usage_ends_the_stream(self) -> None:
        response = cc.Response(
            choices=(cc.Choice(cc.assistant("Hi"), finish_reason=cc.FinishReason.STOP),)
        )
        body = bedrock.encode_stream(response)
        decoder = bedrock.stream()
        decoder.feed(body)
        assert decoder.finish().message == response.message
        assert decoder.complete

    def test_metadata_before_message_stop_is_not_the_end(self) -> None:
        decoder = bedrock.stream()
        decoder.feed(
            frame("messageStart", {"role": "assistant"})
            + frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}})
            + frame("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}})
        )
        with pytest.raises(StreamError, match="ended before"):
            decoder.finish()


class TestCitationDeltas:
    """contentBlockDelta.delta.citation (Claude citations, Nova grounding) is read and kept."""

    CLAUDE: ClassVar[dict[str, Any]] = {
        "title": "report.pdf",
        "sourceContent": [{"text": "The sky is blue."}],
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 16}},
    }
    NOVA: ClassVar[dict[str, Any]] = {
        "location": {"web": {"url": "https://example.com/sky", "domain": "example.com"}}
    }

    def stream(self) -> bytes:
        def frame(kind: str, payload: dict[str, Any]) -> bytes:
            headers = {":event-type": kind, ":content-type": "application/json"}
            return encode_message(
                {**headers, ":message-type": "event"}, json.dumps(payload).encode()
            )

        return b"".join(
            [
                frame("messageStart", {"role": "assistant"}),
                frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "The sky"}}),
                frame(
                    "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": " is blue."}}
                ),
                frame(
                    "contentBlockDelta",
                    {"contentBlockIndex": 0, "delta": {"citation": self.CLAUDE}},
                ),
                frame(
                    "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"citation": self.NOVA}}
                ),
                frame("contentBlockStop", {"contentBlockIndex": 0}),
                frame("messageStop", {"stopReason": "end_turn"}),
                frame(
                    "metadata", {"usage": {"inputTokens": 3, "outputTokens": 5, "totalTokens": 8}}
                ),
            ]
        )

    def test_decodes_with_the_citations(self) -> None:
        raw = self.stream()
        for sizes in (None, random_sizes(len(raw), 4)):
            events, response = run_stream(bedrock.stream, raw, sizes)
            assert response.text == "The sky is blue."
            assert response.finish_reason is FinishReason.STOP
            message = response.message
            assert message is not None
            assert isinstance(message.content, tuple)
            (part,) = message.content
            assert isinstance(part, TextPart)
            assert [c.kind for c in part.citations] == ["char", "url"]
            assert part.citations[0].quote == "The sky is blue."
            assert part.citations[1].url == "https://example.com/sky"
            # The body the stream stands for: the text with what it cites, one block.
            body = json.loads(bedrock.encode_response(response))
            assert body["output"]["message"]["content"] == [
                {
                    "citationsContent": {
                        "content": [{"text": "The sky is blue."}],
                        "citations": [self.CLAUDE, self.NOVA],
                    }
                }
            ]
            # Each citation follows the text, spanning its block.
            cited = [e.citation for e in events if type(e) is CitationReceived]
            assert [(c.start, c.end) for c in cited] == [(0, 16), (0, 16)]
            assert [type(e).__name__ for e in events].count("PartReceived") == 0

    def test_translated(self) -> None:
        from chatcodec import translate_stream
        from chatcodec.providers import get

        raw = self.stream()
        _, source = run_stream(bedrock.stream, raw)
        for target in ("openai", "anthropic", "gemini", "ollama", "openai-responses", "bedrock"):
            translator = translate_stream("bedrock", target)
            out = translator.feed(raw)
            tail, report = translator.finish()
            _, got = run_stream(get(target).stream, out + tail)
            assert got.text == "The sky is blue."
            if target == "bedrock":
                assert got.message == source.message
                assert not report
            else:  # no place for them: said
                assert report
