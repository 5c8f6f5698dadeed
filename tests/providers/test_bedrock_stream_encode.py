"""The Bedrock ConverseStream encoder: its frames, read back and by botocore."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from corpus import needs_corpus
from msgspec import Raw
from readers import botocore_events, decode, encode_events, raw_of, recorded, recorded_run

from chatcodec import FinishReason, Response, StreamError, Usage
from chatcodec._content import TextPart
from chatcodec._events import (
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._eventstream import encode_message
from chatcodec._stream import ToolCallArgumentsDelta, ToolCallStarted
from chatcodec._tools import ToolCall
from chatcodec.providers import bedrock

FAMILY = "bedrock"
HEADERS = {":content-type": "application/json", ":message-type": "event"}


def folded(events: list[dict[str, Any]]) -> tuple[str, list[Any], Any, Any]:
    """What boto3's events say: the text, the client calls (id, name, input), stop, usage."""
    text, calls, stop, usage = [], [], None, None
    inputs: dict[int, list[str]] = {}
    starts: dict[int, dict[str, Any]] = {}
    for event in events:
        ((kind, body),) = event.items()
        if kind == "contentBlockStart" and "toolUse" in body["start"]:
            starts[body["contentBlockIndex"]] = body["start"]["toolUse"]
        elif kind == "contentBlockDelta":
            delta = body["delta"]
            text.append(delta.get("text", ""))
            if "toolUse" in delta:
                inputs.setdefault(body["contentBlockIndex"], []).append(delta["toolUse"]["input"])
        elif kind == "messageStop":
            stop = body.get("stopReason")
        elif kind == "metadata":
            usage = body.get("usage")
    for index, start in starts.items():
        if start.get("type") != "server_tool_use":
            value = json.loads("".join(inputs.get(index, [])) or "{}")
            calls.append((start["toolUseId"], start["name"], value))
    return "".join(text), calls, stop, usage


def frames(raw: bytes) -> list[Any]:
    """botocore's own frame reader (it checks the prelude and message CRCs)."""
    buffer = EventStreamBuffer()
    buffer.add_data(raw)
    return list(buffer)


class TestOfficialReader:
    """Recorded streams written again: botocore reads the frames and the events boto3 gives."""

    @pytest.mark.parametrize(("family", "path"), needs_corpus(recorded(FAMILY), 2))
    def test_events_and_whole(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        recording = raw_of(path)
        assert recording is not None
        said = folded(botocore_events(recording))
        raw = encode_events(family, events, response)
        parsed = botocore_events(raw)
        if all(type(event) is not PartReceived for event in events) and len(parsed) == len(
            botocore_events(recording)
        ):
            # Every block came as its deltas: boto3 gives the recording's events.
            assert parsed == botocore_events(recording)
        assert folded(parsed) == said
        whole = bedrock.encode_stream(response)
        assert folded(botocore_events(whole)) == said
        for message in frames(raw) + frames(whole):
            assert {k: v for k, v in message.headers.items() if k != ":event-type"} == HEADERS


class TestEncoderRules:
    """Blocks by index, starts for tool blocks only, the stop and the metadata, losses."""

    def test_unknown_block_of_any_value_round_trips(self) -> None:
        # A body's block of a kind no decoder knows, its value not an object, is
        # kept; its stream's start holds it and the stream decoder reads it back
        # (the fuzz target encode_stream found the stream refused).
        body = (
            b'{"output":{"message":{"role":"assistant","content":[{"other":"Hello"}]}},'
            b'"stopReason":"end_turn","usage":{"inputTokens":8,"outputTokens":2,"totalTokens":10}}'
        )
        response = bedrock.decode_response(body)
        _, again = decode("bedrock", bedrock.encode_stream(response))
        assert again.message is not None
        assert response.message is not None
        assert again.message.content == response.message.content
        assert bedrock.encode_response(again) == bedrock.encode_response(response)

    def test_blocks(self) -> None:
        events: list[StreamEvent] = [
            ReasoningDelta("Hm"),
            ReasoningDelta("", signature="sig"),
            TextDelta("On it."),
            ToolCallStarted(0, "c1", "f"),
            ToolCallStarted(1, "c2", "g"),
            ToolCallArgumentsDelta(1, '{"b":'),
            ToolCallArgumentsDelta(0, '{"a":1}'),
            ToolCallArgumentsDelta(1, "2}"),
            ToolCallCompleted(0, ToolCall("c1", "f", Raw(b'{"a":1}'))),
            ToolCallCompleted(1, ToolCall("c2", "g", Raw(b'{"b":2}'))),
            Finished(FinishReason.TOOL_CALLS, "tool_calls"),
            UsageReported(Usage(5, 6)),
        ]
        head = Response(extras={"bedrock": {"metrics": {"latencyMs": 12}}})
        raw = encode_events(FAMILY, events, head)
        parsed = botocore_events(raw)
        said = [(next(iter(e)), e[next(iter(e))].get("contentBlockIndex")) for e in parsed]
        assert said == [
            ("messageStart", None),
            ("contentBlockDelta", 0),
            ("contentBlockDelta", 0),
            ("contentBlockStop", 0),
            ("contentBlockDelta", 1),
            ("contentBlockStop", 1),
            ("contentBlockStart", 2),
            ("contentBlockStart", 3),
            ("contentBlockDelta", 3),
            ("contentBlockDelta", 2),
            ("contentBlockDelta", 3),
            ("contentBlockStop", 2),
            ("contentBlockStop", 3),
            ("messageStop", None),
            ("metadata", None),
        ]
        assert parsed[2]["contentBlockDelta"]["delta"] == {"reasoningContent": {"signature": "sig"}}
        assert parsed[6]["contentBlockStart"]["start"] == {
            "toolUse": {"toolUseId": "c1", "name": "f"}
        }
        assert parsed[-2] == {"messageStop": {"stopReason": "tool_use"}}
        assert parsed[-1] == {
            "metadata": {
                "usage": {"inputTokens": 5, "outputTokens": 6, "totalTokens": 11},
                "metrics": {"latencyMs": 12},
            }
        }
        decoded = decode(FAMILY, raw)[1]
        assert [(c.id, c.arguments_dict()) for c in decoded.tool_calls] == [
            ("c1", {"a": 1}),
            ("c2", {"b": 2}),
        ]
        message = decoded.message
        assert message is not None
        assert (message.reasoning, message.text) == ("Hm", "On it.")
        assert decoded.usage == Usage(5, 6, 11)
        assert decoded.extras == {"bedrock": {"metrics": {"latencyMs": 12}}}

    def test_crc(self) -> None:
        raw = encode_events(FAMILY, [TextDelta("Hi")], None)
        assert [m.headers[":event-type"] for m in frames(raw)] == [
            "messageStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",  # always: it ends every ConverseStream, usage or none
        ]
        broken = raw[:-1] + bytes([raw[-1] ^ 1])
        with pytest.raises(ChecksumMismatch):
            frames(broken)
        with pytest.raises(StreamError):
            decode(FAMILY, broken)

    def test_stop_reasons(self) -> None:
        raw = encode_events(FAMILY, [TextDelta("Hel"), Finished(FinishReason.LENGTH)], None)
        assert botocore_events(raw)[-2:] == [
            {"messageStop": {"stopReason": "max_tokens"}},
            {"metadata": {}},
        ]
        assert decode(FAMILY, raw)[1].finish_reason is FinishReason.LENGTH

    def test_usage_loss_said_once(self) -> None:
        losses: list[Any] = []
        usage = Usage(5, 6, reasoning_tokens=2)
        encode_events(
            FAMILY,
            [UsageReported(usage), TextDelta("a"), UsageReported(usage)],
            None,
            losses=losses,
        )
        assert [loss.path for loss in losses] == ["$.usage.reasoning_tokens"]

    def test_whole_parts_and_losses(self) -> None:
        losses: list[Any] = []
        events: list[StreamEvent] = [
            PartReceived(TextPart("Hello")),
            RefusalDelta("No."),
            TextDelta("x", choice=1),
        ]
        raw = encode_events(FAMILY, events, None, losses=losses)
        assert [loss.reason for loss in losses] == [
            "bedrock has no refusal block: sent as text",
            "bedrock answers with one message",
        ]
        message = decode(FAMILY, raw)[1].message
        assert message is not None
        assert message.text == "HelloNo."


class TestToolUseWithoutInput:
    """A body's toolUse without input is kept opaque: a stream cannot say so, and reports it."""

    BODY = (
        b'{"output":{"message":{"role":"assistant","content":[{"text":"Let me look."},'
        b'{"toolUse":{"name":"lookup","toolUseId":"tooluse_1"}}]}},"stopReason":"tool_use",'
        b'"usage":{"inputTokens":4,"outputTokens":1,"totalTokens":5}}'
    )

    def test_encode_stream(self) -> None:
        response = bedrock.decode_response(self.BODY)
        losses: list[Any] = []
        raw = bedrock.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ["$.choices[0].message.content"]
        decoder = bedrock.stream()
        decoder.feed(raw)
        read = decoder.finish()
        assert read.choices[0].message is not None
        assert read.choices[0].message.tool_calls == ()  # not read as a valid call
        assert read.choices[0].message.content == "Let me look."


class TestBlocksOfNoKind:
    """A body's block that is not one kind of the usual shape streams whole, and reads back so."""

    @staticmethod
    def body(block: bytes) -> bytes:
        return (
            b'{"output":{"message":{"role":"assistant","content":[{"text":"Hi."},'
            + block
            + b',{"text":"Bye."}]}},"stopReason":"end_turn",'
            b'"usage":{"inputTokens":4,"outputTokens":2,"totalTokens":6}}'
        )

    @pytest.mark.parametrize(
        "block",
        [
            # Text beside another key: the fuzz target encode_stream found it read back
            # as text (68 characters became 141).
            b'{"text":"Let me try again.","type":"text"}',
            b'{"id":"srvtoolu_1","input":{"command":"create"},"name":"text_editor"}',
            b'{"text":5}',
            b'{"reasoningContent":{"reasoningText":{"text":5}}}',
            b'{"reasoningContent":"x"}',
            b'{"toolUse":5}',
            b"{}",
        ],
    )
    def test_round_trips(self, block: bytes) -> None:
        response = bedrock.decode_response(self.body(block))
        losses: list[Any] = []
        raw = bedrock.encode_stream(response, losses=losses)
        assert losses == []
        _, again = decode(FAMILY, raw)
        assert again.text == response.text == "Hi.Bye."
        assert bedrock.encode_response(again) == bedrock.encode_response(response)

    def test_block_that_is_no_object_is_reported(self) -> None:
        response = bedrock.decode_response(self.body(b'"Let me try again."'))
        losses: list[Any] = []
        raw = bedrock.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ["$.choices[0].message.content"]
        assert decode(FAMILY, raw)[1].text == "Hi.Bye."

    def test_no_delta_adds_to_a_start_held_whole(self) -> None:
        start = {"contentBlockIndex": 0, "start": {"text": "a", "type": "text"}}
        delta = {"contentBlockIndex": 0, "delta": {"text": "more"}}
        raw = self.frame("messageStart", {"role": "assistant"}) + self.frame(
            "contentBlockStart", start
        )
        decoder = bedrock.stream()
        decoder.feed(raw)
        with pytest.raises(StreamError, match=r"start gave whole"):
            decoder.feed(self.frame("contentBlockDelta", delta))

    @staticmethod
    def frame(kind: str, payload: dict[str, Any]) -> bytes:
        return encode_message({":event-type": kind, **HEADERS}, json.dumps(payload).encode())
