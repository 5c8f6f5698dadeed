"""The Gemini stream decoder: recorded streams, and one hand-written stream per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import corpus, needs_corpus, random_sizes, run_stream
from corpus import curated_streams as corpus_streams

from chatcodec import (
    FinishReason,
    StreamError,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    translate_stream,
)
from chatcodec._content import Citation, OpaquePart, ReasoningPart, TextPart
from chatcodec._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._exchange import Response
from chatcodec._tools import InvalidToolCall
from chatcodec.providers import gemini, get
from chatcodec.providers.gemini._stream_encode import CITED_PAST_THE_TEXT

CURATED = Path(__file__).parent.parent / "data" / "streams"


def curated_streams() -> list[Any]:
    return corpus_streams("gemini__")


def run(
    raw: bytes, sizes: list[int] | None = None, *, allow_incomplete: bool = False
) -> tuple[list[Any], Response]:
    """Feed ``raw`` in pieces of ``sizes`` (whole if None); the events and the response."""
    events, response = run_stream(gemini.stream, raw, sizes, allow_incomplete=allow_incomplete)
    return events, response


def sse(*chunks: Any, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    return "".join(f"data: {json.dumps(chunk)}{end}{end}" for chunk in chunks).encode()


def chunk(*parts: Any, **candidate: Any) -> dict[str, Any]:
    """A chunk with one candidate holding ``parts``."""
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, **candidate}]}


def same_as_body(response: Response, body: dict[str, Any]) -> None:
    """The streamed response is the one decode_response gives for ``body``."""
    assert response == gemini.decode_response(json.dumps(body).encode())


def check_stream(raw: bytes, *, allow_incomplete: bool = False) -> None:
    events, response = run(raw, allow_incomplete=allow_incomplete)
    for sizes in ([1] * len(raw), random_sizes(len(raw), 7), random_sizes(len(raw), 11)):
        assert run(raw, sizes, allow_incomplete=allow_incomplete) == (events, response)
    for choice in response.choices:
        number = choice.index or 0
        message = choice.message
        texts = "".join(e.text for e in events if type(e) is TextDelta and e.choice == number)
        thoughts = "".join(
            e.text for e in events if type(e) is ReasoningDelta and e.choice == number
        )
        assert (message.text if message else "") == texts
        assert (message.reasoning if message else "") == thoughts
        calls = (message.tool_calls + message.invalid_tool_calls) if message else ()
        completed = [e for e in events if type(e) is ToolCallCompleted and e.choice == number]
        assert [e.call for e in completed] == sorted(
            calls, key=lambda c: completed_order(c, completed)
        )
        for event in completed:
            fragments = "".join(
                e.delta
                for e in events
                if type(e) is ToolCallArgumentsDelta and e.slot == event.slot and e.choice == number
            )
            call = event.call
            text = (
                call.arguments
                if isinstance(call, InvalidToolCall)
                else bytes(call.arguments).decode()
            )
            assert fragments == text
        finished = [e for e in events if type(e) is Finished and e.choice == number]
        if choice.raw_finish_reason is not None:
            assert finished[-1].finish_reason == choice.finish_reason
            assert finished[-1].raw_finish_reason == choice.raw_finish_reason
    usage = [e.usage for e in events if type(e) is UsageReported]
    assert (usage[-1] if usage else None) == response.usage


def completed_order(call: Any, completed: list[ToolCallCompleted]) -> int:
    return next(i for i, event in enumerate(completed) if event.call == call)


class TestRecordedStreams:
    """Every recorded Gemini stream decodes the same whole, byte by byte and at random splits."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "stream")))
    def test_corpus(self, path: Path) -> None:
        check_stream(json.loads(path.read_bytes())["raw"].encode())

    @pytest.mark.parametrize("path", curated_streams())
    def test_curated(self, path: Path) -> None:
        check_stream(json.loads(path.read_bytes())["raw"].encode())

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "stream")))
    def test_finish_is_decode_of_merged_body(self, path: Path) -> None:
        decoder = gemini.stream()
        decoder.feed(json.loads(path.read_bytes())["raw"].encode())
        response = decoder.finish()
        body = msgspec.json.encode(decoder._body())
        assert gemini.decode_response(body) == response

    def test_registry(self) -> None:
        assert type(get("gemini").stream()) is gemini.GeminiStreamDecoder


def _curated(name: str) -> bytes:
    raw: str = json.loads((CURATED / name).read_bytes())["raw"]
    return raw.encode()


class TestRecordedSemantics:
    """Specific values from real streams."""

    def test_thinking_then_text_with_signature(self) -> None:
        raw = _curated(
            "gemini__pydantic-ai__models__test_google__test_google_model_thinking_part_iter__00.json"
        )
        events, response = run(raw)
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        reasoning, text = message.content
        assert type(reasoning) is ReasoningPart
        assert reasoning.text.startswith("**Clarifying")
        assert type(text) is TextPart
        assert text.text.startswith("This is a great question!")
        assert text.extras is not None
        assert "thoughtSignature" in text.extras["gemini"]
        assert sum(type(e) is ReasoningDelta for e in events) == 4
        assert response.usage is not None
        assert response.usage.reasoning_tokens == 787

    def test_code_execution_parts_in_position(self) -> None:
        raw = _curated(
            "gemini__pydantic-ai__models__google__test_code_execution__test_code_execution_stream__00.json"
        )
        events, response = run(raw)
        received = [e.part for e in events if type(e) is PartReceived]
        assert (
            next(json.loads(bytes(p.data)) for p in received if type(p) is OpaquePart)[
                "executableCode"
            ]["language"]
            == "PYTHON"
        )
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        assert message.content[:2] == tuple(received)
        last = message.content[2]
        assert type(last) is TextPart
        assert last.text.endswith(",955.97745**.")
        assert last.extras is not None
        assert "thoughtSignature" in last.extras["gemini"]

    def test_function_call_with_signature(self) -> None:
        raw = _curated(
            "gemini__pydantic-ai__models__test_google__test_google_streaming_tool_call_thought_signature__00.json"
        )
        events, response = run(raw)
        message = response.message
        assert message is not None
        call = message.tool_calls[0]
        assert call.name == "get_country"
        assert bytes(call.arguments) == b"{}"
        assert call.extras is not None
        assert "thoughtSignature" in call.extras["gemini"]
        assert response.finish_reason is FinishReason.TOOL_CALLS
        started = [e for e in events if type(e) is ToolCallStarted]
        assert started == [ToolCallStarted(0, call.id, "get_country")]

    def test_json_array_with_integer_enums(self) -> None:
        raw = _curated("gemini__langchaingo__llms__googleai__TestGoogleAIToolCallResponse__01.json")
        assert raw.startswith(b"[")
        _events, response = run(raw)
        assert response.message is not None
        assert response.message.text == "15 * 7 is 105.\n"
        assert response.finish_reason is FinishReason.STOP
        assert response.choices[0].raw_finish_reason == 1
        assert response.usage is not None
        assert response.usage.total == 45

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "stream", tool_calls=True)))
    def test_same_shape_as_recorded_response(self, path: Path) -> None:
        """Calls in streams with tool calls are whole objects with names and object arguments."""
        _, response = run(json.loads(path.read_bytes())["raw"].encode())
        message = response.message
        assert message is not None
        assert message.tool_calls
        for call in message.tool_calls:
            assert call.name
            assert bytes(call.arguments).startswith(b"{")


class TestText:
    """Text parts arrive as deltas and merge by kind."""

    def test_consecutive_text_merges(self) -> None:
        raw = sse(chunk({"text": "Hel"}), chunk({"text": "lo"}, finishReason="STOP"))
        events, response = run(raw)
        assert [e for e in events if type(e) is TextDelta] == [TextDelta("Hel"), TextDelta("lo")]
        same_as_body(response, chunk({"text": "Hello"}, finishReason="STOP"))

    def test_thought_parts_are_reasoning(self) -> None:
        raw = sse(
            chunk({"text": "Let me ", "thought": True}),
            chunk({"text": "think.", "thought": True, "thoughtSignature": "c2ln"}),
            chunk({"text": "Answer"}, finishReason="STOP"),
        )
        events, response = run(raw)
        assert [e for e in events if type(e) is ReasoningDelta] == [
            ReasoningDelta("Let me "),
            ReasoningDelta("think.", signature="c2ln"),
        ]
        body = chunk(
            {"text": "Let me think.", "thought": True, "thoughtSignature": "c2ln"},
            {"text": "Answer"},
            finishReason="STOP",
        )
        same_as_body(response, body)
        part = response.message.content[0]  # type: ignore[index, union-attr]
        assert part == ReasoningPart("Let me think.", signature="c2ln", provider="gemini")

    def test_signature_in_empty_last_part_joins_the_text(self) -> None:
        raw = sse(
            chunk({"text": "Hi"}),
            chunk({"text": "", "thoughtSignature": "c2ln"}, finishReason="STOP"),
        )
        _, response = run(raw)
        same_as_body(
            response, chunk({"text": "Hi", "thoughtSignature": "c2ln"}, finishReason="STOP")
        )

    def test_a_second_signature_starts_a_new_part(self) -> None:
        raw = sse(
            chunk({"text": "a", "thoughtSignature": "one"}),
            chunk({"text": "b", "thoughtSignature": "two"}, finishReason="STOP"),
        )
        _, response = run(raw)
        body = chunk(
            {"text": "a", "thoughtSignature": "one"},
            {"text": "b", "thoughtSignature": "two"},
            finishReason="STOP",
        )
        same_as_body(response, body)

    def test_empty_text_after_a_call_is_no_part(self) -> None:
        raw = sse(
            chunk({"functionCall": {"name": "f", "args": {}}}),
            chunk({"text": ""}, finishReason="STOP"),
        )
        _, response = run(raw)
        same_as_body(
            response, chunk({"functionCall": {"name": "f", "args": {}}}, finishReason="STOP")
        )

    def test_text_with_other_keys_is_not_merged(self) -> None:
        odd = {"text": "b", "mediaResolution": {"level": 1}}
        raw = sse(chunk({"text": "a"}), chunk(odd, finishReason="STOP"))
        events, response = run(raw)
        assert [e.text for e in events if type(e) is TextDelta] == ["a", "b"]
        same_as_body(response, chunk({"text": "a"}, odd, finishReason="STOP"))

    def test_crlf_and_a_character_split_across_feeds(self) -> None:
        raw = sse(chunk({"text": "café "}), chunk({"text": "日本"}, finishReason="STOP"), crlf=True)
        raw = raw.replace(b"\\u00e9", "é".encode()).replace(b"\\u65e5\\u672c", "日本".encode())
        cut = raw.index("é".encode()) + 1
        decoder = gemini.stream()
        events = decoder.feed(raw[:cut]) + decoder.feed(raw[cut:])
        assert "".join(e.text for e in events if type(e) is TextDelta) == "café 日本"
        assert decoder.finish().message.text == "café 日本"  # type: ignore[union-attr]


class TestCalls:
    """Whole calls, streamed arguments (Vertex partialArgs), ids and finish reasons."""

    def test_whole_call_gets_the_decoders_id(self) -> None:
        raw = sse(
            chunk({"text": "Checking."}),
            chunk({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}),
            chunk({"functionCall": {"name": "get_time", "args": {}}}, finishReason="STOP"),
        )
        events, response = run(raw)
        body = chunk(
            {"text": "Checking."},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
            {"functionCall": {"name": "get_time", "args": {}}},
            finishReason="STOP",
        )
        same_as_body(response, body)
        message = response.message
        assert message is not None
        completed = [e.call for e in events if type(e) is ToolCallCompleted]
        assert completed == list(message.tool_calls)
        assert bytes(message.tool_calls[0].arguments) == b'{"city":"Paris"}'
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert events[-1] == Finished(FinishReason.TOOL_CALLS, "STOP")

    def test_call_with_wire_id(self) -> None:
        raw = sse(
            chunk(
                {"functionCall": {"id": "c1", "name": "f", "args": {"a": 1}}}, finishReason="STOP"
            )
        )
        events, response = run(raw)
        assert events[0] == ToolCallStarted(0, "c1", "f")
        assert response.message.tool_calls[0].id == "c1"  # type: ignore[union-attr]

    def test_call_with_args_not_an_object_is_invalid(self) -> None:
        raw = sse(chunk({"functionCall": {"name": "f", "args": [1]}}, finishReason="STOP"))
        events, response = run(raw)
        invalid = response.message.invalid_tool_calls[0]  # type: ignore[union-attr]
        assert invalid.arguments == "[1]"
        assert [e.call for e in events if type(e) is ToolCallCompleted] == [invalid]

    def test_partial_args(self) -> None:
        start = {
            "functionCall": {"name": "set_light", "willContinue": True},
            "thoughtSignature": "c2ln",
        }
        raw = sse(
            chunk({"text": "On it."}),
            chunk(start),
            chunk({"functionCall": {"partialArgs": [
                {"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}
            ], "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": [
                {"jsonPath": "$.location", "stringValue": "ton \"MA\""},
                {"jsonPath": "$.brightness", "numberValue": 50},
                {"jsonPath": "$.rooms[0].name", "stringValue": "hall"},
                {"jsonPath": "$.rooms[0].on", "boolValue": True},
                {"jsonPath": "$.rooms[1]", "nullValue": "NULL_VALUE"},
            ], "willContinue": True}}),
            chunk({"functionCall": {}}),
            chunk({"text": ""}, finishReason="STOP"),
        )  # fmt: skip
        events, response = run(raw)
        args = {
            "location": 'Boston "MA"',
            "brightness": 50,
            "rooms": [{"name": "hall", "on": True}, None],
        }
        body = chunk(
            {"text": "On it."},
            {"functionCall": {"name": "set_light", "args": args}, "thoughtSignature": "c2ln"},
            finishReason="STOP",
        )
        same_as_body(response, body)
        call = response.message.tool_calls[0]  # type: ignore[union-attr]
        deltas = [e.delta for e in events if type(e) is ToolCallArgumentsDelta]
        assert len(deltas) > 3
        assert "".join(deltas).encode() == bytes(call.arguments)
        assert json.loads(bytes(call.arguments)) == args
        completed = [e for e in events if type(e) is ToolCallCompleted]
        assert completed == [ToolCallCompleted(0, call)]
        assert events.index(completed[0]) < events.index(Finished(FinishReason.TOOL_CALLS, "STOP"))
        check_stream(raw)

    def test_partial_args_closed_by_finish_reason(self) -> None:
        raw = sse(
            chunk({"functionCall": {"name": "f", "partialArgs": [
                {"jsonPath": "$.q", "stringValue": "x", "willContinue": True}
            ], "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.q", "stringValue": "y"}],
                                    "willContinue": True}}, finishReason="STOP"),
        )  # fmt: skip
        _, response = run(raw)
        same_as_body(
            response,
            chunk({"functionCall": {"name": "f", "args": {"q": "xy"}}}, finishReason="STOP"),
        )
        check_stream(raw)

    def test_two_streamed_calls(self) -> None:
        raw = sse(
            chunk({"functionCall": {"name": "f", "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}]}}),
            chunk({"functionCall": {"name": "g", "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.b", "numberValue": 2.5}]}}),
            chunk({"functionCall": {}}, finishReason="STOP"),
        )
        events, response = run(raw)
        body = chunk(
            {"functionCall": {"name": "f", "args": {"a": 1}}},
            {"functionCall": {"name": "g", "args": {"b": 2.5}}},
            finishReason="STOP",
        )
        same_as_body(response, body)
        assert [e.slot for e in events if type(e) is ToolCallStarted] == [0, 1]
        check_stream(raw)

    def test_paths_out_of_order_still_give_every_value(self) -> None:
        pieces = [
            {"jsonPath": "$.a", "stringValue": "x"},
            {"jsonPath": "$.b", "numberValue": 1},
            {"jsonPath": "$.a", "stringValue": "y"},
            {"jsonPath": "$['c d']", "boolValue": False},
        ]
        raw = sse(
            chunk({"functionCall": {"name": "f", "willContinue": True}}),
            chunk({"functionCall": {"partialArgs": pieces, "willContinue": True}}),
            chunk({"functionCall": {}, "thoughtSignature": "c2ln"}, finishReason="STOP"),
        )
        events, response = run(raw)
        args = {"a": "xy", "b": 1, "c d": False}
        body = chunk(
            {"functionCall": {"name": "f", "args": args}, "thoughtSignature": "c2ln"},
            finishReason="STOP",
        )
        same_as_body(response, body)
        deltas = "".join(e.delta for e in events if type(e) is ToolCallArgumentsDelta)
        assert deltas == '{"a":"x","b":1'  # the text stops where the order breaks

    def test_cut_off_mid_arguments(self) -> None:
        raw = sse(
            chunk({"text": "Sure."}),
            chunk({"functionCall": {"name": "write", "partialArgs": [
                {"jsonPath": "$.path", "stringValue": "notes/to", "willContinue": True}
            ], "willContinue": True}}),
        )  # fmt: skip
        with pytest.raises(StreamError, match="ended before a finishReason"):
            run(raw)
        events, response = run(raw, allow_incomplete=True)
        message = response.message
        assert message is not None
        assert message.tool_calls == ()
        invalid = message.invalid_tool_calls[0]
        assert invalid.name == "write"
        assert invalid.id is None
        assert invalid.arguments == '{"path":"notes/to'
        assert invalid.error == "arguments are truncated"
        assert events[-1] == ToolCallCompleted(0, invalid)
        assert response.finish_reason is None
        check_stream(raw, allow_incomplete=True)

    def test_malformed_function_call(self) -> None:
        raw = sse(
            {
                "candidates": [
                    {"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "Malformed"}
                ]
            }
        )
        events, response = run(raw)
        assert events == [Finished(FinishReason.ERROR, "MALFORMED_FUNCTION_CALL")]
        choice = response.choices[0]
        assert choice.finish_reason is FinishReason.ERROR
        assert choice.raw_finish_reason == "MALFORMED_FUNCTION_CALL"
        assert choice.extras == {"gemini": {"finishMessage": "Malformed"}}

    @pytest.mark.parametrize(
        ("raw", "reason"),
        [
            (1, FinishReason.STOP),
            (2, FinishReason.LENGTH),
            (10, FinishReason.ERROR),
            ("STOP", FinishReason.STOP),
        ],
    )
    def test_enums_may_be_integers(self, raw: Any, reason: FinishReason) -> None:
        events, response = run(sse(chunk({"text": "x"}, finishReason=raw)))
        assert events[-1] == Finished(reason, raw)
        assert response.finish_reason is reason
        assert response.choices[0].raw_finish_reason == raw


class TestUsageAndEnvelope:
    """Usage is cumulative; the last chunk's metadata wins; candidates keep their index."""

    def test_last_usage_wins(self) -> None:
        first = {"promptTokenCount": 5, "totalTokenCount": 5}
        last = {"promptTokenCount": 5, "candidatesTokenCount": 7, "totalTokenCount": 12}
        raw = sse(
            {**chunk({"text": "a"}), "usageMetadata": first, "responseId": "r1"},
            {**chunk({"text": "b"}), "usageMetadata": first, "responseId": "r1"},
            {
                **chunk({"text": "c"}, finishReason="STOP"),
                "usageMetadata": last,
                "responseId": "r1",
            },
        )
        events, response = run(raw)
        reported = [e.usage for e in events if type(e) is UsageReported]
        assert len(reported) == 2
        assert reported[-1] == response.usage
        assert response.usage is not None
        usage = response.usage
        assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (5, 7, 12)
        assert response.id == "r1"

    def test_several_candidates(self) -> None:
        def candidate(index: int, *parts: Any, **fields: Any) -> dict[str, Any]:
            return {"index": index, "content": {"role": "model", "parts": list(parts)}, **fields}

        call = {"functionCall": {"name": "f", "args": {}}}
        raw = sse(
            {"candidates": [candidate(0, {"text": "A"}), candidate(1, {"text": "B"})]},
            {
                "candidates": [
                    candidate(1, call, finishReason="STOP"),
                    candidate(0, {"text": "a"}, finishReason="STOP"),
                ]
            },
        )
        events, response = run(raw)
        body = {
            "candidates": [
                candidate(0, {"text": "Aa"}, finishReason="STOP"),
                candidate(1, {"text": "B"}, call, finishReason="STOP"),
            ]
        }
        same_as_body(response, body)
        assert [e.choice for e in events if type(e) is Finished] == [1, 0]
        assert Finished(FinishReason.TOOL_CALLS, "STOP", 1) in events
        check_stream(raw)

    def test_unknown_parts_and_keys_kept_in_position(self) -> None:
        odd = {"newKind": {"x": 1}}
        raw = sse(
            {**chunk({"text": "a"}), "newTopKey": 1},
            chunk(odd, {"text": "b"}, groundingMetadata={"q": 1}, finishReason="STOP"),
        )
        events, response = run(raw)
        part = OpaquePart("gemini", msgspec.Raw(msgspec.json.encode(odd)))
        assert PartReceived(part) in events
        body = {
            **chunk(
                {"text": "a"}, odd, {"text": "b"}, groundingMetadata={"q": 1}, finishReason="STOP"
            ),
            "newTopKey": 1,
        }
        same_as_body(response, body)
        assert response.message.content[1] == part  # type: ignore[index, union-attr]

    def test_empty_stream(self) -> None:
        for raw in (b"", b"\r\n", b": keep-alive\n\n"):
            with pytest.raises(StreamError, match="before its first event") as caught:
                run(raw)
            assert caught.value.partial is None

    def test_json_array_framing_with_crlf(self) -> None:
        chunks = [chunk({"text": "x"}), chunk({"text": "y"}, finishReason=1)]
        raw = ("[" + ",\r\n".join(json.dumps(c, indent=2) for c in chunks) + "]").replace(
            "\n", "\r\n"
        )
        _events, response = run(raw.encode())
        assert response.message.text == "xy"  # type: ignore[union-attr]
        check_stream(raw.encode())


class TestFastPath:
    """The inline text path folds exactly as the general path, and hands over midway."""

    @staticmethod
    def both(raw: bytes, sizes: list[int] | None = None) -> tuple[Any, Any, int]:
        """(events, response) with the fast path, the same without it, and chunks it took."""
        taken = 0
        original = gemini.GeminiStreamDecoder._text_chunk

        def counting(self: Any, c: Any, events: list[Any]) -> bool:
            nonlocal taken
            took: bool = original(self, c, events)
            taken += took
            return took

        def general() -> gemini.GeminiStreamDecoder:
            decoder = gemini.stream()
            decoder._misses = 4  # no typed attempts: every chunk key by key
            return decoder

        gemini.GeminiStreamDecoder._text_chunk = counting  # type: ignore[method-assign]
        try:
            fast = run_stream(gemini.stream, raw, sizes)
        finally:
            gemini.GeminiStreamDecoder._text_chunk = original  # type: ignore[method-assign]
        slow = run_stream(general, raw, sizes)
        return fast, slow, taken

    def test_recorded_streams_fold_alike(self) -> None:
        paths = [param.values[0] for param in corpus("gemini", "stream")]
        paths += [param.values[0] for param in curated_streams()]
        if not paths:
            pytest.skip("the recorded corpus is not there")
        taken = 0
        for path in paths:
            raw = json.loads(path.read_bytes())["raw"].encode()
            fast, slow, took = self.both(raw)
            assert fast == slow, path.name
            taken += took
        assert taken > 0  # the fast path is not dead code

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "stream")) + curated_streams())
    def test_finish_is_response_from_the_body(self, path: Path) -> None:
        from chatcodec.providers.gemini._decode import response_from

        decoder = gemini.stream()
        decoder.feed(json.loads(path.read_bytes())["raw"].encode())
        response = decoder.finish()
        assert response == response_from(decoder._body(), decoder._cut() or None)

    def test_leaves_the_fast_path_midway_and_back(self) -> None:
        usage = {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}
        more = {**usage, "candidatesTokenCount": 2, "totalTokenCount": 5}
        raw = sse(
            {
                **chunk({"text": "Thin", "thought": True}, index=0),
                "usageMetadata": usage,
                "modelVersion": "m",
            },
            {
                **chunk({"text": "king", "thought": True}, index=0),
                "usageMetadata": usage,
                "modelVersion": "m",
            },
            {
                **chunk({"text": ".", "thought": True, "thoughtSignature": ""}, index=0),
                "usageMetadata": more,
            },
            chunk({"text": "Hel"}),  # another kind: a new part, general path
            chunk({"text": "lo"}),
            chunk({"text": "", "thoughtSignature": "c2ln"}),
            {**chunk({"text": "!"}), "usage_metadata": more},  # snake_case usage
            chunk({"text": " x"}),  # back on the fast path
            chunk({"text": "!"}, finishReason="STOP"),
        )
        fast, slow, taken = self.both(raw)
        assert fast == slow
        assert taken == 5
        for sizes in ([1] * len(raw), random_sizes(len(raw), 5)):
            assert self.both(raw, sizes)[:2] == (fast, slow)

    def test_error_midway_keeps_the_same_partial(self) -> None:
        usage = {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}
        raw = sse(
            {**chunk({"text": "a"}), "usageMetadata": usage},
            {**chunk({"text": "b"}), "usageMetadata": {**usage, "totalTokenCount": 9}},
            {**chunk({"text": "c"}), "usageMetadata": {**usage, "promptTokenCount": -1}},
        )
        errors: list[tuple[str, Response | None]] = []
        for decoder in (gemini.stream(), gemini.stream()):
            if errors:
                decoder._misses = 4
            with pytest.raises(StreamError) as info:
                decoder.feed(raw)
            errors.append((str(info.value), info.value.partial))
        assert errors[0] == errors[1]
        assert errors[0][1] is not None
        assert errors[0][1].message is not None
        assert errors[0][1].message.text == "abc"  # candidates come before the usage


class TestErrors:
    """Errors in the stream raise StreamError with the response so far."""

    def test_error_object(self) -> None:
        error = {
            "error": {"code": 429, "message": "secret quota text", "status": "RESOURCE_EXHAUSTED"}
        }
        decoder = gemini.stream()
        decoder.feed(sse(chunk({"text": "partial"})))
        with pytest.raises(StreamError) as info:
            decoder.feed(sse(error))
        assert "RESOURCE_EXHAUSTED" in str(info.value)
        assert "429" in str(info.value)
        assert "secret" not in str(info.value)
        partial = info.value.partial
        assert partial is not None
        assert partial.message.text == "partial"
        with pytest.raises(StreamError):
            decoder.finish()

    def test_error_in_a_json_array(self) -> None:
        raw = b'[{"error": {"code": 500, "message": "x", "status": "INTERNAL"}}]'
        with pytest.raises(StreamError, match="INTERNAL") as info:
            run(raw)
        assert info.value.partial is not None

    def test_payload_not_json(self) -> None:
        with pytest.raises(StreamError, match="not JSON") as info:
            run(sse(chunk({"text": "a"})) + b"data: {nope\n\n")
        assert info.value.partial is not None
        assert info.value.partial.message.text == "a"

    def test_cut_inside_json_array(self) -> None:
        with pytest.raises(StreamError) as info:
            run(b'[{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}, {"cand')
        assert info.value.partial is not None

    @pytest.mark.parametrize(
        ("payload", "path"),
        [
            ({"candidates": {}}, "$.candidates"),
            ({"candidates": [{"content": {"parts": {}}}]}, "$.candidates[0].content.parts"),
            (
                {"candidates": [{"content": {"parts": [{"text": 1}]}}]},
                "$.candidates[0].content.parts[0].text",
            ),
            ({"candidates": [1]}, "$.candidates[0]"),
            ({"usageMetadata": []}, "$.usageMetadata"),
        ],
    )
    def test_malformed_chunk_names_the_path(self, payload: Any, path: str) -> None:
        with pytest.raises(StreamError) as info:
            run(sse(payload))
        assert path in str(info.value)
        assert info.value.partial is not None

    def test_feed_after_finish(self) -> None:
        decoder = gemini.stream()
        decoder.feed(sse(chunk({"text": "a"}, finishReason="STOP")))
        decoder.finish()
        with pytest.raises(StreamError, match="after finish"):
            decoder.feed(b"data: {}\n\n")


GROUNDED = sorted(
    path
    for path in (Path(__file__).parent.parent / "data" / "providers" / "gemini" / "response").glob(
        "*.json"
    )
    if b'"groundingSupports"' in path.read_bytes()
)


class TestGrounding:
    """A candidate's grounding streams as citations of the text it streamed."""

    @pytest.mark.parametrize("path", GROUNDED, ids=lambda p: p.stem[:60])
    def test_citations_are_events_at_any_split(self, path: Path) -> None:
        whole = gemini.decode_response(path.read_bytes())
        wanted = [
            (citation.url, part.text[citation.start : citation.end])
            for part in whole.choices[0].message.content  # type: ignore[union-attr]
            if type(part) is TextPart
            for citation in part.citations
        ]
        assert wanted
        raw = gemini.encode_stream(whole)
        for sizes in (None, [1] * len(raw), random_sizes(len(raw), 5)):
            events, response = run(raw, sizes)
            assert response == whole
            text = "".join(e.text for e in events if type(e) is TextDelta)
            said = [
                (e.citation.url, text[e.citation.start : e.citation.end])
                for e in events
                if type(e) is CitationReceived
            ]
            assert said == wanted
            # Said before the candidate's finish, as the other families say them.
            kinds = [type(e) for e in events]
            assert kinds.index(CitationReceived) < kinds.index(Finished)

    @pytest.mark.parametrize("path", GROUNDED, ids=lambda p: p.stem[:60])
    def test_gemini_to_gemini_keeps_them(self, path: Path) -> None:
        whole = gemini.decode_response(path.read_bytes())
        raw = gemini.encode_stream(whole)
        translator = translate_stream("gemini", "gemini")
        out = translator.feed(raw)
        tail, report = translator.finish()
        _, got = run(out + tail)

        def cited(response: Response) -> list[tuple[str | None, str]]:
            return [
                (citation.url, part.text[citation.start : citation.end])
                for part in response.choices[0].message.content  # type: ignore[union-attr]
                if type(part) is TextPart
                for citation in part.citations
            ]

        assert got.text == whole.text
        assert cited(got) == cited(whole)
        assert not [loss for loss in report.losses if "citation" in loss.path]

    def test_a_span_past_the_text_is_reported(self) -> None:
        losses: list[Any] = []
        encoder = gemini.stream_encoder(losses=losses)
        raw = encoder.encode(TextDelta("Hi"))
        raw += encoder.encode(
            CitationReceived(Citation("url", url="https://a.example", start=0, end=9))
        )
        raw += encoder.encode(Finished(FinishReason.STOP, "STOP"))
        raw += encoder.finish()
        assert b"groundingMetadata" not in raw
        assert [loss.reason for loss in losses] == [CITED_PAST_THE_TEXT]
        _, response = run(raw)
        assert response.text == "Hi"
