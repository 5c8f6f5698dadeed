"""The Anthropic Messages codec: real payloads, semantics, losses, preflight, bad input."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
import pydantic
import pytest
from anthropic.types import Message as SdkMessage
from anthropic.types.beta import BetaMessage
from anthropic.types.beta.message_create_params import (
    MessageCreateParamsNonStreaming as BetaNonStreaming,
)
from anthropic.types.beta.message_create_params import (
    MessageCreateParamsStreaming as BetaStreaming,
)
from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming,
)
from corpus import DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json

from chatcodec import (
    AssistantMessage,
    AudioPart,
    CachePoint,
    DecodeError,
    DeveloperMessage,
    FilePart,
    FinishReason,
    ImagePart,
    InvalidToolCall,
    Loss,
    OpaquePart,
    ProviderError,
    Reasoning,
    ReasoningPart,
    RefusalPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    Usage,
    UserMessage,
    ValidationError,
    assistant,
    key_step,
    system,
    tool_call,
    tool_result,
    user,
)
from chatcodec._exchange import Choice, ProviderTool, Request, Response, ResponseFormat, ToolChoice
from chatcodec.providers import _wire, anthropic
from chatcodec.providers import get as get_codec
from chatcodec.providers.anthropic._decode import decode_response as general_response
from chatcodec.providers.anthropic._fast import fast_response

CURATED = DATA / "anthropic"


def request_round_trip(path: Path) -> None:
    body, parsed = load(path)
    request = anthropic.decode_request(body)
    losses: list[Loss] = []
    same_json(json.loads(anthropic.encode_request(request, losses=losses)), parsed)
    assert losses == []
    check_arguments(request.messages, parsed["messages"])


def check_arguments(messages: Any, wire: list[dict[str, Any]]) -> None:
    """Each tool call's arguments are the compact JSON of the wire's ``input``."""
    inputs = [
        block["input"]
        for message in wire
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    calls = [call for m in messages if type(m) is AssistantMessage for call in m.tool_calls]
    assert [bytes(call.arguments) for call in calls] == [msgspec.json.encode(i) for i in inputs]


def response_round_trip(path: Path) -> None:
    body, parsed = load(path)
    response = anthropic.decode_response(body)
    losses: list[Loss] = []
    same_json(json.loads(anthropic.encode_response(response, losses=losses)), parsed)
    assert losses == []
    message = response.message
    check_arguments([message] if message else [], [parsed])


class TestCorpus:
    """Every recorded request and 200 response decodes and round trips losslessly."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "request")))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "response")))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize(
        "path",
        needs_corpus(
            [p for status in ("400", "404", "429") for p in corpus("anthropic", "response", status)]
        ),
    )
    def test_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(ProviderError) as caught:
            anthropic.decode_response(body)
        assert caught.value.provider == "anthropic"
        assert caught.value.type == parsed["error"]["type"]
        assert caught.value.message == parsed["error"]["message"]


class TestCurated:
    """The curated copies (tests/data/providers/anthropic) round trip losslessly."""

    @pytest.mark.parametrize("path", curated("anthropic", "request"))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", curated("anthropic", "response"))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize("path", curated("anthropic", "error"))
    def test_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(ProviderError) as caught:
            anthropic.decode_response(body)
        assert caught.value.type == parsed["error"]["type"]
        assert caught.value.body == parsed
        assert "anthropic" in str(caught.value)

    def test_sources_lists_every_file(self) -> None:
        listed = (CURATED / "SOURCES.md").read_text()
        files = sorted(CURATED.glob("*/*.json"))
        assert len(files) >= 40
        for path in files:
            assert f"{path.parent.name}/{path.name}" in listed

    def test_registry(self) -> None:
        assert get_codec("claude") is anthropic
        assert anthropic.NAME == "anthropic"


def parts(message: Any) -> tuple[Any, ...]:
    """A message's content as a tuple of parts."""
    content = message.content
    assert isinstance(content, tuple)
    return content


def req(name: str) -> Request:
    return anthropic.decode_request((CURATED / "request" / name).read_bytes())


def resp(name: str) -> Response:
    return anthropic.decode_response((CURATED / "response" / name).read_bytes())


class TestRequestSemantics:
    """Decoded requests hold the right canonical values."""

    def test_parallel_tool_calls_and_results(self) -> None:
        request = req(
            "pydantic-ai__models__anthropic__test_output__test_mixed_tools_no_output__01.json"
        )
        kinds = [type(m) for m in request.messages]
        assert kinds == [UserMessage, AssistantMessage, ToolMessage, ToolMessage]
        reply = request.messages[1]
        assert isinstance(reply, AssistantMessage)
        assert reply.text == "I'll get the weather and elevation information for Denver."
        assert [c.name for c in reply.tool_calls] == ["get_weather", "get_elevation"]
        assert [bytes(c.arguments) for c in reply.tool_calls] == [b'{"city":"Denver"}'] * 2
        first = request.messages[2]
        assert isinstance(first, ToolMessage)
        assert first.tool_call_id == reply.tool_calls[0].id == "toolu_01BBTvQnxdxk7vPHD1ytXyGs"
        assert first.content == "Weather in Denver: Sunny, 22°C"
        assert first.is_error is False
        assert first.extras == {"anthropic": {"is_error": False}}
        tools = request.tools
        assert isinstance(tools[0], ToolDefinition)
        assert isinstance(tools[1], ToolDefinition)
        assert (tools[0].strict, tools[1].strict) == (True, False)
        assert tools[0].parameters is not None
        assert tools[0].parameters["required"] == ["city"]
        assert request.tool_choice == ToolChoice("auto")
        assert request.model == "claude-sonnet-4-5"
        assert (request.max_tokens, request.stream) == (4096, False)

    def test_thinking_in_history(self) -> None:
        request = req(
            "pydantic-ai__test_cache_prefix_stability__test_anthropic_thinking_roundtrip"
            "_wire_stable_ag_ui-0_1_13__01.json"
        )
        reply = request.messages[1]
        assert isinstance(reply, AssistantMessage)
        assert isinstance(reply.content, tuple)
        thought, answer = reply.content
        assert isinstance(thought, ReasoningPart)
        assert thought.text.startswith("Let me calculate 17 * 23.")
        assert thought.signature is not None
        assert thought.signature.startswith("EvMCCm4I")
        assert thought.provider == "anthropic"
        assert isinstance(answer, TextPart)
        assert request.reasoning == Reasoning(budget_tokens=1024)
        assert request.extras is None

    def test_mid_conversation_system_turns(self) -> None:
        request = req(
            "pydantic-ai__models__test_anthropic_mid_conversation_system__test_two_mid_conversation"
            "_system_prompts_keep_their_order__00.json"
        )
        roles = [m.role.value for m in request.messages]
        assert roles == ["system", "user", "assistant", "user", "user", "system", "system"]
        assert request.messages[0].extras is None
        assert request.messages[4].extras == {"anthropic": {"~turn": "new"}}
        assert request.messages[6].extras == {"anthropic": {"~turn": "new"}}
        last = request.messages[5]
        assert isinstance(last, SystemMessage)
        assert last.content.startswith("From now on")

    def test_system_turn_with_tool_addition(self) -> None:
        request = req(
            "pydantic-ai__test_tool_availability_portability__test_anthropic_live_delta"
            "_preserves_the_warmed_cache_prefix__01.json"
        )
        last = request.messages[-1]
        assert isinstance(last, UserMessage)
        assert last.extras == {"anthropic": {"~role": "system"}}
        assert isinstance(last.content, tuple)
        (part,) = last.content
        assert isinstance(part, OpaquePart)
        assert json.loads(bytes(part.data))["type"] == "tool_addition"

    def test_consecutive_user_turns(self) -> None:
        request = req(
            "pydantic-ai__models__test_anthropic__test_anthropic_model_retrying_after_empty"
            "_response__00.json"
        )
        assert [m.role.value for m in request.messages] == ["user", "user"]
        assert request.messages[1].extras == {"anthropic": {"~turn": "new"}}

    def test_media(self) -> None:
        image = req("pydantic-ai__models__test_anthropic__test_image_url_input__00.json")
        part = parts(image.messages[0])[1]
        assert isinstance(part, ImagePart)
        assert part.url is not None
        assert part.url.startswith("https://t3.ftcdn.net/")
        text = req(
            "pydantic-ai__models__test_anthropic__test_text_document_as_binary_content_input__00.json"
        )
        document = parts(text.messages[0])[1]
        assert isinstance(document, FilePart)
        assert document.media_type == "text/plain"
        assert document.data is not None
        assert base64.b64decode(document.data) == b"Dummy TXT file\n"
        pdf = req(
            "pydantic-ai__models__test_anthropic__test_document_binary_content_input__00.json"
        )
        found = parts(pdf.messages[0])
        assert any(isinstance(p, FilePart) and p.media_type == "application/pdf" for p in found)
        url = req("pydantic-ai__models__test_anthropic__test_document_url_input__00.json")
        assert any(
            isinstance(p, FilePart) and p.url == "https://pdfobject.com/pdf/sample.pdf"
            for p in parts(url.messages[0])
        )

    def test_server_tools_and_opaque_blocks(self) -> None:
        request = req(
            "pydantic-ai__models__test_anthropic__test_anthropic_code_execution_tool_container"
            "_reuse__01.json"
        )
        assert any(isinstance(t, ProviderTool) for t in request.tools)
        reply = next(m for m in request.messages if isinstance(m, AssistantMessage))
        assert isinstance(reply.content, tuple)
        kinds = [
            json.loads(bytes(p.data))["type"] for p in reply.content if isinstance(p, OpaquePart)
        ]
        assert "server_tool_use" in kinds
        assert request.extras is not None
        assert "container" in request.extras["anthropic"]

    def test_tool_choice_any_and_tool(self) -> None:
        required = req(
            "pydantic-ai__models__test_tool_choice_matrix__test_tool_choice_matrix_required"
            "-anthropic__00.json"
        )
        assert required.tool_choice == ToolChoice("required")
        single = req(
            "pydantic-ai__models__test_tool_choice_matrix__test_tool_choice_matrix_list_single"
            "-anthropic__00.json"
        )
        assert single.tool_choice == ToolChoice("tool", "get_weather")

    def test_stop_sequences(self) -> None:
        request = req("pydantic-ai__test_settings__test_stop_settings_anthropic__00.json")
        assert request.stop is not None
        assert "Paris" in request.stop


class TestResponseSemantics:
    """Decoded responses: finish reasons, usage, reasoning and opaque blocks in place."""

    def test_parallel_tool_use(self) -> None:
        response = resp(
            "pydantic-ai__models__anthropic__test_output__test_mixed_tools_basemodel_output__00.json"
        )
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "tool_use"
        message = response.message
        assert message is not None
        assert message.content is None
        assert [c.id for c in response.tool_calls] == [
            "toolu_01KWZYbjFVqYdpqBiJbw8zJB",
            "toolu_01XTbK9b3Attg9LFsW4L6Fr5",
        ]
        assert response.tool_calls[1].arguments_dict() == {"city": "London"}
        assert response.id == "msg_013GVLcwrDVEp3LaeoxxzgrK"
        assert response.model == "claude-sonnet-4-5-20250929"
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (781, 74)
        assert response.usage.cached_tokens == 0

    def test_usage_counts_cached_input(self) -> None:
        response = resp(
            "pydantic-ai__test_code_execution_files_vcr__test_anthropic_code_execution_files"
            "_cache_prefix_stable_automatic-sonnet-5__02.json"
        )
        usage = response.usage
        assert usage is not None
        assert usage.prompt_tokens == 4 + 14714 + 379
        assert usage.cached_tokens == 14714
        assert usage.reasoning_tokens == 19
        assert usage.total_tokens is None
        assert usage.extras is not None
        assert usage.cache_write_tokens == 379
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        kinds = [type(p) for p in message.content]
        assert kinds == [ReasoningPart, OpaquePart, OpaquePart, TextPart]
        thought = message.content[0]
        assert isinstance(thought, ReasoningPart)
        assert thought.text == ""
        assert thought.signature is not None
        assert [json.loads(bytes(p.data))["type"] for p in message.content[1:3]] == [  # type: ignore[union-attr]
            "server_tool_use",
            "bash_code_execution_tool_result",
        ]

    def test_redacted_thinking(self) -> None:
        response = resp(
            "pydantic-ai__models__test_anthropic__test_anthropic_model_thinking_part_redacted__00.json"
        )
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        redacted = message.content[0]
        assert isinstance(redacted, ReasoningPart)
        assert redacted.redacted is not None
        assert redacted.redacted.startswith("EvgFCkYI")
        assert (redacted.text, redacted.provider) == ("", "anthropic")
        assert message.text.startswith("I notice")

    @pytest.mark.parametrize(
        ("name", "reason", "raw"),
        [
            (
                "pydantic-ai__test_settings__test_stop_settings_anthropic__00.json",
                "stop",
                "stop_sequence",
            ),
            (
                "langchaingo__llms__anthropic__anthropicclient__TestClient_WithAnthropicBetaHeader__00.json",
                "length",
                "max_tokens",
            ),
            (
                "pydantic-ai__models__test_anthropic__test_pause_turn_web_search_vcr__00.json",
                "other",
                "pause_turn",
            ),
            (
                "pydantic-ai__models__test_anthropic__test_anthropic_mixed_strict_tool_run__02.json",
                "stop",
                "end_turn",
            ),
        ],
    )
    def test_finish_reasons(self, name: str, reason: str, raw: str) -> None:
        choice = resp(name).choices[0]
        assert choice.finish_reason == reason
        assert choice.raw_finish_reason == raw

    def test_stop_sequence_kept(self) -> None:
        response = resp("pydantic-ai__test_settings__test_stop_settings_anthropic__00.json")
        assert response.extras == {"anthropic": {"stop_sequence": "Paris"}}

    def test_empty_content(self) -> None:
        body: dict[str, Any] = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 0},
        }
        response = anthropic.decode_response(json.dumps(body))
        assert response.message is None
        assert response.finish_reason is FinishReason.STOP
        same_json(json.loads(anthropic.encode_response(response)), body)

    def test_refusal_is_content_filter(self) -> None:
        body = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [{"type": "text", "text": "No."}],
            "stop_reason": "refusal",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        }
        assert (
            anthropic.decode_response(json.dumps(body)).finish_reason is FinishReason.CONTENT_FILTER
        )


class TestWireShapes:
    """Wire spellings with no canonical field come back as sent (the hints)."""

    def round_trip(self, body: dict[str, Any]) -> Request:
        request = anthropic.decode_request(json.dumps(body))
        same_json(json.loads(anthropic.encode_request(request)), body)
        return request

    def base(self, messages: list[Any], **more: Any) -> dict[str, Any]:
        return {"model": "claude", "max_tokens": 10, "messages": messages, **more}

    def test_tool_result_after_text(self) -> None:
        turn = [
            {"type": "text", "text": "first"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        ]
        body = self.base(
            [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
                },
                {"role": "user", "content": turn},
            ]
        )
        request = self.round_trip(body)
        assert [type(m) for m in request.messages[2:]] == [UserMessage, ToolMessage]
        assert request.messages[2].extras == {"anthropic": {"~order": "wire"}}

    def test_text_after_tool_use_and_invalid_input(self) -> None:
        blocks = [
            {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1.0}},
            {"type": "text", "text": "then"},
            {"type": "tool_use", "id": "t2", "name": "g", "input": [1, 2]},
            {"type": "tool_use", "id": "t3", "name": "h"},
        ]
        body = self.base(
            [{"role": "user", "content": "go"}, {"role": "assistant", "content": blocks}]
        )
        request = self.round_trip(body)
        reply = request.messages[1]
        assert isinstance(reply, AssistantMessage)
        assert reply.extras == {"anthropic": {"~order": "tcii"}}
        assert bytes(reply.tool_calls[0].arguments) == b'{"a":1.0}'
        bad = reply.invalid_tool_calls
        assert [(c.id, c.arguments) for c in bad] == [("t2", "[1,2]"), ("t3", "")]
        assert bad[0].error == "arguments are valid JSON but not an object"

    def test_tool_result_without_content_and_with_blocks(self) -> None:
        body = self.base(
            [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
                        {"type": "tool_use", "id": "t2", "name": "f", "input": {}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "is_error": True},
                        {
                            "type": "tool_result",
                            "tool_use_id": "t2",
                            "content": [
                                {
                                    "type": "text",
                                    "text": "x",
                                    "cache_control": {"type": "ephemeral"},
                                }
                            ],
                        },
                    ],
                },
            ]
        )
        request = self.round_trip(body)
        first, second = request.messages[2:]
        assert isinstance(first, ToolMessage)
        assert isinstance(second, ToolMessage)
        assert (first.content, first.is_error) == ("", True)
        assert first.extras == {"anthropic": {"~content": "absent"}}
        assert second.content == (TextPart("x", cache=CachePoint()),)

    def test_system_forms(self) -> None:
        one_block = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
        request = self.round_trip(self.base([{"role": "user", "content": "hi"}], system=one_block))
        assert request.messages[0] == SystemMessage(
            "Be brief.", extras={"anthropic": {"~form": "blocks"}}, cache=CachePoint()
        )
        plain = [{"type": "text", "text": "A"}]
        self.round_trip(self.base([{"role": "user", "content": "hi"}], system=plain))
        two = [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]
        self.round_trip(self.base([{"role": "user", "content": "hi"}], system=two))
        empty = self.round_trip(self.base([{"role": "user", "content": "hi"}], system=""))
        assert empty.extras == {"anthropic": {"system": ""}}
        first = self.round_trip(
            self.base([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}])
        )
        assert first.messages[0].extras == {"anthropic": {"~form": "string", "~turn": "new"}}

    def test_nulls_and_odd_keys(self) -> None:
        body = self.base(
            [{"role": "user", "content": "hi", "name": "x"}],
            temperature=None,
            tools=[],
            tool_choice={"type": "auto", "disable_parallel_tool_use": False},
            output_config={"format": {"type": "json_schema", "schema": {"type": "object"}}},
        )
        request = self.round_trip(body)
        assert request.parallel_tool_calls is True
        assert request.response_format == ResponseFormat("json_schema", schema={"type": "object"})
        assert request.messages[0].extras == {"anthropic": {"name": "x"}}

    def test_empty_text_blocks_kept(self) -> None:
        body = self.base(
            [
                {"role": "user", "content": [{"type": "text", "text": ""}]},
                {"role": "system", "content": [{"type": "text", "text": ""}]},
            ]
        )
        request = self.round_trip(body)
        assert request.messages[0] == UserMessage(
            (TextPart("", extras={"anthropic": {"~keep": True}}),)
        )

    def test_odd_tools_stay_verbatim(self) -> None:
        tools = [
            {"name": "has-dash", "input_schema": {"type": "object"}},
            {"name": "no_schema"},
            {"name": "null_description", "description": None, "input_schema": {"type": "object"}},
            {"name": "strict_false", "input_schema": {"type": "object"}, "strict": False},
        ]
        request = self.round_trip(self.base([{"role": "user", "content": "hi"}], tools=tools))
        kinds = [type(t) for t in request.tools]
        assert kinds == [ProviderTool, ProviderTool, ToolDefinition, ToolDefinition]


class TestEncode:
    """Hand-built canonical requests encode to the exact expected wire JSON."""

    def test_tool_conversation(self) -> None:
        schema = {"type": "object", "properties": {"city": {"type": "string"}}}
        request = Request(
            (
                system("Be brief."),
                user("Weather?"),
                assistant(None, [tool_call("call_1", "get_weather", {"city": "Paris"})]),
                tool_result("call_1", "sunny"),
            ),
            model="claude-sonnet-4-5",
            max_tokens=100,
            tools=(ToolDefinition("get_weather", "Weather", schema, strict=False),),
            tool_choice=ToolChoice("required"),
            parallel_tool_calls=False,
            temperature=0.5,
            stop=("END",),
        )
        expected = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "call_1",
                            "name": "get_weather",
                            "input": {"city": "Paris"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"}
                    ],
                },
            ],
            "tools": [{"name": "get_weather", "description": "Weather", "input_schema": schema}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "temperature": 0.5,
            "stop_sequences": ["END"],
        }
        assert json.loads(anthropic.encode_request(request)) == expected
        assert anthropic.check_request(request) == []

    def test_strict_tool_and_schema_format(self) -> None:
        request = Request(
            (user("Hi"),),
            model="claude",
            max_tokens=5,
            tools=(ToolDefinition("f", parameters={"type": "object", "properties": {}}),),
            response_format=ResponseFormat("json_schema", schema={"type": "object"}),
        )
        wire = json.loads(anthropic.encode_request(request))
        assert wire["tools"] == [
            {
                "name": "f",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "strict": True,
            }
        ]
        assert wire["output_config"] == {
            "format": {"type": "json_schema", "schema": {"type": "object"}}
        }

    def test_merges_turns_tool_results_first(self) -> None:
        call = tool_call("c1", "f", {})
        request = Request(
            (
                user("a"),
                user("b"),
                assistant("thinking aloud", [call]),
                user("note"),
                tool_result("c1", "done"),
            ),
            max_tokens=5,
        )
        wire = json.loads(anthropic.encode_request(request))
        assert wire["messages"] == [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "thinking aloud"},
                    {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "done"},
                    {"type": "text", "text": "note"},
                ],
            },
        ]

    def test_response(self) -> None:
        message = AssistantMessage(
            (ReasoningPart("hmm", "sig", provider="anthropic"), TextPart("Hi")),
            (tool_call("toolu_1", "f", {"x": 1}),),
        )
        response = Response(
            (Choice(message, FinishReason.TOOL_CALLS, None),),
            id="msg_1",
            model="claude",
            usage=Usage(10, 5, 15, cached_tokens=4, reasoning_tokens=2),
        )
        losses: list[Loss] = []
        wire = json.loads(anthropic.encode_response(response, losses=losses))
        assert wire == {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "Hi"},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}},
            ],
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 6,
                "output_tokens": 5,
                "cache_read_input_tokens": 4,
                "output_tokens_details": {"thinking_tokens": 2},
            },
        }
        assert losses == []
        SdkMessage.model_validate(wire | {"stop_sequence": None})


def consume(value: Any) -> None:
    """Run pydantic's lazy validation of every ``Iterable`` field."""
    if isinstance(value, dict):
        for item in value.values():
            consume(item)
    elif isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        for item in value:
            consume(item)


ADAPTERS: dict[tuple[bool, bool], pydantic.TypeAdapter[Any]] = {
    (False, False): pydantic.TypeAdapter(MessageCreateParamsNonStreaming),
    (False, True): pydantic.TypeAdapter(MessageCreateParamsStreaming),
    (True, False): pydantic.TypeAdapter(BetaNonStreaming),
    (True, True): pydantic.TypeAdapter(BetaStreaming),
}


def sdk_validate(wire: dict[str, Any], *, beta: bool = False) -> None:
    consume(ADAPTERS[beta, wire.get("stream") is True].validate_python(wire))


def validates(wire: dict[str, Any], beta: bool) -> bool:
    try:
        sdk_validate(wire, beta=beta)
    except pydantic.ValidationError:
        return False
    return True


class TestSdkTypes:
    """Encoded bodies validate against the anthropic SDK's own types.

    Requests use ``MessageCreateParams(Non)Streaming``; those that use
    beta-only blocks or tools (tool_addition, compaction, mcp_servers...)
    are checked against the beta ``MessageCreateParams`` instead. Responses use
    ``Message`` or ``BetaMessage``.
    """

    @pytest.mark.parametrize("path", curated("anthropic", "request"))
    def test_request(self, path: Path) -> None:
        _, parsed = load(path)
        wire = json.loads(anthropic.encode_request(anthropic.decode_request(path.read_bytes())))
        assert validates(wire, beta=False) or validates(wire, beta=True)
        for beta in (False, True):
            assert validates(wire, beta) == validates(parsed, beta)

    @pytest.mark.parametrize("path", curated("anthropic", "response"))
    def test_response(self, path: Path) -> None:
        body = path.read_bytes()
        out = anthropic.encode_response(anthropic.decode_response(body))
        for model in (SdkMessage, BetaMessage):
            try:
                model.model_validate_json(body)
            except pydantic.ValidationError:
                continue  # the recording predates a field the SDK now requires
            model.model_validate_json(out)

    def test_hand_built_requests(self) -> None:
        for request in (cross_source_request(), TestCheck.good()):
            sdk_validate(json.loads(anthropic.encode_request(request)))


def cross_source_request() -> Request:
    """A request as another provider's decoder (or a user) would build it."""
    call = ToolCall(
        "call:1/x", "lookup", msgspec.Raw(b'{"q":"a"}'), extras={"openai": {"type": "function"}}
    )
    broken = InvalidToolCall(
        id="call_2", name="lookup", arguments="{oops", error="arguments are not valid JSON"
    )
    return Request(
        (
            DeveloperMessage("Rules."),
            user(
                [
                    "Look:",
                    ImagePart(data="aGVsbG8=", media_type="image/png", detail="high"),
                    ImagePart(url="data:image/jpeg;base64,/9j/"),
                    AudioPart(data="AAAA", media_type="audio/wav"),
                    FilePart(data="JVBERi0=", media_type="application/pdf", filename="a.pdf"),
                    FilePart(data=base64.b64encode(b"notes").decode(), media_type="text/plain"),
                    OpaquePart(provider="gemini", data=msgspec.Raw(b'{"x":1}')),
                    TextPart("", extras={"openai": {"annotations": [{"type": "url_citation"}]}}),
                ]
            ),
            AssistantMessage(
                (
                    ReasoningPart("plan", "enc", provider="openai"),
                    RefusalPart("no"),
                    TextPart("Calling."),
                ),
                (call,),
                (broken,),
            ),
            ToolMessage("call:1/x", "found"),
            ToolMessage("call_2", "error", is_error=True),
            SystemMessage("Now answer in French."),
            user("Merci"),
        ),
        model="gpt-4o",
        max_tokens=50,
        tools=(
            ToolDefinition(
                "lookup", "Find", {"type": "object", "properties": {"q": {"type": "string"}}}
            ),
            ProviderTool(provider="openai", data=msgspec.Raw(b'{"type":"web_search"}')),
        ),
        response_format=ResponseFormat("json_object"),
        extras={"openai": {"seed": 1, "~hint": "x"}, "mine": 2},
    )


class TestCrossSource:
    """Requests from other sources encode without crashing and report their losses."""

    def test_losses_and_output(self) -> None:
        losses: list[Loss] = []
        body = anthropic.encode_request(cross_source_request(), losses=losses)
        reasons = {loss.path: loss.reason for loss in losses}
        assert reasons == {
            "$.extras.openai.seed": "an openai field anthropic has no place for",
            "$.extras" + key_step("mine"): "a field anthropic has no place for",
            "$.messages[1].content[1].detail": "anthropic images have no detail setting",
            "$.messages[1].content[3]": "anthropic cannot carry an audio part",
            "$.messages[1].content[4].filename": "anthropic documents have no file name",
            "$.messages[1].content[6]": "anthropic cannot carry a gemini block",
            "$.messages[1].content[7].extras.openai.annotations": (
                "an openai field anthropic has no place for"
            ),
            "$.messages[1].content[7]": "anthropic refuses an empty text block",
            "$.messages[2].content[0]": "anthropic cannot carry reasoning that it did not sign",
            "$.messages[2].content[1]": "anthropic has no refusal block: sent as text",
            "$.messages[2].invalid_tool_calls[0].arguments": (
                "anthropic needs JSON tool input: sent {}"
            ),
            "$.tools[1]": "an openai tool anthropic cannot run",
            "$.response_format": "anthropic has no JSON output without a schema",
        }
        wire = json.loads(body)
        assert wire["system"] == "Rules."
        user_blocks = wire["messages"][0]["content"]
        assert [b["type"] for b in user_blocks] == [
            "text",
            "image",
            "image",
            "document",
            "document",
        ]
        assert user_blocks[2]["source"] == {
            "type": "base64",
            "media_type": "image/jpeg",
            "data": "/9j/",
        }
        assert user_blocks[4]["source"] == {
            "type": "text",
            "media_type": "text/plain",
            "data": "notes",
        }
        calls = [b for b in wire["messages"][1]["content"] if b["type"] == "tool_use"]
        results = wire["messages"][2]["content"]
        new_id = _wire.derive_id("toolu_", "call:1/x")
        assert [c["id"] for c in calls] == [new_id, "call_2"]
        assert calls[1]["input"] == {}
        assert [r["tool_use_id"] for r in results] == [new_id, "call_2"]
        assert results[1]["is_error"] is True
        assert wire["messages"][3] == {
            "role": "system",
            "content": [{"type": "text", "text": "Now answer in French."}],
        }
        assert wire["messages"][4] == {"role": "user", "content": "Merci"}
        again = anthropic.decode_request(body)
        assert [m.role.value for m in again.messages] == [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "system",
            "user",
        ]
        same_json(json.loads(anthropic.encode_request(again)), wire)

    def test_every_decoded_request_encodes_elsewhere_shape(self) -> None:
        response = Response(
            (
                Choice(assistant("a"), FinishReason.ERROR, "SAFETY", index=0),
                Choice(assistant("b"), FinishReason.STOP),
            ),
            usage=Usage(5, 2, 99, extras={"gemini": {"thoughtsTokenCount": 1}}),
        )
        losses: list[Loss] = []
        wire = json.loads(anthropic.encode_response(response, losses=losses))
        assert wire["stop_reason"] is None  # no name for a failure: null, reported
        assert {loss.path for loss in losses} == {
            "$.choices[1]",
            "$.choices[0].finish_reason",
            "$.usage.total_tokens",
            "$.usage.extras.gemini.thoughtsTokenCount",
        }
        message = anthropic.decode_response(json.dumps(wire)).message
        assert message is not None
        assert message.text == "a"

    def test_foreign_reasons_map(self) -> None:
        response = Response((Choice(assistant("a"), FinishReason.LENGTH, "MAX_TOKENS"),))
        assert json.loads(anthropic.encode_response(response))["stop_reason"] == "max_tokens"


class TestCheck:
    """check_request: each rule, broken and kept."""

    @staticmethod
    def good(**changes: Any) -> Request:
        call = tool_call("t1", "f", {})
        base = Request(
            (user("hi"), assistant("", [call]), tool_result("t1", "ok")),
            model="claude",
            max_tokens=100,
            tools=(ToolDefinition("f", parameters={"type": "object"}, strict=False),),
        )
        return msgspec.structs.replace(base, **changes)

    def rules(self, request: Request) -> list[tuple[str, str]]:
        return [(p.path, p.severity) for p in anthropic.check_request(request)]

    def test_good(self) -> None:
        assert self.rules(self.good()) == []

    def test_max_tokens(self) -> None:
        assert self.rules(self.good(max_tokens=None)) == [("$.max_tokens", "error")]
        sent = json.loads(anthropic.encode_request(self.good(max_tokens=None)))
        assert "max_tokens" not in sent
        assert self.rules(self.good(max_tokens=0)) == [("$.max_tokens", "error")]

    def test_needs_a_conversation(self) -> None:
        assert ("$.messages", "error") in self.rules(self.good(messages=(system("x"),)))

    def test_sampling_ranges(self) -> None:
        assert self.rules(self.good(temperature=1.5, top_p=-1)) == [
            ("$.temperature", "error"),
            ("$.top_p", "error"),
        ]
        assert self.rules(self.good(temperature=1, top_p=0.5)) == []

    def test_stop_sequences(self) -> None:
        assert self.rules(self.good(stop=(" \n",))) == [("$.stop[0]", "warning")]
        assert self.rules(self.good(stop=("END",))) == []

    def test_empty_text(self) -> None:
        bad = self.good(messages=(user([TextPart("")]),))
        assert self.rules(bad) == [("$.messages[0].content[0].text", "error")]

    def test_empty_assistant_before_the_end(self) -> None:
        bad = self.good(messages=(user("a"), assistant(""), user("b")))
        assert self.rules(bad) == [("$.messages[1].content", "error")]
        assert self.rules(self.good(messages=(user("a"), assistant("")))) == []

    def test_image_types(self) -> None:
        image = ImagePart(data="AA==", media_type="image/bmp")
        video = FilePart(data="AA==", media_type="video/mp4")  # dropped by the encoder
        bad = self.good(messages=(user([image, video]),))
        assert self.rules(bad) == [("$.messages[0].content[0].media_type", "error")]
        ok = self.good(messages=(user([ImagePart(data="AA==", media_type="image/png")]),))
        assert self.rules(ok) == []

    def test_result_without_call(self) -> None:
        bad = self.good(messages=(user("hi"), tool_result("t9", "ok")))
        assert self.rules(bad) == [("$.messages[1].tool_call_id", "error")]

    def test_call_without_result(self) -> None:
        call = tool_call("t1", "f", {})
        bad = self.good(messages=(user("hi"), assistant(None, [call]), user("next")))
        assert self.rules(bad) == [("$.messages[1].tool_calls[0].id", "error")]
        pending = self.good(messages=(user("hi"), assistant(None, [call])))
        assert self.rules(pending) == []

    def test_consecutive_assistant_messages_share_a_turn(self) -> None:
        first, second = tool_call("t1", "f", {}), tool_call("t2", "f", {})
        messages = (
            user("hi"),
            assistant("a", [first]),
            assistant(None, [second]),
            tool_result("t1", "ok"),
            tool_result("t2", "ok"),
        )
        assert self.rules(self.good(messages=messages)) == []
        late = (
            user("hi"),
            assistant(None, [first]),
            user("x"),
            assistant("b"),
            tool_result("t1", "ok"),
        )
        assert self.rules(self.good(messages=late)) == [
            ("$.messages[1].tool_calls[0].id", "error"),
            ("$.messages[4].tool_call_id", "error"),
        ]

    def test_tool_names_unique(self) -> None:
        tool = ToolDefinition("f", parameters={"type": "object"}, strict=False)
        server = ProviderTool(
            provider="anthropic", data=msgspec.Raw(b'{"type":"memory_20250818","name":"f"}')
        )
        assert self.rules(self.good(tools=(tool, server))) == [("$.tools[1].name", "error")]

    def test_tool_choice(self) -> None:
        assert self.rules(self.good(tool_choice=ToolChoice("tool", "g"))) == [
            ("$.tool_choice.name", "error")
        ]
        assert self.rules(self.good(tool_choice=ToolChoice("tool", "f"))) == []
        no_tools = self.good(tools=(), messages=(user("hi"),), tool_choice=ToolChoice("required"))
        assert self.rules(no_tools) == [("$.tool_choice", "error")]

    def test_thinking(self) -> None:
        thinking = {"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 500}}}
        assert self.rules(self.good(extras=thinking)) == [
            ("$.extras.anthropic.thinking.budget_tokens", "error")
        ]
        big = {"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 2000}}}
        assert self.rules(self.good(extras=big, max_tokens=1500)) == [
            ("$.extras.anthropic.thinking.budget_tokens", "error")
        ]
        clash = self.good(
            extras=big,
            max_tokens=4000,
            temperature=0.2,
            top_p=0.5,
            tool_choice=ToolChoice("required"),
        )
        assert self.rules(clash) == [
            ("$.temperature", "error"),
            ("$.top_p", "error"),
            ("$.tool_choice.mode", "error"),
        ]
        assert self.rules(self.good(extras=big, max_tokens=4000)) == []


class TestMalformed:
    """Bad bodies raise chatcodec's errors naming the JSON path, never content."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            ([], "$"),
            ({"messages": {}}, "$.messages"),
            ({"messages": [1]}, "$.messages[0]"),
            ({"messages": [{"role": "bot", "content": "x"}]}, "$.messages[0].role"),
            ({"messages": [{"role": "user", "content": 3}]}, "$.messages[0].content"),
            ({"messages": [{"role": "user", "content": ""}]}, "$.messages[0].content"),
            (
                {"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
                "$.messages[0].content[0].text",
            ),
            (
                {
                    "messages": [
                        {
                            "role": "assistant",
                            "content": [{"type": "tool_use", "id": 1, "name": "f"}],
                        }
                    ]
                },
                "$.messages[0].content[0].id",
            ),
            (
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [{"type": "tool_result", "tool_use_id": "t", "content": 1}],
                        }
                    ]
                },
                "$.messages[0].content[0].content",
            ),
            ({"messages": [], "max_tokens": "10"}, "$.max_tokens"),
            ({"messages": [], "temperature": True}, "$.temperature"),
            ({"messages": [], "stream": "yes"}, "$.stream"),
            ({"messages": [], "stop_sequences": [1]}, "$.stop_sequences[0]"),
            ({"messages": [], "tools": [{"type": 5}]}, "$.tools[0].type"),
            ({"messages": [], "tool_choice": {"type": "sometimes"}}, "$.tool_choice.type"),
            ({"messages": [], "tool_choice": {"type": ["auto"]}}, "$.tool_choice.type"),
            ({"messages": [], "system": 5}, "$.system"),
            ({"messages": [], "model": 5}, "$.model"),
        ],
    )
    def test_request(self, body: Any, path: str) -> None:
        with pytest.raises(ValidationError) as caught:
            anthropic.decode_request(json.dumps(body))
        assert caught.value.path == path

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            ({"content": "hi"}, "$.content"),
            ({"content": [{"type": "text", "text": None}]}, "$.content[0].text"),
            (
                {"content": [], "usage": {"input_tokens": "1", "output_tokens": 1}},
                "$.usage.input_tokens",
            ),
            ({"content": [], "usage": {"input_tokens": 1}}, "$.usage.output_tokens"),
            (
                {"content": [], "usage": {"input_tokens": 1, "output_tokens": -1}},
                "$.usage.output_tokens",
            ),
            ({"content": [], "stop_reason": 1}, "$.stop_reason"),
            ({"content": [], "id": 1}, "$.id"),
            ({"content": [], "usage": []}, "$.usage"),
        ],
    )
    def test_response(self, body: Any, path: str) -> None:
        with pytest.raises(ValidationError) as caught:
            anthropic.decode_response(json.dumps(body))
        assert caught.value.path == path

    @pytest.mark.parametrize("body", [b"", b"{", b"\xff", b'{"a":1}x'])
    def test_not_json(self, body: bytes) -> None:
        with pytest.raises(DecodeError):
            anthropic.decode_request(body)
        with pytest.raises(DecodeError):
            anthropic.decode_response(body)

    def test_error_bodies(self) -> None:
        with pytest.raises(ProviderError) as caught:
            anthropic.decode_response(
                b'{"type":"error","error":{"type":"overloaded_error","message":"m"}}'
            )
        assert (caught.value.type, caught.value.message) == ("overloaded_error", "m")
        with pytest.raises(ProviderError) as odd:
            anthropic.decode_response(b'{"type":"error","error":"boom"}')
        assert odd.value.type is None


def fast_and_general(body: bytes) -> Response | None:
    """The fast path's response (None when it does not apply), checked against the general one."""
    fast = fast_response(body)
    if fast is not None:
        assert fast == general_response(body)
    return fast


def round_trips(body: bytes) -> None:
    """``decode_response`` reads ``body`` as the general path does, and writes it back."""
    response = anthropic.decode_response(body)
    assert response == general_response(body)
    losses: list[Loss] = []
    same_json(json.loads(anthropic.encode_response(response, losses=losses)), json.loads(body))
    assert losses == []


TOOL = b'{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1}}'
TEXT = b'{"type":"text","text":"hi"}'
USAGE = (
    b'{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":0,'
    b'"cache_read_input_tokens":0,"cache_creation":{"ephemeral_1h_input_tokens":0,'
    b'"ephemeral_5m_input_tokens":0},"service_tier":"standard","inference_geo":"not_available"}'
)


def message_with(*blocks: bytes, **keys: bytes) -> bytes:
    """A plain message body; ``keys`` replace or add raw JSON values at the top level."""
    top = {
        "id": b'"msg_1"',
        "type": b'"message"',
        "role": b'"assistant"',
        "model": b'"claude-sonnet-4-5"',
        "content": b"[" + b",".join(blocks or (TEXT,)) + b"]",
        "stop_reason": b'"end_turn"',
        "stop_sequence": b"null",
        "usage": USAGE,
    }
    top.update(keys)
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in top.items() if v) + b"}"


class TestFastPath:
    """The typed fast path of decode_response builds exactly what the general path builds."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("anthropic", "response")))
    def test_corpus(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    @pytest.mark.parametrize("path", curated("anthropic", "response"))
    def test_curated(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    def test_corpus_coverage(self) -> None:
        _, taken = fast_coverage("anthropic", "response", fast_response)
        # 265 of 310: the others hold server-tool blocks (opaque parts), left to the general path.
        assert len(taken) >= 260

    def test_curated_coverage(self) -> None:
        paths = [p.values[0] for p in curated("anthropic", "response")]
        taken = [p for p in paths if fast_response(p.read_bytes()) is not None]
        assert len(taken) >= 12

    @pytest.mark.parametrize(
        "name",
        [
            "pydantic-ai__models__anthropic__test_output__test_mixed_tools_basemodel_output__00.json",
        ],
    )
    def test_taken_by_plain_bodies(self, name: str) -> None:
        body = (CURATED / "response" / name).read_bytes()
        assert fast_and_general(body) is not None
        assert fast_and_general(body.decode()) is not None  # type: ignore[arg-type]

    def test_benchmark_body(self) -> None:
        path = Path(__file__).parents[2] / "perf" / "data" / "providers" / "anthropic_response.json"
        response = fast_and_general(path.read_bytes())
        assert response is not None
        assert [call.extras for call in response.tool_calls] == [
            {"anthropic": {"caller": {"type": "direct"}}}
        ] * 2
        assert bytes(response.tool_calls[0].arguments) == b'{"city":"Tokyo"}'

    @pytest.mark.parametrize(
        "body",
        [
            message_with(),
            message_with(b'{"type":"text","text":""}'),
            message_with(b'{"type":"text","text":"","citations":null}'),
            message_with(
                b'{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"c",'
                b'"document_index":0,"document_title":null,"start_char_index":0,"end_char_index":1}]}'
            ),
            message_with(b'{"type":"thinking","thinking":"t","signature":"sig"}', TEXT),
            message_with(b'{"type":"thinking","thinking":"t","signature":null}', TEXT),
            message_with(b'{"type":"thinking","thinking":"t"}', TEXT),
            message_with(b'{"type":"redacted_thinking","data":"abc"}', TEXT),
            message_with(TOOL, stop_reason=b'"tool_use"'),
            message_with(TEXT, TOOL),
            message_with(TOOL, TEXT),
            message_with(
                TEXT,
                TOOL,
                b'{"type":"thinking","thinking":"t","signature":"s"}',
                b'{"type":"tool_use","id":"toolu_2","name":"g","input":{},"caller":{"type":"direct"}}',
            ),
            message_with(
                b'{"type":"tool_use","id":"toolu_1","name":"f","input":'
                b'{ "b" : [1, 2.50, {"c": null}], "\\u00e9": "\\/\\u00e9\xc3\xa9" }}'
            ),
            message_with(content=b"[]"),
            message_with(stop_reason=b"null"),
            message_with(stop_reason=b'"pause_turn"'),
            message_with(stop_reason=b'"some_new_reason"'),
            message_with(stop_reason=b'"max_tokens"', stop_sequence=b""),
            message_with(stop_reason=b'"stop_sequence"', stop_sequence=b'"END"'),
            message_with(id=b"null", model=b"null"),
            message_with(usage=b"null"),
            message_with(usage=b""),
            message_with(usage=b'{"input_tokens":5,"output_tokens":2}'),
            message_with(
                usage=b'{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":null,'
                b'"cache_read_input_tokens":null,"service_tier":null}'
            ),
            message_with(
                usage=b'{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":7,'
                b'"cache_read_input_tokens":11,"server_tool_use":{"web_search_requests":1},'
                b'"output_tokens_details":{"thinking_tokens":3,"other":1},"iterations":null}'
            ),
            message_with(usage=b'{"input_tokens":5,"output_tokens":2,"output_tokens_details":{}}'),
            message_with(
                usage=b'{"input_tokens":5,"output_tokens":2,"output_tokens_details":null}'
            ),
            message_with(
                usage=b'{"input_tokens":5,"output_tokens":2,'
                b'"output_tokens_details":{"thinking_tokens":true}}'
            ),
            message_with(
                stop_details=b"null",
                container=b'{"id":"c","expires_at":"2025-01-01T00:00:00Z"}',
                context_management=b'{"applied_edits":[]}',
            ),
        ],
    )
    def test_taken_and_equal(self, body: bytes) -> None:
        assert fast_and_general(body) is not None
        round_trips(body)

    @pytest.mark.parametrize(
        "body",
        [
            message_with(stop_reason=b""),
            message_with(id=b"", model=b"", type=b"", role=b""),
        ],
    )
    def test_taken_without_keys(self, body: bytes) -> None:
        # Equal records; the encoder writes these keys back (a known gap of the wire).
        assert fast_and_general(body) is not None
        assert anthropic.decode_response(body) == general_response(body)

    def test_hints_match(self) -> None:
        response = fast_response(message_with(TOOL, TEXT))
        assert response is not None
        assert response.message is not None
        assert response.message.extras == {"anthropic": {"~order": "tc"}}
        empty = fast_response(message_with(b'{"type":"text","text":""}'))
        assert empty is not None
        assert empty.message is not None
        assert parts(empty.message)[0].extras == {"anthropic": {"~keep": True}}
        nothing = fast_response(message_with(content=b"[]"))
        assert nothing is not None
        assert nothing.message is None

    @pytest.mark.parametrize(
        "body",
        [
            message_with(
                b'{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search",'
                b'"input":{"query":"q"}}',
                b'{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}',
                TEXT,
            ),
            message_with(b'{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}'),
            message_with(b'{"type":"thinking","thinking":"t","signature":"s","extra":1}'),
            message_with(b'{"type":"thinking","thinking":null,"signature":"s"}'),
            message_with(b'{"type":"redacted_thinking","data":1}'),
            message_with(b'{"type":"tool_use","id":"","name":"f","input":{}}'),
            message_with(b'{"type":"tool_use","id":"toolu_1","name":"","input":{}}'),
            message_with(b'{"type":"tool_use","id":"toolu_1","name":"f","input":[1]}'),
            message_with(b'{"type":"tool_use","id":"toolu_1","name":"f","input":null}'),
            message_with(b'{"type":"tool_use","id":"toolu_1","name":"f"}'),
            message_with(type=b'"not_message"'),
            message_with(role=b'"user"'),
            message_with(x_extra=b'{"a":1}'),
            message_with(
                usage=b'{"input_tokens":5,"output_tokens":2,"pydantic_ai_gateway":{"a":1}}'
            ),
        ],
    )
    def test_general_path_for_the_rest(self, body: bytes) -> None:
        assert fast_response(body) is None
        round_trips(body)

    @pytest.mark.parametrize(
        "body",
        [
            message_with(TOOL, TOOL),
            message_with(usage=b'{"input_tokens":-1,"output_tokens":2}'),
            message_with(
                usage=b'{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":-1}'
            ),
            message_with(usage=b'{"input_tokens":1,"output_tokens":true}'),
            message_with(
                usage=b'{"input_tokens":1,"output_tokens":2,"output_tokens_details":{"thinking_tokens":-1}}'
            ),
            message_with(stop_reason=b"1"),
            message_with(id=b"1"),
            message_with(content=b'"hi"'),
            message_with(b'{"type":"text","text":1}'),
        ],
    )
    def test_invalid_raise_either_way(self, body: bytes) -> None:
        assert fast_response(body) is None
        with pytest.raises(ValidationError) as general:
            general_response(body)
        with pytest.raises(ValidationError) as caught:
            anthropic.decode_response(body)
        assert caught.value.path == general.value.path

    @pytest.mark.parametrize(
        "body",
        [
            b'{"type":"error","error":{"type":"overloaded_error","message":"m"}}',
            b'{"error":{"type":"api_error","message":"m"}}',
            b'{"type":"error","error":"boom","content":[]}',
        ],
    )
    def test_error_bodies(self, body: bytes) -> None:
        assert fast_response(body) is None
        with pytest.raises(ProviderError):
            anthropic.decode_response(body)

    @pytest.mark.parametrize("body", [message_with()[:-1], b"\xff", b"", b"[]"])
    def test_malformed(self, body: bytes) -> None:
        assert fast_response(body) is None
        with pytest.raises((DecodeError, ValidationError)):
            anthropic.decode_response(body)
