"""translate_stream: recorded streams of one family re-sent live as another's, read by the SDKs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import random_sizes
from msgspec import Raw
from readers import (
    ALL_STREAMS,
    FAMILIES,
    anthropic_sdk,
    botocore_events,
    codec,
    decode,
    openai_sdk,
    raw_of,
    recorded_run,
    responses_complaints,
    responses_sdk,
    stream_file,
)
from whole import whole_arguments

from chatcodec import (
    AssistantMessage,
    Choice,
    FinishReason,
    Response,
    StreamError,
    ToolCall,
    translate_stream,
)
from chatcodec._content import ReasoningPart, RefusalPart
from chatcodec._events import PartReceived, TextDelta


def translate(source: str, target: str, raw: bytes, sizes: list[int], **options: Any) -> Any:
    """Feed ``raw`` in pieces; the target's bytes per piece, the tail and the report."""
    translator = translate_stream(source, target, **options)
    pieces, at = [], 0
    for size in sizes:
        pieces.append(translator.feed(raw[at : at + size]))
        at += size
    pieces.append(translator.feed(raw[at:]))
    tail, report = translator.finish()
    return pieces, tail, report, translator


def live_params(family: str) -> list[Any]:
    return [p for p in ALL_STREAMS if p.values[0] == family and "corpus" not in str(p.values[1])]


class TestTranslateStream:
    """Live translation: source bytes in, target bytes out as soon as they can be written."""

    @pytest.mark.parametrize(("family", "path"), live_params("anthropic"))
    def test_anthropic_to_openai(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        raw = raw_of(path)
        assert raw is not None
        head = Response(extras={"openai": {"created": 1}})
        pieces, tail, report, translator = translate(
            "anthropic", "openai", raw, random_sizes(len(raw), 9), head=head
        )
        out = b"".join(pieces) + tail
        assert translator.response == response
        decoded = decode("openai", out)[1]
        ours = response.message
        assert ours is not None
        assert decoded.message is not None
        assert decoded.message.text == ours.text
        assert [(c.id, c.name, c.arguments) for c in decoded.tool_calls] == [
            (c.id, c.name, c.arguments) for c in ours.tool_calls
        ]
        assert decoded.finish_reason == response.finish_reason
        assert decoded.id == response.id
        completion = openai_sdk(out)
        assert (completion.choices[0].message.content or "") == ours.text
        if any(type(e) is PartReceived for e in events):
            assert report  # server-tool blocks have no Chat Completions field
        # Text leaves in the feed that brought it: the first text delta's piece has it.
        first = next((e for e in events if type(e) is TextDelta), None)
        if first is not None:
            assert json.dumps(first.text)[1:-1].encode() in b"".join(pieces)

    @pytest.mark.parametrize(("family", "path"), live_params("openai"))
    def test_openai_to_anthropic(self, family: str, path: Path) -> None:
        _, response = recorded_run(family, path)
        raw = raw_of(path)
        assert raw is not None
        if len(response.choices) != 1:
            pytest.skip("several answers: Anthropic has one")
        pieces, tail, _, _ = translate("openai", "anthropic", raw, random_sizes(len(raw), 13))
        out = b"".join(pieces) + tail
        decoded = decode("anthropic", out)[1]
        ours = response.message
        assert ours is not None
        assert decoded.message is not None
        # A refusal goes as text (and is reported lost as a refusal).
        parts = () if isinstance(ours.content, str) or ours.content is None else ours.content
        expected = ours.text + "".join(p.text for p in parts if type(p) is RefusalPart)
        assert decoded.message.text == expected
        assert [(c.id, c.name, c.arguments) for c in decoded.tool_calls] == [
            (c.id, c.name, c.arguments) for c in ours.tool_calls
        ]
        message = anthropic_sdk(out)
        text = "".join(block.text for block in message.content if block.type == "text")
        assert text == expected
        assert message.id == response.id

    def test_first_text_leaves_in_the_same_feed(self) -> None:
        translator = translate_stream("openai", "anthropic")
        out = translator.feed(
            b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
            b'"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n'
        )
        assert b'"text":"Hel"' in out
        assert translator.feed(b'data: {"id":"c1","object":"chat.completion.chunk",') == b""

    def test_report_and_errors(self) -> None:
        translator = translate_stream("anthropic", "openai")
        translator.feed(
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
            b'"type":"message","role":"assistant","model":"c","content":[],'
            b'"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n'
            b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            b'"content_block":{"type":"thinking","thinking":"","signature":""}}\n\n'
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
            b'"delta":{"type":"signature_delta","signature":"s"}}\n\n'
        )
        _, report = translator.finish(allow_incomplete=True)
        assert report.paths == ["$.choices[0].message"]
        with pytest.raises(KeyError):
            translate_stream("anthropic", "nobody")
        translator = translate_stream("anthropic", "gemini")
        with pytest.raises(StreamError):
            translator.feed(
                b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error"}}\n\n'
            )

    def test_reasoning_signatures_stay_with_their_family(self) -> None:
        path = stream_file(
            "pydantic-ai__models__test_anthropic__test_anthropic_model_thinking_part_stream__00"
        )
        raw = raw_of(path)
        assert raw is not None
        out, tail, report, _ = translate("anthropic", "gemini", raw, [len(raw)])
        decoded = decode("gemini", b"".join(out) + tail)[1]
        assert decoded.message is not None
        parts = decoded.message.content
        assert isinstance(parts, tuple)
        assert [p.signature for p in parts if type(p) is ReasoningPart] == [None]
        assert "a reasoning signature made by another provider" in [loss.reason for loss in report]
        # Anthropic takes no reasoning another family signed or left unsigned.
        gemini_raw = raw_of(
            stream_file(
                "pydantic-ai__models__test_google__test_google_model_thinking_part_iter__00"
            )
        )
        assert gemini_raw is not None
        out, tail, report, _ = translate("gemini", "anthropic", gemini_raw, [7] * 50)
        decoded = decode("anthropic", b"".join(out) + tail)[1]
        assert decoded.message is not None
        assert not any(type(p) is ReasoningPart for p in decoded.message.content or ())
        assert report.paths == ["$.choices[0].message"]


class TestFlushAndComplete:
    """flush() ends the source's input and leaves the target open; complete says if it ended."""

    STREAM = "anthropic__anthropic-sdk-python__streaming__tool_use_response"

    def raw(self) -> bytes:
        path = Path(__file__).parent.parent / "data" / "streams" / f"{self.STREAM}.json"
        data: str = json.loads(path.read_bytes())["raw"]
        return data.encode()

    def test_a_whole_stream(self) -> None:
        raw = self.raw()
        whole = translate_stream("anthropic", "openai")
        expected = whole.feed(raw)
        tail, _ = whole.finish()
        translator = translate_stream("anthropic", "openai")
        out = translator.feed(raw[:-1])  # message_stop's last byte still to come
        before = translator.complete
        out += translator.feed(raw[-1:]) + translator.flush()
        assert (before, translator.complete) == (False, True)
        end, _ = translator.finish()
        assert out + end == expected + tail
        assert end.endswith(b"data: [DONE]\n\n")

    def test_a_stream_cut_off(self) -> None:
        raw = self.raw()
        cut = raw[: raw.index(b"event: message_delta")]
        translator = translate_stream("anthropic", "openai")
        out = translator.feed(cut) + translator.flush()
        assert not translator.complete
        assert b"[DONE]" not in out  # nothing closed yet: the caller chooses what to send

    @pytest.mark.parametrize("flushed", [False, True])
    def test_finish_refuses_a_stream_cut_off(self, flushed: bool) -> None:
        """As a decoder's finish(): a cut-off source raises, unless allow_incomplete."""
        raw = self.raw()
        cut = raw[: raw.index(b"event: message_delta")]
        translator = translate_stream("anthropic", "openai")
        out = translator.feed(cut) + (translator.flush() if flushed else b"")
        with pytest.raises(StreamError, match="cut off before message_stop") as caught:
            translator.finish()
        assert caught.value.partial is not None
        # Cut after its blocks: the calls are whole.
        assert caught.value.partial.tool_calls == decode("anthropic", raw)[1].tool_calls
        with pytest.raises(StreamError):
            translator.finish()  # still open: asked again, still refused
        end, _ = translator.finish(allow_incomplete=True)
        assert end.endswith(b"data: [DONE]\n\n")
        # The bytes of the source's last events are sent once, whichever call made them.
        again = translate_stream("anthropic", "openai")
        expected = again.feed(cut) + again.flush() + again.finish(allow_incomplete=True)[0]
        assert out + end == expected
        assert translator.finish(allow_incomplete=True)[0] == b""
        assert translator.response == caught.value.partial  # what came, not an error

    @pytest.mark.parametrize(("family", "path"), live_params("gemini") + live_params("openai"))
    def test_any_source_cut_off(self, family: str, path: Path) -> None:
        raw = raw_of(path)
        if raw is None or not raw.startswith(b"data:"):
            pytest.skip("not a whole server-sent event stream")
        events = raw.replace(b"\r\n", b"\n").strip().split(b"\n\n")
        # Cut before the first event with a finish reason, which ends a choice.
        last = [k for k, e in enumerate(events) if re.search(rb'"finish_?[rR]eason": ?"', e)]
        if not last or last[0] == 0:
            pytest.skip("no event before the finish reason")
        cut = b"\n\n".join(events[: last[0]]) + b"\n\n"
        translator = translate_stream(family, "anthropic")
        translator.feed(cut)
        translator.flush()
        assert not translator.complete
        with pytest.raises(StreamError, match="cut off"):
            translator.finish()
        tail, _ = translator.finish(allow_incomplete=True)
        assert tail.endswith(b'data: {"type":"message_stop"}\n\n')


NEW = ("openai-responses", "bedrock")


def pair_params() -> list[Any]:
    """Every pair of families on each curated stream of the source; the corpus's too
    where the Responses API or Bedrock is one of the two."""
    return [
        pytest.param(source, target, p.values[1], id=f"{source}-{target}-{p.id}"[:120])
        for p in ALL_STREAMS
        for source in (p.values[0],)
        for target in FAMILIES
        if "corpus" not in str(p.values[1]) or source in NEW or target in NEW
    ]


class TestEveryPair:
    """Every family to every family, live: the target's stream says the source's answer."""

    @pytest.mark.parametrize(("source", "target", "path"), pair_params())
    def test_pair(self, source: str, target: str, path: Path) -> None:
        _, response = recorded_run(source, path)
        raw = raw_of(path)
        assert raw is not None
        if len(response.choices) != 1 and target not in ("openai", "gemini"):
            pytest.skip("several answers: only Chat Completions and Gemini carry them")
        sizes = random_sizes(len(raw), 11)
        # What openai-python's Response type requires, and a head from another family lacks.
        envelope = {
            "created_at": 1,
            "tools": [],
            "tool_choice": "auto",
            "parallel_tool_calls": True,
        }
        head = Response(extras={"openai-responses": envelope})
        pieces, tail, report, translator = translate(source, target, raw, sizes, head=head)
        assert translator.response == response
        # Each text delta leaves in the feed that brought it.
        reader, at = codec(source).stream(), 0
        for size, piece in zip([*sizes, len(raw)], pieces, strict=True):
            for event in reader.feed(raw[at : at + size]):
                if type(event) is TextDelta and event.text:
                    assert msgspec.json.encode(event.text)[1:-1] in piece
            at += size
        decoded = decode(target, b"".join(pieces) + tail)[1]
        ours = response.message
        assert ours is not None
        theirs = decoded.message
        parts = () if isinstance(ours.content, str) or ours.content is None else ours.content
        refusal = "".join(p.text for p in parts if type(p) is RefusalPart)
        text = ours.text + (refusal if target not in ("openai", "openai-responses") else "")
        assert (theirs.text if theirs is not None else "") == text
        expected: list[tuple[str | None, Any]] = [
            (c.name, c.arguments_dict()) for c in ours.tool_calls
        ]
        if target in ("gemini", "ollama") and ours.invalid_tool_calls:
            # A call goes out whole there, and whole arguments must be an object: {}, said lost.
            expected += [(c.name, {}) for c in ours.invalid_tool_calls]
            assert report
        assert [(c.name, c.arguments_dict()) for c in decoded.tool_calls] == expected
        if target != "ollama":  # Ollama's calls have no ids on the wire
            assert [c.id for c in decoded.tool_calls][: len(ours.tool_calls)] == [
                c.id for c in ours.tool_calls
            ]
        if response.usage is not None:
            assert decoded.usage is not None
            assert decoded.usage.completion_tokens == response.usage.completion_tokens
        out = b"".join(pieces) + tail
        if target == "openai-responses":
            # openai-python's types: its usage details (no recording has them all either),
            # the id and model when the source has none, and what the recording had.
            allowed = responses_complaints(raw) if source == target else set()
            for _, where, _ in responses_complaints(out) - allowed:
                said = where[:2] == ("response", "usage")
                said = said or (where == ("response", "id") and response.id is None)
                assert said or (where == ("response", "model") and response.model is None)
            assert responses_sdk(out).output_text == text
        if target == "bedrock":
            parsed = botocore_events(out)
            deltas = [e["contentBlockDelta"]["delta"] for e in parsed if "contentBlockDelta" in e]
            assert "".join(delta.get("text", "") for delta in deltas) == text


def whole_params() -> list[Any]:
    return [pytest.param(s, t, id=f"{s}-{t}") for s in FAMILIES for t in FAMILIES]


class TestWholeArguments:
    """A call whose arguments come at once (or only at its end) reaches every target whole."""

    CALLS = (
        ToolCall("call_1", "get_weather", Raw(b'{"city": "Paris", "days": [1, 2]}')),
        ToolCall("call_2", "ping", Raw(b"{}")),
    )

    def source(self, family: str) -> bytes:
        message = AssistantMessage(content="Let me look.", tool_calls=self.CALLS)
        response = Response((Choice(message, FinishReason.TOOL_CALLS),), id="r1", model="m")
        return whole_arguments(family, codec(family).encode_stream(response))

    def test_the_rewrites_say_arguments_at_once(self) -> None:
        responses = self.source("openai-responses")
        assert b"function_call_arguments.delta" not in responses
        assert b"function_call_arguments.done" in responses
        anthropic = self.source("anthropic")
        assert b"input_json_delta" not in anthropic
        assert b'"input": {"city": "Paris"' in anthropic

    @pytest.mark.parametrize(("source", "target"), whole_params())
    def test_pair(self, source: str, target: str) -> None:
        raw = self.source(source)
        _, read = decode(source, raw)
        assert [c.arguments_dict() for c in read.tool_calls] == [
            c.arguments_dict() for c in self.CALLS
        ]
        for sizes in ([len(raw)], random_sizes(len(raw), 5)):
            pieces, tail, report, _ = translate(source, target, raw, sizes)
            decoded = decode(target, b"".join(pieces) + tail)[1]
            assert [(c.name, c.arguments_dict()) for c in decoded.tool_calls] == [
                (c.name, c.arguments_dict()) for c in self.CALLS
            ]
            assert not decoded.message or not decoded.message.invalid_tool_calls
            assert "tool_calls" not in " ".join(report.paths)

    @pytest.mark.parametrize("target", FAMILIES)
    def test_responses_arguments_only_in_done(self, target: str) -> None:
        """The form from the issue: no delta, the arguments in .done and output_item.done."""
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"}
        begun = {**item, "arguments": "", "status": "in_progress"}
        done = {**item, "arguments": '{"a":5}', "status": "completed"}
        head = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m"}
        usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": {**head, "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": begun},
            {
                "type": "response.function_call_arguments.done",
                "output_index": 0,
                "item_id": "fc_1",
                "arguments": '{"a":5}',
            },
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {
                "type": "response.completed",
                "response": {**head, "status": "completed", "output": [done], "usage": usage},
            },
        ]
        raw = b"".join(
            b"event: %s\ndata: %s\n\n"
            % (e["type"].encode(), json.dumps({**e, "sequence_number": k}).encode())
            for k, e in enumerate(events)
        )
        pieces, tail, _, _ = translate("openai-responses", target, raw, [])
        decoded = decode(target, b"".join(pieces) + tail)[1]
        assert [(c.name, c.arguments_dict()) for c in decoded.tool_calls] == [("f", {"a": 5})]


class TestNoUsage:
    """A source that sent no usage: the target has none, or says the counts it wrote are not."""

    @pytest.mark.parametrize(("source", "target"), whole_params())
    def test_pair(self, source: str, target: str) -> None:
        response = Response((Choice(AssistantMessage(content="ok"), FinishReason.STOP),), id="r")
        raw = codec(source).encode_stream(response)
        assert decode(source, raw)[1].usage is None
        pieces, tail, report, _ = translate(source, target, raw, [])
        usage = decode(target, b"".join(pieces) + tail)[1].usage
        assert usage is None or "$.usage" in report.paths
        if target == "anthropic":  # its usage is required: zeros, reported
            assert "$.usage" in report.paths


class TestCustomToolCall:
    """A Responses custom_tool_call (free-form input) is a call with {"input": text} anywhere."""

    INPUT = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"

    def stream(self) -> bytes:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1"}
        item["name"] = "apply_patch"
        begun = {**item, "input": "", "status": "in_progress"}
        done = {**item, "input": self.INPUT, "status": "completed"}
        head = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m"}
        where = {"output_index": 0, "item_id": "ctc_1"}
        half = len(self.INPUT) // 2
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": {**head, "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": begun},
            {"type": "response.custom_tool_call_input.delta", **where, "delta": self.INPUT[:half]},
            {"type": "response.custom_tool_call_input.delta", **where, "delta": self.INPUT[half:]},
            {"type": "response.custom_tool_call_input.done", **where, "input": self.INPUT},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {
                "type": "response.completed",
                "response": {**head, "status": "completed", "output": [done]},
            },
        ]
        return b"".join(
            b"event: %s\ndata: %s\n\n"
            % (e["type"].encode(), json.dumps({**e, "sequence_number": k}).encode())
            for k, e in enumerate(events)
        )

    @pytest.mark.parametrize("target", FAMILIES)
    def test_carried(self, target: str) -> None:
        raw = self.stream()
        for sizes in ([], random_sizes(len(raw), 3)):
            pieces, tail, _, _ = translate("openai-responses", target, raw, sizes)
            out = b"".join(pieces) + tail
            decoded = decode(target, out)[1]
            assert [
                (c.id if target != "ollama" else "call_1", c.name) for c in decoded.tool_calls
            ] == [("call_1", "apply_patch")]
            assert decoded.tool_calls[0].arguments_dict() == {"input": self.INPUT}
            assert decoded.finish_reason is FinishReason.TOOL_CALLS
        if target == "openai-responses":  # written back as what it was
            assert b'"type":"custom_tool_call"' in out
            assert b"function_call" not in out


BLOCKED_OR_FAILED = (FinishReason.CONTENT_FILTER, FinishReason.ERROR)
WHOLE_FORMS = ("openai", "anthropic", "openai-responses", "bedrock")  # others send calls whole


def every_recorded_pair() -> list[Any]:
    """Every recorded stream (the curated ones and the corpus's) into every family, as
    recorded and rewritten with each call's arguments at once."""
    return [
        pytest.param(p.values[0], target, p.values[1], whole, id=f"{p.id}-{target}-{form}"[:150])
        for p in ALL_STREAMS
        for target in FAMILIES
        for whole, form in ((False, "recorded"), (True, "whole"))
        if not whole or p.values[0] in WHOLE_FORMS
    ]


class TestEveryRecordedStream:
    """Each recorded stream says the same in every family: text, calls, stop, usage."""

    @pytest.mark.parametrize(("source", "target", "path", "whole"), every_recorded_pair())
    def test_pair(self, source: str, target: str, path: Path, whole: bool) -> None:
        _, response = recorded_run(source, path)
        raw = raw_of(path)
        assert raw is not None
        if whole:
            raw = whole_arguments(source, raw)
            rewritten = decode(source, raw)[1]
            assert [(c.name, c.arguments_dict()) for c in rewritten.tool_calls] == [
                (c.name, c.arguments_dict()) for c in response.tool_calls
            ]
        if len(response.choices) != 1 and target not in ("openai", "gemini"):
            pytest.skip("several answers: only Chat Completions and Gemini carry them")
        pieces, tail, report, _ = translate(source, target, raw, random_sizes(len(raw), 17))
        decoded = decode(target, b"".join(pieces) + tail)[1]
        ours = response.message
        theirs = decoded.message
        # Text (a refusal goes as text where the target has no refusal).
        parts = () if ours is None or isinstance(ours.content, str) else ours.content or ()
        refusal = "".join(p.text for p in parts if type(p) is RefusalPart)
        text = (ours.text if ours is not None else "") + (
            refusal if target not in ("openai", "openai-responses") else ""
        )
        assert (theirs.text if theirs is not None else "") == text
        # Calls, with their parsed arguments.
        expected: list[tuple[str | None, Any]] = [
            (c.name, c.arguments_dict()) for c in response.tool_calls
        ]
        invalid = ours.invalid_tool_calls if ours is not None else ()
        if target in ("gemini", "ollama"):
            expected += [(c.name, {}) for c in invalid]
        assert [(c.name, c.arguments_dict()) for c in decoded.tool_calls] == expected
        # The finish reason's category: a blocked or failed stop never reads as a plain one.
        self.check_reason(response.finish_reason, decoded.finish_reason, target, report.paths)
        # Usage: the source's, or the report says what the target wrote instead.
        if response.usage is not None:
            assert decoded.usage is not None or "$.usage" in report.paths
        else:
            assert decoded.usage is None or "$.usage" in report.paths

    @staticmethod
    def check_reason(
        source: FinishReason | None, got: FinishReason | None, target: str, paths: list[str]
    ) -> None:
        said = any(path.endswith("finish_reason") for path in paths)
        plain = (FinishReason.STOP, FinishReason.TOOL_CALLS)
        if source in BLOCKED_OR_FAILED:
            assert got not in plain
            assert got is source or (said and got is None and target == "anthropic")
        elif source is FinishReason.LENGTH:
            assert got is FinishReason.LENGTH
        elif source in plain:
            assert got in plain
        elif source is FinishReason.OTHER:
            assert got is FinishReason.OTHER or (got is FinishReason.STOP and said)
        else:  # no reason known: the target's own end, never a block or failure
            assert got not in BLOCKED_OR_FAILED


def test_a_source_its_decoder_refuses_is_refused() -> None:
    """A text block without its text is refused where it starts, not passed on as if whole."""
    source = (
        b'event: message_start\ndata: {"type":"message_start","message":{"model":"m","id":"msg_1",'
        b'"type":"message","role":"assistant","content":[],"stop_reason":null,'
        b'"usage":{"input_tokens":3,"output_tokens":1}}}\n\n'
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"text","texu":""}}\n\n'
        b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
        b'"usage":{"output_tokens":2}}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    for target in ("anthropic", "openai"):
        translator = translate_stream("anthropic", target)
        with pytest.raises(StreamError, match=r"\$\.content_block\.text"):
            translator.feed(source)


def late_named_call(*, finish_first: bool = False) -> bytes:
    """An OpenAI stream whose second call starts with arguments alone and is named after.

    ``finish_first``: its id and name come after the choice's finish reason.
    """

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        data = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    def call(**fields: Any) -> dict[str, Any]:
        return {"tool_calls": [fields]}

    first = {"name": "get_country", "arguments": '{"code":'}
    named = {"name": "get_product_name", "arguments": ""}
    body = [
        chunk({"role": "assistant", **call(index=0, id="call_1", type="function", function=first)}),
        chunk(call(index=0, function={"arguments": '"fr"}'})),
        chunk(call(index=1, function={"arguments": '{"sku":'})),
        chunk(call(index=1, id="call_2", type="function", function=named)),
        chunk(call(index=1, function={"arguments": "7}"})),
        chunk({}, "tool_calls"),
    ]
    if finish_first:
        body.insert(3, body.pop())
    usage = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
    last = {"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o", "choices": []}
    body.append(b"data: " + json.dumps({**last, "usage": usage}).encode() + b"\n\n")
    return b"".join(body) + b"data: [DONE]\n\n"


class TestCallNamedAfterItsStart:
    """A call whose first fragment has no id or name keeps them when they come later."""

    @pytest.mark.parametrize("target", FAMILIES)
    def test_every_target(self, target: str) -> None:
        raw = late_named_call()
        pieces, tail, report, translator = translate("openai", target, raw, [])
        assert not report
        source = translator.response
        assert [(c.id, c.name) for c in source.tool_calls] == [
            ("call_1", "get_country"),
            ("call_2", "get_product_name"),
        ]
        got = decode(target, b"".join(pieces) + tail)[1]
        assert [(c.name, bytes(c.arguments)) for c in got.tool_calls] == [
            ("get_country", b'{"code":"fr"}'),
            ("get_product_name", b'{"sku":7}'),
        ]

    def test_named_after_the_finish_reason_is_refused(self) -> None:
        # The finish reason completed the call (its events went out): a name after it
        # would make the source's response say another call than the target was sent.
        translator = translate_stream("openai", "openai")
        with pytest.raises(StreamError, match=r"finish_reason"):
            translator.feed(late_named_call(finish_first=True))
