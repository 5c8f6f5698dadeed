"""The Responses API stream encoder: its events, read back and by openai-python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from corpus import needs_corpus
from msgspec import Raw
from readers import (
    decode,
    encode_events,
    raw_of,
    recorded,
    recorded_run,
    responses_complaints,
    responses_sdk,
    sse_payloads,
    stream_file,
)

from chatcodec import FinishReason, Response, Usage, translate_stream
from chatcodec._content import ReasoningPart
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
from chatcodec._stream import ToolCallArgumentsDelta, ToolCallStarted
from chatcodec._tools import ToolCall
from chatcodec.providers import openai_responses

FAMILY = "openai-responses"
# What openai-python's Response type requires, and a head from another family lacks.
ENVELOPE = {"created_at": 1, "tools": [], "tool_choice": "auto", "parallel_tool_calls": True}
HEAD = Response(id="resp_1", model="gpt-5", extras={FAMILY: ENVELOPE})


def events_of(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(data) for _, data in sse_payloads(raw)]


class TestOfficialReader:
    """Recorded streams written again pass openai-python's types and fold to our response."""

    @pytest.mark.parametrize(("family", "path"), needs_corpus(recorded(FAMILY), 2))
    def test_events_and_whole(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        recording = raw_of(path)
        assert recording is not None
        allowed = responses_complaints(recording)
        for raw in (
            encode_events(family, events, response),
            openai_responses.encode_stream(response),
        ):
            assert responses_complaints(raw) <= allowed
            ours = decode(family, raw)[1]
            final = responses_sdk(raw)
            assert final.id == ours.id
            assert final.output_text == (ours.message.text if ours.message else "")
            calls = [
                (o.call_id, o.name, o.arguments) for o in final.output if o.type == "function_call"
            ]
            assert calls == [(c.id, c.name, bytes(c.arguments).decode()) for c in ours.tool_calls]
            assert final.status == (ours.choices[0].extras or {})[FAMILY]["~status"]


def answer() -> list[StreamEvent]:
    """Reasoning, text, a refusal, two calls whose fragments interleave, the end."""
    return [
        ReasoningDelta("Let me"),
        ReasoningDelta(" think."),
        TextDelta("On "),
        TextDelta("it."),
        RefusalDelta("Not that."),
        ToolCallStarted(0, "call_a", "f"),
        ToolCallStarted(1, "call_b", "g"),
        ToolCallArgumentsDelta(1, '{"b":'),
        ToolCallArgumentsDelta(0, '{"a":1}'),
        ToolCallArgumentsDelta(1, "2}"),
        ToolCallCompleted(0, ToolCall("call_a", "f", Raw(b'{"a":1}'))),
        ToolCallCompleted(1, ToolCall("call_b", "g", Raw(b'{"b":2}'))),
        Finished(FinishReason.TOOL_CALLS, "tool_calls"),
        UsageReported(Usage(7, 9, cached_tokens=0, reasoning_tokens=0)),
    ]


class TestEncoderRules:
    """Sequence numbers, item and part addresses, the last event, and what is lost."""

    def test_addresses(self) -> None:
        raw = encode_events(FAMILY, answer(), HEAD)
        events = events_of(raw)
        assert [e["sequence_number"] for e in events] == list(range(len(events)))
        assert [e["type"] for e in events[:2]] == ["response.created", "response.in_progress"]
        assert events[0]["response"]["status"] == "in_progress"
        assert events[0]["response"]["output"] == []
        added = [e for e in events if e["type"] == "response.output_item.added"]
        assert [(e["output_index"], e["item"]["type"]) for e in added] == [
            (0, "reasoning"),
            (1, "message"),
            (2, "function_call"),
            (3, "function_call"),
        ]
        ids = {e["output_index"]: e["item"].get("id") for e in added}
        summary = [e for e in events if e["type"] == "response.reasoning_summary_text.delta"]
        assert [(e["output_index"], e["summary_index"], e["item_id"]) for e in summary] == [
            (0, 0, ids[0])
        ] * 2
        text = [e for e in events if e["type"] == "response.output_text.delta"]
        assert [(e["output_index"], e["content_index"], e["delta"]) for e in text] == [
            (1, 0, "On "),
            (1, 0, "it."),
        ]
        refusal = [e for e in events if e["type"] == "response.refusal.delta"]
        assert [(e["output_index"], e["content_index"]) for e in refusal] == [(1, 1)]
        arguments = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
        assert [(e["output_index"], e["delta"]) for e in arguments] == [
            (3, '{"b":'),
            (2, '{"a":1}'),
            (3, "2}"),
        ]
        assert len({e["item_id"] for e in arguments}) == 2
        done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
        assert [e["arguments"] for e in done] == ['{"a":1}', '{"b":2}']
        last = events[-1]
        assert last["type"] == "response.completed"
        assert last["response"]["status"] == "completed"
        assert last["response"]["usage"]["total_tokens"] == 16
        assert [item["type"] for item in last["response"]["output"]] == [
            "reasoning",
            "message",
            "function_call",
            "function_call",
        ]
        # The one field openai-python asks for that no recorded OpenAI stream has either.
        newer = ("response", "usage", "input_tokens_details", "cache_write_tokens")
        assert responses_complaints(raw) == {("response.completed", newer, "missing")}
        final = responses_sdk(raw)
        assert final.output_text == "On it."
        decoded = decode(FAMILY, raw)[1]
        message = decoded.message
        assert message is not None
        assert message.text == "On it."
        assert message.reasoning == "Let me think."
        assert [(c.id, bytes(c.arguments)) for c in decoded.tool_calls] == [
            ("call_a", b'{"a":1}'),
            ("call_b", b'{"b":2}'),
        ]
        assert decoded.finish_reason is FinishReason.TOOL_CALLS
        assert decoded.usage == Usage(7, 9, 16, cached_tokens=0, reasoning_tokens=0)

    @pytest.mark.parametrize(
        ("reason", "kind", "status"),
        [
            (FinishReason.LENGTH, "response.incomplete", "incomplete"),
            (FinishReason.ERROR, "response.failed", "failed"),
            (FinishReason.STOP, "response.completed", "completed"),
        ],
    )
    def test_last_event_by_status(self, reason: FinishReason, kind: str, status: str) -> None:
        raw = encode_events(FAMILY, [TextDelta("Hel"), Finished(reason)], HEAD)
        last = events_of(raw)[-1]
        assert (last["type"], last["response"]["status"]) == (kind, status)
        assert decode(FAMILY, raw)[1].finish_reason is reason

    def test_head_reasoning_content_and_keys(self) -> None:
        """A head whose reasoning item held reasoning_text gets its text there again."""
        body = (
            b'{"id":"r","object":"response","status":"completed","model":"m","output":['
            b'{"type":"reasoning","id":"rs_9","summary":[],'
            b'"content":[{"type":"reasoning_text","text":"old"}]},'
            b'{"type":"message","id":"msg_9","status":"completed","role":"assistant",'
            b'"phase":"final_answer","content":[{"type":"output_text","text":"x",'
            b'"annotations":[],"logprobs":[]}]}]}'
        )
        head = openai_responses.decode_response(body)
        raw = encode_events(FAMILY, [ReasoningDelta("new"), TextDelta("Hi")], head)
        kinds = [e["type"] for e in events_of(raw)]
        assert "response.reasoning_text.delta" in kinds
        final = events_of(raw)[-1]["response"]["output"]
        assert final[0] == {
            "type": "reasoning",
            "id": "rs_9",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "new"}],
        }
        assert final[1]["id"] == "msg_9"
        assert final[1]["phase"] == "final_answer"
        assert final[1]["content"] == [
            {"type": "output_text", "annotations": [], "logprobs": [], "text": "Hi"}
        ]

    def test_signature_closes_reasoning(self) -> None:
        events: list[StreamEvent] = [ReasoningDelta("Hm"), ReasoningDelta("", signature="enc")]
        raw = encode_events(FAMILY, [*events, TextDelta("4")], HEAD)
        decoded = decode(FAMILY, raw)[1].message
        assert decoded is not None
        assert decoded.content is not None
        part = decoded.content[0]
        assert type(part) is ReasoningPart
        assert (part.text, part.signature) == ("Hm", "enc")

    def test_call_without_id_goes_whole(self) -> None:
        call = ToolCall("call_1", "f", Raw(b'{"x": [1, 2]}'))
        events: list[StreamEvent] = [
            ToolCallStarted(0, None, None),
            ToolCallArgumentsDelta(0, '{"x": [1, 2]}'),
            ToolCallCompleted(0, call),
        ]
        raw = encode_events(FAMILY, events, HEAD)
        kinds = [e["type"] for e in events_of(raw)]
        assert kinds.count("response.function_call_arguments.delta") == 1
        assert decode(FAMILY, raw)[1].tool_calls == (call,)

    def test_losses(self) -> None:
        losses: list[Any] = []
        raw = encode_events(FAMILY, [TextDelta("a", choice=1), TextDelta("b")], None, losses=losses)
        assert [(loss.path, loss.reason) for loss in losses] == [
            ("$.choices[1]", "openai-responses has one answer per response")
        ]
        assert decode(FAMILY, raw)[1].message.text == "b"  # type: ignore[union-attr]

    def test_no_events(self) -> None:
        encoder = openai_responses.stream_encoder(HEAD)
        events = events_of(encoder.finish())
        assert [e["type"] for e in events] == [
            "response.created",
            "response.in_progress",
            "response.completed",
        ]
        assert events[-1]["response"]["output"] == []

    def test_parts_written_whole_keep_distinct_ids(self) -> None:
        """Ids derived from a part's place repeat across parts: each item gets its own."""
        part = ReasoningPart("", redacted="opaque", provider="anthropic")
        events: list[StreamEvent] = [PartReceived(part), PartReceived(part), TextDelta("Hi")]
        raw = encode_events(FAMILY, events, HEAD, losses=[])
        output = events_of(raw)[-1]["response"]["output"]
        assert [item["type"] for item in output] == ["reasoning", "reasoning", "message"]
        assert len({item["id"] for item in output}) == 3
        assert responses_sdk(raw).output_text == "Hi"


class TestReasoningItems:
    """A reasoning item that carries only its encrypted content is an event, written back."""

    NAME = (
        "pydantic-ai__models__test_openai_responses"
        "__test_openai_responses_phase_streamed_on_part_start__00"
    )

    def recording(self) -> tuple[bytes, str]:
        """The recorded stream, and its reasoning item's content as its done event has it."""
        raw = raw_of(stream_file(self.NAME))
        assert raw is not None
        (item,) = [
            e["item"]
            for e in events_of(raw)
            if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning"
        ]
        assert item["summary"] == []
        assert item.get("content") == []
        return raw, item["encrypted_content"]

    def test_event_at_item_done(self) -> None:
        raw, encrypted = self.recording()
        events = decode(FAMILY, raw)[0]
        assert ReasoningDelta("", signature=encrypted) in events

    def test_written_back(self) -> None:
        raw, encrypted = self.recording()
        events = decode(FAMILY, raw)[0]
        again = encode_events(FAMILY, events, HEAD)
        output = events_of(again)[-1]["response"]["output"]
        recorded = events_of(raw)[-1]["response"]["output"]
        assert [item["type"] for item in output] == [item["type"] for item in recorded]
        assert output[0]["encrypted_content"] == encrypted
        assert responses_sdk(again).output[0].encrypted_content == encrypted

    def test_translated_to_itself(self) -> None:
        raw, encrypted = self.recording()
        translator = translate_stream(FAMILY, FAMILY)
        out = b"".join(translator.feed(raw[k : k + 97]) for k in range(0, len(raw), 97))
        out += translator.finish()[0]
        part = decode(FAMILY, out)[1].message.content[0]  # type: ignore[union-attr, index]
        assert type(part) is ReasoningPart
        assert part.signature == encrypted

    @pytest.mark.parametrize("target", ["openai", "gemini", "ollama", "bedrock"])
    def test_translated_to_another_family(self, target: str) -> None:
        """Another family gets no empty reasoning for the signature it cannot take."""
        raw, _ = self.recording()
        translator = translate_stream(FAMILY, target)
        out = translator.feed(raw)
        tail, report = translator.finish()
        message = decode(target, out + tail)[1].message
        assert message is not None
        assert not any(type(p) is ReasoningPart for p in message.content or ())
        assert "a reasoning signature made by another provider" in [x.reason for x in report]

    BODY: ClassVar[dict[str, Any]] = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "tools": [],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "output": [
            {
                "id": "rs_1",
                "type": "reasoning",
                "encrypted_content": "enc",
                "summary": [
                    {"type": "summary_text", "text": "**Plan**\n\nFirst"},
                    {"type": "summary_text", "text": "Then"},
                    {"type": "summary_text", "text": ""},
                ],
            },
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "4", "annotations": []}],
            },
        ],
    }

    def test_summary_parts_told_apart(self) -> None:
        """The deltas make the reasoning text, and their events keep each summary part."""
        response = openai_responses.decode_response(json.dumps(self.BODY).encode())
        events, decoded = decode(FAMILY, openai_responses.encode_stream(response))
        assert decoded == response
        reasoning = [e for e in events if type(e) is ReasoningDelta]
        part = response.message.content[0]  # type: ignore[union-attr, index]
        assert "".join(e.text for e in reasoning) == part.text  # type: ignore[union-attr]
        assert [e.text for e in reasoning].count("\n\n") == 2
        raw = encode_events(FAMILY, events, None)
        written = events_of(raw)
        assert written[-1]["response"]["output"][0]["summary"] == self.BODY["output"][0]["summary"]
        added = [e["summary_index"] for e in written if e["type"].endswith("summary_part.added")]
        assert added == [0, 1, 2]
        assert decode(FAMILY, raw)[0] == events
        assert responses_sdk(raw).output[0].summary[1].text == "Then"


class TestItemsTheReaderKeepsWhole:
    """An item the body reader keeps whole goes whole: no event says its text or call.

    Fuzz finds of ``encode_stream``: a message item without a role, a call item
    without a name and a reasoning part of an unknown type were written with
    text or argument events, which said text or a call the response, read
    from the final body, did not hold.
    """

    @staticmethod
    def body(*output: dict[str, Any]) -> bytes:
        return json.dumps(
            {
                "id": "resp_1",
                "object": "response",
                "model": "gpt-5",
                "status": "completed",
                "output": list(output),
            }
        ).encode()

    @pytest.mark.parametrize(
        "item",
        [
            {"type": "message", "id": "msg_1", "content": [{"type": "output_text", "text": "Hi"}]},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi"}, "not a part"],
            },
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "arguments": "{}"},
            {"type": "function_call", "id": "fc_1", "call_id": "", "name": "f", "arguments": "{}"},
            {"type": "custom_tool_call", "id": "ct_1", "call_id": "call_1", "input": "x"},
            {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": {}},
            {"type": "custom_tool_call", "id": "ct_1", "call_id": "call_1", "name": "g"},
        ],
        ids=(
            "message-without-role",
            "part-not-an-object",
            "call-without-name",
            "call-with-empty-id",
            "custom-call-without-name",
            "call-arguments-an-object",
            "custom-call-without-input",
        ),
    )
    def test_written_whole_and_read_back_as_the_body(self, item: dict[str, Any]) -> None:
        body = self.body(item)
        whole = openai_responses.decode_response(body)
        written = openai_responses.encode_stream(whole)
        kinds = [e["type"] for e in events_of(written)]
        assert kinds == [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.output_item.done",
            "response.completed",
        ]
        events, again = decode(FAMILY, written)
        assert again == whole
        assert [type(e).__name__ for e in events] == ["PartReceived", "Finished"]

    def test_a_call_kept_whole_is_not_announced_by_its_added_event(self) -> None:
        item = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": {}}
        written = openai_responses.encode_stream(openai_responses.decode_response(self.body(item)))
        added = [e["item"] for e in events_of(written) if e["type"].endswith("item.added")]
        assert added == [{"type": "function_call", "id": "fc_1", "arguments": {}}]

    def test_an_answer_of_text_content_reads_back_in_its_place(self) -> None:
        first = {"type": "message", "id": "msg_0", "role": "assistant", "content": "A"}
        second = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "B", "annotations": []}],
        }
        whole = openai_responses.decode_response(self.body(first, second))
        events, again = decode(FAMILY, openai_responses.encode_stream(whole))
        assert again == whole
        assert [e.text for e in events if type(e).__name__ == "TextDelta"] == ["A", "B"]

    def test_a_reasoning_part_of_an_unknown_type_goes_whole(self) -> None:
        reasoning = {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "content": [{"type": "reasoning_t", "text": "Think."}],
        }
        answer = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "OSS", "annotations": []}],
        }
        whole = openai_responses.decode_response(self.body(reasoning, answer))
        written = openai_responses.encode_stream(whole)
        deltas = [(e["type"], e["delta"]) for e in events_of(written) if "delta" in e]
        assert deltas == [("response.output_text.delta", "OSS")]
        assert decode(FAMILY, written)[1] == whole
