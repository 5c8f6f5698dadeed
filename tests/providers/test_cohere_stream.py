"""Cohere v2 Chat streams: decoded whole, split anywhere, written, and read by Cohere's SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from cohere.v2.types import V2ChatStreamResponse
from corpus import DATA, STREAMS, curated
from readers import sse_payloads

import chatcodec as cc
from chatcodec import TextPart, providers
from chatcodec._events import CitationReceived, ReasoningDelta, TextDelta, ToolCallCompleted

codec = providers.get("cohere")
RECORDED = sorted(STREAMS.glob("cohere__*.json"))
SDK_EVENT = pydantic.TypeAdapter(V2ChatStreamResponse)


def raw_of(path: Path) -> bytes:
    raw: str = json.loads(path.read_bytes())["raw"]
    return raw.encode()


def run(raw: bytes, sizes: list[int] | None = None) -> tuple[list[Any], cc.Response]:
    decoder = codec.stream()
    events: list[Any] = []
    if sizes is None:
        events += decoder.feed(raw)
    else:
        at = 0
        for size in sizes:
            events += decoder.feed(raw[at : at + size])
            at += size
        events += decoder.feed(raw[at:])
    events += decoder.flush()
    return events, decoder.finish()


def sdk_reads(raw: bytes) -> list[Any]:
    """Each event as Cohere's SDK parses it (its types refuse a malformed one)."""
    return [SDK_EVENT.validate_json(data) for _, data in sse_payloads(raw)]


class TestRecorded:
    """The documented streams, whole, byte by byte and cut at every byte."""

    @pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.stem)
    def test_every_split(self, path: Path) -> None:
        raw = raw_of(path)
        events, response = run(raw)
        assert run(raw, [1] * len(raw)) == (events, response)
        for cut in range(0, len(raw), 7):
            assert run(raw, [cut]) == (events, response)
        sdk_reads(raw)

    def test_tool_calling(self) -> None:
        events, response = run(
            raw_of(STREAMS / "cohere__docs__tool-use-streaming__tool_calling.json")
        )
        message = response.message
        assert message is not None
        assert message.reasoning == "I will search for the weather in Madrid and Brasilia."
        assert [bytes(call.arguments) for call in message.tool_calls] == [
            b'{\n    "location": "Madrid"\n}',
            b'{\n    "location": "Brasilia"\n}',
        ]
        assert response.finish_reason is cc.FinishReason.TOOL_CALLS
        plan = "".join(e.text for e in events if type(e) is ReasoningDelta)
        assert plan == message.reasoning
        done = [e.call for e in events if type(e) is ToolCallCompleted]
        assert done == list(message.tool_calls)

    def test_citations(self) -> None:
        path = STREAMS / "cohere__docs__tool-use-streaming__response_generation.json"
        events, response = run(raw_of(path))
        assert response.message is not None
        assert "".join(e.text for e in events if type(e) is TextDelta) == response.message.text
        content = response.message.content
        assert isinstance(content, tuple)
        (part,) = content
        assert type(part) is TextPart
        assert [(c.kind, c.start, c.end, c.source_id) for c in part.citations] == [
            ("tool", 16, 20, "get_weather_m3kdvxncg1p8:0"),
            ("tool", 35, 39, "get_weather_cfwfh3wzkbrs:0"),
        ]
        assert [part.text[c.start : c.end] for c in part.citations] == ["24°C", "28°C"]
        # Each citation-start gives its citation, after the text it cites.
        cites = [e.citation for e in events if type(e) is CitationReceived]
        assert cites == list(part.citations)
        assert events.index(next(e for e in events if type(e) is CitationReceived)) > max(
            k for k, e in enumerate(events) if type(e) is TextDelta
        )
        # Written again, the citations come as their events, in place.
        again = codec.encode_stream(response)
        assert run(again)[1] == response
        assert [e.type for e in sdk_reads(again)].count("citation-start") == 2


class TestWritten:
    """Every curated response written as a stream folds back into it; events re-encode alike."""

    @pytest.mark.parametrize("path", curated("cohere", "response"))
    def test_encode_stream(self, path: Path) -> None:
        response = codec.decode_response(path.read_bytes())
        raw = codec.encode_stream(response)
        assert run(raw)[1] == response
        assert run(raw, [1] * len(raw))[1] == response
        sdk_reads(raw)

    @pytest.mark.parametrize(
        "path", [*RECORDED, *[p.values[0] for p in curated("cohere", "response")]]
    )
    def test_events_written_again(self, path: Path) -> None:
        raw = (
            raw_of(path)
            if path.parent == STREAMS
            else codec.encode_stream(codec.decode_response(path.read_bytes()))
        )
        events, response = run(raw)
        encoder = codec.stream_encoder(response)
        again = encoder.encode_all(events) + encoder.finish()
        sdk_reads(again)
        events2, back = run(again)
        assert back.message is not None
        assert response.message is not None
        assert back.message.text == response.message.text
        assert back.message.reasoning == response.message.reasoning
        assert back.message.tool_calls == response.message.tool_calls
        assert (back.finish_reason, back.usage) == (response.finish_reason, response.usage)
        assert [type(e) for e in events2] == [type(e) for e in events]

    def test_from_anthropic(self) -> None:
        source = STREAMS / "anthropic__anthropic-sdk-python__streaming__tool_use_response.json"
        raw = raw_of(source)
        decoder = providers.get("anthropic").stream()
        events = decoder.feed(raw) + decoder.flush()
        expected = decoder.finish()
        losses: list[cc.Loss] = []
        encoder = codec.stream_encoder(expected, losses=losses)
        out = encoder.encode_all(events) + encoder.finish()
        sdk_reads(out)
        back = run(out)[1]
        assert back.message is not None
        assert expected.message is not None
        assert back.message.text == expected.message.text

        def calls(response: cc.Response) -> list[tuple[str, str, bytes]]:
            return [(c.id, c.name, bytes(c.arguments)) for c in response.tool_calls]

        assert calls(back) == calls(expected)


class TestEnds:
    """A stream ends at message-end; an error there, or a cut before it, says so."""

    def test_error_at_the_end(self) -> None:
        head = raw_of(STREAMS / "cohere__docs__tool-use-streaming__response_generation.json")
        head = head[: head.index(b"event: citation-start")]
        error = (
            b'event: message-end\ndata: {"type":"message-end","delta":'
            b'{"finish_reason":"ERROR","error":"internal error"}}\n\n'
        )
        decoder = codec.stream()
        decoder.feed(head)
        with pytest.raises(cc.StreamError) as raised:
            decoder.feed(error)
        assert raised.value.provider == "cohere"
        assert raised.value.partial is not None
        assert "internal error" not in str(raised.value)  # the provider's words stay out

    def test_cut_in_a_call(self) -> None:
        raw = raw_of(STREAMS / "cohere__docs__tool-use-streaming__tool_calling.json")
        cut = raw[: raw.index(b"event: tool-call-end")]
        decoder = codec.stream()
        events = decoder.feed(cut) + decoder.flush()
        with pytest.raises(cc.StreamError, match="message-end"):
            decoder.finish()
        partial = decoder.finish(allow_incomplete=True)
        assert partial.message is not None
        (bad,) = partial.message.invalid_tool_calls
        assert bad.error == "arguments are truncated"
        assert [e.call for e in events if type(e) is ToolCallCompleted] == [bad]


def test_curated_data_is_there() -> None:
    assert len(RECORDED) == 2
    assert (DATA / "cohere" / "SOURCES.md").exists()


class TestAnEmptyAnswer:
    """A body with nothing in it streams as a start and an end that read back (a fuzz find)."""

    def test_written_and_read_back(self) -> None:
        codec = providers.get("cohere")
        empty = codec.decode_response(b"{}")
        written = codec.encode_stream(empty)
        decoder = codec.stream()
        decoder.feed(written)
        assert decoder.finish() == empty

    def test_a_stream_that_never_started_is_still_refused(self) -> None:
        decoder = providers.get("cohere").stream()
        decoder.feed(b"")
        with pytest.raises(cc.StreamError):
            decoder.finish()

    def test_a_kept_error_key_is_left_out_and_reported(self) -> None:
        codec = providers.get("cohere")
        answer = codec.decode_response(b'{"error": "gull"}')
        losses: list[cc.Loss] = []
        written = codec.encode_stream(answer, losses=losses)
        decoder = codec.stream()
        decoder.feed(written)  # a message-end error would be the stream's failure
        assert decoder.finish().text == ""
        assert [loss.path for loss in losses] == ["$.extras.cohere.error"]
        lost: list[cc.Loss] = []
        encoder = codec.stream_encoder(answer, losses=lost)
        assert b'"error"' not in encoder.finish()
        assert [loss.path for loss in lost] == ["$.extras.cohere.error"]


def _frames(*payloads: dict[str, Any]) -> bytes:
    return b"".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n".encode() for p in payloads)


_START = {"type": "message-start", "id": "m", "delta": {"message": {"role": "assistant"}}}
_END = {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}


def _delta(text: str, index: int = 0) -> dict[str, Any]:
    said = {"message": {"content": {"text": text}}}
    return {"type": "content-delta", "index": index, "delta": said}


class TestTheEventsAndTheResponseAgree:
    """The text the events say is the text of the response (a fuzz find of translate_stream)."""

    @pytest.mark.parametrize(
        "start",
        [
            {"type": "content-start", "index": 0, "delta": {"messagdaeeeee": {}}},
            {"type": "content-start", "index": 0},
        ],
        ids=("unknown-key", "no-delta"),
    )
    def test_a_start_that_says_nothing_begins_a_text_item(self, start: dict[str, Any]) -> None:
        events, response = run(_frames(_START, start, _delta("It"), _delta(" is"), _END))
        said = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert said == "It is"
        assert response.text == "It is"

    @pytest.mark.parametrize(
        "item", [{"type": "image_url", "image_url": {"url": "x"}}, {"text": ""}], ids=repr
    )
    def test_text_for_an_item_of_another_kind_is_refused(self, item: dict[str, Any]) -> None:
        start = {"type": "content-start", "index": 0, "delta": {"message": {"content": item}}}
        with pytest.raises(cc.StreamError, match="not text or thinking"):
            run(_frames(_START, start, _delta("It"), _END))

    def test_a_start_of_another_kind_alone_is_kept(self) -> None:
        item = {"type": "image_url", "image_url": {"url": "x"}}
        start = {"type": "content-start", "index": 0, "delta": {"message": {"content": item}}}
        events, response = run(_frames(_START, start, _END))
        assert not [e for e in events if isinstance(e, TextDelta)]
        assert response.text == ""

    def test_content_items_out_of_index_order_are_refused(self) -> None:
        # A delta for item 5, then more for item 0: the events said "It" first, the
        # response held item 0's text first (a fuzz find of translate_stream).
        start = {"type": "content-start", "index": 0}
        late = _delta("It", 5)
        with pytest.raises(cc.StreamError, match="order of their index"):
            run(_frames(_START, start, late, _delta(" is"), _END))

    def test_content_items_in_index_order_are_read(self) -> None:
        second = _delta("!", 1)
        events, response = run(_frames(_START, _delta("It"), second, _END))
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It!"
        assert response.text == "It!"

    @pytest.mark.parametrize("first", [{"type": "content-start", "index": 0}, _delta("It")])
    def test_an_item_that_starts_again_is_refused(self, first: dict[str, Any]) -> None:
        # The stream started over, content item 0 begun a second time: the events had
        # said the first text, the response would hold only the second (a fuzz find).
        again = {"type": "content-start", "index": 0}
        frames = _frames(_START, first, _delta(" is"), _START, again, _delta("It"), _END)
        with pytest.raises(cc.StreamError, match="a content item starts once"):
            run(frames)

    def test_a_delta_that_changes_an_items_type_is_refused(self) -> None:
        # The events said the text item's text; a delta then gave the item another
        # type, and the response held it whole, without text (a fuzz find).
        retyped = {
            "type": "content-delta",
            "index": 0,
            "delta": {"message": {"content": {"type": "TEXT_CONTENT", "x": 1}}},
        }
        with pytest.raises(cc.StreamError, match="a content item keeps its type"):
            run(_frames(_START, _delta("It"), retyped, _END))

    def test_a_delta_with_other_keys_keeps_the_text(self) -> None:
        more = {
            "type": "content-delta",
            "index": 0,
            "delta": {"message": {"content": {"type": "text", "x": 1}}},
        }
        events, response = run(_frames(_START, _delta("It"), more, _delta(" is"), _END))
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is"
        assert response.text == "It is"

    def test_a_second_call_of_one_id_is_refused(self) -> None:
        # Calls 0 and 5 of one id: the events said two calls, the response would be
        # refused whole (a fuzz find of translate_stream, Cohere to Ollama).
        def start(index: int, ident: str) -> dict[str, Any]:
            call = {"id": ident, "type": "function", "function": {"name": "f", "arguments": "{}"}}
            return {"type": "tool-call-start", "index": index,
                    "delta": {"message": {"tool_calls": call}}}  # fmt: skip

        decoder = codec.stream()
        decoder.feed(_frames(_START, start(0, "c1")))
        with pytest.raises(cc.StreamError, match="tool call ids must be unique"):
            decoder.feed(_frames(start(5, "c1")))  # where it comes, not at the end
        ends = [{"type": "tool-call-end", "index": i} for i in (0, 5)]
        _, response = run(_frames(_START, start(0, "c1"), start(5, "c2"), *ends, _END))
        assert [call.id for call in response.tool_calls] == ["c1", "c2"]

    def test_a_call_that_starts_again_is_refused(self) -> None:
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
        start = {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}}
        argued = {"tool_calls": {"function": {"arguments": '{"a": 1}'}}}
        delta = {"type": "tool-call-delta", "index": 0, "delta": {"message": argued}}
        with pytest.raises(cc.StreamError, match="a call starts once"):
            run(_frames(_START, start, delta, start, _END))
