"""The stream encoders: recorded streams and bodies written again, read back and by the SDKs."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest
from corpus import HAVE_CORPUS, corpus, curated, needs_corpus, random_sizes, run_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import Raw
from readers import (
    ALL_STREAMS,
    DIALECT,
    FAMILIES,
    anthropic_sdk,
    codec,
    decode,
    encode_events,
    gemini_sdk,
    openai_sdk,
    raw_of,
    recorded_run,
    sse_payloads,
    stem_of,
    stream_file,
)

from chatcodec import (
    AssistantMessage,
    Choice,
    FinishReason,
    Response,
    StreamError,
    Usage,
    assistant,
    providers,
)
from chatcodec._content import OpaquePart, ReasoningPart, TextPart
from chatcodec._events import (
    CitationReceived,
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
from chatcodec._tools import InvalidToolCall, ToolCall
from chatcodec.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses
from chatcodec.providers._streaming import TRUNCATED
from chatcodec.providers._wire import READ_VALID


def without_usage(events: list[Any]) -> list[Any]:
    """The events but the usage reports, which fall where a family's chunks put them."""
    return [event for event in events if type(event) is not UsageReported]


def separable(response: Response, family: str) -> bool:
    """Whether text events can rebuild the text parts: none has extras, no two in a row.

    A Responses head gives its items' keys back (ids, annotations...): there
    only two text parts in a row are beyond the events.
    """
    keyed = family == "openai-responses"
    for choice in response.choices:
        message = choice.message
        if message is None or isinstance(message.content, str) or message.content is None:
            continue
        previous = False
        for part in message.content:
            text = type(part) is TextPart
            if text and ((part.extras is not None and not keyed) or previous):
                return False
            previous = text
    return True


def said(family: str, events: list[Any], response: Response) -> bool:
    """Whether a Responses stream's events say every item of its response.

    The decoder makes no event for an item without its done event, and an
    item's done event may say otherwise than the last event's response.
    """
    message = response.message
    if family != "openai-responses" or message is None or not isinstance(message.content, tuple):
        return True
    parts = message.content
    runs = sum(
        1
        for k, event in enumerate(events)
        if type(event) is ReasoningDelta and (k == 0 or type(events[k - 1]) is not ReasoningDelta)
    )
    return (
        runs == sum(1 for p in parts if type(p) is ReasoningPart)
        # Items told whole by their done event (a recording's last event may differ).
        and [e.part for e in events if type(e) is PartReceived]
        == [p for p in parts if type(p) is OpaquePart]
    )


def as_told(family: str, events: list[Any], response: Response) -> Response:
    """The response with the reasoning signatures its events carry.

    OpenAI encrypts a reasoning item's ``encrypted_content`` again for each
    event: the item's done event (the stream event) and the last event's
    response (the decoded response) hold two tokens for the same reasoning.
    """
    message = response.message
    if family != "openai-responses" or message is None or not isinstance(message.content, tuple):
        return response
    told = iter([e.signature for e in events if type(e) is ReasoningDelta and e.signature])
    content = tuple(
        msgspec.structs.replace(part, signature=next(told, part.signature))
        if type(part) is ReasoningPart and part.signature is not None
        else part
        for part in message.content
    )
    choice = msgspec.structs.replace(
        response.choices[0], message=msgspec.structs.replace(message, content=content)
    )
    return msgspec.structs.replace(response, choices=(choice, *response.choices[1:]))


def held_citations(family: str, events: list[Any]) -> list[Any]:
    """The events as OpenAI Chat's writer sends them: a choice's citations with its reason.

    Clients merge a list of deltas only by index, which annotations lack: the
    writer sends each choice's annotations in one list, in its finish chunk.
    """
    if family != "openai":
        return events
    cited = [e for e in events if type(e) is CitationReceived]
    out: list[Any] = []
    for event in events:
        if type(event) is CitationReceived:
            continue
        if type(event) is Finished:
            out.extend(c for c in cited if c.choice == event.choice)
        out.append(event)
    return out


class TestEventsRoundTrip:
    """Every recorded stream: decode, encode its events again, decode: the same response."""

    @pytest.mark.parametrize(("family", "path"), needs_corpus(ALL_STREAMS, 2))
    def test_same_response_and_events(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        raw = encode_events(family, events, response)
        again, decoded = decode(family, raw)
        response = as_told(family, events, response)
        if (
            stem_of(path) in DIALECT
            or not separable(response, family)
            or not said(family, events, response)
        ):
            # The text, the calls and the reasons still come through.
            assert [c.message.text if c.message else None for c in decoded.choices] == [
                c.message.text if c.message else None for c in response.choices
            ]
            assert [c.finish_reason for c in decoded.choices] == [
                c.finish_reason for c in response.choices
            ]
            assert decoded.usage == response.usage
            return
        assert decoded == response
        assert without_usage(again) == without_usage(held_citations(family, events))
        assert decoded.usage == response.usage

    @pytest.mark.parametrize(("family", "path"), needs_corpus(ALL_STREAMS, 2))
    def test_response_as_stream(self, family: str, path: Path) -> None:
        """The decoded response written whole as a stream decodes to itself."""
        _, response = recorded_run(family, path)
        assert decode(family, codec(family).encode_stream(response))[1] == response

    @pytest.mark.parametrize(
        ("family", "path"), [p for p in ALL_STREAMS if "corpus" not in str(p.values[1])]
    )
    def test_any_split(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        raw = encode_events(family, events, response)
        whole = decode(family, raw)
        for sizes in ([1] * len(raw), random_sizes(len(raw), 3), random_sizes(len(raw), 5)):
            assert decode(family, raw, sizes) == whole


def bodies(family: str) -> list[Any]:
    return curated(family, "response") + corpus(family, "response")


def streamable(family: str, body: Any) -> bool:
    """Whether a stream can say what this body says (see the cases below)."""
    if family == "bedrock":
        return bedrock_streamable(body)
    if family != "openai":
        return True
    choices = body.get("choices")
    if type(choices) is not list:
        return False  # not a response at all
    for choice in choices:
        message = choice.get("message") or {}
        calls = message.get("tool_calls")
        # An empty list of calls arrives as null; a call's "index" addresses stream fragments.
        if calls == [] or any("index" in call for call in calls or ()):
            return False
        details = message.get("reasoning_details") or []
        indexes = [item.get("index") for item in details]
        if len(set(indexes)) != len(indexes):
            return False  # entries sharing an index merge, as OpenRouter's stream means them to
        if "reasoning" in message and "reasoning_details" in message:
            return False  # which one came first is the body's key order, not the stream's
    return True


def bedrock_streamable(body: Any) -> bool:
    """Whether the server-tool blocks kept whole have their input (content) last.

    A stream sends a block's other keys in its start and the input after:
    the block it folds has them in that order (a body may have sorted keys).
    """
    output = body.get("output") or {}
    message = output.get("message") or {}
    for block in message.get("content") or ():
        for kind, last in (("toolUse", "input"), ("toolResult", "content")):
            inner = block.get(kind)
            opaque = kind == "toolResult" or (inner or {}).get("type") == "server_tool_use"
            if type(inner) is dict and opaque and list(inner)[-1:] != [last]:
                return False
    return True


class TestResponseToStream:
    """Every recorded 200 body, written as a stream, decodes to the body's response."""

    @pytest.mark.parametrize("family", FAMILIES)
    def test_bodies(self, family: str) -> None:
        module = codec(family)
        checked = 0
        for param in needs_corpus(bodies(family)):
            path = param.values[0]
            if path is None:
                pytest.skip("no recorded bodies")
            data = path.read_bytes()
            if not streamable(family, json.loads(data)):
                continue
            response = module.decode_response(data)
            raw = module.encode_stream(response)
            # An Ollama body with "done": false is one chunk of a stream, not a
            # whole answer: written out, it is a stream cut before its last line.
            cut = family == "ollama" and json.loads(data).get("done") is False
            got = run_stream(module.stream, raw, allow_incomplete=cut)[1]
            assert got == response, path.name
            checked += 1
        # The curated copies alone hold a few bodies a family can stream (Bedrock: 6);
        # the corpus has none of some families (Cohere).
        assert checked >= (10 if HAVE_CORPUS and corpus(family, "response") else 3)

    def test_gemini_json_array(self) -> None:
        for param in curated("gemini", "response"):
            response = gemini.decode_response(param.values[0].read_bytes())
            raw = gemini.encode_stream(response, framing="json-array")
            assert raw.startswith(b"[")
            assert raw.endswith(b"]")
            assert decode("gemini", raw)[1] == response

    @pytest.mark.parametrize("framing", ["sse", "json-array"])
    @pytest.mark.parametrize(
        ("choices", "feedback", "read"),
        [
            ((Choice(assistant("Hi")),), None, [("Hi", None)]),
            (
                (Choice(assistant("Hi")), Choice(assistant("Yo"), index=1)),
                None,
                [("Hi", None), ("Yo", 1)],
            ),
            (
                (Choice(assistant("Hi"), FinishReason.STOP), Choice(assistant("Yo"), index=1)),
                None,
                [("Hi", None), ("Yo", 1)],
            ),
            ((), None, [(None, None)]),  # candidate 0, as stream_encoder writes it
            ((), {"blockReason": "SAFETY"}, []),  # a blocked prompt ends the stream itself
        ],
        ids=("one", "two", "one-of-two", "none", "blocked"),
    )
    def test_gemini_response_without_a_reason_reads_to_its_end(
        self,
        framing: Literal["sse", "json-array"],
        choices: tuple[Choice, ...],
        feedback: Any,
        read: list[Any],
    ) -> None:
        extras = {"gemini": {"promptFeedback": feedback}} if feedback else None
        raw = gemini.encode_stream(Response(choices, extras=extras), framing=framing)
        decoder = gemini.stream()
        decoder.feed(raw)
        decoder.flush()
        assert decoder.complete
        decoded = decoder.finish()
        assert [(c.message.text if c.message else None, c.index) for c in decoded.choices] == read
        given = [c.finish_reason for c in choices] or [None]
        assert [c.finish_reason for c in decoded.choices] == given[: len(read)]
        unspecified = [c.raw_finish_reason for c in decoded.choices if c.finish_reason is None]
        assert set(unspecified) <= {"FINISH_REASON_UNSPECIFIED"}

    def test_anthropic_cut_off_call_keeps_its_fragments(self) -> None:
        path = stream_file("anthropic-sdk-python__streaming__incomplete_partial_json_response")
        _, response = recorded_run("anthropic", path)
        losses: list[Any] = []
        raw = anthropic.encode_stream(response, losses=losses)
        assert decode("anthropic", raw)[1] == response
        assert response.invalid_tool_calls
        assert losses == []


def sdk_params(family: str) -> list[Any]:
    return [p for p in ALL_STREAMS if p.values[0] == family and stem_of(p.values[1]) not in DIALECT]


class TestOfficialReaders:
    """The re-encoded streams read by each provider's own SDK give our response."""

    @pytest.mark.parametrize(("family", "path"), needs_corpus(sdk_params("openai"), 2))
    def test_openai_python(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        if response.id is None or "created" not in (response.extras or {}).get("openai", {}):
            pytest.skip("the SDK's chunk type needs an id and created")
        completion = openai_sdk(encode_events(family, events, response))
        assert len(completion.choices) == len(response.choices)
        for ours, theirs in zip(response.choices, completion.choices, strict=True):
            message = ours.message
            assert message is not None
            assert (theirs.message.content or "") == message.text
            assert [
                (c.id, c.function.name, c.function.arguments)
                for c in theirs.message.tool_calls or ()
            ] == [(c.id, c.name, bytes(c.arguments).decode()) for c in message.tool_calls]
            assert theirs.finish_reason == ours.raw_finish_reason
        if response.usage is not None:
            assert completion.usage.prompt_tokens == response.usage.prompt_tokens

    @pytest.mark.parametrize(("family", "path"), needs_corpus(sdk_params("anthropic"), 2))
    def test_anthropic_sdk(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        message = anthropic_sdk(encode_events(family, events, response, ping=True))
        ours = response.message
        assert ours is not None
        assert message.id == response.id
        assert message.model == response.model
        text = "".join(block.text for block in message.content if block.type == "text")
        assert text == ours.text
        calls = [(b.id, b.name) for b in message.content if b.type == "tool_use"]
        valid = [(c.id, c.name) for c in ours.tool_calls]
        assert calls == valid + [(c.id, c.name) for c in ours.invalid_tool_calls]
        inputs = [b.input for b in message.content if b.type == "tool_use"]
        assert inputs[: len(ours.tool_calls)] == [c.arguments_dict() for c in ours.tool_calls]
        assert message.stop_reason == response.choices[0].raw_finish_reason
        assert response.usage is not None
        assert message.usage.output_tokens == response.usage.completion_tokens

    @pytest.mark.parametrize(("family", "path"), needs_corpus(sdk_params("gemini"), 2))
    def test_google_genai(self, family: str, path: Path) -> None:
        events, response = recorded_run(family, path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # genai warns about non-text parts
            try:
                gemini_sdk(raw_of(path) or b"")
            except (ValueError, AttributeError):  # pydantic errors; int enums (enum-encoding=int)
                pytest.skip("google-genai cannot read the recorded stream itself")
            text, calls = gemini_sdk(encode_events(family, events, response))
        ours = response.message
        assert ours is not None
        assert text == ours.text
        assert [(c.name, c.args) for c in calls] == [
            (c.name, c.arguments_dict()) for c in ours.tool_calls
        ]


class TestAcrossFamilies:
    """Events of one family written as another's stream, read back and by that family's SDK."""

    def test_anthropic_to_openai(self) -> None:
        path = stream_file("anthropic-sdk-python__streaming__tool_use_response")
        events, response = recorded_run("anthropic", path)
        head = Response(id=response.id, model=response.model, extras={"openai": {"created": 1}})
        losses: list[Any] = []
        raw = encode_events("openai", events, head, losses=losses)
        decoded = decode("openai", raw)[1]
        assert decoded.message is not None
        assert response.message is not None
        assert decoded.message.text == response.message.text
        assert decoded.tool_calls == tuple(
            ToolCall(c.id, c.name, c.arguments) for c in response.tool_calls
        )
        assert decoded.finish_reason is FinishReason.TOOL_CALLS
        assert decoded.usage is not None
        assert response.usage is not None
        assert decoded.usage.completion_tokens == response.usage.completion_tokens
        completion = openai_sdk(raw)
        assert completion.choices[0].finish_reason == "tool_calls"
        assert completion.choices[0].message.tool_calls[0].function.name == "get_weather"

    def test_openai_to_anthropic(self) -> None:
        path = stream_file(
            "openai-python__chat_completions_streaming__test_parse_multiple_pydantic_tools"
        )
        events, response = recorded_run("openai", path)
        raw = encode_events("anthropic", events, Response(id="msg_1", model=response.model))
        decoded = decode("anthropic", raw)[1]
        assert [(c.id, c.name, c.arguments) for c in decoded.tool_calls] == [
            (c.id, c.name, c.arguments) for c in response.tool_calls
        ]
        assert decoded.finish_reason is FinishReason.TOOL_CALLS
        message = anthropic_sdk(raw)
        assert [b.name for b in message.content] == ["GetWeatherArgs", "get_stock_price"]
        assert message.stop_reason == "tool_use"

    @pytest.mark.parametrize("target", FAMILIES)
    def test_gemini_thinking_to_every_family(self, target: str) -> None:
        path = stream_file(
            "pydantic-ai__models__test_google__test_google_model_thinking_part_iter__00"
        )
        events, response = recorded_run("gemini", path)
        decoded = decode(target, encode_events(target, events, Response(id="r1", model="m")))[1]
        assert decoded.message is not None
        assert response.message is not None
        assert decoded.message.text == response.message.text


class TestEncoderRules:
    """The wire rules each encoder follows, and what it reports lost."""

    def test_openai_calls_numbered_per_choice(self) -> None:
        raw = encode_events(
            "openai",
            [
                ToolCallStarted(0, "c1", "f"),
                ToolCallStarted(1, "c2", "g"),
                ToolCallArgumentsDelta(0, '{"a":'),
                ToolCallArgumentsDelta(1, "{}"),
                ToolCallArgumentsDelta(0, "1}"),
                Finished(FinishReason.TOOL_CALLS),
                UsageReported(Usage(3, 4)),
            ],
            Response(id="c", model="m"),
        )
        chunks = [json.loads(d) for _, d in sse_payloads(raw) if d != b"[DONE]"]
        calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[:5]]
        assert calls[0] == {
            "index": 0,
            "id": "c1",
            "type": "function",
            "function": {"name": "f", "arguments": ""},
        }
        assert [call["index"] for call in calls] == [0, 1, 0, 1, 0]
        assert chunks[5]["choices"][0]["finish_reason"] == "tool_calls"
        assert chunks[6]["choices"] == []
        assert chunks[6]["usage"]["total_tokens"] == 7
        assert raw.endswith(b"data: [DONE]\n\n")
        decoded = decode("openai", raw)[1]
        assert [bytes(c.arguments) for c in decoded.tool_calls] == [b'{"a":1}', b"{}"]

    def test_openai_call_named_after_its_start(self) -> None:
        # A source's call may start with arguments alone (an OpenAI chunk without id
        # and name): its completion brings them, and they go out then.
        call = ToolCall("call_2", "get_product_name", Raw(b'{"sku":7}'))
        raw = encode_events(
            "openai",
            [
                ToolCallStarted(0, None, None),
                ToolCallArgumentsDelta(0, '{"sku":'),
                ToolCallArgumentsDelta(0, "7}"),
                ToolCallCompleted(0, call),
                Finished(FinishReason.TOOL_CALLS),
            ],
            Response(id="c", model="m"),
        )
        decoded = decode("openai", raw)[1]
        assert decoded.tool_calls == (call,)

    def test_openai_reasoning_details_written_at_their_place(self) -> None:
        # A body's entry may say any index; a stream's index is where the entry goes
        # (the fuzz target encode_stream found a body's index 5 refused by the decoder).
        body = (
            b'{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,'
            b'"finish_reason":"stop","message":{"role":"assistant","content":"Hi",'
            b'"reasoning_details":[{"type":"reasoning.text","index":5,"text":"a"},'
            b'{"type":"reasoning.text","index":1,"text":"b"},'
            b'{"type":"reasoning.text","index":0,"text":"c"}]}}]}'
        )
        response = openai.decode_response(body)
        losses: list[Any] = []
        raw = openai.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == [
            "$.choices[0].message.reasoning_details[0].index",
            "$.choices[0].message.reasoning_details[2].index",
        ]
        decoder = openai.stream()
        decoder.feed(raw)
        again = decoder.finish()
        assert again.choices[0].message is not None
        assert again.choices[0].message.reasoning == "abc"
        assert again.text == "Hi"

    @pytest.mark.parametrize("key", ["refusal", "reasoning_content", "reasoning"])
    def test_openai_text_key_of_another_type_is_reported(self, key: str) -> None:
        # A body keeps such a value as it came; a chunk's is text (the fuzz target
        # encode_stream found a refusal list written, and the decoder refusing it).
        body = (
            b'{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,'
            b'"finish_reason":"stop","message":{"role":"assistant","content":"Hi","'
            + key.encode()
            + b'":[{"type":"text","text":"4"}]}}]}'
        )
        response = openai.decode_response(body)
        losses: list[Any] = []
        raw = openai.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == [f"$.choices[0].message.{key}"]
        decoder = openai.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "Hi"

    @pytest.mark.parametrize("reason", [b'{"content": "x"}', b"[]", b"7", b"true"])
    def test_openai_finish_reason_of_another_type_is_reported(self, reason: bytes) -> None:
        # A body keeps such a value as it came; a chunk's is text or null (the fuzz
        # target encode_stream found an object written, and the decoder refusing it).
        body = (
            b'{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,'
            b'"finish_reason":' + reason + b',"message":{"role":"assistant","content":"Hi"}}]}'
        )
        response = openai.decode_response(body)
        losses: list[Any] = []
        raw = openai.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ["$.choices[0].finish_reason"]
        decoder = openai.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "Hi"

    @pytest.mark.parametrize("logprobs", [b'"tool_calls"', b"[]", b"7", b"{}", b"null"])
    def test_openai_logprobs_of_another_type_are_reported(self, logprobs: bytes) -> None:
        # A body keeps such a value as it came; a chunk's is an object or null (the fuzz
        # target encode_stream found a string written, and the decoder refusing it).
        body = (
            b'{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,'
            b'"finish_reason":"stop","logprobs":' + logprobs + b","
            b'"message":{"role":"assistant","content":"Hi"}}]}'
        )
        response = openai.decode_response(body)
        kept = logprobs in (b"{}", b"null")
        losses: list[Any] = []
        raw = openai.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ([] if kept else ["$.choices[0].logprobs"])
        decoder = openai.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "Hi"
        # The same value in the head of the events' writer.
        losses = []
        encoder = openai.stream_encoder(response, losses=losses)
        raw = encoder.encode_all([TextDelta("Hi"), Finished(FinishReason.STOP)])
        raw += encoder.finish()
        assert [loss.path for loss in losses] == ([] if kept else ["$.choices[0].logprobs"])
        decoder = openai.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "Hi"

    @pytest.mark.parametrize("parts", [b"null", b"{}", b'"model"', b"7"])
    def test_gemini_parts_that_are_no_list_are_reported(self, parts: bytes) -> None:
        # A body keeps such a value as it came; a chunk's parts are a list (the fuzz
        # target encode_stream found a string written, and the decoder refusing it).
        body = (
            b'{"candidates":[{"content":{"parts":' + parts + b',"role":"model"},'
            b'"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash"}'
        )
        response = gemini.decode_response(body)
        losses: list[Any] = []
        raw = gemini.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ["$.candidates[0].content.parts"]
        decoder = gemini.stream()
        decoder.feed(raw)
        assert decoder.finish().choices[0].finish_reason == "stop"

    @pytest.mark.parametrize(
        ("call", "paths"),
        [
            (b'{"function": {"name": "f"}, "id": 0, "type": "function"}', ["id"]),
            (b'{"function": {"name": 5, "arguments": "{}"}, "id": "a"}', ["function.name"]),
            (
                b'{"function": {"name": "f", "arguments": {"a": 1}}, "id": "a", "type": 3}',
                ["type", "function.arguments"],
            ),
        ],
        ids=("id", "name", "type-and-arguments"),
    )
    def test_openai_call_values_of_another_type_are_reported(
        self, call: bytes, paths: list[str]
    ) -> None:
        # A body keeps a call's values as they came; a chunk's are text (the fuzz
        # target encode_stream found an id 0 written, and the decoder refusing it).
        body = (
            b'{"choices":[{"finish_reason":"tool_calls","index":0,"message":'
            b'{"role":"assistant","content":"x","tool_calls":[' + call + b"]}}]}"
        )
        response = openai.decode_response(body)
        losses: list[Any] = []
        raw = openai.encode_stream(response, losses=losses)
        where = "$.choices[0].message.tool_calls[0]."
        assert [loss.path for loss in losses] == [where + path for path in paths]
        decoder = openai.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "x"

    @pytest.mark.parametrize("done", [b"181023752", b'"yes"', b"null", b"{}"])
    def test_ollama_done_of_another_type_is_reported(self, done: bytes) -> None:
        # A body keeps such a value as it came; a stream's last line says true (the
        # fuzz target encode_stream found a number written, and the stream unended).
        body = b'{"model":"m","message":{"role":"assistant","content":"Hi"},"done":' + done + b"}"
        response = ollama.decode_response(body)
        losses: list[Any] = []
        raw = ollama.encode_stream(response, losses=losses)
        assert [loss.path for loss in losses] == ["$.done"]
        decoder = ollama.stream()
        decoder.feed(raw)
        assert decoder.finish().text == "Hi"

    def test_openai_usage_only_when_asked(self) -> None:
        events: list[StreamEvent] = [
            TextDelta("Hi"),
            Finished(FinishReason.STOP),
            UsageReported(Usage(1, 1)),
        ]
        raw = encode_events("openai", events, None, include_usage=False)
        assert b'"usage"' not in raw
        assert decode("openai", raw)[1].usage is None

    def test_openai_cut_off_choice_keeps_its_keys_beside_the_usage(self) -> None:
        head = openai.decode_response(
            b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":'
            b'[{"index":0,"message":{"role":"assistant","content":"x"},"logprobs":null,'
            b'"finish_reason":"stop"}]}'
        )
        raw = encode_events("openai", [TextDelta("Hi"), UsageReported(Usage(1, 2))], head)
        chunks = [json.loads(d) for _, d in sse_payloads(raw) if d != b"[DONE]"]
        assert chunks[1]["choices"] == [{"index": 0, "delta": {}, "logprobs": None}]
        assert chunks[2]["usage"]["total_tokens"] == 3

    def test_anthropic_interleaved_calls_keep_their_blocks(self) -> None:
        events: list[StreamEvent] = [
            TextDelta("On it."),
            ToolCallStarted(0, "c1", "f"),
            ToolCallStarted(1, "c2", "g"),
            ToolCallArgumentsDelta(1, '{"b":'),
            ToolCallArgumentsDelta(0, '{"a":1}'),
            ToolCallArgumentsDelta(1, "2}"),
            Finished(FinishReason.TOOL_CALLS, "tool_calls"),
            UsageReported(Usage(5, 6)),
        ]
        raw = encode_events("anthropic", events, None)
        decoded = decode("anthropic", raw)[1]
        assert [(c.id, bytes(c.arguments)) for c in decoded.tool_calls] == [
            ("c1", b'{"a":1}'),
            ("c2", b'{"b":2}'),
        ]
        assert decoded.choices[0].raw_finish_reason == "tool_use"
        assert decoded.usage == Usage(5, 6)
        message = anthropic_sdk(raw)
        assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
        assert message.content[2].input == {"b": 2}

    def test_anthropic_thinking_with_signature(self) -> None:
        events: list[StreamEvent] = [
            ReasoningDelta("Hm"),
            ReasoningDelta("", signature="sig"),
            TextDelta("4"),
        ]
        raw = encode_events("anthropic", events, None)
        message = decode("anthropic", raw)[1].message
        assert message is not None
        assert message.content is not None
        assert message.content[0] == ReasoningPart("Hm", signature="sig", provider="anthropic")
        assert anthropic_sdk(raw).content[0].signature == "sig"

    def test_losses_are_reported(self) -> None:
        losses: list[Any] = []
        encode_events("openai", [ReasoningDelta("", signature="s")] * 2, None, losses=losses)
        assert [loss.reason for loss in losses] == ["openai has no field for a reasoning signature"]
        losses = []
        encode_events("anthropic", [RefusalDelta("No.")], None, losses=losses)
        assert [loss.reason for loss in losses] == [
            "anthropic has no refusal block: sent as text",
            "no usage came: anthropic requires one, written as zero counts",
        ]
        losses = []
        encode_events("anthropic", [TextDelta("a", choice=1)], None, losses=losses)
        assert losses[0].path == "$.choices[1]"

    @pytest.mark.parametrize("family", FAMILIES)
    def test_finish_once_then_refuse(self, family: str) -> None:
        encoder = codec(family).stream_encoder()
        assert encoder.encode(TextDelta("x"))
        encoder.finish()
        assert encoder.finish() == b""
        with pytest.raises(StreamError):
            encoder.encode(TextDelta("y"))

    @pytest.mark.parametrize("family", FAMILIES)
    def test_call_closed_at_the_stop_is_not_sent_again(self, family: str) -> None:
        events: list[StreamEvent] = [
            ToolCallStarted(0, "c1", "f"),
            ToolCallArgumentsDelta(0, '{"a":1}'),
            Finished(FinishReason.TOOL_CALLS),
            ToolCallCompleted(0, ToolCall("c1", "f", Raw(b'{"a":1}'))),
        ]
        decoded = decode(family, encode_events(family, events, None))[1]
        assert [(c.id, c.arguments_dict()) for c in decoded.tool_calls] == [("c1", {"a": 1})]

    @pytest.mark.parametrize("family", FAMILIES)
    def test_whole_parts_and_calls(self, family: str) -> None:
        call = ToolCall("call_1", "f", Raw(b'{"x": [1, 2]}'))
        events: list[StreamEvent] = [
            PartReceived(TextPart("Hello")),
            ToolCallCompleted(0, call),
            Finished(FinishReason.TOOL_CALLS),
            UsageReported(Usage(2, 3)),
        ]
        decoded = decode(family, encode_events(family, events, None))[1]
        assert decoded.message is not None
        assert decoded.message.text == "Hello"
        assert [c.arguments_dict() for c in decoded.tool_calls] == [{"x": [1, 2]}]
        assert decoded.usage is not None
        assert decoded.usage.completion_tokens == 3

    def test_gemini_call_goes_out_whole_with_its_signature(self) -> None:
        call = ToolCall("c1", "f", Raw(b'{"a": 1}'), extras={"gemini": {"thoughtSignature": "sig"}})
        raw = encode_events(
            "gemini",
            [
                ToolCallStarted(0, "c1", "f"),
                ToolCallArgumentsDelta(0, '{"a": 1}'),
                ToolCallCompleted(0, call),
            ],
            None,
        )
        chunk, last = [json.loads(d) for _, d in sse_payloads(raw)]
        part = chunk["candidates"][0]["content"]["parts"][0]
        assert part["thoughtSignature"] == "sig"
        assert part["functionCall"]["args"] == {"a": 1}
        assert last == {"candidates": [{"finishReason": "FINISH_REASON_UNSPECIFIED"}]}

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("count", [0, 1, 2])
    def test_stream_without_finished_reads_to_its_end(self, family: str, count: int) -> None:
        """Without a Finished event (or any event), finish() still writes the family's end."""
        said: list[StreamEvent] = [TextDelta("Hi"), UsageReported(Usage(2, 1))]
        events = said[:count]
        raw = encode_events(family, events, None)
        decoder = codec(family).stream()
        decoder.feed(raw)
        decoder.flush()
        assert decoder.complete
        assert decoder.finish().text == ("Hi" if count else "")

    @pytest.mark.parametrize("framing", ["sse", "json-array"])
    def test_gemini_candidates_without_a_reason_end_unspecified(self, framing: str) -> None:
        events: list[StreamEvent] = [
            TextDelta("a"),
            TextDelta("b", choice=1),
            Finished(FinishReason.STOP, "STOP"),
            TextDelta("c", choice=2),
            Finished(None, choice=2),
        ]
        raw = encode_events("gemini", events, None, framing=framing)
        again, decoded = decode("gemini", raw)
        assert [(c.finish_reason, c.raw_finish_reason) for c in decoded.choices] == [
            (FinishReason.STOP, "STOP"),
            (None, "FINISH_REASON_UNSPECIFIED"),  # no reason known, read back as sent
            (None, "FINISH_REASON_UNSPECIFIED"),
        ]
        assert [e.choice for e in again if type(e) is Finished] == [0, 2, 1]

    def test_ollama_last_line(self) -> None:
        events: list[StreamEvent] = [
            TextDelta("Hi"),
            UsageReported(Usage(4, 2)),
            Finished(FinishReason.LENGTH, "length"),
        ]
        *pieces, last = encode_events("ollama", events, Response(model="llama3")).splitlines()
        assert json.loads(pieces[0])["done"] is False
        final = json.loads(last)
        assert final["done"] is True
        assert final["done_reason"] == "length"
        assert (final["prompt_eval_count"], final["eval_count"]) == (4, 2)

    def test_ollama_body_without_done_ends_its_stream(self) -> None:
        # A body without "done" is read; its stream still ends with "done": true,
        # which its own decoder needs (the fuzz target encode_stream found it).
        body = b'{"model":"llama3.2","message":{"role":"assistant","content":"Hi"}}'
        response = ollama.decode_response(body)
        losses: list[Any] = []
        raw = ollama.encode_stream(response, losses=losses)
        assert json.loads(raw.splitlines()[-1])["done"] is True
        assert decode("ollama", raw)[1].text == "Hi"
        assert losses == []

    @pytest.mark.parametrize("family", ["anthropic", "bedrock"])
    @pytest.mark.parametrize("arguments", ["", "{}", '{"city":"Paris"}'])
    def test_invalid_call_read_whole_is_reported(self, family: str, arguments: str) -> None:
        # A block closed with no fragments (or a whole object) is read as a valid
        # call: a cut-off call written so is reported, never turned valid quietly
        # (the fuzz targets stream_encode and translate_stream found it).
        cut = InvalidToolCall("toolu_1", "get_weather", arguments, "arguments are truncated")
        events: list[StreamEvent] = [
            ToolCallStarted(0, "toolu_1", "get_weather"),
            *([ToolCallArgumentsDelta(0, arguments)] if arguments else []),
            ToolCallCompleted(0, cut),
            Finished(FinishReason.TOOL_CALLS, None),
        ]
        losses: list[Any] = []
        encoder = codec(family).stream_encoder(Response(id="r", model="m"), losses=losses)
        raw = encoder.encode_all(events) + encoder.finish()
        read = decode(family, raw)[1]
        assert [call.name for call in read.tool_calls] == ["get_weather"]
        assert "$.choices[0].message.invalid_tool_calls" in {loss.path for loss in losses}

    def test_anthropic_invalid_call_without_arguments_is_reported(self) -> None:
        cut = InvalidToolCall("toolu_1", "get_weather", "", "arguments are truncated")
        message = AssistantMessage(invalid_tool_calls=(cut,))
        response = Response((Choice(message, FinishReason.TOOL_CALLS),), id="r", model="m")
        losses: list[Any] = []
        raw = anthropic.encode_stream(response, losses=losses)
        assert [call.name for call in decode("anthropic", raw)[1].tool_calls] == ["get_weather"]
        assert [loss.path for loss in losses] == [
            "$.choices[0].message.invalid_tool_calls[0].arguments"
        ]

    def test_registry(self) -> None:
        for name, module in (
            ("openai", openai),
            ("claude", anthropic),
            ("google", gemini),
            ("ollama", ollama),
            ("responses", openai_responses),
            ("bedrock", bedrock),
        ):
            assert codec(name).stream_encoder is module.stream_encoder


CHARACTERS = st.characters(exclude_categories=["Cs"])  # no lone surrogates: JSON has none
TEXT = st.text(CHARACTERS, min_size=1, max_size=12)
ARGUMENTS = st.dictionaries(
    st.text(CHARACTERS, max_size=5),
    st.integers(-5, 5) | TEXT | st.booleans(),
    max_size=3,
)


@st.composite
def answers(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, dict[str, Any], list[int]]]]:
    """Text pieces, and calls (name, arguments, where their JSON text is cut)."""
    texts = draw(st.lists(TEXT, max_size=5))
    calls = draw(
        st.lists(
            st.tuples(
                st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                ARGUMENTS,
                st.lists(st.integers(1, 6), max_size=4),
            ),
            max_size=3,
        )
    )
    return texts, calls


class TestAnyEvents:
    """Any text and calls, cut anywhere, come back from every family's stream."""

    @pytest.mark.parametrize("family", FAMILIES)
    @settings(max_examples=40, deadline=None)
    @given(answer=answers(), usage=st.tuples(st.integers(0, 99), st.integers(0, 99)))
    def test_round_trip(
        self,
        family: str,
        answer: tuple[list[str], list[tuple[str, dict[str, Any], list[int]]]],
        usage: tuple[int, int],
    ) -> None:
        texts, calls = answer
        events: list[StreamEvent] = [TextDelta(text) for text in texts]
        for slot, (name, arguments, cuts) in enumerate(calls):
            text = json.dumps(arguments)
            events.append(ToolCallStarted(slot, f"call_{slot}", name))
            at = 0
            for cut in [*cuts, len(text)]:
                if text[at : at + cut]:
                    events.append(ToolCallArgumentsDelta(slot, text[at : at + cut]))
                at += cut
            if text[at:]:
                events.append(ToolCallArgumentsDelta(slot, text[at:]))
            events.append(
                ToolCallCompleted(slot, ToolCall(f"call_{slot}", name, Raw(text.encode())))
            )
        reason = FinishReason.TOOL_CALLS if calls else FinishReason.STOP
        events += [Finished(reason), UsageReported(Usage(*usage))]
        raw = encode_events(family, events, Response(id="r1", model="m"))
        decoded = decode(family, raw, random_sizes(len(raw), len(texts)))[1]
        assert decoded.message is not None or not (texts or calls)
        if decoded.message is not None:
            assert decoded.message.text == "".join(texts)
        assert [(c.name, c.arguments_dict()) for c in decoded.tool_calls] == [
            (name, arguments) for name, arguments, _ in calls
        ]
        if family in ("openai", "anthropic", "openai-responses"):  # as the fragments said them
            assert [bytes(c.arguments) for c in decoded.tool_calls] == [
                json.dumps(arguments).encode() for _, arguments, _ in calls
            ]
        if family != "ollama":  # Ollama's calls have no ids on the wire
            assert [c.id for c in decoded.tool_calls] == [f"call_{k}" for k in range(len(calls))]
        assert decoded.usage is not None
        assert (decoded.usage.prompt_tokens, decoded.usage.completion_tokens) == usage


class TestAnInvalidCallThatReadsBackValid:
    """A call cut off (or refused) whose arguments are a whole object reads back valid.

    A translated Anthropic stream that ended in a call's block, its fragments
    a whole object: every writer wrote a call its reader took for a valid one,
    nothing reported (a fuzz find of translate_stream). Now reported.
    """

    CUT = InvalidToolCall("toolu_1", "get_weather", '{"city": "Paris"}', TRUNCATED)

    @pytest.mark.parametrize("family", providers.NAMES)
    @pytest.mark.parametrize("fragments", [True, False], ids=("in-fragments", "whole"))
    def test_reported(self, family: str, fragments: bool) -> None:
        started: list[StreamEvent] = [ToolCallStarted(0, "toolu_1", "get_weather")]
        deltas: list[StreamEvent] = [ToolCallArgumentsDelta(0, '{"city": "Paris"}')]
        if not fragments:
            started, deltas = [], []
        events: list[StreamEvent] = [
            *started,
            *deltas,
            ToolCallCompleted(0, self.CUT),
            Finished(FinishReason.STOP),
        ]
        losses: list[Any] = []
        encoder = providers.get(family).stream_encoder(Response(id="r", model="m"), losses=losses)
        written = encoder.encode_all(events) + encoder.finish()
        decoder = providers.get(family).stream()
        decoder.feed(written)
        again = decoder.finish()
        assert [c.name for c in again.tool_calls] == ["get_weather"]
        assert any("invalid_tool_calls" in loss.path for loss in losses), losses

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_a_body_encoder_reports_it_too(self, family: str) -> None:
        message = AssistantMessage(invalid_tool_calls=(self.CUT,))
        response = Response((Choice(message, FinishReason.TOOL_CALLS),), "r", "m")
        losses: list[Any] = []
        body = providers.get(family).encode_response(response, losses=losses)
        again = providers.get(family).decode_response(body)
        assert [c.name for c in again.tool_calls] == ["get_weather"]
        where = "$.choices[0].message.invalid_tool_calls[0]"
        assert [loss.path for loss in losses if loss.path.startswith(where)], losses

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_one_that_reads_back_invalid_is_not(self, family: str) -> None:
        cut = InvalidToolCall("toolu_1", "get_weather", '{"city": "Par', TRUNCATED)
        events: list[StreamEvent] = [ToolCallCompleted(0, cut), Finished(FinishReason.STOP)]
        losses: list[Any] = []
        encoder = providers.get(family).stream_encoder(Response(id="r", model="m"), losses=losses)
        encoder.encode_all(events)
        assert not [loss for loss in losses if loss.reason == READ_VALID]
