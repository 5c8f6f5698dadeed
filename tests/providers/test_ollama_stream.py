"""The Ollama native stream decoder: NDJSON chunks into events and a response."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import CORPUS, corpus, needs_corpus

import chatcodec as cc
from chatcodec import providers
from chatcodec._events import (
    Finished,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._stream import ToolCallArgumentsDelta, ToolCallStarted
from chatcodec.providers import ollama

STREAMS = Path(__file__).parent.parent / "data" / "streams"
NOT_WIRE = "a docs excerpt: pretty-printed objects with the middle elided, not NDJSON framing"


def _param(path: Path) -> Any:
    framing = json.loads(path.read_bytes())["framing"]
    marks = [pytest.mark.skip(reason=NOT_WIRE)] if framing != "ndjson" else []
    return pytest.param(path, id=path.stem[:90], marks=marks)


def _files() -> list[Any]:
    curated = [_param(path) for path in sorted(STREAMS.glob("ollama__*.json"))]
    recorded = [
        _param(param.values[0])
        for param in needs_corpus(corpus("ollama", "stream"))
        if param.values[0] is not None
    ]
    return curated + (recorded or needs_corpus([]))


FILES = _files()


def feed_pieces(pieces: list[bytes]) -> tuple[list[StreamEvent], cc.Response]:
    decoder = ollama.stream()
    events: list[StreamEvent] = []
    for piece in pieces:
        events += decoder.feed(piece)
    events += decoder.flush()
    return events, decoder.finish()


def bytewise(raw: bytes) -> list[bytes]:
    return [raw[i : i + 1] for i in range(len(raw))]


def random_splits(raw: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(1, 40))))
    return [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


def lines(*chunks: dict[str, Any]) -> bytes:
    return b"".join(msgspec.json.encode(chunk) + b"\n" for chunk in chunks)


def chunk(content: str = "", **message: Any) -> dict[str, Any]:
    return {
        "model": "qwen3",
        "created_at": "2025-08-20T13:48:26.4Z",
        "message": {"role": "assistant", "content": content, **message},
        "done": False,
    }


def final(reason: Any = "stop", **fields: Any) -> dict[str, Any]:
    return {
        "model": "qwen3",
        "created_at": "2025-08-20T13:48:27.9Z",
        "message": {"role": "assistant", "content": ""},
        "done_reason": reason,
        "done": True,
        "total_duration": 356504000,
        "prompt_eval_count": 20,
        "eval_count": 55,
        **fields,
    }


def merged(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streaming body of a stream, built independently of the decoder."""
    body: dict[str, Any] = {}
    message: dict[str, Any] = {}
    content: list[str] = []
    thinking: list[str] = []
    calls: list[Any] = []
    for event in events:
        body.update(event)
        m = event.get("message") or {}
        message.update(m)
        if isinstance(m.get("content"), str):
            content.append(m["content"])
        if isinstance(m.get("thinking"), str):
            thinking.append(m["thinking"])
        calls += m.get("tool_calls") or []
    if message:
        if content:
            message["content"] = "".join(content)
        if thinking:
            message["thinking"] = "".join(thinking)
        if calls:
            message["tool_calls"] = calls
        body["message"] = message
    return body


def of(kind: type[Any], events: list[StreamEvent]) -> list[Any]:
    return [event for event in events if type(event) is kind]


def check_invariants(events: list[StreamEvent], response: cc.Response) -> None:
    message = response.message
    text = "".join(e.text for e in of(TextDelta, events))
    reasoning = "".join(e.text for e in of(ReasoningDelta, events))
    if message is not None:
        assert message.text == text
        parts = message.content if isinstance(message.content, tuple) else ()
        assert "".join(p.text for p in parts if isinstance(p, cc.ReasoningPart)) == reasoning
        fragments: dict[int, list[str]] = {}
        for e in of(ToolCallArgumentsDelta, events):
            fragments.setdefault(e.slot, []).append(e.delta)
        completed = {e.slot: e.call for e in of(ToolCallCompleted, events)}
        assert sorted(completed) == list(range(len(of(ToolCallStarted, events))))
        for slot, call in completed.items():
            assert call in message.tool_calls or call in message.invalid_tool_calls
            data = call.arguments if isinstance(call.arguments, str) else bytes(call.arguments)
            joined = "".join(fragments.get(slot, []))
            assert (joined.encode() if isinstance(data, bytes) else joined) == data
        n_calls = len(message.tool_calls) + len(message.invalid_tool_calls)
        assert len(completed) == n_calls
    usage = of(UsageReported, events)
    assert response.usage == (usage[-1].usage if usage else None)
    finished = of(Finished, events)
    if finished:
        assert finished[-1].finish_reason == response.finish_reason
        assert finished[-1].raw_finish_reason == response.choices[0].raw_finish_reason


class TestRecordedStreams:
    """Every recorded Ollama stream decodes the same whole, bytewise and at random splits."""

    @pytest.mark.parametrize("path", FILES)
    def test_splits_agree(self, path: Path) -> None:
        raw = json.loads(path.read_bytes())["raw"].encode()
        events, response = feed_pieces([raw])
        assert feed_pieces(bytewise(raw)) == (events, response)
        for seed in range(5):
            assert feed_pieces(random_splits(raw, seed)) == (events, response)
        check_invariants(events, response)

    @pytest.mark.parametrize("path", FILES)
    def test_finish_is_decode_response_of_the_merged_body(self, path: Path) -> None:
        data = json.loads(path.read_bytes())
        _, response = feed_pieces([data["raw"].encode()])
        assert response == ollama.decode_response(msgspec.json.encode(merged(data["events"])))
        assert response.finish_reason is not None
        assert response.usage is not None
        assert response.usage.completion_tokens > 0

    @pytest.mark.parametrize("path", FILES)
    def test_registry_and_explicit_framing(self, path: Path) -> None:
        raw = json.loads(path.read_bytes())["raw"].encode()
        codec: Any = providers.get("ollama")  # the Codec protocol does not list stream()
        decoder = codec.stream("ndjson")
        events = decoder.feed(raw)
        assert (events, decoder.finish()) == feed_pieces([raw])

    def test_docs_excerpts_are_skipped(self) -> None:
        paths = [p for p in STREAMS.glob("ollama__*.json") if "docs" in p.name]
        paths += sorted((CORPUS / "ollama" / "stream").glob("ollama-docs__*.json"))
        for path in paths:
            assert json.loads(path.read_bytes())["framing"].startswith("docs-excerpt")


class TestRecordedSemantics:
    """Decoded values of specific recorded streams."""

    def load(self, stem: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((STREAMS / f"ollama__{stem}.json").read_bytes())
        return data

    def test_length_stop_and_unicode(self) -> None:
        data = self.load("langchaingo__llms__ollama__ollamaclient__TestClient_GenerateChat__00")
        events, response = feed_pieces(bytewise(data["raw"].encode()))
        assert response.finish_reason is cc.FinishReason.LENGTH
        assert response.choices[0].raw_finish_reason == "length"
        assert response.model == "gemma3:1b"
        assert response.message is not None
        assert response.message.text.startswith("Hello there! I\u2019m doing well")
        assert "\U0001f60a" in response.message.text
        assert response.usage == cc.Usage(15, 50)
        assert events[-2:] == [
            UsageReported(cc.Usage(15, 50)),
            Finished(cc.FinishReason.LENGTH, "length"),
        ]
        own = (response.extras or {})["ollama"]
        assert own["total_duration"] == 313801125
        assert own["done"] is True

    def test_json_format_answer(self) -> None:
        data = self.load("langchaingo__llms__ollama__TestWithFormat__00")
        events, response = feed_pieces([data["raw"].encode()])
        assert [e.text for e in of(TextDelta, events)][:3] == ['{"', "answer", '":']
        assert response.message is not None
        assert json.loads(response.message.text) == {"answer": "600"}

    def test_docs_tool_stream_fed_one_event_per_line(self) -> None:
        data = self.load("ollama-docs__docs__api.md__Chat_request_Streaming_with_tools")
        raw = lines(*data["events"])
        events, response = feed_pieces(bytewise(raw))
        assert feed_pieces([raw]) == (events, response)
        check_invariants(events, response)
        call = response.message.tool_calls[0] if response.message else None
        assert call is not None
        assert call.name == "get_weather"
        assert bytes(call.arguments) == b'{"city":"Tokyo"}'
        assert events[:2] == [
            ToolCallStarted(0, None, "get_weather"),
            ToolCallArgumentsDelta(0, '{"city":"Tokyo"}'),
        ]
        assert of(ToolCallCompleted, events) == [ToolCallCompleted(0, call)]
        assert response.finish_reason is cc.FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "stop"
        assert response == ollama.decode_response(msgspec.json.encode(merged(data["events"])))

    def test_docs_tool_stream_matches_the_non_streaming_answer(self) -> None:
        data = self.load("ollama-docs__docs__api.md__Chat_request_Streaming_with_tools")
        _, streamed = feed_pieces([lines(*data["events"])])
        path = (
            Path(__file__).parent.parent
            / "data/providers/ollama/response"
            / "ollama-docs__docs__api.md__Chat_request_No_streaming_with_tools__0.json"
        )
        plain = ollama.decode_response(path.read_bytes())
        assert streamed.message is not None
        assert plain.message is not None
        shape = [(c.name, bytes(c.arguments)) for c in streamed.message.tool_calls]
        assert shape == [(c.name, bytes(c.arguments)) for c in plain.message.tool_calls]
        assert streamed.message.text == plain.message.text == ""
        assert streamed.finish_reason is plain.finish_reason is cc.FinishReason.TOOL_CALLS


def decode(raw: bytes) -> tuple[list[StreamEvent], cc.Response]:
    """Whole, bytewise and at random splits: all agree; then the invariants."""
    events, response = feed_pieces([raw])
    assert feed_pieces(bytewise(raw)) == (events, response)
    assert feed_pieces(random_splits(raw, 7)) == (events, response)
    check_invariants(events, response)
    return events, response


CALL_A = {"function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}}
CALL_B = {"function": {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}}
CALL_C = {"function": {"name": "search", "arguments": {"q": "caf\u00e9 \U0001f600", "n": 3}}}


class TestRules:
    """Hand-written streams, one per rule of the Ollama stream."""

    def test_thinking_then_content(self) -> None:
        stream = [
            chunk(thinking="Two plus"),
            chunk(thinking=" two."),
            chunk("It is "),
            chunk("4."),
            final(),
        ]
        events, response = decode(lines(*stream))
        assert events[:4] == [
            ReasoningDelta("Two plus"),
            ReasoningDelta(" two."),
            TextDelta("It is "),
            TextDelta("4."),
        ]
        assert response.message is not None
        assert response.message.content == (
            cc.ReasoningPart("Two plus two."),
            cc.TextPart("It is 4."),
        )
        assert response == ollama.decode_response(msgspec.json.encode(merged(stream)))

    def test_thinking_and_content_in_one_chunk(self) -> None:
        stream = [chunk("A", thinking="t"), final()]
        events, _ = decode(lines(*stream))
        assert events[:2] == [ReasoningDelta("t"), TextDelta("A")]

    def test_whole_tool_calls_get_decode_response_ids(self) -> None:
        stream = [
            chunk("Let me check.", tool_calls=[CALL_A, CALL_B]),
            chunk(tool_calls=[CALL_C]),
            final(),
        ]
        events, response = decode(lines(*stream))
        expected = ollama.decode_response(msgspec.json.encode(merged(stream)))
        assert response == expected
        assert response.message is not None
        calls = response.message.tool_calls
        assert [c.name for c in calls] == ["get_weather", "get_time", "search"]
        assert bytes(calls[2].arguments) == '{"q":"caf\u00e9 \U0001f600","n":3}'.encode()
        assert [type(e).__name__ for e in events] == [
            "TextDelta",
            "ToolCallStarted",
            "ToolCallArgumentsDelta",
            "ToolCallStarted",
            "ToolCallArgumentsDelta",
            "ToolCallStarted",
            "ToolCallArgumentsDelta",
            "ToolCallCompleted",
            "ToolCallCompleted",
            "ToolCallCompleted",
            "UsageReported",
            "Finished",
        ]
        assert of(ToolCallStarted, events)[1] == ToolCallStarted(1, None, "get_time")
        assert [e.call for e in of(ToolCallCompleted, events)] == list(calls)
        assert events[-1] == Finished(cc.FinishReason.TOOL_CALLS, "stop")
        own = (calls[0].extras or {})["ollama"]
        assert own["~id"] == "derived"

    def test_ids_follow_the_final_created_at(self) -> None:
        stream = [chunk(tool_calls=[CALL_A]), final()]
        _, first = decode(lines(*stream))
        _, second = decode(lines(stream[0], final(created_at="2025-08-20T13:48:28.0Z")))
        assert first.message is not None
        assert second.message is not None
        assert first.message.tool_calls[0].id != second.message.tool_calls[0].id

    def test_wire_ids_are_kept(self) -> None:
        call = {"id": "call_x1", **CALL_A}
        events, response = decode(lines(chunk(tool_calls=[call]), final()))
        assert of(ToolCallStarted, events) == [ToolCallStarted(0, "call_x1", "get_weather")]
        assert response.message is not None
        assert response.message.tool_calls[0].id == "call_x1"

    def test_invalid_calls_keep_their_order_and_text(self) -> None:
        bad = {"function": {"name": "get_time", "arguments": '{"tz": "Europe/Par'}}
        odd = {"function": {"name": "count", "arguments": [1, 2]}}
        stream = [chunk(tool_calls=[bad]), chunk(tool_calls=[CALL_A, odd]), final()]
        events, response = decode(lines(*stream))
        assert response == ollama.decode_response(msgspec.json.encode(merged(stream)))
        assert response.message is not None
        (invalid_1, invalid_2) = response.message.invalid_tool_calls
        assert invalid_1.arguments == '{"tz": "Europe/Par'
        assert invalid_2.arguments == "[1,2]"
        completed = of(ToolCallCompleted, events)
        assert [e.call for e in completed] == [invalid_1, response.message.tool_calls[0], invalid_2]
        assert of(ToolCallArgumentsDelta, events)[0].delta == '{"tz": "Europe/Par'

    def test_string_arguments_are_byte_exact(self) -> None:
        call = {"function": {"name": "f", "arguments": '{ "a" : 1 }'}}
        _, response = decode(lines(chunk(tool_calls=[call]), final()))
        assert response.message is not None
        assert bytes(response.message.tool_calls[0].arguments) == b'{ "a" : 1 }'

    def test_usage_only_from_the_done_line(self) -> None:
        events, response = decode(
            lines(chunk("a"), chunk("b"), final(prompt_eval_count=7, eval_count=2))
        )
        assert of(UsageReported, events) == [UsageReported(cc.Usage(7, 2))]
        assert response.usage == cc.Usage(7, 2)

    @pytest.mark.parametrize(
        ("reason", "normalized"),
        [
            ("stop", cc.FinishReason.STOP),
            ("length", cc.FinishReason.LENGTH),
            ("load", cc.FinishReason.OTHER),
        ],
    )
    def test_done_reason(self, reason: str, normalized: cc.FinishReason) -> None:
        events, response = decode(lines(chunk("x"), final(reason)))
        assert events[-1] == Finished(normalized, reason)
        assert response.finish_reason is normalized

    def test_done_line_without_message(self) -> None:
        last = final()
        del last["message"]
        stream = [chunk("The"), chunk(" end"), last]
        _, response = decode(lines(*stream))
        assert response.message is not None
        assert response.message.text == "The end"
        assert response == ollama.decode_response(msgspec.json.encode(merged(stream)))

    def test_unknown_fields_are_kept(self) -> None:
        first = chunk("Hi", images=None)
        first["context_window"] = 8192
        stream = [first, final(logprobs=[])]
        _, response = decode(lines(*stream))
        assert (response.extras or {})["ollama"]["context_window"] == 8192
        assert (response.extras or {})["ollama"]["logprobs"] == []
        assert response.message is not None
        assert (response.message.extras or {})["ollama"]["images"] is None

    def test_blank_lines_and_crlf(self) -> None:
        raw = lines(chunk("a"), chunk("b"), final())
        crlf = raw.replace(b"\n", b"\r\n\r\n")
        assert decode(crlf) == decode(raw)

    def test_split_inside_a_multibyte_character(self) -> None:
        raw = lines(chunk("caf\u00e9 \U0001f60a"), final())
        at = raw.index("\U0001f60a".encode())
        for cut in range(at - 1, at + 5):
            assert feed_pieces([raw[:cut], raw[cut:]]) == feed_pieces([raw])
        _, response = feed_pieces([raw[: at + 2], raw[at + 2 :]])
        assert response.message is not None
        assert response.message.text == "caf\u00e9 \U0001f60a"

    def test_no_done_line_completes_calls_at_the_end(self) -> None:
        decoder = ollama.stream()
        events = decoder.feed(lines(chunk("a"), chunk(tool_calls=[CALL_A])))
        assert not of(ToolCallCompleted, events)
        end = decoder.flush()
        with pytest.raises(cc.StreamError, match="ended before its last line") as info:
            decoder.finish()
        response = decoder.finish(allow_incomplete=True)
        assert info.value.partial == response
        assert response.message is not None
        # Ollama's calls come whole: a cut-off stream still completes them.
        assert end == [ToolCallCompleted(0, response.message.tool_calls[0])]
        assert response.finish_reason is None
        assert response.usage is None

    def test_last_line_without_newline(self) -> None:
        raw = lines(chunk("a"), final()).rstrip(b"\n")
        events, response = decode(raw)
        assert type(events[-1]) is Finished
        assert response.message is not None


class TestFastPath:
    """The typed line path folds exactly as the general path, and hands over midway."""

    @staticmethod
    def both(pieces: list[bytes]) -> tuple[Any, Any, int]:
        """(events, response) with the fast path, the same without it, and lines it took."""
        from chatcodec.providers.ollama import _stream

        def run(fast: bool) -> Any:
            decoder = ollama.stream()
            if not fast:
                decoder._misses = 4  # no typed attempts: every line the general way
            events: list[StreamEvent] = []
            try:
                for piece in pieces:
                    events += decoder.feed(piece)
                events += decoder.flush()
                return events, decoder.finish()
            except cc.StreamError as exc:
                return str(exc), exc.partial

        original = _stream._decode_line
        count = 0

        def counting(data: bytes) -> Any:
            nonlocal count
            line = original(data)
            count += 1
            return line

        _stream._decode_line = counting  # type: ignore[assignment]
        try:
            fast = run(True)
        finally:
            _stream._decode_line = original
        slow = run(False)
        return fast, slow, count

    @staticmethod
    def wire(path: Path) -> bytes:
        data = json.loads(path.read_bytes())
        if data["framing"] == "ndjson":
            return str(data["raw"]).encode()
        return lines(*data["events"])  # a docs excerpt, one compact object a line

    def test_recorded_streams_fold_alike(self) -> None:
        paths = [param.values[0] for param in FILES if param.values[0] is not None]
        paths += [param.values[0] for param in corpus("ollama", "stream")]
        taken = 0
        for path in paths:
            raw = self.wire(path)
            fast, slow, took = self.both([raw])
            assert fast == slow, path.name
            taken += took
            assert self.both(random_splits(raw, 3))[:2] == (fast, slow)
        assert taken > 0  # the fast path is not dead code

    def test_leaves_the_fast_path_midway(self) -> None:
        raw = lines(
            chunk("Hel"),  # the first line: general
            chunk("lo"),
            {**chunk(" "), "message": {"content": " "}},  # no role: still typed
            chunk("", thinking="hm"),  # thinking: general
            chunk(" wor"),
            {**chunk("ld"), "extra": 1},  # a new key: general
            {**chunk("!"), "done": "no"},  # not a bool: general
            chunk("", tool_calls=[CALL_A]),
            chunk("?"),
            final(),
        )
        fast, slow, count = self.both([raw])
        assert fast == slow
        assert count == 5  # the typed decodes that succeed, taken or not
        for pieces in (bytewise(raw), random_splits(raw, 5)):
            assert self.both(pieces)[:2] == (fast, slow)

    def test_error_midway_keeps_the_same_partial(self) -> None:
        raw = lines(chunk("a"), chunk("b"), {"error": "boom"}, chunk("c"))
        fast, slow, _ = self.both([raw])
        assert fast == slow
        assert fast[1].message.text == "ab"

    @pytest.mark.parametrize("path", FILES)
    def test_finish_is_response_from_the_body(self, path: Path) -> None:
        from chatcodec.providers.ollama._decode import response_from

        decoder = ollama.stream()
        decoder.feed(self.wire(path))
        response = decoder.finish()
        assert response == response_from(decoder._body())


class TestErrors:
    """Error lines, broken framing and misuse raise StreamError with the response so far."""

    def test_error_line_keeps_the_partial(self) -> None:
        raw = (
            lines(chunk("Hel"), chunk("lo"))
            + b'{"error":"an error was encountered while running the model"}\n'
        )
        decoder = ollama.stream()
        with pytest.raises(cc.StreamError) as info:
            decoder.feed(raw)
        assert "ollama" in str(info.value)
        assert "encountered" not in str(info.value)
        partial = info.value.partial
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Hello"
        assert partial.finish_reason is None
        with pytest.raises(cc.StreamError):  # the stream stays broken
            decoder.feed(b"{}")

    def test_error_line_bytewise(self) -> None:
        raw = lines(chunk("Hi")) + b'{"error":"boom"}'
        decoder = ollama.stream()
        pieces = bytewise(raw)
        for piece in pieces[:-1]:
            decoder.feed(piece)
        with pytest.raises(cc.StreamError) as info:
            decoder.feed(pieces[-1] + b"\n")
        assert info.value.partial is not None
        assert info.value.partial.message.text == "Hi"

    def test_error_object_names_type_and_code(self) -> None:
        raw = (
            lines(chunk("x")) + b'{"error":{"type":"server_error","code":500,"message":"secret"}}\n'
        )
        with pytest.raises(cc.StreamError, match="server_error") as info:
            ollama.stream().feed(raw)
        assert "500" in str(info.value)
        assert "secret" not in str(info.value)

    def test_error_before_any_chunk(self) -> None:
        with pytest.raises(cc.StreamError) as info:
            ollama.stream().feed(b'{"error":"model not found"}\n')
        assert info.value.partial is None

    def test_cut_off_inside_arguments(self) -> None:
        raw = lines(chunk("Checking."), chunk(tool_calls=[CALL_A]), final())
        cut = raw.index(b'"Paris"') + 3
        decoder = ollama.stream()
        decoder.feed(raw[:cut])
        with pytest.raises(cc.StreamError, match="truncated") as info:
            decoder.finish()
        partial = info.value.partial
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Checking."
        assert partial.message.tool_calls == ()

    def test_truncated_string_arguments_are_an_invalid_call(self) -> None:
        call = {"function": {"name": "get_weather", "arguments": '{"city": "Par'}}
        events, response = decode(lines(chunk(tool_calls=[call]), final()))
        assert response.message is not None
        (invalid,) = response.message.invalid_tool_calls
        assert invalid.arguments == '{"city": "Par'
        assert invalid.name == "get_weather"
        assert of(ToolCallCompleted, events) == [ToolCallCompleted(0, invalid)]

    def test_not_json(self) -> None:
        decoder = ollama.stream()
        with pytest.raises(cc.StreamError, match="malformed") as info:
            decoder.feed(lines(chunk("ok")) + b"{oops\n")
        assert info.value.partial is not None
        assert info.value.partial.message.text == "ok"

    @pytest.mark.parametrize(
        ("line", "path"),
        [
            (b'"text"', "$"),
            (b'{"message":5}', "$[1].message"),
            (b'{"message":{"role":"assistant","content":5}}', "$[1].message.content"),
            (b'{"message":{"thinking":[]}}', "$[1].message.thinking"),
            (b'{"message":{"tool_calls":{}}}', "$[1].message.tool_calls"),
            (b'{"message":{"tool_calls":["x"]}}', "$[1].message.tool_calls[0]"),
            (b'{"message":{"tool_calls":[{"id":"a"}]}}', "$[1].message.tool_calls[0].function"),
        ],
    )
    def test_wrong_types_name_the_path(self, line: bytes, path: str) -> None:
        decoder = ollama.stream()
        with pytest.raises(cc.StreamError) as info:
            decoder.feed(lines(chunk("kept")) + line + b"\n")
        assert f"`{path}`" in str(info.value)
        assert info.value.partial is not None
        assert info.value.partial.message.text == "kept"

    def test_bad_done_reason(self) -> None:
        decoder = ollama.stream()
        with pytest.raises(cc.StreamError, match="done_reason"):
            decoder.feed(lines(chunk("a"), final(5)))

    def test_empty_stream(self) -> None:
        decoder = ollama.stream()
        assert decoder.feed(b"\n\n") == []
        with pytest.raises(cc.StreamError, match="before its first event") as info:
            decoder.finish()
        assert info.value.partial is None

    def test_feed_after_finish(self) -> None:
        decoder = ollama.stream()
        decoder.feed(lines(chunk("a"), final()))
        decoder.finish()
        with pytest.raises(cc.StreamError, match="after finish"):
            decoder.feed(lines(chunk("b")))
        assert decoder.finish().message is not None


class TestNoFinishReason:
    """A response without a finish reason still ends its stream with "done": true."""

    def test_encode_stream_reads_back(self) -> None:
        response = cc.Response((cc.Choice(cc.assistant("ok"), finish_reason=None),), model="m")
        losses: list[cc.Loss] = []
        raw = ollama.encode_stream(response, losses=losses)
        assert raw.rstrip(b"\n").rsplit(b"\n", 1)[-1].endswith(b'"done":true}')
        decoder = ollama.stream()
        decoder.feed(raw)
        read = decoder.finish()
        assert read.message is not None
        assert read.message.text == "ok"
        assert read.finish_reason is None
        assert losses == []
