"""The Anthropic stream decoder: recorded streams, and one hand-written stream per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from corpus import corpus, needs_corpus, random_sizes, run_stream
from corpus import curated_streams as corpus_streams

from chatcodec import FinishReason, StreamError, ToolCallArgumentsDelta, ToolCallStarted
from chatcodec._content import OpaquePart, ReasoningPart, TextPart
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
from chatcodec._tools import InvalidToolCall, ToolCall
from chatcodec.providers import anthropic, get

CURATED = Path(__file__).parent.parent / "data" / "streams"


def curated_streams() -> list[Any]:
    return corpus_streams("anthropic__")


def run(raw: bytes, sizes: list[int] | None = None) -> tuple[list[Any], Response]:
    """Feed ``raw`` in pieces of ``sizes`` (whole if None); the events and the response."""
    events, response = run_stream(anthropic.stream, raw, sizes)
    return events, response


def sse(*payloads: dict[str, Any], crlf: bool = False, stop: bool = True) -> bytes:
    """An Anthropic SSE stream: each payload under an event named by its type.

    With ``stop``, a ``message_stop`` event ends it, as every whole stream ends.
    """
    end = "\r\n" if crlf else "\n"
    if stop:
        payloads = (*payloads, {"type": "message_stop"})
    return "".join(
        f"event: {p['type']}{end}data: {json.dumps(p, ensure_ascii=False)}{end}{end}"
        for p in payloads
    ).encode()


def run_cut(raw: bytes) -> tuple[list[Any], Response]:
    """A stream cut off: ``finish()`` raises; ``allow_incomplete=True`` gives the partial."""
    decoder = anthropic.stream()
    events = decoder.feed(raw) + decoder.flush()
    with pytest.raises(StreamError, match="ended before message_stop") as caught:
        decoder.finish()
    response = decoder.finish(allow_incomplete=True)
    assert caught.value.partial == response
    return events, response


def arguments_text(call: ToolCall | InvalidToolCall) -> str:
    if isinstance(call, InvalidToolCall):
        return call.arguments
    return bytes(call.arguments).decode()


def check_stream(raw: bytes) -> tuple[list[Any], Response]:
    events, response = run(raw)
    assert run(raw, [1] * len(raw)) == (events, response)
    for seed in (7, 11):
        assert run(raw, random_sizes(len(raw), seed)) == (events, response)
    message = response.message
    texts = "".join(e.text for e in events if type(e) is TextDelta)
    thoughts = "".join(e.text for e in events if type(e) is ReasoningDelta)
    assert (message.text if message else "") == texts
    assert (message.reasoning if message else "") == thoughts
    calls = sorted(
        (message.tool_calls + message.invalid_tool_calls) if message else (),
        key=lambda call: call.id or "",
    )
    completed = [e for e in events if type(e) is ToolCallCompleted]
    assert sorted((e.call for e in completed), key=lambda call: call.id or "") == calls
    for event in completed:
        fragments = "".join(
            e.delta for e in events if type(e) is ToolCallArgumentsDelta and e.slot == event.slot
        )
        assert fragments == arguments_text(event.call)
    started = [e for e in events if type(e) is ToolCallStarted]
    assert [(e.slot, e.id, e.name) for e in started] == [
        (e.slot, e.call.id, e.call.name) for e in completed
    ]
    # Whole parts arrive in position: the content's other parts, in order.
    received = [e.part for e in events if type(e) is PartReceived]
    content = message.content if message and isinstance(message.content, tuple) else ()
    whole = [p for p in content if type(p) is OpaquePart or getattr(p, "redacted", None)]
    assert received == whole
    # Each thinking block's signature came in a ReasoningDelta.
    signatures = [e.signature for e in events if type(e) is ReasoningDelta and e.signature]
    assert signatures == [p.signature for p in content if type(p) is ReasoningPart and p.signature]
    finished = [e for e in events if type(e) is Finished]
    if response.choices[0].raw_finish_reason is not None:
        assert finished[-1].finish_reason == response.finish_reason
        assert finished[-1].raw_finish_reason == response.choices[0].raw_finish_reason
    usage = [e.usage for e in events if type(e) is UsageReported]
    assert (usage[-1] if usage else None) == response.usage
    return events, response


def compact(response: Response) -> Response:
    """``response`` with each call's arguments written compactly."""
    message = response.message
    if message is None or not message.tool_calls:
        return response
    calls = tuple(
        msgspec.structs.replace(
            call, arguments=msgspec.Raw(msgspec.json.encode(call.arguments_dict()))
        )
        for call in message.tool_calls
    )
    choice = msgspec.structs.replace(
        response.choices[0], message=msgspec.structs.replace(message, tool_calls=calls)
    )
    return msgspec.structs.replace(response, choices=(choice,))


class TestRecordedStreams:
    """Every recorded Anthropic stream decodes the same whole, byte by byte and at random splits."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "stream")))
    def test_corpus(self, path: Path) -> None:
        check_stream(json.loads(path.read_bytes())["raw"].encode())

    @pytest.mark.parametrize("path", curated_streams())
    def test_curated(self, path: Path) -> None:
        check_stream(json.loads(path.read_bytes())["raw"].encode())

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "stream")))
    def test_finish_is_decode_of_the_message(self, path: Path) -> None:
        decoder = anthropic.stream()
        decoder.feed(json.loads(path.read_bytes())["raw"].encode())
        response = decoder.finish()
        body = decoder._body()
        cut = response.message.invalid_tool_calls if response.message else ()
        if cut:
            # A cut-off call has no non-streaming form: its fragments stay as
            # partial_json beside the start block's input.
            partial = [b["partial_json"] for b in body["content"] if "partial_json" in b]
            assert partial == [bad.arguments for bad in cut]
            return
        assert anthropic.decode_response(msgspec.json.encode(body)) == compact(response)

    def test_registry(self) -> None:
        assert type(get("anthropic").stream()) is anthropic.AnthropicStreamDecoder
        assert type(get("claude").stream()) is anthropic.AnthropicStreamDecoder


def _curated(name: str) -> bytes:
    raw: str = json.loads((CURATED / f"anthropic__{name}.json").read_bytes())["raw"]
    return raw.encode()


class TestRecordedSemantics:
    """Specific values from real streams."""

    def test_tool_use(self) -> None:
        events, response = run(_curated("anthropic-sdk-python__streaming__tool_use_response"))
        message = response.message
        assert message is not None
        assert message.text.startswith("I'll check the current weather")
        (call,) = message.tool_calls
        assert (call.id, call.name) == ("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather")
        assert bytes(call.arguments) == b'{"location": "Paris"}'
        assert call.extras == {"anthropic": {"caller": {"type": "direct"}}}
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "tool_use"
        kinds = [type(e).__name__ for e in events if type(e) is not TextDelta]
        assert kinds == [
            "UsageReported",
            "ToolCallStarted",
            *["ToolCallArgumentsDelta"] * 4,
            "ToolCallCompleted",
            "Finished",
            "UsageReported",
        ]
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (377, 65)

    def test_cut_off_arguments(self) -> None:
        raw = _curated("anthropic-sdk-python__streaming__incomplete_partial_json_response")
        events, response = run(raw)
        message = response.message
        assert message is not None
        (bad,) = message.invalid_tool_calls
        assert (bad.name, bad.error) == ("make_file", "arguments are truncated")
        assert bad.arguments.startswith('{"filename": "taxes.txt", "lines_of_text": [')
        assert bad.arguments.endswith('\n"Filing taxes')
        assert response.finish_reason is FinishReason.LENGTH
        # The stop reason completes the call: before Finished, not after.
        kinds = [type(e) for e in events[-3:]]
        assert kinds == [ToolCallCompleted, Finished, UsageReported]
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (450, 124)

    def test_redacted_thinking(self) -> None:
        raw = _curated(
            "pydantic-ai__models__test_anthropic__test_anthropic_model_thinking_part_redacted_stream__00"
        )
        events, response = run(raw)
        received = [e.part for e in events if type(e) is PartReceived]
        assert len(received) == 2
        assert all(type(p) is ReasoningPart and p.redacted and p.text == "" for p in received)
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        assert message.content[:2] == tuple(received)
        assert message.text.startswith("I notice that you've sent")

    def test_thinking_with_signature(self) -> None:
        raw = _curated(
            "pydantic-ai__models__test_anthropic__test_anthropic_model_thinking_part_stream__00"
        )
        events, response = run(raw)
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        thinking = message.content[0]
        assert type(thinking) is ReasoningPart
        assert thinking.provider == "anthropic"
        assert thinking.signature is not None
        assert thinking.signature.startswith("EvMCCkYICxgCKkCH")
        signed = [e for e in events if type(e) is ReasoningDelta and e.signature]
        assert [(e.text, e.signature) for e in signed] == [("", thinking.signature)]
        assert thinking.text == "".join(e.text for e in events if type(e) is ReasoningDelta)
        assert type(message.content[1]) is TextPart

    def test_compaction_usage_replaced(self) -> None:
        raw = _curated(
            "pydantic-ai__models__test_anthropic__test_anthropic_compaction_usage_with_cache_streaming__00"
        )
        events, response = run(raw)
        first, last = (e.usage for e in events if type(e) is UsageReported)
        # message_start: 100 + 55096 cached; message_delta replaces both (181 + 0).
        assert (first.prompt_tokens, first.cached_tokens) == (55196, 55096)
        assert (last.prompt_tokens, last.completion_tokens, last.cached_tokens) == (181, 8, 0)
        assert response.usage == last
        assert last.extras is not None
        assert len(last.extras["anthropic"]["iterations"]) == 2
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        compaction = message.content[0]
        assert type(compaction) is OpaquePart
        data = json.loads(bytes(compaction.data))
        assert data["type"] == "compaction"
        assert data["content"].startswith("The user provided a very long context")
        assert message.text == "Hello! 👋"
        assert response.extras is not None
        assert response.extras["anthropic"]["context_management"] == {"applied_edits": []}

    def test_advisor_server_tool(self) -> None:
        raw = _curated(
            "pydantic-ai__models__test_anthropic__test_anthropic_advisor_tool_stream__00"
        )
        _, response = run(raw)
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        kinds = [
            json.loads(bytes(p.data))["type"] if type(p) is OpaquePart else type(p).__name__
            for p in message.content
        ]
        assert kinds == [
            "ReasoningPart",
            "TextPart",
            "server_tool_use",
            "advisor_tool_result",
            "TextPart",
        ]
        use = message.content[2]
        assert type(use) is OpaquePart
        assert json.loads(bytes(use.data))["input"] == {}
        assert message.content[0].text == ""  # type: ignore[union-attr]
        assert response.usage is not None
        assert response.usage.reasoning_tokens == 47

    def test_mcp_tool_use_input_assembled(self) -> None:
        raw = _curated("pydantic-ai__models__test_anthropic__test_anthropic_mcp_servers_stream__00")
        events, _ = run(raw)
        received = [
            json.loads(bytes(e.part.data))
            for e in events
            if type(e) is PartReceived and type(e.part) is OpaquePart
        ]
        use = next(p for p in received if p["type"] == "mcp_tool_use")
        assert use["name"] == "ask_question"
        assert set(use["input"]) == {"repoName", "question"}
        assert "partial_json" not in use

    def test_tool_search_then_call(self) -> None:
        raw = _curated(
            "pydantic-ai__test_tool_search__test_anthropic_native_tool_search_streaming__00"
        )
        events, response = run(raw)
        message = response.message
        assert message is not None
        (call,) = message.tool_calls
        completed = next(e for e in events if type(e) is ToolCallCompleted)
        assert completed.call == call
        assert any(
            type(p) is OpaquePart and json.loads(bytes(p.data))["type"] == "tool_search_tool_result"
            for p in message.content or ()
        )


# --- hand-written streams ----------------------------------------------------

START: dict[str, Any] = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    },
}
STOP = {"type": "message_stop"}


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, **value: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": value}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(reason: str | None = "end_turn", **usage: Any) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": usage or {"output_tokens": 5},
    }


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [
        block_start(index, {"type": "text", "text": ""}),
        *(delta(index, type="text_delta", text=piece) for piece in pieces),
        block_stop(index),
    ]


def tool_block(index: int, id: str, name: str, *fragments: str) -> list[dict[str, Any]]:
    return [
        block_start(index, {"type": "tool_use", "id": id, "name": name, "input": {}}),
        *(delta(index, type="input_json_delta", partial_json=f) for f in fragments),
        block_stop(index),
    ]


def message(content: list[Any], reason: str = "end_turn", **usage: Any) -> dict[str, Any]:
    """The non-streaming body the hand-written streams stand for."""
    body: dict[str, Any] = {**START["message"], "content": content}
    body["stop_reason"] = reason
    body["usage"] = {"input_tokens": 10, "output_tokens": 5, **usage}
    return body


def same_as_body(response: Response, body: dict[str, Any]) -> None:
    assert response == anthropic.decode_response(json.dumps(body).encode())


class TestFastPath:
    """The inline delta path folds exactly as the general path, and hands over midway."""

    @staticmethod
    def both(
        raw: bytes, monkeypatch: pytest.MonkeyPatch, sizes: list[int] | None = None
    ) -> tuple[Any, Any, int]:
        """(events, response) with the fast path, the same without it, and typed decodes."""
        from chatcodec.providers.anthropic import _stream

        original = _stream._decode_delta
        taken = 0

        def counting(data: bytes) -> Any:
            nonlocal taken
            typed = original(data)
            taken += 1
            return typed

        def refusing(data: bytes) -> Any:
            raise msgspec.ValidationError("general path only")

        with monkeypatch.context() as patch:
            patch.setattr(_stream, "_decode_delta", counting)
            fast = TestFastPath.outcome(raw, sizes)
            patch.setattr(_stream, "_decode_delta", refusing)
            slow = TestFastPath.outcome(raw, sizes)
        return fast, slow, taken

    @staticmethod
    def outcome(raw: bytes, sizes: list[int] | None) -> Any:
        try:
            return run(raw, sizes)
        except StreamError as exc:
            return str(exc), exc.partial

    def test_recorded_streams_fold_alike(self, monkeypatch: pytest.MonkeyPatch) -> None:
        paths = [param.values[0] for param in corpus("anthropic", "stream")]
        paths += [param.values[0] for param in curated_streams()]
        if not paths:
            pytest.skip("the recorded corpus is not there")
        taken = 0
        for path in paths:
            raw = json.loads(path.read_bytes())["raw"].encode()
            fast, slow, took = self.both(raw, monkeypatch)
            assert fast == slow, path.name
            taken += took
        assert taken > 0  # the fast path is not dead code

    def test_leaves_the_fast_path_midway(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def delta(index: int, **body: Any) -> dict[str, Any]:
            return {"type": "content_block_delta", "index": index, "delta": body}

        raw = sse(
            {"type": "message_start", "message": {"id": "m", "type": "message",
             "role": "assistant", "model": "c", "content": [], "stop_reason": None,
             "usage": {"input_tokens": 2, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            delta(0, type="thinking_delta", thinking="Hm"),
            delta(0, type="thinking_delta", thinking=""),
            delta(0, type="text_delta", text="odd"),  # text into thinking: general path
            delta(0, type="signature_delta", signature="c2ln"),
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1,
             "content_block": {"type": "text", "text": "A"}},
            delta(1, type="text_delta", text="B"),
            {**delta(1, type="text_delta", text="C"), "extra": 1},  # another key
            delta(1, type="text_delta", text="D", more=True),
            {"type": "content_block_start", "index": 2,
             "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
            delta(2, type="input_json_delta", partial_json=""),
            delta(2, type="input_json_delta", partial_json='{"a":'),
            delta(2, type="thinking_delta", thinking="x"),  # thinking into a call
            delta(2, type="input_json_delta", partial_json=" 1}"),
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
             "usage": {"output_tokens": 9}},
            delta(5, type="text_delta", text="late"),  # no block there: the same error
        )  # fmt: skip
        fast, slow, taken = self.both(raw, monkeypatch)
        assert fast == slow
        assert fast[0] == "no content block was started at this index - at `$.index`"
        assert taken == 9  # the typed decodes that succeed, taken or not
        for sizes in ([1] * len(raw), random_sizes(len(raw), 5)):
            assert self.both(raw, monkeypatch, sizes)[:2] == (fast, slow)


class TestRules:
    """One hand-written stream per rule of the Anthropic stream."""

    def test_text(self) -> None:
        raw = sse(START, *text_block(0, "Hel", "", "lo"), message_delta(), STOP)
        events, response = check_stream(raw)
        assert [e for e in events if type(e) is TextDelta] == [TextDelta("Hel"), TextDelta("lo")]
        same_as_body(response, message([{"type": "text", "text": "Hello"}]))

    def test_text_of_another_delta_type_is_an_event(self) -> None:
        # A delta of a type this decoder does not know adds its "text" to the
        # block's: the events say so too, so that they hold the response's text
        # (the fuzz target stream_encode found them apart).
        raw = sse(
            START,
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text="12"),
            delta(0, type="text_deRta", text="345"),
            block_stop(0),
            message_delta(),
            STOP,
        )
        events, response = run(raw)
        said = "".join(e.text for e in events if type(e) is TextDelta)
        assert said == response.text == "12345"

    def test_blocks_in_index_order(self) -> None:
        raw = sse(
            START,
            block_start(1, {"type": "text", "text": ""}),
            block_start(0, {"type": "text", "text": ""}),
            delta(1, type="text_delta", text="second"),
            delta(0, type="text_delta", text="first"),
            block_stop(0),
            block_stop(1),
            message_delta(),
        )
        _, response = run(raw)
        content = [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]
        same_as_body(response, message(content))

    def test_citations(self) -> None:
        cite = {"type": "web_search_result_location", "url": "https://a.example", "cited_text": "x"}
        raw = sse(
            START,
            block_start(0, {"type": "text", "text": "", "citations": []}),
            delta(0, type="citations_delta", citation=cite),
            delta(0, type="text_delta", text="A fact."),
            delta(0, type="citations_delta", citation={**cite, "url": "https://b.example"}),
            block_stop(0),
            message_delta(),
        )
        _, response = check_stream(raw)
        block = {
            "type": "text",
            "text": "A fact.",
            "citations": [cite, {**cite, "url": "https://b.example"}],
        }
        same_as_body(response, message([block]))
        message_ = response.message
        assert message_ is not None
        assert isinstance(message_.content, tuple)
        part = message_.content[0]
        assert isinstance(part, TextPart)
        assert part.extras is None
        assert [c.url for c in part.citations] == ["https://a.example", "https://b.example"]
        assert [c.quote for c in part.citations] == ["x", "x"]
        # Each citation follows the text it cites, spanning its block.
        events, _ = run(raw)
        cited = [e.citation for e in events if type(e) is CitationReceived]
        assert [(c.start, c.end, c.url) for c in cited] == [
            (0, 7, "https://a.example"),
            (0, 7, "https://b.example"),
        ]
        kinds = [type(e) for e in events]
        assert kinds.index(TextDelta) < kinds.index(CitationReceived)

    def test_thinking_and_signature(self) -> None:
        raw = sse(
            START,
            block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(0, type="thinking_delta", thinking="Let me "),
            delta(0, type="thinking_delta", thinking="think."),
            delta(0, type="signature_delta", signature="c2ln"),
            block_stop(0),
            *text_block(1, "Done."),
            message_delta(),
        )
        events, response = check_stream(raw)
        assert [e for e in events if type(e) is ReasoningDelta] == [
            ReasoningDelta("Let me "),
            ReasoningDelta("think."),
            ReasoningDelta("", signature="c2ln"),
        ]
        part = response.message.content[0]  # type: ignore[union-attr, index]
        assert part == ReasoningPart("Let me think.", "c2ln", None, "anthropic")
        thinking = {"type": "thinking", "thinking": "Let me think.", "signature": "c2ln"}
        same_as_body(response, message([thinking, {"type": "text", "text": "Done."}]))

    def test_redacted_thinking_whole(self) -> None:
        block = {"type": "redacted_thinking", "data": "b3BhcXVl"}
        raw = sse(
            START, block_start(0, block), block_stop(0), *text_block(1, "Hi"), message_delta()
        )
        events, response = check_stream(raw)
        part = ReasoningPart("", None, "b3BhcXVl", "anthropic")
        assert events[1] == PartReceived(part)
        same_as_body(response, message([block, {"type": "text", "text": "Hi"}]))

    def test_tool_use_fragments(self) -> None:
        raw = sse(
            START,
            *text_block(0, "Looking."),
            *tool_block(1, "toolu_1", "get_weather", "", '{"city"', ': "Paris",', ' "days": 2}'),
            message_delta("tool_use"),
        )
        events, response = check_stream(raw)
        tool_events = [e for e in events if type(e) not in (TextDelta, UsageReported)]
        call = ToolCall("toolu_1", "get_weather", msgspec.Raw(b'{"city": "Paris", "days": 2}'))
        assert tool_events == [
            ToolCallStarted(0, "toolu_1", "get_weather"),
            ToolCallArgumentsDelta(0, '{"city"'),
            ToolCallArgumentsDelta(0, ': "Paris",'),
            ToolCallArgumentsDelta(0, ' "days": 2}'),
            ToolCallCompleted(0, call),
            Finished(FinishReason.TOOL_CALLS, "tool_use"),
        ]
        message_ = response.message
        assert message_ is not None
        assert message_.tool_calls == (call,)
        assert bytes(message_.tool_calls[0].arguments) == b'{"city": "Paris", "days": 2}'

    def test_finish_is_decode_of_the_message(self) -> None:
        raw = sse(
            START,
            *text_block(0, "Two calls."),
            *tool_block(1, "toolu_1", "f", '{"a":', "1}"),
            *tool_block(2, "toolu_2", "g", '{"b":[true]}'),
            message_delta("tool_use"),
            STOP,
        )
        events, response = check_stream(raw)
        assert [e.slot for e in events if type(e) is ToolCallCompleted] == [0, 1]
        content = [
            {"type": "text", "text": "Two calls."},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {"b": [True]}},
        ]
        same_as_body(response, message(content, "tool_use"))

    def test_no_fragments_means_empty_input(self) -> None:
        raw = sse(START, *tool_block(0, "toolu_1", "now"), message_delta("tool_use"))
        events, response = check_stream(raw)
        assert ToolCallArgumentsDelta(0, "{}") in events
        call = response.message.tool_calls[0]  # type: ignore[union-attr]
        assert bytes(call.arguments) == b"{}"
        tool = {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}
        same_as_body(response, message([tool], "tool_use"))

    def test_arguments_not_json(self) -> None:
        raw = sse(START, *tool_block(0, "toolu_1", "f", '{"a": 1}}'), message_delta("tool_use"))
        _, response = check_stream(raw)
        (bad,) = response.message.invalid_tool_calls  # type: ignore[union-attr]
        assert (bad.arguments, bad.error) == ('{"a": 1}}', "arguments are not valid JSON")

    def test_cut_off_mid_arguments(self) -> None:
        raw = sse(
            START,
            block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
            delta(0, type="input_json_delta", partial_json='{"path": "a.t'),
            stop=False,
        )
        events, response = run_cut(raw)
        bad = InvalidToolCall(
            id="toolu_1", name="f", arguments='{"path": "a.t', error="arguments are truncated"
        )
        assert events[-1] == ToolCallCompleted(0, bad)
        assert response.message is not None
        assert response.message.invalid_tool_calls == (bad,)
        assert response.finish_reason is None

    def test_server_tool_block_whole(self) -> None:
        use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        result = {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [{"type": "web_search_result", "url": "https://a.example", "title": "A"}],
        }
        raw = sse(
            START,
            *text_block(0, "Searching."),
            block_start(1, use),
            delta(1, type="input_json_delta", partial_json='{"query": '),
            delta(1, type="input_json_delta", partial_json='"news"}'),
            block_stop(1),
            block_start(2, result),
            block_stop(2),
            *text_block(3, "Found."),
            message_delta(),
        )
        events, response = check_stream(raw)
        assembled = {**use, "input": {"query": "news"}}
        parts = [
            OpaquePart("anthropic", msgspec.Raw(msgspec.json.encode(b)))
            for b in (assembled, result)
        ]
        assert [e for e in events if type(e) is PartReceived] == [PartReceived(p) for p in parts]
        assert not [e for e in events if type(e) is ToolCallArgumentsDelta]
        content = response.message.content  # type: ignore[union-attr]
        assert content is not None
        assert list(content[1:3]) == parts
        blocks = [
            {"type": "text", "text": "Searching."},
            assembled,
            result,
            {"type": "text", "text": "Found."},
        ]
        same_as_body(response, message(blocks))

    def test_server_tool_input_cut_off(self) -> None:
        use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        raw = sse(
            START,
            block_start(0, use),
            delta(0, type="input_json_delta", partial_json='{"q'),
            stop=False,
        )
        events, response = run_cut(raw)
        part = events[-1].part
        assert json.loads(bytes(part.data)) == {**use, "partial_json": '{"q'}
        assert response.message is not None
        assert response.message.content == (part,)

    def test_unknown_block_and_delta(self) -> None:
        raw = sse(
            START,
            block_start(0, {"type": "compaction", "content": None}),
            delta(0, type="compaction_delta", content="Sum"),
            delta(0, type="compaction_delta", content="mary", extra=[1]),
            block_stop(0),
            *text_block(1, "Hi"),
            message_delta(),
        )
        events, response = check_stream(raw)
        block = {"type": "compaction", "content": "Summary", "extra": [1]}
        assert events[1] == PartReceived(
            OpaquePart("anthropic", msgspec.Raw(msgspec.json.encode(block)))
        )
        same_as_body(response, message([block, {"type": "text", "text": "Hi"}]))

    def test_usage_is_cumulative(self) -> None:
        start = json.loads(json.dumps(START))
        start["message"]["usage"] = {
            "input_tokens": 10,
            "cache_read_input_tokens": 4,
            "output_tokens": 1,
        }
        raw = sse(
            start,
            *text_block(0, "Hi"),
            {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 3}},
            message_delta(output_tokens=7, cache_read_input_tokens=None),
        )
        events, response = check_stream(raw)
        reported = [
            (e.usage.prompt_tokens, e.usage.completion_tokens, e.usage.cached_tokens)
            for e in events
            if type(e) is UsageReported
        ]
        # Replaced, never summed; a count left out (or null) keeps the one before.
        assert reported == [(14, 1, 4), (14, 3, 4), (14, 7, 4)]
        assert response.usage is not None
        assert response.usage.completion_tokens == 7

    def test_usage_replaces_input_counts(self) -> None:
        raw = sse(
            START,
            *text_block(0, "Hi"),
            message_delta(
                input_tokens=25, output_tokens=9, server_tool_use={"web_search_requests": 1}
            ),
        )
        _, response = check_stream(raw)
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (25, 9)
        assert response.usage.extras == {
            "anthropic": {"server_tool_use": {"web_search_requests": 1}}
        }

    @pytest.mark.parametrize(
        ("raw_reason", "reason"),
        [
            ("end_turn", FinishReason.STOP),
            ("stop_sequence", FinishReason.STOP),
            ("max_tokens", FinishReason.LENGTH),
            ("model_context_window_exceeded", FinishReason.LENGTH),
            ("tool_use", FinishReason.TOOL_CALLS),
            ("refusal", FinishReason.CONTENT_FILTER),
            ("pause_turn", FinishReason.OTHER),
            ("something_new", FinishReason.OTHER),
        ],
    )
    def test_stop_reasons(self, raw_reason: str, reason: FinishReason) -> None:
        events, response = run(sse(START, *text_block(0, "x"), message_delta(raw_reason)))
        assert Finished(reason, raw_reason) in events
        assert (response.finish_reason, response.choices[0].raw_finish_reason) == (
            reason,
            raw_reason,
        )

    def test_stop_sequence_and_other_keys(self) -> None:
        final = {
            "type": "message_delta",
            "delta": {
                "stop_reason": "stop_sequence",
                "stop_sequence": "END",
                "container": {"id": "c1"},
            },
            "usage": {"output_tokens": 5},
            "context_management": {"applied_edits": []},
        }
        _, response = run(sse(START, *text_block(0, "x"), final, STOP))
        assert response.extras == {
            "anthropic": {
                "stop_sequence": "END",
                "container": {"id": "c1"},
                "context_management": {"applied_edits": []},
            }
        }

    def test_ping_and_unknown_events(self) -> None:
        raw = sse(
            START,
            {"type": "ping"},
            {"type": "something_new", "index": 0, "stuff": [1]},
            *text_block(0, "Hi"),
            message_delta(),
            STOP,
        )
        raw = b": keep-alive\n\n" + raw
        _, response = check_stream(raw)
        same_as_body(response, message([{"type": "text", "text": "Hi"}]))

    def test_error_event(self) -> None:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        raw = sse(
            START,
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text="Par"),
            error,
            stop=False,
        )
        decoder = anthropic.stream()
        with pytest.raises(StreamError, match="overloaded_error") as caught:
            decoder.feed(raw)
        assert "Overloaded" not in str(caught.value)
        assert (caught.value.provider, caught.value.type) == ("anthropic", "overloaded_error")
        partial = caught.value.partial
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Par"
        with pytest.raises(StreamError):
            decoder.feed(b"more")
        with pytest.raises(StreamError):
            decoder.finish()

    def test_error_event_byte_by_byte(self) -> None:
        error = {"type": "error", "error": {"type": "api_error", "message": "Internal"}}
        raw = sse(START, *text_block(0, "Hi"), error, stop=False)
        decoder = anthropic.stream()
        cut = raw.index(b"event: error")
        for i in range(cut):
            decoder.feed(raw[i : i + 1])
        for i in range(cut, len(raw) - 3):
            assert decoder.feed(raw[i : i + 1]) == []
        with pytest.raises(StreamError, match="api_error") as caught:
            decoder.feed(raw[len(raw) - 3 :])
        assert caught.value.partial is not None

    def test_feed_after_finish(self) -> None:
        decoder = anthropic.stream()
        decoder.feed(sse(START, *text_block(0, "Hi"), message_delta()))
        decoder.finish()
        with pytest.raises(StreamError, match="after finish"):
            decoder.feed(b"event: ping\n")

    def test_crlf(self) -> None:
        payloads = (START, *text_block(0, "Hi", " there"), message_delta(), STOP)
        lf, crlf = run(sse(*payloads)), check_stream(sse(*payloads, crlf=True))
        assert lf == crlf

    def test_multibyte_split(self) -> None:
        raw = sse(
            START, *text_block(0, "héllo 👋 ", "日本"), *tool_block(1, "toolu_1", "f", '{"s": "€"}')
        )
        at = raw.index("👋".encode()) + 2
        decoder = anthropic.stream()
        events = decoder.feed(raw[:at]) + decoder.feed(raw[at:])
        response = decoder.finish()
        assert response.message is not None
        assert response.message.text == "héllo 👋 日本"
        assert bytes(response.message.tool_calls[0].arguments) == '{"s": "€"}'.encode()
        assert (events, response) == run(raw)
        check_stream(raw)

    def test_no_final_blank_line(self) -> None:
        raw = sse(START, *text_block(0, "Hi"), message_delta("max_tokens")).rstrip(b"\n")
        _, response = check_stream(raw)
        assert response.finish_reason is FinishReason.LENGTH

    def test_not_json(self) -> None:
        raw = sse(START, *text_block(0, "Hi")) + b"event: message_delta\ndata: {nope\n\n"
        with pytest.raises(StreamError) as caught:
            anthropic.stream().feed(raw)
        assert caught.value.partial is not None
        assert caught.value.partial.message.text == "Hi"

    @pytest.mark.parametrize(
        ("payload", "where"),
        [
            (delta(3, type="text_delta", text="x"), "$.index"),
            (block_stop(3), "$.index"),
            ({"type": "content_block_delta", "index": "0", "delta": {}}, "$.index"),
            ({"type": "content_block_delta", "index": 0, "delta": []}, "$.delta"),
            (delta(0, type="text_delta", text=1), "$.delta.text"),
            (block_start(0, {"type": "text", "text": ""}), "$.index"),
            ({"type": "message_delta", "delta": {"stop_reason": 3}}, "$.delta.stop_reason"),
            ({"type": "message_start", "message": []}, "$.message"),
            (message_delta(output_tokens="5"), "$.usage.output_tokens"),
            ({"type": "message_delta", "usage": []}, "$.usage"),
        ],
    )
    def test_malformed_events(self, payload: dict[str, Any], where: str) -> None:
        raw = sse(START, block_start(0, {"type": "text", "text": ""}), payload)
        with pytest.raises(StreamError, match=rf"\{where}") as caught:
            anthropic.stream().feed(raw)
        assert caught.value.partial is not None

    def test_without_message_start(self) -> None:
        final = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
        _, response = run(sse(*text_block(0, "Hi"), final))
        assert response.message is not None
        assert response.message.text == "Hi"
        assert (response.id, response.usage) == (None, None)
        # Usage without the input counts message_start gives is no usage.
        with pytest.raises(StreamError, match=r"\$\.usage\.input_tokens"):
            run(sse(*text_block(0, "Hi"), message_delta()))


class TestADeltaAfterItsBlockStopped:
    """A stopped block takes no more deltas (a fuzz find of translate_stream).

    Its call was complete at the stop, with the input so far; input after it
    made the response's call invalid while the events had said it was whole.
    """

    START: ClassVar[dict[str, Any]] = {
        "type": "message_start",
        "message": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "c",
            "content": [],
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    CALL: ClassVar[dict[str, Any]] = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
    }

    @staticmethod
    def delta(kind: str, **more: Any) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": 0, "delta": {"type": kind, **more}}

    @pytest.mark.parametrize(
        "late",
        [
            {"type": "input_json_delta", "partial_json": '{"a": 1}'},
            {"type": "text_delta", "text": "x"},
        ],
        ids=("input", "text"),
    )
    def test_is_refused(self, late: dict[str, Any]) -> None:
        stop = {"type": "content_block_stop", "index": 0}
        late_delta = {"type": "content_block_delta", "index": 0, "delta": late}
        raw = sse(self.START, self.CALL, stop, late_delta)
        with pytest.raises(StreamError, match="has stopped"):
            run(raw)

    def test_before_the_stop_it_is_read(self) -> None:
        stop = {"type": "content_block_stop", "index": 0}
        json_delta = self.delta("input_json_delta", partial_json='{"a": 1}')
        raw = sse(self.START, self.CALL, json_delta, stop)
        _, response = run(raw)
        assert [call.arguments_dict() for call in response.tool_calls] == [{"a": 1}]
