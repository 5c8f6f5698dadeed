"""The Responses API stream decoder: recorded streams at any split, folding, and errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from corpus import corpus, curated_streams, needs_corpus, random_sizes, run_stream

import chatcodec as cc
from chatcodec import providers
from chatcodec._events import (
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)

codec = providers.get("openai-responses")
FINAL = ("response.completed", "response.incomplete", "response.failed")


def streams() -> list[Any]:
    return curated_streams("openai-responses__") + corpus("openai-responses", "stream")


def recorded(path: Path) -> tuple[bytes, list[dict[str, Any]]]:
    data = json.loads(path.read_bytes())
    return data["raw"].encode(), data["events"]


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def final_body(events: list[dict[str, Any]]) -> dict[str, Any]:
    (last,) = [e for e in events if e.get("type") in FINAL]
    body: dict[str, Any] = last["response"]
    return body


def summary(response: cc.Response) -> tuple[Any, ...]:
    """What a stream without its final events must still give: texts and calls."""
    message = response.message
    assert message is not None
    calls = [(c.id, c.name, bytes(c.arguments)) for c in message.tool_calls]
    return message.text, message.reasoning, calls


class TestRecorded:
    """Every recorded stream gives the response its final event holds, at any split."""

    @pytest.mark.parametrize("path", needs_corpus(streams()))
    def test_whole_and_split(self, path: Path) -> None:
        raw, events = recorded(path)
        expected = codec.decode_response(json.dumps(final_body(events)))
        got_events, whole = run_stream(codec.stream, raw)
        assert whole == expected
        for sizes in ([1] * len(raw), random_sizes(len(raw), 7), random_sizes(len(raw), 13)):
            assert run_stream(codec.stream, raw, sizes) == (got_events, whole)
        finished = [e for e in got_events if isinstance(e, Finished)]
        assert finished == [Finished(expected.finish_reason, expected.choices[0].raw_finish_reason)]
        if expected.usage is not None:
            assert [e.usage for e in got_events if isinstance(e, UsageReported)] == [expected.usage]

    @pytest.mark.parametrize("path", needs_corpus(streams()))
    def test_deltas_spell_the_answer(self, path: Path) -> None:
        raw, events = recorded(path)
        got_events, response = run_stream(codec.stream, raw)
        text = "".join(e.text for e in got_events if isinstance(e, TextDelta))
        message = response.message
        if message is not None and any(
            e.get("type") == "response.output_text.delta" for e in events
        ):
            assert text == message.text
        reasoning = "".join(e.text for e in got_events if isinstance(e, ReasoningDelta))
        if message is not None and any(
            str(e.get("type")).startswith("response.reasoning_") for e in events
        ):
            assert reasoning == message.reasoning
        calls = [e.call for e in got_events if isinstance(e, ToolCallCompleted)]
        if message is not None:
            assert [c.id for c in calls] == [
                c.id for c in (*message.tool_calls, *message.invalid_tool_calls)
            ]

    @pytest.mark.parametrize("path", needs_corpus(streams()))
    def test_folded_from_deltas_alone(self, path: Path) -> None:
        """Cut before its done and final events, a stream still gives its texts, and its
        calls as truncated ones (with ``allow_incomplete``; without, it raises)."""
        _, events = recorded(path)
        expected = codec.decode_response(json.dumps(final_body(events)))
        if expected.message is None:
            pytest.skip("the recorded answer has no output")
        kept = [
            e
            for e in events
            if not str(e.get("type", "")).endswith(".done") and e.get("type") not in FINAL
        ]
        items = {e["output_index"] for e in kept if e.get("type") == "response.output_item.added"}
        if len(items) != len(final_body(events)["output"]):
            pytest.skip("some output items were never announced")
        with pytest.raises(cc.StreamError, match=r"ended before response\.completed") as caught:
            run_stream(codec.stream, sse(kept))
        assert caught.value.partial is not None
        _, response = run_stream(codec.stream, sse(kept), allow_incomplete=True)
        assert response.message is not None
        text, reasoning, calls = summary(expected)
        assert (response.message.text, response.message.reasoning) == (text, reasoning)
        assert response.message.tool_calls == ()
        cut = [
            (c.id, c.name, c.arguments.encode(), c.error)
            for c in response.message.invalid_tool_calls
        ]
        assert cut == [(i, n, a, "arguments are truncated") for i, n, a in calls]
        assert response.finish_reason is None  # the stream never said it ended


def event(kind: str, n: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sequence_number": n, **fields}


CREATED = {
    "id": "resp_1",
    "object": "response",
    "status": "in_progress",
    "model": "gpt-5",
    "output": [],
}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}


class TestByHand:
    """The events of each kind, and errors."""

    def test_call_events(self) -> None:
        raw = sse(
            [
                event("response.created", 0, response=CREATED),
                event("response.output_item.added", 1, output_index=0, item=CALL),
                event("response.function_call_arguments.delta", 2, output_index=0, delta='{"a"'),
                event("response.function_call_arguments.delta", 3, output_index=0, delta=":1}"),
            ]
        )
        with pytest.raises(cc.StreamError, match="ended before"):
            run_stream(codec.stream, raw)
        events, response = run_stream(codec.stream, raw, allow_incomplete=True)
        assert [type(e).__name__ for e in events] == [
            "ToolCallStarted",
            "ToolCallArgumentsDelta",
            "ToolCallArgumentsDelta",
        ]
        # Its item never got its done event: the call was cut, though its text parses.
        assert response.tool_calls == ()
        assert response.message is not None
        (cut,) = response.message.invalid_tool_calls
        assert (cut.id, cut.name, cut.arguments, cut.error) == (
            "call_1",
            "f",
            '{"a":1}',
            "arguments are truncated",
        )
        assert response.finish_reason is None  # the stream never said it ended

    def test_built_in_item_arrives_whole(self) -> None:
        search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
        raw = sse(
            [
                event("response.created", 0, response=CREATED),
                event("response.output_item.done", 1, output_index=0, item=search),
            ]
        )
        events, response = run_stream(codec.stream, raw, allow_incomplete=True)
        (received,) = events
        assert isinstance(received, PartReceived)
        assert json.loads(bytes(received.part.data)) == search  # type: ignore[union-attr]
        assert response.message is not None

    def test_reasoning_summary_delta(self) -> None:
        item = {"type": "reasoning", "id": "rs_1", "summary": []}
        raw = sse(
            [
                event("response.created", 0, response=CREATED),
                event("response.output_item.added", 1, output_index=0, item=item),
                event(
                    "response.reasoning_summary_part.added",
                    2,
                    output_index=0,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                ),
                event(
                    "response.reasoning_summary_text.delta",
                    3,
                    output_index=0,
                    summary_index=0,
                    delta="Hmm",
                ),
            ]
        )
        events, response = run_stream(codec.stream, raw, allow_incomplete=True)
        assert events == [ReasoningDelta("Hmm")]
        assert response.message is not None
        assert response.message.reasoning == "Hmm"

    def test_error_event(self) -> None:
        raw = sse(
            [
                event("response.created", 0, response=CREATED),
                event("error", 1, code="server_error", message="boom", param=None),
            ]
        )
        decoder = codec.stream()
        with pytest.raises(cc.StreamError) as info:
            decoder.feed(raw)
        assert "server_error" in str(info.value)
        assert "boom" not in str(info.value)
        assert info.value.partial is not None
        assert (info.value.provider, info.value.code) == ("openai-responses", "server_error")
        with pytest.raises(cc.StreamError):
            decoder.finish()

    def test_not_an_object(self) -> None:
        with pytest.raises(cc.StreamError):
            run_stream(codec.stream, b"data: [1]\n\n")


class TestTextTheEventsSaid:
    """A final body whose text is not what its deltas said is refused (found by fuzzing)."""

    @staticmethod
    def written() -> bytes:
        answer = cc.Response((cc.Choice(cc.assistant("Paris."), cc.FinishReason.STOP),), "resp_1")
        return providers.get("openai-responses").encode_stream(answer)

    def test_the_same_text_reads(self) -> None:
        decoder = providers.get("openai-responses").stream()
        decoder.feed(self.written())
        assert decoder.finish().text == "Paris."

    def test_another_text_in_the_final_body_is_refused(self) -> None:
        data = self.written()
        tampered = data.replace(b'"text":"Paris."', b'"text":"Lyon."')
        assert tampered != data
        decoder = providers.get("openai-responses").stream()
        with pytest.raises(cc.StreamError) as caught:
            decoder.feed(tampered)  # at the final event
        assert "output_text deltas" in str(caught.value)
        assert "$.response.output[0].content[0].text" in str(caught.value)


class TestPartsInTheOtherList:
    """A part whose text events would place it in the item's other list goes whole."""

    BODY = (
        b'{"id":"resp_1","object":"response","model":"m","status":"completed","output":['
        b'{"type":"reasoning","id":"rs_1","summary":[{"type":"output_text","text":"s"}],'
        b'"content":[{"type":"summary_text","text":"a"}]},'
        b'{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":['
        b'{"type":"summary_text","text":"c"},{"type":"output_text","text":"b","annotations":[]}]}]}'
    )

    def test_written_stream_reads_back_as_the_body(self) -> None:
        whole = codec.decode_response(self.BODY)
        written = codec.encode_stream(whole)
        for size in (1, 7, len(written)):
            decoder = codec.stream()
            for at in range(0, len(written), size):
                decoder.feed(written[at : at + size])
            assert decoder.finish() == whole

    def test_no_text_events_for_them(self) -> None:
        written = codec.encode_stream(codec.decode_response(self.BODY))
        lines = written.splitlines()
        events = [json.loads(line[6:]) for line in lines if line.startswith(b"data: ")]
        deltas = [e for e in events if e["type"].endswith(".delta")]
        assert [(e["type"], e["delta"]) for e in deltas] == [("response.output_text.delta", "b")]


def _final(*output: dict[str, Any], n: int = 9) -> dict[str, Any]:
    body = {**CREATED, "status": "completed", "output": list(output)}
    return event("response.completed", n, response=body)


def _message(text: str, ident: str = "msg_1", role: str = "assistant") -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": []}
    return {"type": "message", "id": ident, "role": role, "status": "completed", "content": [part]}


_CALLED = {**CALL, "arguments": '{"city": "Tokyo"}', "status": "completed"}
_REASONED = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "I'll call the tool."}],
}


def _deltas(index: int, text: str, n: int) -> list[dict[str, Any]]:
    """An assistant message item at ``index`` given by its events: added, one delta, done."""
    item = _message(text, f"msg_{index}")
    return [
        event("response.output_item.added", n, output_index=index, item={**item, "content": []}),
        event("response.output_text.delta", n + 1, output_index=index, content_index=0, delta=text),
        event("response.output_item.done", n + 2, output_index=index, item=item),
    ]


class TestWhatOnlyTheFinalEventHolds:
    """What the final body holds and no event gave is given at the end (a fuzz find).

    A stream cut down to its final event gave a response with a call and text, and
    events saying neither: a stream encoder fed the events wrote neither.
    """

    def test_a_stream_of_its_final_event_alone_says_it_all(self) -> None:
        raw = sse([_final(_REASONED, _message("4"), _CALLED)])
        for sizes in (None, [1] * len(raw), random_sizes(len(raw), 5)):
            events, response = run_stream(codec.stream, raw, sizes)
            assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "4"
            reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
            assert reasoning == "I'll call the tool." == response.message.reasoning
            completed = [e for e in events if isinstance(e, ToolCallCompleted)]
            assert [(e.slot, e.call) for e in completed] == [(0, response.tool_calls[0])]
            assert response.text == "4"
            assert isinstance(events[-1], Finished)

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_the_events_write_what_the_response_holds(self, family: str) -> None:
        raw = sse([_final(_message("4"), _CALLED)])
        events, response = run_stream(codec.stream, raw)
        losses: list[cc.Loss] = []
        encoder = providers.get(family).stream_encoder(cc.Response(id="r"), losses=losses)
        written = encoder.encode_all(events) + encoder.finish()
        decoder = providers.get(family).stream()
        decoder.feed(written)
        again = decoder.finish()
        assert again.text == response.text == "4"
        # (Ollama, Gemini and Bedrock carry arguments as objects: their spacing is theirs.)
        got = [(c.name, json.loads(bytes(c.arguments))) for c in again.tool_calls]
        assert got == [("f", {"city": "Tokyo"})]

    def test_text_only_in_the_done_event_follows_the_text_given(self) -> None:
        done = _message("It is sunny.", "msg_1")
        events_in = [
            *_deltas(0, "Weather: ", 1),
            event("response.output_item.added", 4, output_index=1, item={**done, "content": []}),
            event("response.output_item.done", 5, output_index=1, item=done),
            _final(_message("Weather: ", "msg_0"), done),
        ]
        events, response = run_stream(codec.stream, sse(events_in))
        said = [e.text for e in events if isinstance(e, TextDelta)]
        assert said == ["Weather: ", "It is sunny."]
        assert response.text == "Weather: It is sunny."

    def test_text_no_event_gave_before_text_they_gave_is_refused(self) -> None:
        raw = sse(
            [*_deltas(1, "second", 1), _final(_message("first", "msg_0"), _message("second"))]
        )
        with pytest.raises(cc.StreamError) as caught:
            run_stream(codec.stream, raw)
        assert "no event gave it" in str(caught.value)
        assert "$.response.output[0].content[0]" in str(caught.value)

    def test_a_call_no_event_gave_before_one_they_gave_is_refused(self) -> None:
        second = {**_CALLED, "id": "fc_2", "call_id": "call_2"}
        given = [
            event(
                "response.output_item.added", 1, output_index=1, item={**second, "arguments": ""}
            ),
            event("response.output_item.done", 2, output_index=1, item=second),
        ]
        with pytest.raises(cc.StreamError) as caught:
            run_stream(codec.stream, sse([*given, _final(_CALLED, second)]))
        assert "$.response.output[0]`" in str(caught.value)

    def test_a_call_whose_done_event_never_came_completes_from_the_final_body(self) -> None:
        given = [
            event("response.output_item.added", 1, output_index=0, item=CALL),
            event("response.function_call_arguments.delta", 2, output_index=0, delta='{"city": '),
            _final(_CALLED),
        ]
        events, response = run_stream(codec.stream, sse(given))
        completed = [e for e in events if isinstance(e, ToolCallCompleted)]
        assert [(e.slot, e.call) for e in completed] == [(0, response.tool_calls[0])]
        assert bytes(response.tool_calls[0].arguments) == b'{"city": "Tokyo"}'

    def test_built_in_items_added_and_only_held_by_the_final_body_come_late(self) -> None:
        # As a recorded stream does: MCP tool lists added, never done, then the answer.
        listing = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "s", "tools": []}
        given = [
            event("response.output_item.added", 1, output_index=0, item=listing),
            *_deltas(1, "Done.", 2),
            _final(listing, _message("Done.", "msg_1")),
        ]
        events, response = run_stream(codec.stream, sse(given))
        received = [e.part for e in events if isinstance(e, PartReceived)]
        parts = response.message.content
        assert isinstance(parts, tuple)
        assert received == [p for p in parts if isinstance(p, cc.OpaquePart)]
        assert len(received) == 1

    def test_a_final_body_holding_what_no_model_makes_is_refused_after_an_answer(self) -> None:
        user = _message("Hi", "msg_u", role="user")
        with pytest.raises(cc.StreamError, match="must hold only what the model made"):
            run_stream(
                codec.stream, sse([*_deltas(0, "Hello", 1), _final(_message("Hello"), user)])
            )

    def test_a_final_body_holding_what_no_model_makes_alone_says_nothing(self) -> None:
        user = _message("Hi", "msg_u", role="user")
        events, response = run_stream(codec.stream, sse([_final(_message("Hello"), user)]))
        assert response.message is None
        assert not [e for e in events if isinstance(e, TextDelta | ToolCallCompleted)]

    def test_text_said_where_the_body_holds_no_answer_text_is_refused(self) -> None:
        # Deltas for output 0, whose item the final body gives as one of no known kind:
        # kept whole, it holds no text, and the events said some (a fuzz find).
        deltas = [
            event("response.output_text.delta", n, output_index=0, content_index=0, delta=d)
            for n, d in enumerate(("2 + 2", " = 4."), 1)
        ]
        other = {**_message("2 + 2 = 4."), "type": "age"}
        with pytest.raises(cc.StreamError) as caught:
            run_stream(codec.stream, sse([*deltas, _final(other)]))
        assert "output_text deltas" in str(caught.value)
        assert "$.response.output[0].content[0].text" in str(caught.value)

    def test_a_done_event_without_its_call_completes_from_the_final_body(self) -> None:
        # The done event's item lost its name and arguments (a fuzz find): the
        # events started a call and never completed it, the response held it.
        broken = {"type": "function_call", "id": "fc_1", "call_id": "call_1"}
        given = [
            event("response.output_item.added", 1, output_index=0, item=CALL),
            event("response.output_item.done", 2, output_index=0, item=broken),
            _final(_CALLED),
        ]
        events, response = run_stream(codec.stream, sse(given))
        completed = [e for e in events if isinstance(e, ToolCallCompleted)]
        assert [(e.slot, e.call) for e in completed] == [(0, response.tool_calls[0])]

    @pytest.mark.parametrize(
        "held",
        [
            {**_CALLED, "arguments": '{"city": "Paris"}'},
            {**_CALLED, "call_id": "call_9"},
            {**_CALLED, "name": "get_time"},
            {**_CALLED, "call_id": ""},
            {**_CALLED, "type": "custom_tool_call", "input": '{"city": "Tokyo"}'},
            _message("Tokyo."),
        ],
        ids=("other-arguments", "other-id", "other-name", "no-id", "custom", "no-call"),
    )
    def test_a_call_the_final_body_holds_otherwise_is_refused(self, held: Any) -> None:
        given = [
            event("response.output_item.added", 1, output_index=0, item=CALL),
            event("response.output_item.done", 2, output_index=0, item=_CALLED),
            _final(held),
        ]
        with pytest.raises(cc.StreamError) as caught:
            run_stream(codec.stream, sse(given))
        assert "must be the call its events gave" in str(caught.value)
        assert "$.response.output[0]`" in str(caught.value)

    @pytest.mark.parametrize("arguments", ['{"city": "Tokyo"}', ' {"city": "Tokyo"}\n'])
    def test_the_same_call_written_otherwise_is_the_call(self, arguments: str) -> None:
        # The body reader reads these arguments as the call the events completed
        # (a JSON text without the blanks around it).
        given = [
            event("response.output_item.added", 1, output_index=0, item=CALL),
            event("response.output_item.done", 2, output_index=0, item=_CALLED),
            _final({**_CALLED, "arguments": arguments}),
        ]
        events, response = run_stream(codec.stream, sse(given))
        completed = [e.call for e in events if isinstance(e, ToolCallCompleted)]
        assert all(isinstance(call, cc.ToolCall) for call in completed)
        assert [bytes(call.arguments) for call in completed] == [b'{"city": "Tokyo"}']  # type: ignore[arg-type]
        held = [bytes(call.arguments) for call in response.tool_calls]
        assert held == [arguments.strip().encode()]

    def test_a_second_final_event_gives_the_response(self) -> None:
        # The response read at a final event is kept until another event comes.
        later = {**_final(_message("B"), n=10), "type": "response.incomplete"}
        later["response"] = {**later["response"], "status": "incomplete", "model": "other"}
        decoder = codec.stream()
        decoder.feed(sse([_final(_message("A")), later]))
        response = decoder.finish()
        assert (response.text, response.model) == ("B", "other")

    def test_a_started_call_the_final_body_does_not_hold_is_refused(self) -> None:
        given = [event("response.output_item.added", 1, output_index=0, item=CALL)]
        with pytest.raises(cc.StreamError, match="must be the call its events gave"):
            run_stream(codec.stream, sse([*given, _final(_message("Tokyo."))]))

    def test_a_done_message_item_without_its_type_is_read_as_the_body_reads_it(self) -> None:
        # An assistant message item whose "type" is absent: the body reader takes it
        # for a message, the done event took it for an item of another kind and gave
        # it whole after its text (a fuzz find: the text came out twice).
        item = {k: v for k, v in _message("2+2 = 4").items() if k != "type"}
        given = [
            event("response.output_text.delta", 1, output_index=0, content_index=0, delta="2+2"),
            event("response.output_text.delta", 2, output_index=0, content_index=0, delta=" = 4"),
            event("response.output_item.done", 3, output_index=0, item=item),
            _final(item),
        ]
        events, response = run_stream(codec.stream, sse(given))
        assert not [e for e in events if isinstance(e, PartReceived)]
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == response.text
        assert response.text == "2+2 = 4"

    def test_a_call_named_only_by_its_done_event_is_given_there(self) -> None:
        # Its added event names no call: the call is given whole when its item is done,
        # before the text that follows it.
        nameless = {"type": "function_call", "id": "fc_1", "arguments": ""}
        given = [
            event("response.output_item.added", 1, output_index=0, item=nameless),
            event("response.output_item.done", 2, output_index=0, item=_CALLED),
            *_deltas(1, "Done.", 3),
            _final(_CALLED, _message("Done.", "msg_1")),
        ]
        events, response = run_stream(codec.stream, sse(given))
        kinds = [type(e).__name__ for e in events]
        assert kinds.index("ToolCallCompleted") < kinds.index("TextDelta")
        completed = [e for e in events if isinstance(e, ToolCallCompleted)]
        assert [(e.slot, e.call.id, e.call.name) for e in completed] == [(0, "call_1", "f")]
        assert [c.id for c in response.tool_calls] == ["call_1"]

    def test_an_item_kept_whole_is_a_part_once(self) -> None:
        nameless = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "arguments": "{}"}
        given = [
            event("response.output_item.added", 1, output_index=0, item=nameless),
            event("response.output_item.done", 2, output_index=0, item=nameless),
            _final(nameless),
        ]
        events, response = run_stream(codec.stream, sse(given))
        received = [e.part for e in events if isinstance(e, PartReceived)]
        assert received == list(response.message.content)
        assert not [e for e in events if isinstance(e, ToolCallCompleted)]


def _add(index: int, item: dict[str, Any], n: int = 1) -> dict[str, Any]:
    return event("response.output_item.added", n, output_index=index, item=item)


def _done(index: int, item: dict[str, Any], n: int = 2) -> dict[str, Any]:
    return event("response.output_item.done", n, output_index=index, item=item)


def _delta(index: int, text: str, at: int = 0, kind: str = "output_text") -> dict[str, Any]:
    name = f"response.{kind}.delta"
    return event(name, 3, output_index=index, content_index=at, delta=text)


def _refused(given: list[dict[str, Any]], rule: str, where: str) -> None:
    with pytest.raises(cc.StreamError) as caught:
        run_stream(codec.stream, sse(given))
    assert rule in str(caught.value)
    assert where in str(caught.value)


class TestTheEventsAgreeWithTheFinalBody:
    """What the events gave and what the final body holds agree, or the stream is refused.

    Found by a second reading of the decoder: text given twice, text or a call
    the events gave that the body holds otherwise, and exceptions of no
    ``ChatCodecError``.
    """

    def test_text_at_a_place_no_part_can_be_is_refused(self) -> None:
        empty = {**_message(""), "content": []}
        body = {**_message(""), "content": [*_message("")["content"], *_message("B")["content"]]}
        given = [_add(0, empty), _delta(0, "B", at=1), _done(0, body), _final(body)]
        _refused(given, "must be the index of a part so far or of the next one", "content_index")

    @pytest.mark.parametrize(
        "given",
        [
            [_delta(-1, "A"), _final(_message("A"))],
            [_add(-5, _CALLED), _done(-5, _CALLED), _final(_message("A"))],
        ],
        ids=("text", "call"),
    )
    def test_a_negative_output_index_is_refused(self, given: list[dict[str, Any]]) -> None:
        _refused(given, "must not be negative", "$.output_index")

    def test_an_empty_delta_gives_nothing_and_the_body_gives_the_text(self) -> None:
        given = [_add(0, {**_message(""), "content": []}), _delta(0, ""), _final(_message("Hello"))]
        events, response = run_stream(codec.stream, sse(given))
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
        assert response.text == "Hello"

    def test_a_refusal_is_checked_against_the_bodys_refusal(self) -> None:
        refusal = {**_message(""), "content": [{"type": "refusal", "refusal": "Nope"}]}
        start = _add(0, {**_message(""), "content": []})
        _refused(
            [start, _delta(0, "No", kind="refusal"), _final(_message("Hello"))],
            "output_text deltas",
            "$.response.output[0].content[0].refusal",
        )
        _refused(
            [start, _delta(0, "No", kind="refusal"), _final(refusal)],
            "output_text deltas",
            "$.response.output[0].content[0].refusal",
        )
        events, _ = run_stream(
            codec.stream, sse([start, _delta(0, "Nope", kind="refusal"), _final(refusal)])
        )
        assert [e.text for e in events if isinstance(e, RefusalDelta)] == ["Nope"]

    def test_arguments_of_another_type_in_an_added_event_are_passed_over(self) -> None:
        given = [_add(0, {**_CALLED, "arguments": 5}), _done(0, _CALLED), _final(_CALLED)]
        events, response = run_stream(codec.stream, sse(given))
        (completed,) = [e.call for e in events if isinstance(e, ToolCallCompleted)]
        assert isinstance(completed, cc.ToolCall)
        (call,) = response.tool_calls
        assert (completed.id, bytes(completed.arguments)) == (call.id, bytes(call.arguments))

    def test_an_item_is_added_once_and_done_once(self) -> None:
        other = {**_CALLED, "id": "fc_2", "call_id": "call_2"}
        _refused(
            [_add(0, _CALLED), _done(0, _CALLED), _add(0, other), _done(0, other), _final(other)],
            "an output item is added once",
            "$.output_index",
        )
        _refused(
            [_add(0, _CALLED), _done(0, _CALLED), _done(0, _CALLED), _final(_CALLED)],
            "an output item is done once",
            "$.output_index",
        )

    @pytest.mark.parametrize(
        ("done_item", "body_item"),
        [
            ({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"}, _CALLED),
            ({k: v for k, v in _message("A").items() if k != "role"}, _message("A")),
        ],
        ids=("a call-shaped part then a call", "a role-less message then an answer"),
    )
    def test_an_item_given_whole_when_done_is_whole_in_the_body(
        self, done_item: dict[str, Any], body_item: dict[str, Any]
    ) -> None:
        _refused(
            [
                _add(0, {"type": done_item["type"], "id": "x"}),
                _done(0, done_item),
                _final(body_item),
            ],
            "must be kept whole, as its done event was",
            "$.response.output[0]",
        )

    def test_text_of_an_earlier_item_after_a_later_ones_is_refused(self) -> None:
        first, second = _message("A", "msg_a"), _message("B", "msg_b")
        given = [
            _add(1, {**second, "content": []}),
            _delta(1, "B"),
            _add(0, {**first, "content": []}),
            _delta(0, "A"),
            _final(first, second),
        ]
        _refused(given, "must not place text before text the events already gave", "output_index")

    def test_a_custom_call_only_the_final_body_holds_stays_a_custom_call(self) -> None:
        custom = {
            "type": "custom_tool_call",
            "id": "ct",
            "call_id": "c9",
            "name": "g",
            "input": "x y",
        }
        events, _ = run_stream(codec.stream, sse([_final(custom)]))
        assert [type(e).__name__ for e in events] == ["ToolCallCompleted", "Finished"]
        encoder = providers.get("openai-responses").stream_encoder(cc.Response(id="r"))
        written = encoder.encode_all(events) + encoder.finish()
        last = json.loads(written.rsplit(b"data: ", 1)[1])
        assert last["response"]["output"][0]["type"] == "custom_tool_call"

    def test_text_a_done_event_alone_gives_comes_there_in_its_place(self) -> None:
        whole = {"type": "message", "id": "msg_0", "role": "assistant", "content": "A"}
        given = [_add(0, {**whole, "content": ""}), _done(0, whole), *_deltas(1, "B", 3)]
        events, response = run_stream(codec.stream, sse([*given, _final(whole, _message("B"))]))
        assert [e.text for e in events if isinstance(e, TextDelta)] == ["A", "B"]
        assert response.text == "AB"

    def test_a_call_renamed_after_its_added_event_is_refused(self) -> None:
        # Its added event started "get_temperatuasoninre"; the events said that name and
        # the response held another (a fuzz find of stream_encode).
        started = {**CALL, "name": "get_weather_in"}
        _refused(
            [_add(0, started), _done(0, _CALLED), _final(_CALLED)],
            "must name the call its added event started",
            "$.item",
        )
        _refused(
            [_add(0, started), _final(_CALLED)],
            "must be the call its events gave",
            "$.response.output[0]",
        )


class TestReasoningTextContent:
    """Reasoning given as ``reasoning_text`` content (DeepSeek, gpt-oss, OpenRouter).

    The events say it, and the response holds it as its reasoning text; written
    again, it goes back in the item's content.
    """

    SHELL: ClassVar[dict[str, Any]] = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "content": [],
    }

    def given(self, texts: list[str], *, parts: bool = True) -> list[dict[str, Any]]:
        """A reasoning item of ``texts`` in parts, then an answer (without the final event)."""
        out = [_add(0, self.SHELL)]
        for at, text in enumerate(texts):
            part = {"type": "reasoning_text", "text": ""}
            if parts:
                out.append(
                    event(
                        "response.content_part.added",
                        2,
                        output_index=0,
                        content_index=at,
                        part=part,
                    )
                )
            out.append(_delta(0, text, at=at, kind="reasoning_text"))
        item = {**self.SHELL, "content": [{"type": "reasoning_text", "text": t} for t in texts]}
        return [*out, _done(0, item), *_deltas(1, "Paris.", 5)]

    def whole(self, texts: list[str]) -> dict[str, Any]:
        item = {**self.SHELL, "content": [{"type": "reasoning_text", "text": t} for t in texts]}
        return _final(item, _message("Paris.", "msg_1"))

    @pytest.mark.parametrize("texts", [["Think."], ["First.", "Then."]], ids=("one", "two"))
    def test_the_events_say_the_reasoning_the_response_holds(self, texts: list[str]) -> None:
        raw = sse([*self.given(texts), self.whole(texts)])
        for sizes in (None, random_sizes(len(raw), 9)):
            events, response = run_stream(codec.stream, raw, sizes)
            reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
            assert reasoning == "\n\n".join(texts) == summary(response)[1]
            assert response.text == "Paris."

    def test_cut_off_without_part_events(self) -> None:
        raw = sse(self.given(["Think."], parts=False))
        events, response = run_stream(codec.stream, raw, allow_incomplete=True)
        assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Think."
        assert summary(response)[1] == "Think."

    @pytest.mark.parametrize("texts", [["Think."], ["First.", "Then."]], ids=("one", "two"))
    def test_written_again_it_reads_the_same(self, texts: list[str]) -> None:
        response = codec.decode_response(json.dumps(self.whole(texts)["response"]))
        written = codec.encode_stream(response)
        _, again = run_stream(codec.stream, written)
        assert summary(again)[1] == summary(response)[1] == "\n\n".join(texts)
        kinds = {
            json.loads(line[6:])["type"] for line in written.splitlines() if line[:5] == b"data:"
        }
        assert "response.reasoning_text.delta" in kinds
        assert "response.reasoning_summary_text.delta" not in kinds


class TestReasoningTheReaderKeepsWhole:
    """A reasoning item the body reader keeps whole (a signature that is no string).

    Its summary deltas said reasoning the response did not hold, and the events
    never gave the item: refused now, and an item given whole when done is one
    part of the answer, as the response holds it.
    """

    ADDED: ClassVar[dict[str, Any]] = {"type": "reasoning", "id": "rs_1", "summary": []}
    WHOLE: ClassVar[dict[str, Any]] = {
        **ADDED,
        "summary": [{"type": "summary_text", "text": "Think."}],
        "encrypted_content": 5,
    }
    READ: ClassVar[dict[str, Any]] = {**WHOLE, "encrypted_content": "gAAA"}

    def summary_delta(self) -> list[dict[str, Any]]:
        part = {"type": "summary_text", "text": ""}
        return [
            event(
                "response.reasoning_summary_part.added",
                2,
                output_index=0,
                summary_index=0,
                part=part,
            ),
            event(
                "response.reasoning_summary_text.delta",
                3,
                output_index=0,
                summary_index=0,
                delta="Think.",
            ),
        ]

    def test_summary_deltas_for_it_are_refused(self) -> None:
        given = [_add(0, self.ADDED), *self.summary_delta(), _done(0, self.WHOLE, 4)]
        _refused([*given, _final(self.WHOLE)], "must be reasoning, as its events gave it", "$.item")

    def test_its_final_body_alone_holding_it_whole_is_refused(self) -> None:
        given = [_add(0, self.ADDED), *self.summary_delta(), _done(0, self.READ, 4)]
        _refused(
            [*given, _final(self.WHOLE)],
            "must be reasoning, as its events gave it",
            "$.response.output[0]",
        )

    def test_given_whole_when_done(self) -> None:
        given = [_add(0, self.ADDED), _done(0, self.WHOLE, 4), *_deltas(1, "Hi", 5)]
        events, response = run_stream(
            codec.stream, sse([*given, _final(self.WHOLE, _message("Hi"))])
        )
        assert not [e for e in events if isinstance(e, ReasoningDelta)]
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        assert [e.part for e in events if isinstance(e, PartReceived)] == [message.content[0]]
        assert response.text == "Hi"
        encoder = codec.stream_encoder(cc.Response(id="r"))
        _, again = run_stream(codec.stream, encoder.encode_all(events) + encoder.finish())
        assert again.message is not None
        assert isinstance(again.message.content, tuple)
        assert (again.message.content[0], again.text) == (message.content[0], "Hi")

    def test_encode_stream_writes_it_whole(self) -> None:
        response = codec.decode_response(json.dumps(_final(self.WHOLE, _message("Hi"))["response"]))
        written = codec.encode_stream(response)
        assert b"response.reasoning_summary_text.delta" not in written
        _, again = run_stream(codec.stream, written)
        assert again.message is not None
        assert response.message is not None
        assert again.message.content == response.message.content


class TestTheEventsSayTheReasoningTheResponseHolds:
    """The reasoning text the events give is the response's, item by item, or refused.

    Found by a second reading of the decoder: what joins two parts given where no
    part joins, text only the done event held never said, deltas at a new part
    with nothing joining them, deltas the item's body did not hold.
    """

    SHELL: ClassVar[dict[str, Any]] = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "content": [],
    }
    EMPTY: ClassVar[dict[str, Any]] = {"type": "reasoning_text", "text": ""}

    @staticmethod
    def part(kind: str, at: int, part: dict[str, Any], key: str = "content") -> dict[str, Any]:
        where = {"output_index": 0, f"{'summary' if key == 'summary' else 'content'}_index": at}
        name = "reasoning_summary_part" if key == "summary" else "content_part"
        return event(f"response.{name}.{kind}", 2, **where, part=part)

    @staticmethod
    def text(at: int, delta: str, key: str = "content") -> dict[str, Any]:
        if key == "summary":
            kind = "response.reasoning_summary_text.delta"
            return event(kind, 3, output_index=0, summary_index=at, delta=delta)
        return _delta(0, delta, at=at, kind="reasoning_text")

    def content(self, *texts: str) -> dict[str, Any]:
        return {**self.SHELL, "content": [{"type": "reasoning_text", "text": t} for t in texts]}

    def said(self, given: list[dict[str, Any]], item: dict[str, Any] | None) -> tuple[str, str]:
        """The reasoning the events said, and the response's (cut off when ``item`` is None)."""
        body = [_final(item)] if item is not None else []
        events, response = run_stream(
            codec.stream, sse([_add(0, self.SHELL), *given, *body]), allow_incomplete=item is None
        )
        return "".join(e.text for e in events if isinstance(e, ReasoningDelta)), summary(response)[
            1
        ]

    def test_nothing_joins_a_summary_and_content_that_is_not_reasoning(self) -> None:
        summed = {**self.SHELL, "summary": [{"type": "summary_text", "text": "S"}]}
        item = {**summed, "content": [self.EMPTY, self.EMPTY]}
        given = [self.text(0, "S", "summary"), self.part("added", 0, self.EMPTY)]
        given += [self.part("added", 1, self.EMPTY), _done(0, item)]
        assert self.said(given, item) == ("S", "S")

    def test_a_part_added_twice_is_joined_once(self) -> None:
        given = [self.part("added", 0, self.EMPTY), self.text(0, "a")]
        given += [self.part("added", 1, self.EMPTY), self.part("added", 1, self.EMPTY)]
        given += [self.text(1, "b")]
        assert self.said(given, self.content("a", "b")) == ("a\n\nb", "a\n\nb")

    @pytest.mark.parametrize("key", ["content", "summary"])
    def test_empty_parts_are_joined_as_the_response_joins_them(self, key: str) -> None:
        kind = "summary_text" if key == "summary" else "reasoning_text"
        parts = [{"type": kind, "text": t} for t in ("a", "", "b", "")]
        item = {**self.SHELL, key: parts}
        given = [self.part("added", at, {"type": kind, "text": ""}, key) for at in range(4)]
        given[2:2] = [self.text(0, "a", key)]
        given += [self.text(2, "b", key), _done(0, item)]
        assert self.said(given, item) == ("a\n\n\n\nb\n\n", "a\n\n\n\nb\n\n")

    def test_parts_of_another_type_are_not_joined(self) -> None:
        other = {"type": "output_text", "text": ""}
        given = [self.part("added", 0, other), self.part("added", 1, other)]
        item = {**self.SHELL, "content": [other, other]}
        assert self.said([*given, _done(0, item)], item) == ("", "")

    @pytest.mark.parametrize(
        "given",
        [
            [],
            [event("response.reasoning_text.done", 3, output_index=0, content_index=0, text="Th")],
            [
                event(
                    "response.reasoning_text.delta", 3, output_index=0, content_index=0, delta="Th"
                )
            ],
        ],
        ids=("done-only", "text-done", "begun"),
    )
    def test_text_only_the_done_event_holds_is_said_there(self, given: list[Any]) -> None:
        item = self.content("Think.")
        assert self.said([*given, _done(0, item)], item) == ("Think.", "Think.")

    def test_a_summary_only_the_done_event_holds_is_said_there(self) -> None:
        item = {**self.SHELL, "summary": [{"type": "summary_text", "text": "Y"}]}
        assert self.said([_done(0, item)], item) == ("Y", "Y")

    def test_a_delta_opening_a_part_is_joined_to_the_one_before(self) -> None:
        given = [self.text(0, "a"), self.text(1, "b")]
        assert self.said(given, None) == ("a\n\nb", "a\n\nb")
        assert self.said(given, self.content("a", "b")) == ("a\n\nb", "a\n\nb")
        given = [self.text(0, "a", "summary"), self.text(1, "b", "summary")]
        assert self.said(given, None) == ("a\n\nb", "a\n\nb")

    @pytest.mark.parametrize(
        ("given", "item"),
        [
            (["X"], ["Y"]),
            (["Think"], ["Thought."]),
        ],
        ids=("other", "diverging"),
    )
    def test_other_reasoning_than_the_deltas_gave_is_refused(
        self, given: list[str], item: list[str]
    ) -> None:
        deltas = [self.text(at, text) for at, text in enumerate(given)]
        for ending in ([_done(0, self.content(*item))], [_final(self.content(*item))]):
            with pytest.raises(cc.StreamError, match="must be the reasoning its deltas gave"):
                run_stream(codec.stream, sse([_add(0, self.SHELL), *deltas, *ending]))

    def test_content_deltas_beside_a_summary_are_refused(self) -> None:
        item = {**self.content("C"), "summary": [{"type": "summary_text", "text": "S"}]}
        given = [self.text(0, "S", "summary"), self.text(0, "C")]
        with pytest.raises(cc.StreamError, match="must be the reasoning its deltas gave"):
            self.said(given, item)

    def test_a_summary_and_content_are_written_as_the_reader_reads_them(self) -> None:
        item = {**self.content("C"), "summary": [{"type": "summary_text", "text": "S"}]}
        response = codec.decode_response(json.dumps(_final(item)["response"]))
        events, again = run_stream(codec.stream, codec.encode_stream(response))
        said = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
        assert said == summary(again)[1] == summary(response)[1] == "S"
        assert again.message == response.message

    def test_deltas_at_an_item_kept_whole_when_added_are_refused_as_they_come(self) -> None:
        kept = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": 5}
        decoder = codec.stream()
        with pytest.raises(cc.StreamError, match="must be reasoning, as its events gave it"):
            decoder.feed(sse([_add(0, kept), self.text(0, "S", "summary")]))

    @pytest.mark.parametrize("kind", ["response", "request"])
    def test_one_empty_summary_part_is_kept(self, kind: str) -> None:
        item = {**self.content("Think."), "summary": [{"type": "summary_text", "text": ""}]}
        if kind == "response":
            body = json.dumps(_final(item)["response"])
            written = json.loads(codec.encode_response(codec.decode_response(body)))["output"][0]
        else:
            body = json.dumps({"model": "m", "input": [{"role": "user", "content": "Hi"}, item]})
            written = json.loads(codec.encode_request(codec.decode_request(body)))["input"][1]
        assert written == item
