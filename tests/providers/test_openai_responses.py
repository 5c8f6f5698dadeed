"""The OpenAI Responses API codec, on real recorded traffic and by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pydantic
import pytest
from corpus import DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json
from hypothesis import HealthCheck, given, settings
from openai.types.responses import Response as SdkResponse
from openai.types.responses import response_create_params
from test_convert import check

import chatcodec as cc
from chatcodec import providers
from chatcodec.providers._wire import json_body
from chatcodec.providers.openai_responses._fast import fast_response
from chatcodec.providers.openai_responses._response import read_response
from strategies import strict_conversations

codec = providers.get("openai-responses")
CURATED = DATA / "openai-responses"
NON_STREAMING = pydantic.TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming)
STREAMING = pydantic.TypeAdapter(response_create_params.ResponseCreateParamsStreaming)


def request_round_trip(path: Path) -> None:
    body, parsed = load(path)
    request = codec.decode_request(body)
    same_json(json.loads(codec.encode_request(request)), parsed)
    check_arguments(request, parsed)


def response_round_trip(path: Path) -> None:
    body, parsed = load(path)
    response = codec.decode_response(body)
    same_json(json.loads(codec.encode_response(response)), parsed)


def check_arguments(request: cc.Request, parsed: dict[str, Any]) -> None:
    """Valid function-call arguments are the wire's argument string, byte for byte."""
    wire: list[Any] = parsed["input"] if isinstance(parsed.get("input"), list) else []
    sent = {
        item["call_id"]: item["arguments"]
        for item in wire
        if item.get("type") == "function_call" and isinstance(item.get("arguments"), str)
    }
    for message in request.messages:
        for call in getattr(message, "tool_calls", ()):
            if call.id in sent:
                assert bytes(call.arguments) == sent[call.id].encode()


def request_errors(payload: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Where the SDK's ``ResponseCreateParams`` refuses a request body."""
    adapter = STREAMING if payload.get("stream") else NON_STREAMING
    try:
        adapter.validate_python(payload)
    except pydantic.ValidationError as exc:
        return {(tuple(e["loc"]), e["type"]) for e in exc.errors()}
    return set()


def response_errors(payload: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Where the SDK's ``Response`` model refuses a response body."""
    try:
        SdkResponse.model_validate(payload)
    except pydantic.ValidationError as exc:
        return {(tuple(e["loc"]), e["type"]) for e in exc.errors()}
    return set()


class TestCorpusFidelity:
    """Every recorded Responses request and 200 response round trips losslessly."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai-responses", "request")))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai-responses", "response")))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)


class TestCurated:
    """The curated copies round trip too, without the corpus."""

    @pytest.mark.parametrize("path", curated("openai-responses", "request"))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", curated("openai-responses", "response"))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    def test_sources_list_every_file(self) -> None:
        sources = (CURATED / "SOURCES.md").read_text()
        files = sorted(CURATED.glob("*/*.json"))
        assert len(files) >= 20
        for path in files:
            assert f"{path.parent.name}/{path.name}" in sources


class TestSdkValidation:
    """Encoded bodies are what the openai SDK's own types accept.

    Some recordings do not validate themselves (the SDK now requires
    ``cache_write_tokens`` in usage, a made-up ``image_generation_call`` item
    holds only an id): an encoded body must be refused exactly where its
    recording is, and accepted wherever the recording is.
    """

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai-responses", "request")))
    def test_corpus_request(self, path: Path) -> None:
        body, parsed = load(path)
        out = json.loads(codec.encode_request(codec.decode_request(body)))
        assert request_errors(out) == request_errors(parsed)

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai-responses", "response")))
    def test_corpus_response(self, path: Path) -> None:
        body, parsed = load(path)
        out = json.loads(codec.encode_response(codec.decode_response(body)))
        assert response_errors(out) == response_errors(parsed)

    @pytest.mark.parametrize("path", curated("openai-responses", "request"))
    def test_curated_request(self, path: Path) -> None:
        body, parsed = load(path)
        out = json.loads(codec.encode_request(codec.decode_request(body)))
        assert request_errors(out) == request_errors(parsed)

    def test_by_hand_request(self) -> None:
        out = json.loads(codec.encode_request(by_hand_request()))
        assert request_errors(out) == set()

    def test_by_hand_response(self) -> None:
        response = cc.Response(
            (
                cc.Choice(
                    cc.AssistantMessage(
                        (cc.TextPart("Checking."),), (cc.tool_call("call_1", "f", {"a": 1}),)
                    ),
                    cc.FinishReason.TOOL_CALLS,
                ),
            ),
            id="resp_1",
            model="gpt-5",
            usage=cc.Usage(3, 4, 7, cached_tokens=1, reasoning_tokens=2),
        )
        out = json.loads(codec.encode_response(response))
        missing = {loc for loc, kind in response_errors(out) if kind == "missing"}
        # The echo of the request (created_at, tools...) is the server's to give,
        # and so is cache_write_tokens, which the recordings lack too.
        missing.discard(("usage", "input_tokens_details", "cache_write_tokens"))
        assert not {loc for loc in missing if loc and loc[0] in ("output", "status", "usage")}


def by_hand_request() -> cc.Request:
    call = cc.tool_call("call_1", "get_weather", {"city": "Paris"})
    return cc.Request(
        (
            cc.system("Be brief."),
            cc.user(["Look:", cc.ImagePart(url="https://example.com/cat.png")]),
            cc.assistant("Let me check.", [call]),
            cc.tool_result("call_1", "18C"),
        ),
        model="gpt-5",
        tools=(
            cc.ToolDefinition(
                "get_weather",
                "Weather",
                {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            ),
        ),
        tool_choice=cc.ToolChoice("tool", "get_weather"),
        max_tokens=100,
        response_format=cc.ResponseFormat("json_schema", "answer", {"type": "object"}, True),
    )


class TestErrors:
    """Error bodies raise ProviderError with the provider's type and code."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai-responses", "response", "400")))
    def test_corpus_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(cc.ProviderError) as info:
            codec.decode_response(body)
        assert info.value.provider == "openai-responses"
        assert info.value.code == parsed["error"].get("code")
        assert info.value.message == parsed["error"]["message"]

    @pytest.mark.parametrize("path", curated("openai-responses", "error"))
    def test_curated_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(cc.ProviderError) as info:
            codec.decode_response(body)
        assert info.value.type == parsed["error"].get("type")
        assert parsed["error"]["message"] not in str(info.value)


def items(*values: dict[str, Any], **top: Any) -> bytes:
    return json.dumps({"model": "gpt-5", "input": list(values), **top}).encode()


CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city":"Paris"}',
    "status": "completed",
}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "18C"}
REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [
        {"type": "summary_text", "text": "First."},
        {"type": "summary_text", "text": "Second."},
    ],
    "encrypted_content": "gAAA",
}


def general_response(body: bytes) -> cc.Response:
    return read_response(json_body(body))


def answer(*output: dict[str, Any], **top: Any) -> bytes:
    usage: dict[str, Any] = {
        "input_tokens": 9,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 4,
        "output_tokens_details": {"reasoning_tokens": 2},
        "total_tokens": 13,
    }
    body: dict[str, Any] = {"id": "resp_1", "model": "gpt-5", "object": "response"}
    # Keys sorted, as in every recorded body: the fast path keeps kept keys in that order.
    body = {**body, "output": list(output), "status": "completed", "usage": usage, **top}
    return json.dumps(body, sort_keys=True).encode()


TEXT_ITEM = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Hi", "annotations": [], "logprobs": []}],
}


class TestFastPath:
    """The typed fast path gives what the general path gives, on every recorded body."""

    def test_corpus(self) -> None:
        paths, taken = fast_coverage("openai-responses", "response", fast_response)
        for path in taken:
            body = path.read_bytes()
            fast, general = fast_response(body), general_response(body)
            assert fast == general, path.name
            assert fast is not None
            assert codec.encode_response(fast) == codec.encode_response(general), path.name
        assert len(taken) * 10 > len(paths) * 7  # the usual answer is the usual case

    @pytest.mark.parametrize("path", curated("openai-responses", "response"))
    def test_curated(self, path: Path) -> None:
        body = path.read_bytes()
        fast = fast_response(body)
        assert fast is None or fast == general_response(body)

    @pytest.mark.parametrize(
        "body",
        [
            answer({**CALL, "call_id": ""}),
            answer(TEXT_ITEM, {"type": "message", "role": "user", "content": "Hi"}),
            answer(TEXT_ITEM, OUTPUT),
            answer({**TEXT_ITEM, "content": [{"type": "output_text", "text": "x" * 70000}]}),
            answer({**TEXT_ITEM, "content": []}),
            answer(TEXT_ITEM, usage={"input_tokens": -1, "output_tokens": 1}),
            answer(TEXT_ITEM, surprise=1),
            b'{"error":{"type":"invalid_request_error","message":"no"}}',
            b"[]",
        ],
        ids=[
            *("empty-id", "user-item", "call-output", "large"),
            *("no-content", "negative", "new-key", "error", "list"),
        ],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_response(body) is None

    @pytest.mark.parametrize(
        "body",
        [
            answer(TEXT_ITEM),
            answer(),
            answer(REASONING, {**TEXT_ITEM, "phase": "final_answer"}, CALL),
            answer(CALL, TEXT_ITEM, {**CALL, "call_id": "call_2", "arguments": "{"}),
            answer(
                {**TEXT_ITEM, "content": [{"type": "refusal", "refusal": "No."}]},
                status="incomplete",
                incomplete_details={"reason": "content_filter"},
                id=None,
            ),
            answer({**REASONING, "summary": [], "encrypted_content": None}, usage=None),
            answer({**TEXT_ITEM, "content": [{"type": "output_text", "text": "a"}]}, status=1),
            answer(
                REASONING,
                {"type": "web_search_call", "id": "ws_1", "status": "completed"},
                {**TEXT_ITEM, "content": "kept whole"},
                {**CALL, "type": "custom_tool_call", "input": "x", "arguments": None},
            ),
            answer({key: value for key, value in TEXT_ITEM.items() if key != "type"}),
        ],
        ids=[
            *("text", "empty", "phase", "call-first", "refusal", "no-summary", "odd-status"),
            *("built-in", "no-type"),
        ],
    )
    def test_taken(self, body: bytes) -> None:
        fast = fast_response(body)
        assert fast is not None
        assert fast == general_response(body)
        assert codec.decode_response(body) == fast
        assert codec.encode_response(fast) == codec.encode_response(general_response(body))
        same_json(json.loads(codec.encode_response(fast)), json.loads(body))


RAW_REASONING = {
    "content": [{"text": "We need the capital.", "type": "reasoning_text"}],
    "id": "rs_2",
    "status": "completed",
    "summary": [],
    "type": "reasoning",
}
TWO_PARTS = [
    {"text": "First.", "type": "reasoning_text"},
    {"text": "", "type": "reasoning_text"},
]


def _message_of(response: cc.Response) -> cc.AssistantMessage:
    message = response.message
    assert message is not None
    return message


def _kept(item: dict[str, Any]) -> dict[str, Any]:
    """What a reasoning item's part keeps of it: its keys but those read, in order."""
    kept = {k: v for k, v in item.items() if k not in ("type", "summary")}
    return kept if type(item["summary"]) is list else {**kept, "summary": item["summary"]}


class TestReasoningTextContent:
    """The model's own reasoning, sent as ``reasoning_text`` content beside an empty summary.

    DeepSeek, gpt-oss and OpenRouter send it so: it is the reasoning's text (a
    stream says it in ``response.reasoning_text.delta`` events), carried to
    other families, and written back where it came from.
    """

    @pytest.mark.parametrize(
        ("item", "text"),
        [
            (RAW_REASONING, "We need the capital."),
            ({**RAW_REASONING, "content": TWO_PARTS}, "First.\n\n"),
            ({k: v for k, v in RAW_REASONING.items() if k != "summary"}, "We need the capital."),
            ({**RAW_REASONING, "encrypted_content": "gAAA"}, "We need the capital."),
        ],
        ids=("one-part", "two-parts", "no-summary", "signed"),
    )
    def test_it_is_the_reasoning_text(self, item: dict[str, Any], text: str) -> None:
        body = answer(item, TEXT_ITEM)
        response = codec.decode_response(body)
        assert _message_of(response).reasoning == text
        assert fast_response(body) == general_response(body) == response
        same_json(json.loads(codec.encode_response(response)), json.loads(body))
        request = codec.decode_request(items({"role": "user", "content": "Hi"}, item))
        assert isinstance(request.messages[1], cc.AssistantMessage)
        assert request.messages[1].reasoning == text
        same_json(json.loads(codec.encode_request(request))["input"][1], item)

    @pytest.mark.parametrize(
        "item",
        [
            {**RAW_REASONING, "summary": [{"type": "summary_text", "text": "Summed up."}]},
            {**RAW_REASONING, "content": [{"type": "output_text", "text": "x"}]},
            {**RAW_REASONING, "content": [{"type": "reasoning_text", "text": "x", "n": 1}]},
            {**RAW_REASONING, "content": [{"type": "reasoning_text", "text": 7}]},
            {**RAW_REASONING, "content": []},
            {**RAW_REASONING, "summary": {"kept": "as sent"}},
        ],
        ids=("summed-up", "other-type", "other-key", "no-text", "empty", "odd-summary"),
    )
    def test_other_content_is_kept_as_sent(self, item: dict[str, Any]) -> None:
        body = answer(item, TEXT_ITEM)
        response = codec.decode_response(body)
        summed_up = type(item["summary"]) is list and item["summary"]
        message = _message_of(response)
        assert message.reasoning == ("Summed up." if summed_up else "")
        assert isinstance(message.content, tuple)
        assert message.content[0].extras == {"openai-responses": _kept(item)}
        same_json(json.loads(codec.encode_response(response)), json.loads(body))

    def test_other_text_goes_in_one_part(self) -> None:
        response = codec.decode_response(answer({**RAW_REASONING, "content": TWO_PARTS}))
        message = _message_of(response)
        assert isinstance(message.content, tuple)
        part = message.content[0]
        assert isinstance(part, cc.ReasoningPart)
        changed = msgspec.structs.replace(part, text="Rethought.")
        message = msgspec.structs.replace(message, content=(changed,))
        choice = msgspec.structs.replace(response.choices[0], message=message)
        written = codec.encode_response(msgspec.structs.replace(response, choices=(choice,)))
        (item,) = json.loads(written)["output"]
        assert item["content"] == [{"type": "reasoning_text", "text": "Rethought."}]
        assert item["summary"] == []

    def test_carried_to_another_family(self) -> None:
        out, report = cc.convert(
            answer(RAW_REASONING, TEXT_ITEM),
            source="openai-responses",
            target="gemini",
            kind="response",
        )
        parts = json.loads(out)["candidates"][0]["content"]["parts"]
        assert parts[0] == {"text": "We need the capital.", "thought": True}
        assert not [loss for loss in report.losses if "content" in loss.path]


class TestRequestSemantics:
    """What each kind of input item becomes."""

    def test_instructions_and_string_input(self) -> None:
        body = b'{"model":"gpt-5","instructions":"Be brief.","input":"Hi"}'
        request = codec.decode_request(body)
        assert isinstance(request.messages[0], cc.SystemMessage)
        assert request.messages[1] == cc.UserMessage("Hi")
        assert codec.encode_request(request) == body

    def test_system_item_stays_an_item(self) -> None:
        body = items(
            {"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Hi"}
        )
        request = codec.decode_request(body)
        assert isinstance(request.messages[0], cc.DeveloperMessage)
        out = json.loads(codec.encode_request(request))
        assert "instructions" not in out
        assert out["input"][0] == {"role": "developer", "content": "Be brief."}

    def test_call_joined_by_call_id_item_id_kept(self) -> None:
        request = codec.decode_request(items({"role": "user", "content": "Hi"}, CALL, OUTPUT))
        message = request.messages[1]
        assert isinstance(message, cc.AssistantMessage)
        call = message.tool_calls[0]
        assert (call.id, call.name, call.arguments_dict()) == (
            "call_1",
            "get_weather",
            {"city": "Paris"},
        )
        assert call.extras == {"openai-responses": {"id": "fc_1", "status": "completed"}}
        result = request.messages[2]
        assert isinstance(result, cc.ToolMessage)
        assert (result.tool_call_id, result.content) == ("call_1", "18C")

    def test_invalid_arguments_kept_verbatim(self) -> None:
        bad = {**CALL, "arguments": '{"city": "Par'}
        request = codec.decode_request(items(bad, OUTPUT))
        message = request.messages[0]
        assert isinstance(message, cc.AssistantMessage)
        assert message.invalid_tool_calls[0].arguments == '{"city": "Par'
        same_json(json.loads(codec.encode_request(request))["input"][0], bad)

    def test_reasoning_item_is_a_reasoning_part(self) -> None:
        request = codec.decode_request(items(REASONING, CALL, OUTPUT))
        message = request.messages[0]
        assert isinstance(message, cc.AssistantMessage)
        part = message.content[0] if isinstance(message.content, tuple) else None
        assert isinstance(part, cc.ReasoningPart)
        assert (part.text, part.signature, part.provider) == (
            "First.\n\nSecond.",
            "gAAA",
            "openai-responses",
        )
        same_json(json.loads(codec.encode_request(request))["input"][0], REASONING)

    def test_built_in_calls_are_opaque_in_position(self) -> None:
        search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
        reference = {"type": "item_reference", "id": "msg_0"}
        body = items(reference, {"role": "user", "content": "Hi"}, search, CALL, OUTPUT)
        request = codec.decode_request(body)
        first, _, second = request.messages[:3]
        assert isinstance(first, cc.AssistantMessage)
        assert isinstance(second, cc.AssistantMessage)
        assert isinstance(second.content, tuple)
        assert json.loads(bytes(second.content[0].data)) == search  # type: ignore[union-attr]
        same_json(json.loads(codec.encode_request(request)), json.loads(body))

    def test_call_before_content_keeps_its_place(self) -> None:
        text = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
        }
        body = items(CALL, text, {**CALL, "call_id": "call_2", "id": "fc_2"})
        request = codec.decode_request(body)
        assert len(request.messages) == 1
        same_json(json.loads(codec.encode_request(request)), json.loads(body))

    def test_message_phase_is_kept_and_reported(self) -> None:
        text = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "phase": "commentary",
            "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
        }
        body = items({"role": "user", "content": "Hi"}, text, {"role": "user", "content": "Go"})
        request = codec.decode_request(body)
        same_json(json.loads(codec.encode_request(request)), json.loads(body))
        _, report = cc.convert(body, source="openai-responses", target="openai")
        assert report.paths == ["$.messages[1].content[0].extras.openai-responses.phase"]

    def test_custom_tool_call_and_output(self) -> None:
        call = {"type": "custom_tool_call", "call_id": "c1", "name": "shell", "input": "ls -la"}
        output = {"type": "custom_tool_call_output", "call_id": "c1", "output": "a.txt"}
        request = codec.decode_request(items(call, output))
        message = request.messages[0]
        assert isinstance(message, cc.AssistantMessage)
        assert message.tool_calls[0].arguments_dict() == {"input": "ls -la"}
        same_json(json.loads(codec.encode_request(request))["input"], [call, output])

    def test_user_parts(self) -> None:
        parts = [
            {"type": "input_text", "text": "What is this?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "low"},
            {"type": "input_file", "file_id": "file_1"},
            {
                "type": "input_file",
                "filename": "a.pdf",
                "file_data": "data:application/pdf;base64,JVBE",
            },
        ]
        request = codec.decode_request(items({"role": "user", "content": parts}))
        content = request.messages[0].content
        assert isinstance(content, tuple)
        image, file_id, data = content[1], content[2], content[3]
        assert isinstance(image, cc.ImagePart)
        assert (image.data, image.media_type) == (
            "iVBO",
            "image/png",
        )
        assert isinstance(file_id, cc.FilePart)
        assert file_id.file_id == "file_1"
        assert isinstance(data, cc.FilePart)
        assert (data.data, data.filename) == ("JVBE", "a.pdf")
        same_json(json.loads(codec.encode_request(request))["input"][0]["content"], parts)

    def test_tools_and_settings(self) -> None:
        body = {
            "model": "gpt-5",
            "input": "Hi",
            "tools": [
                {
                    "type": "function",
                    "name": "f",
                    "parameters": {"type": "object"},
                    "strict": False,
                },
                {"type": "web_search"},
            ],
            "tool_choice": {"type": "function", "name": "f"},
            "parallel_tool_calls": False,
            "max_output_tokens": 300,
            "temperature": 1,
            "reasoning": {"effort": "low"},
            "text": {
                "format": {"type": "json_schema", "name": "a", "schema": {"type": "object"}},
                "verbosity": "low",
            },
        }
        request = codec.decode_request(json.dumps(body))
        tool, builtin = request.tools
        assert isinstance(tool, cc.ToolDefinition)
        assert tool.strict is False
        assert isinstance(builtin, cc.ProviderTool)
        assert builtin.provider == "openai-responses"
        assert request.tool_choice == cc.ToolChoice("tool", "f")
        assert (request.max_tokens, request.parallel_tool_calls) == (300, False)
        assert repr(request.temperature) == "1"  # an integer stays one
        assert request.response_format is not None
        assert request.response_format.name == "a"
        same_json(json.loads(codec.encode_request(request)), body)

    def test_server_state_is_reported_elsewhere(self) -> None:
        body = items(OUTPUT, previous_response_id="resp_1", store=True)
        request = codec.decode_request(body)
        assert request.extras == {
            "openai-responses": {"previous_response_id": "resp_1", "store": True}
        }
        assert codec.check_request(request) == []
        for target in ("openai", "anthropic", "gemini", "ollama"):
            _, report = cc.convert(body, source="openai-responses", target=target, max_tokens=64)
            assert "$.extras.openai-responses.previous_response_id" in report.paths
            loss = next(x for x in report if x.path.endswith("previous_response_id"))
            assert "earlier turns" in loss.reason


class TestResponseSemantics:
    """Output items, status and usage."""

    BODY: ClassVar[dict[str, Any]] = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-5",
        "output": [REASONING, CALL],
        "usage": {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 12},
            "total_tokens": 30,
        },
    }

    def test_calls_and_usage(self) -> None:
        response = codec.decode_response(json.dumps(self.BODY))
        assert response.finish_reason is cc.FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "completed"
        assert response.tool_calls[0].id == "call_1"
        assert response.usage == cc.Usage(10, 20, 30, 4, 12, 0)
        same_json(json.loads(codec.encode_response(response)), self.BODY)

    def test_cache_writes_are_the_canonical_count(self) -> None:
        anthropic = (
            b'{"id":"m","type":"message","role":"assistant","model":"c","content":'
            b'[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,'
            b'"output_tokens":9,"cache_read_input_tokens":20,"cache_creation_input_tokens":30}}'
        )
        out, report = cc.convert(
            anthropic, source="anthropic", target="openai-responses", kind="response"
        )
        usage = json.loads(out)["usage"]
        assert usage["input_tokens_details"] == {"cached_tokens": 20, "cache_write_tokens": 30}
        # The usage is carried; its details Anthropic never sent are placeholders.
        usage = [loss for loss in report.losses if loss.path.startswith("$.usage")]
        assert all("placeholder" in loss.reason for loss in usage)
        assert "$.usage.input_tokens_details.cache_write_tokens" not in report.paths
        back, _ = cc.convert(out, source="openai-responses", target="anthropic", kind="response")
        again = json.loads(back)["usage"]
        # The reasoning count the placeholder wrote comes back as Anthropic's zero.
        assert again.pop("output_tokens_details") == {"thinking_tokens": 0}
        assert again == json.loads(anthropic)["usage"]
        body = {**self.BODY, "usage": {**self.BODY["usage"], "input_tokens_details": {"x": 1}}}
        usage = codec.decode_response(json.dumps(body)).usage
        assert usage is not None
        assert (usage.cached_tokens, usage.cache_write_tokens) == (None, None)
        same_json(json.loads(codec.encode_response(codec.decode_response(json.dumps(body)))), body)

    @pytest.mark.parametrize(
        ("status", "details", "finish", "raw"),
        [
            (
                "incomplete",
                {"reason": "max_output_tokens"},
                cc.FinishReason.LENGTH,
                "max_output_tokens",
            ),
            (
                "incomplete",
                {"reason": "content_filter"},
                cc.FinishReason.CONTENT_FILTER,
                "content_filter",
            ),
            ("failed", None, cc.FinishReason.ERROR, "failed"),
            ("in_progress", None, None, "in_progress"),
        ],
    )
    def test_status(self, status: str, details: Any, finish: Any, raw: str) -> None:
        body = {**self.BODY, "output": [], "status": status, "incomplete_details": details}
        if status == "failed":
            body["error"] = {"code": "server_error", "message": "x"}
        response = codec.decode_response(json.dumps(body))
        assert (response.finish_reason, response.choices[0].raw_finish_reason) == (finish, raw)
        assert response.message is None
        same_json(json.loads(codec.encode_response(response)), body)

    def test_from_another_family(self) -> None:
        response = cc.Response(
            (cc.Choice(cc.assistant("Hel"), cc.FinishReason.LENGTH, "length"),), id="x"
        )
        out = json.loads(codec.encode_response(response))
        assert out["status"] == "incomplete"
        assert out["incomplete_details"] == {"reason": "max_output_tokens"}
        assert out["output"][0]["content"][0]["text"] == "Hel"
        again = codec.decode_response(json.dumps(out))
        assert again.finish_reason is cc.FinishReason.LENGTH


class TestCheckRequest:
    """The rules behind the Responses API's 400 answers."""

    def test_by_hand_request_passes(self) -> None:
        assert codec.check_request(by_hand_request()) == []

    def test_output_without_call(self) -> None:
        request = cc.Request((cc.tool_result("call_9", "x"),), model="m")
        assert [p.path for p in codec.check_request(request)] == ["$.messages[0].tool_call_id"]

    def test_ranges_and_stop(self) -> None:
        request = cc.Request(
            (cc.user("Hi"),), model="m", temperature=3, max_tokens=4, stop=("END",)
        )
        paths = {p.path: p.severity for p in codec.check_request(request)}
        assert paths == {"$.temperature": "error", "$.max_tokens": "error", "$.stop": "warning"}

    def test_forced_tool_exists(self) -> None:
        request = cc.Request((cc.user("Hi"),), model="m", tool_choice=cc.ToolChoice("tool", "f"))
        assert [p.path for p in codec.check_request(request)] == ["$.tool_choice.name"]

    def test_stop_is_reported_lost(self) -> None:
        losses: list[cc.Loss] = []
        codec.encode_request(cc.Request((cc.user("Hi"),), stop=("END",)), losses=losses)
        assert [loss.path for loss in losses] == ["$.stop"]


class TestMalformed:
    """Wrong types raise ValidationError naming the path."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"input":[1]}', "$.input[0]"),
            (b'{"model":1}', "$.model"),
            (b'{"max_output_tokens":"9"}', "$.max_output_tokens"),
            (b'{"tools":[1]}', "$.tools[0]"),
        ],
    )
    def test_request(self, body: bytes, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            codec.decode_request(body)
        assert info.value.path == path

    def test_odd_items_are_kept(self) -> None:
        odd: list[dict[str, Any]] = [
            {"role": "user", "content": []},
            {"type": "mystery", "x": 1},
            {"role": "tool"},
        ]
        body = items(*odd)
        request = codec.decode_request(body)
        same_json(json.loads(codec.encode_request(request)), json.loads(body))
        raw = msgspec.json.encode(request)
        assert b"mystery" in raw


def family_requests(tool_calls: bool = True) -> list[Any]:
    """Recorded requests with tool calls of every other family, and the curated ones."""
    out = []
    for family in ("openai", "anthropic", "gemini", "ollama"):
        params = corpus(family, "request", tool_calls=tool_calls) or curated(family, "request")
        out += [pytest.param(family, p.values[0], id=f"{family}:{p.id}") for p in params]
    return out


class TestConversion:
    """Chat Completions and the other families to Responses, and back."""

    @pytest.mark.parametrize(("source", "path"), family_requests())
    def test_to_responses_is_sdk_valid(self, source: str, path: Path) -> None:
        out, report = cc.convert(
            path.read_bytes(), source=source, target="openai-responses", model="m"
        )
        assert request_errors(json.loads(out)) == set()
        for loss in report:
            assert loss.path.startswith("$")

    @pytest.mark.parametrize(
        ("choice", "kept"),
        [
            ({"type": "auto"}, False),
            ({"type": "any"}, False),
            ({"type": "tool", "name": "web_search"}, False),
            ({"type": "none"}, True),  # asks for no tool: sent as it is
        ],
        ids=("auto", "any", "named", "none"),
    )
    def test_a_choice_of_tools_it_cannot_run_is_left_out(
        self, choice: dict[str, Any], kept: bool
    ) -> None:
        # Anthropic's server tools are all the request has: no tools are sent,
        # and a choice that needs one would be refused.
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "The news?"}],
            "tools": [{"type": "web_search_20250305", "name": "web_search"}],
            "tool_choice": choice,
        }
        out, report = cc.convert(body, source="anthropic", target="openai-responses", model="m")
        sent = json.loads(out)
        assert "tools" not in sent
        assert ("tool_choice" in sent) is kept
        lost = [(loss.path, loss.reason) for loss in report.losses]
        expected = [("$.tools[0]", "an anthropic tool openai-responses cannot run")]
        if not kept:
            expected.append(
                ("$.tool_choice", "a tool choice for tools openai-responses cannot run")
            )
        assert lost == expected
        assert report.problems == ()
        assert request_errors(sent) == set()

    def test_a_choice_of_a_tool_it_runs_is_kept_beside_others_left_out(self) -> None:
        tool = {"name": "f", "input_schema": {"type": "object", "properties": {}}}
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "Go"}],
            "tools": [{"type": "web_search_20250305", "name": "web_search"}, tool],
            "tool_choice": {"type": "tool", "name": "f"},
        }
        out, report = cc.convert(body, source="anthropic", target="openai-responses", model="m")
        sent = json.loads(out)
        assert [t["name"] for t in sent["tools"]] == ["f"]
        assert sent["tool_choice"] == {"type": "function", "name": "f"}
        assert report.paths == ["$.tools[0]"]

    @pytest.mark.parametrize(
        ("part", "lost"),
        [
            (cc.FilePart(url="https://example.com/a.pdf", media_type="application/pdf"), True),
            (cc.FilePart(file_id="file-1", media_type="application/pdf"), True),
            (cc.FilePart(url="https://example.com/a.pdf"), False),
            (cc.FilePart(data="JVBERi0x", media_type="application/pdf"), False),  # a data URL
        ],
        ids=("url", "file-id", "url-alone", "data"),
    )
    def test_a_files_media_type_goes_only_with_its_data(
        self, part: cc.FilePart, lost: bool
    ) -> None:
        losses: list[cc.Loss] = []
        body = codec.encode_request(cc.Request((cc.user([part]),)), losses=losses)
        assert [loss.path for loss in losses] == (
            ["$.messages[0].content[0].media_type"] if lost else []
        )
        (written,) = json.loads(body)["input"][0]["content"]
        assert ("file_data" in written) is (part.data is not None)

    @pytest.mark.parametrize(("source", "path"), family_requests())
    def test_calls_and_results_survive_a_round_trip(self, source: str, path: Path) -> None:
        original = providers.get(source).decode_request(path.read_bytes())
        out, _ = cc.convert(path.read_bytes(), source=source, target="openai-responses", model="m")
        back = codec.decode_request(out)
        calls = [
            (call.id, call.name, call.arguments_dict())
            for m in original.messages
            if isinstance(m, cc.AssistantMessage)
            for call in m.tool_calls
        ]
        assert calls == [
            (call.id, call.name, call.arguments_dict())
            for m in back.messages
            if isinstance(m, cc.AssistantMessage)
            for call in m.tool_calls
        ]
        ids = {call[0] for call in calls}
        results = [
            (m.tool_call_id, m.text)
            for m in original.messages
            if isinstance(m, cc.ToolMessage) and m.tool_call_id in ids
        ]
        assert results == [
            (m.tool_call_id, m.text)
            for m in back.messages
            if isinstance(m, cc.ToolMessage) and m.tool_call_id in ids
        ]

    def test_chat_tool_conversation_both_ways(self) -> None:
        chat = {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
            ],
            "max_completion_tokens": 100,
        }
        out, report = cc.convert(json.dumps(chat), source="openai", target="openai-responses")
        assert not report
        assert json.loads(out) == {
            "model": "gpt-4o",
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": '{"city":"Paris"}',
                },
                {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
            ],
            "max_output_tokens": 100,
        }
        back, report = cc.convert(out, source="openai-responses", target="openai")
        assert not report
        messages = json.loads(back)["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
        assert messages[2]["tool_calls"][0]["id"] == "call_1"

    def test_built_in_items_are_reported(self) -> None:
        search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}
        body = items({"role": "user", "content": "Hi"}, search, REASONING, CALL, OUTPUT)
        _, report = cc.convert(body, source="openai-responses", target="openai")
        assert "$.messages[1].content[0]" in report.paths  # the web search
        assert any(path.startswith("$.messages[1].content[1]") for path in report.paths)


@pytest.mark.parametrize("target", providers.NAMES)
@pytest.mark.parametrize(
    "path",
    needs_corpus(corpus("openai-responses", "request") or curated("openai-responses", "request")),
)
def test_every_request_converts(path: Path, target: str) -> None:
    """Every recorded request, with tool calls or not, converts to each family."""
    check("openai-responses", path, target)


class TestProperties:
    """Any strict conversation written as a Responses body reads back the same."""

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(messages=strict_conversations())
    def test_write_read_write(self, messages: list[cc.Message]) -> None:
        request = cc.Request(tuple(messages), model="m")
        losses: list[cc.Loss] = []
        body = codec.encode_request(request, losses=losses)
        back = codec.decode_request(body)
        assert codec.encode_request(back) == body
        assert [p for p in codec.check_request(back) if p.severity == "error"] == []
        if losses:  # a part or message left out (a pending file reference...): said so
            return
        ids = [
            call.id for m in messages if isinstance(m, cc.AssistantMessage) for call in m.tool_calls
        ]
        assert ids == [
            call.id
            for m in back.messages
            if isinstance(m, cc.AssistantMessage)
            for call in m.tool_calls
        ]
        # User parts may be lowered (an MCP resource becomes text): the rest reads back.
        kept = (cc.SystemMessage, cc.AssistantMessage, cc.ToolMessage)
        assert [m.text for m in back.messages if isinstance(m, kept)] == [
            m.text for m in messages if isinstance(m, kept)
        ]
        assert [m.role for m in back.messages] == [m.role for m in messages]


class TestSameFamilyAddsNothing:
    """A response read from the Responses API comes back without keys it did not have."""

    ITEM = (
        '{"type":"message","id":"m1","status":"completed","role":"assistant",'
        '"content":[{"type":"output_text","text":"hi","annotations":[]}]}'
    )

    @pytest.mark.parametrize(
        "body",
        [
            '{"id":"r1","object":"response","status":"completed","output":[%s],'
            '"usage":{"input_tokens":1,"output_tokens":2}}',
            '{"id":"r1","status":"completed","output":[%s],'
            '"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}',
        ],
        ids=["no total_tokens", "no object"],
    )
    def test_round_trip(self, body: str) -> None:
        data = json.loads(body % self.ITEM)
        out = json.loads(codec.encode_response(codec.decode_response(json.dumps(data))))
        assert out == data

    def test_another_family_gets_them(self) -> None:
        response = cc.Response(
            (cc.Choice(cc.assistant("hi"), cc.FinishReason.STOP),), usage=cc.Usage(1, 2)
        )
        out = json.loads(codec.encode_response(response))
        assert out["object"] == "response"
        assert out["usage"]["total_tokens"] == 3
