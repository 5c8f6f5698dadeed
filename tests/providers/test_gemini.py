"""The Gemini codec: real generateContent bodies, semantics, losses, preflight, SDK types."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pydantic
import pytest
from corpus import DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json
from google.genai import types

import chatcodec as cc
from chatcodec import (
    AssistantMessage,
    AudioPart,
    Choice,
    DecodeError,
    FilePart,
    FinishReason,
    ImagePart,
    InvalidToolCall,
    Loss,
    OpaquePart,
    ProviderError,
    ReasoningPart,
    RefusalPart,
    Request,
    Response,
    ResponseFormat,
    SystemMessage,
    TextPart,
    ToolChoice,
    ToolDefinition,
    ToolMessage,
    Usage,
    UserMessage,
    ValidationError,
    assistant,
    convert,
    developer,
    system,
    tool_call,
    tool_result,
    user,
)
from chatcodec._exchange import ProviderTool
from chatcodec.providers import gemini
from chatcodec.providers.gemini import _fastreq
from chatcodec.providers.gemini._decode import general_response
from chatcodec.providers.gemini._fast import fast_response
from official import sdk_check_request, sdk_check_response

HERE = DATA / "gemini"


def request_file(name: str) -> Request:
    return gemini.decode_request((HERE / "request" / f"{name}.json").read_bytes())


def response_file(name: str) -> Response:
    return gemini.decode_response((HERE / "response" / f"{name}.json").read_bytes())


def encoded(request: Request, losses: list[Loss] | None = None) -> Any:
    return json.loads(gemini.encode_request(request, losses=losses))


def request_round_trip(path: Path) -> None:
    data, parsed = load(path)
    request = gemini.decode_request(data)
    same_json(json.loads(gemini.encode_request(request)), parsed)


def response_round_trip(path: Path) -> None:
    data, parsed = load(path)
    response = gemini.decode_response(data)
    same_json(json.loads(gemini.encode_response(response)), parsed)


class TestCorpus:
    """Every recorded Gemini body decodes and round trips losslessly."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "request")))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "response")))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize(
        "path",
        needs_corpus([p for s in ("400", "403", "404") for p in corpus("gemini", "response", s)]),
    )
    def test_error(self, path: Path) -> None:
        data, parsed = load(path)
        with pytest.raises(ProviderError) as info:
            gemini.decode_response(data)
        assert info.value.provider == "gemini"
        assert info.value.type == parsed["error"]["status"]
        assert info.value.code == parsed["error"]["code"]


class TestCurated:
    """The curated copies decode, round trip, and raise for errors."""

    @pytest.mark.parametrize("path", curated("gemini", "request"))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", curated("gemini", "response"))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize("path", curated("gemini", "error"))
    def test_error(self, path: Path) -> None:
        data, parsed = load(path)
        with pytest.raises(ProviderError) as info:
            gemini.decode_response(data)
        assert (info.value.type, info.value.code) == (
            parsed["error"]["status"],
            parsed["error"]["code"],
        )
        assert info.value.message == parsed["error"]["message"]
        assert info.value.body == parsed

    def test_sources_list_every_file(self) -> None:
        sources = (HERE / "SOURCES.md").read_text()
        for path in HERE.glob("*/*.json"):
            assert f"`{path.parent.name}/{path.name}`" in sources


class TestSdkTypes:
    """Encoded bodies validate against google-genai's own pydantic types."""

    @pytest.mark.parametrize("path", curated("gemini", "request"))
    def test_curated_request(self, path: Path) -> None:
        sdk_check_request(json.loads(gemini.encode_request(gemini.decode_request(load(path)[0]))))

    @pytest.mark.parametrize("path", curated("gemini", "response"))
    def test_curated_response(self, path: Path) -> None:
        sdk_check_response(gemini.encode_response(gemini.decode_response(load(path)[0])))

    def test_hand_built_request(self) -> None:
        request = Request(
            (
                system("Be brief."),
                user(["Look:", ImagePart(data="aGk=", media_type="image/png")]),
                assistant(tool_calls=[tool_call("c1", "look", {"q": "x"})]),
                tool_result("c1", "done"),
            ),
            tools=(ToolDefinition("look", "Look", {"type": "object", "properties": {}}),),
            tool_choice=ToolChoice("tool", "look"),
            max_tokens=10,
            temperature=0.2,
            top_p=0.9,
            stop=("END",),
            response_format=ResponseFormat("json_schema", schema={"type": "object"}),
        )
        sdk_check_request(encoded(request))

    def test_sdk_refuses_a_wrong_piece(self) -> None:
        with pytest.raises(pydantic.ValidationError):
            types.Content.model_validate({"parts": [{"functionCall": {"args": 3}}]})


class TestRequestSemantics:
    """Decoded requests say what the wire said."""

    def test_function_call_and_result_by_name(self) -> None:
        request = request_file("langchaingo__llms__googleai__TestGoogleAIToolCallResponse__01")
        first, call_turn, result = request.messages
        assert isinstance(first, UserMessage)
        assert isinstance(call_turn, AssistantMessage)
        call = call_turn.tool_calls[0]
        assert call.name == "calculate"
        assert bytes(call.arguments) == b'{"expression":"15 * 7"}'
        assert call.id.startswith("call_")
        assert isinstance(result, ToolMessage)
        assert result.tool_call_id == call.id
        assert json.loads(result.text) == {"response": "105"}
        tool = request.tools[0]
        assert isinstance(tool, ToolDefinition)
        # Integer Schema types become JSON Schema names.
        assert tool.parameters == {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "Mathematical expression to evaluate",
                }
            },
            "required": ["expression"],
        }
        assert (request.max_tokens, request.temperature, request.top_p) == (2048, 0.5, 0.95)

    def test_parallel_calls_with_ids_and_signature(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_google__test_google_instructions_only_with_tool_calls__02"
        )
        assert isinstance(request.messages[0], SystemMessage)
        turn = request.messages[2]
        assert isinstance(turn, AssistantMessage)
        assert turn.content is None
        assert (
            next(call.id for call in turn.tool_calls) == "pyd_ai_df5891897e434a16add992cc09f10172"
        )
        assert turn.tool_calls[0].extras is not None
        assert "thoughtSignature" in turn.tool_calls[0].extras["gemini"]
        results = request.messages[3:6]
        assert [m.tool_call_id for m in results if isinstance(m, ToolMessage)] == [
            call.id for call in turn.tool_calls
        ]
        # ANY with several allowed names: required, the names kept for Gemini.
        assert request.tool_choice == ToolChoice(
            "required",
            extras={"gemini": {"allowedFunctionNames": ["generate_topic", "final_result"]}},
        )

    def test_thoughts_are_reasoning_parts(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_google__test_google_model_thinking_part__01"
        )
        turn = request.messages[2]
        assert isinstance(turn, AssistantMessage)
        assert isinstance(turn.content, tuple)
        assert isinstance(turn.content[0], ReasoningPart)
        assert turn.reasoning.startswith("**A Safe Street-Crossing Guide")
        assert turn.text.startswith("Crossing the street safely")

    def test_server_tool_parts_stay_in_place(self) -> None:
        request = request_file(
            "pydantic-ai__models__google__test_structured_output__test_function_tools_with_builtin_tools__01"
        )
        turn = request.messages[1]
        assert isinstance(turn, AssistantMessage)
        assert isinstance(turn.content, tuple)
        assert len(turn.content) == 2
        assert all(isinstance(part, OpaquePart) for part in turn.content)
        assert b'"toolCall"' in bytes(turn.content[0].data)  # type: ignore[union-attr]
        # The function call came first on the wire.
        assert turn.extras == {"gemini": {"~order": "tcc"}}
        kinds = [type(tool) for tool in request.tools]
        assert kinds == [ProviderTool, ToolDefinition]

    def test_snake_case_keys_and_media(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_google__test_google_url_input_AudioUrl__00"
        )
        assert request.extras is not None
        assert "~snake" in request.extras["gemini"]
        parts = request.messages[-1].content
        assert isinstance(parts, tuple)
        audio = [part for part in parts if isinstance(part, AudioPart)]
        assert audio
        assert audio[0].url is not None
        assert audio[0].media_type is not None

    def test_function_response_parts(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_multimodal_tool_returns__test_mixed_content_ordering_google_vertex__02"
        )
        results = [m for m in request.messages if isinstance(m, ToolMessage)]
        assert isinstance(results[0].content, str)  # a response object only
        content = results[1].content
        assert isinstance(content, tuple)
        assert isinstance(content[0], TextPart)
        assert isinstance(content[1], ImagePart)
        assert content[1].data is not None

    def test_video_metadata_rides_on_the_part(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_google__test_google_model_youtube_video_url_input_with_vendor_metadata__00"
        )
        part = request.messages[-1].content[-1]  # type: ignore[index]
        assert isinstance(part, FilePart)
        assert part.url is not None
        assert part.extras is not None
        assert "videoMetadata" in part.extras["gemini"]

    def test_gemini_schema_response_format(self) -> None:
        request = request_file(
            "pydantic-ai__models__test_google__test_google_native_output_multiple__00"
        )
        response_format = request.response_format
        assert response_format is not None
        assert response_format.type == "json_schema"
        assert response_format.schema is not None
        assert response_format.schema["type"] == "object"
        assert response_format.extras == {"gemini": {"~schema": "upper"}}

    def test_tool_choice_modes(self) -> None:
        forced = request_file(
            "pydantic-ai__models__test_tool_choice_matrix__test_tool_choice_matrix_list_single-google__00"
        )
        assert forced.tool_choice == ToolChoice("tool", "get_weather")
        validated = request_file(
            "pydantic-ai__models__google__test_output__test_google_default_tools_use_validated_mode__00"
        )
        assert validated.tool_choice is not None
        assert validated.tool_choice.mode == "auto"
        assert validated.tool_choice.extras == {"gemini": {"~mode": "VALIDATED"}}

    def test_json_mode_and_model_in_body(self) -> None:
        request = request_file("langchaingo__llms__googleai__TestGoogleAIWithJSONMode__00")
        assert request.response_format == ResponseFormat("json_object")
        # This client sends the model in the body too; it goes back there.
        assert request.model == "models/gemini-2.0-flash"
        assert request.extras is not None
        assert request.extras["gemini"]["~model"] == "body"
        without = request_file("pydantic-ai__test_settings__test_stop_settings_google__00")
        assert without.model is None

    def test_system_instruction_role(self) -> None:
        request = request_file(
            "langchaingo__llms__googleai__TestGoogleAIGenerateContentWithSystemMessage__00"
        )
        first = request.messages[0]
        assert isinstance(first, SystemMessage)
        assert first.extras == {"gemini": {"~role": "system"}}

    def test_stop_sequences(self) -> None:
        request = request_file("pydantic-ai__test_settings__test_stop_settings_google__00")
        assert request.stop is not None
        assert all(isinstance(s, str) for s in request.stop)


class TestResponseSemantics:
    """Decoded responses: messages, finish reasons, usage."""

    def test_thinking(self) -> None:
        response = response_file(
            "pydantic-ai__models__test_google__test_google_model_thinking_part__00"
        )
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        assert isinstance(message.content[0], ReasoningPart)
        assert response.finish_reason is FinishReason.STOP
        assert response.usage == Usage(
            29,
            736 + 1001,  # the completion counts the thoughts
            1766,
            reasoning_tokens=1001,
            extras=response.usage.extras,  # type: ignore[union-attr]
        )
        assert (response.id, response.model) == ("ON4gaYT4Gc20qtsP2bSiiQ0", "gemini-3-pro-preview")

    def test_parallel_calls_get_distinct_derived_ids(self) -> None:
        response = response_file(
            "pydantic-ai__models__test_google__test_google_instructions_only_with_tool_calls__00"
        )
        calls = response.tool_calls
        assert len(calls) == 3
        assert len({call.id for call in calls}) == 3
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "STOP"
        assert calls[0].extras is not None
        assert calls[0].extras["gemini"]["~id"] == "derived"

    def test_integer_finish_reason(self) -> None:
        response = response_file("langchaingo__llms__googleai__TestGoogleAIToolCallResponse__00")
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == 1
        plain = response_file("langchaingo__llms__googleai__TestGoogleAICall__00")
        assert plain.finish_reason is FinishReason.STOP

    def test_code_execution_is_opaque_in_order(self) -> None:
        response = response_file(
            "pydantic-ai__models__google__test_code_execution__test_code_execution__00"
        )
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        kinds = [json.loads(bytes(p.data)) for p in message.content if isinstance(p, OpaquePart)]
        assert any("executableCode" in kind for kind in kinds)
        assert any("codeExecutionResult" in kind for kind in kinds)

    @pytest.mark.parametrize(
        ("name", "reason"),
        [
            (
                "pydantic-ai__models__test_google__test_google_model_max_tokens__00",
                FinishReason.LENGTH,
            ),
            (
                "pydantic-ai__models__test_google__test_google_model_safety_settings__00",
                FinishReason.CONTENT_FILTER,
            ),
            (
                "pydantic-ai__models__test_multimodal_tool_returns__test_multimodal_tool_return_matrix_direct-binary-audio-google_vertex__00",
                FinishReason.ERROR,
            ),
        ],
    )
    def test_finish_reasons(self, name: str, reason: FinishReason) -> None:
        assert response_file(name).finish_reason is reason

    @pytest.mark.parametrize("raw", ["FINISH_REASON_UNSPECIFIED", 0, "NOT_A_REASON", 99])
    def test_an_unspecified_finish_reason_is_none_kept_as_sent(self, raw: str | int) -> None:
        candidate = {"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": raw}
        body = json.dumps({"candidates": [candidate]}).encode()
        response = gemini.decode_response(body)
        known = raw in ("FINISH_REASON_UNSPECIFIED", 0)
        assert response.finish_reason is (None if known else FinishReason.OTHER)
        assert response.choices[0].raw_finish_reason == raw
        assert gemini.encode_response(response) == body.replace(b" ", b"")
        assert fast_response(body) == general_response(body) == response
        if known:  # no reason: another family writes its own "none", not Gemini's name
            claude, report = convert(body, source="gemini", target="anthropic", kind="response")
            assert json.loads(claude)["stop_reason"] is None
            # Nothing lost: what Anthropic requires and the body lacks is a placeholder.
            assert all("placeholder" in loss.reason for loss in report.losses)
            assert "$.stop_reason" not in report.paths
            converse, _ = convert(body, source="gemini", target="bedrock", kind="response")
            assert "stopReason" not in json.loads(converse)

    def test_candidate_without_parts(self) -> None:
        response = response_file(
            "pydantic-ai__models__test_google__test_google_model_safety_settings__00"
        )
        assert response.choices[0].message is None
        assert response.usage is not None
        assert response.usage.completion_tokens == 0

    def test_no_candidates(self) -> None:
        response = response_file(
            "pydantic-ai__models__test_google__test_google_model_armor_prompt_template_text_gets_blocked__01"
        )
        assert response.choices == ()
        assert response.extras is not None
        assert "promptFeedback" in response.extras["gemini"]

    def test_hand_built_response(self) -> None:
        response = Response(
            (
                Choice(
                    assistant("", [tool_call("c1", "f", {"a": 1})]),
                    FinishReason.TOOL_CALLS,
                    index=0,
                ),
            ),
            id="r1",
            model="gemini-2.5-flash",
            usage=Usage(3, 6, 9, cached_tokens=1, reasoning_tokens=4),
        )
        assert json.loads(gemini.encode_response(response)) == {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": ""},
                            {"functionCall": {"name": "f", "args": {"a": 1}, "id": "c1"}},
                        ],
                    },
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 3,
                "candidatesTokenCount": 2,  # the completion less the thoughts
                "totalTokenCount": 9,
                "cachedContentTokenCount": 1,
                "thoughtsTokenCount": 4,
            },
            "modelVersion": "gemini-2.5-flash",
            "responseId": "r1",
        }

    def test_a_changed_finish_reason_wins_over_the_raw_one(self) -> None:
        choice = Choice(assistant("x"), FinishReason.LENGTH, raw_finish_reason="STOP")
        body = json.loads(gemini.encode_response(Response((choice,))))
        assert body["candidates"][0]["finishReason"] == "MAX_TOKENS"


class TestEncodeRequest:
    """Hand-built canonical requests encode to the exact wire."""

    def test_conversation(self) -> None:
        request = Request(
            (
                system("Be brief."),
                developer("Use metric units."),
                user("Weather in Paris and Rome?"),
                assistant(
                    "Checking.",
                    [
                        tool_call("c1", "get_weather", {"city": "Paris"}),
                        tool_call("c2", "get_weather", {"city": "Rome"}),
                    ],
                ),
                tool_result("c1", '{"temp": 21}'),
                tool_result("c2", "Sunny", is_error=True),
            ),
            tools=(
                ToolDefinition(
                    "get_weather",
                    "Weather in a city.",
                    {"type": "object", "properties": {"city": {"type": "string"}}},
                ),
            ),
            tool_choice=ToolChoice("required"),
            max_tokens=100,
            temperature=0.5,
            stop=("END",),
            response_format=ResponseFormat("json_object"),
        )
        assert encoded(request) == {
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "Checking."},
                        {
                            "functionCall": {
                                "name": "get_weather",
                                "args": {"city": "Paris"},
                                "id": "c1",
                            }
                        },
                        {
                            "functionCall": {
                                "name": "get_weather",
                                "args": {"city": "Rome"},
                                "id": "c2",
                            }
                        },
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "get_weather",
                                "response": {"temp": 21},
                                "id": "c1",
                            }
                        },
                        {
                            "functionResponse": {
                                "name": "get_weather",
                                "response": {"error": "Sunny"},
                                "id": "c2",
                            }
                        },
                    ],
                },
            ],
            "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use metric units."}]},
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "description": "Weather in a city.",
                            "name": "get_weather",
                            "parametersJsonSchema": {
                                "type": "object",
                                "properties": {"city": {"type": "string"}},
                            },
                        }
                    ]
                }
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
            "generationConfig": {
                "maxOutputTokens": 100,
                "temperature": 0.5,
                "stopSequences": ["END"],
                "responseMimeType": "application/json",
            },
        }

    def test_media_parts(self) -> None:
        request = Request(
            (
                user(
                    [
                        ImagePart(url="data:image/png;base64,aGk="),
                        ImagePart(url="gs://bucket/cat.jpg", media_type="image/jpeg"),
                        AudioPart(data="AAA=", media_type="audio/wav"),
                        FilePart(data="JVBE", media_type="application/pdf"),
                    ]
                ),
            )
        )
        assert encoded(request)["contents"][0]["parts"] == [
            {"inlineData": {"mimeType": "image/png", "data": "aGk="}},
            {"fileData": {"mimeType": "image/jpeg", "fileUri": "gs://bucket/cat.jpg"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "AAA="}},
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}},
        ]

    def test_snake_case_is_kept(self) -> None:
        body = (
            b'{"contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"image/png",'
            b'"data":"aGk="}}]}],"generation_config":{"max_output_tokens":5}}'
        )
        request = gemini.decode_request(body)
        assert request.max_tokens == 5
        assert isinstance(request.messages[0].content[0], ImagePart)  # type: ignore[index]
        assert gemini.encode_request(request) == body

    def test_gemini_schema_types_restored(self) -> None:
        body = {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "f",
                            "parameters": {
                                "type": "OBJECT",
                                "properties": {"a": {"type": "ARRAY", "items": {"type": "STRING"}}},
                            },
                        }
                    ]
                },
                {"functionDeclarations": [{"name": "g"}]},
            ],
        }
        request = gemini.decode_request(json.dumps(body))
        tool = request.tools[0]
        assert isinstance(tool, ToolDefinition)
        assert tool.parameters is not None
        assert tool.parameters["properties"]["a"]["items"] == {"type": "string"}
        assert len(request.tools) == 2
        same_json(encoded(request), body)

    def test_results_and_text_in_one_turn(self) -> None:
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                {
                    "role": "user",
                    "parts": [
                        {"text": "here:"},
                        {"functionResponse": {"name": "f", "response": {"ok": True}}},
                    ],
                },
                {"parts": [{"text": "and?"}]},
            ]
        }
        request = gemini.decode_request(json.dumps(body))
        kinds = [type(m) for m in request.messages]
        assert kinds == [UserMessage, AssistantMessage, ToolMessage, UserMessage, UserMessage]
        call = request.messages[1].tool_calls[0]  # type: ignore[union-attr]
        assert request.messages[2].tool_call_id == call.id  # type: ignore[union-attr]
        same_json(encoded(request), body)

    def test_invalid_arguments_and_missing_pieces(self) -> None:
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "args": [1, 2]}},
                        {"functionCall": {"name": "g"}},
                        {"text": "after"},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "f", "response": {}}},
                        {"functionResponse": {"name": "g", "response": {}}},
                    ],
                },
            ]
        }
        request = gemini.decode_request(json.dumps(body))
        turn = request.messages[1]
        assert isinstance(turn, AssistantMessage)
        assert turn.invalid_tool_calls == (
            InvalidToolCall(
                name="f", arguments="[1,2]", error="arguments are valid JSON but not an object"
            ),
        )
        assert bytes(turn.tool_calls[0].arguments) == b"{}"
        assert request.messages[3].tool_call_id == turn.tool_calls[0].id  # type: ignore[union-attr]
        same_json(encoded(request), body)

    def test_response_that_is_not_an_object(self) -> None:
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "args": {}, "id": "a"}}],
                },
                {"role": "user", "parts": [{"functionResponse": {"id": "a", "response": "x"}}]},
            ]
        }
        request = gemini.decode_request(json.dumps(body))
        assert request.messages[2].text == '"x"'
        same_json(encoded(request), body)


class TestToolResultText:
    """A tool result's text goes as its own object only when it reads back as itself."""

    @pytest.mark.parametrize(
        ("text", "sent", "read_back"),
        [
            ('{"temp": 21}', {"temp": 21}, '{"temp":21}'),
            # Unwrapped, these would read back as other text, or not at all.
            ('{"result": "ok"}', {"result": '{"result": "ok"}'}, '{"result": "ok"}'),
            ('{"result": 1e999}', {"result": '{"result": 1e999}'}, '{"result": 1e999}'),
            ('{"x": [1e999]}', {"result": '{"x": [1e999]}'}, '{"x": [1e999]}'),
            ("[1, 2]", {"result": "[1, 2]"}, "[1, 2]"),
            ("not json", {"result": "not json"}, "not json"),
        ],
    )
    def test_text(self, text: str, sent: dict[str, Any], read_back: str) -> None:
        request = Request(
            (
                user("Go."),
                assistant(None, [tool_call("c1", "f", {"a": 1})]),
                tool_result("c1", text),
            )
        )
        body = gemini.encode_request(request)
        part = json.loads(body)["contents"][-1]["parts"][0]
        assert part["functionResponse"]["response"] == sent
        back = gemini.decode_request(body).messages[-1]
        assert isinstance(back, ToolMessage)
        assert back.content == read_back


class TestCrossSource:
    """Requests from other providers encode, report their losses, and decode again."""

    def test_every_part_kind(self) -> None:
        request = Request(
            (
                user(
                    [
                        TextPart("hi", extras={"openai": {"x": 1}}),
                        ImagePart(url="https://example.com/a.png", detail="high"),
                        FilePart(file_id="file-abc"),
                        FilePart(data="JVBE", media_type="application/pdf", filename="a.pdf"),
                        OpaquePart("anthropic", msgspec.Raw(b'{"type":"document"}')),
                    ]
                ),
                AssistantMessage(
                    (
                        ReasoningPart("thinking", signature="sig", provider="anthropic"),
                        ReasoningPart(redacted="xyz", provider="anthropic"),
                        RefusalPart("no"),
                        OpaquePart("gemini", msgspec.Raw(b'{"executableCode":{"code":"1"}}')),
                        TextPart("ok"),
                    ),
                    (tool_call("c1", "f", {"a": 1}),),
                    (InvalidToolCall(id="c2", name="g", arguments="{bad", error="x"),),
                ),
                tool_result("c1", "done"),
                ToolMessage("c2", (TextPart("r"), ImagePart(data="aGk=", media_type="image/png"))),
                system("late"),
            ),
            tools=(ProviderTool("openai", msgspec.Raw(b'{"type":"web_search"}')),),
            parallel_tool_calls=True,
            stream=True,
            response_format=ResponseFormat(
                "json_schema", name="x", schema={"type": "object"}, strict=True
            ),
            extras={"anthropic": {"metadata": {"user_id": "u"}}},
        )
        losses: list[Loss] = []
        body = gemini.encode_request(request, losses=losses)
        # Other providers' fields are reported by the shared helper, in its words.
        assert [loss.path for loss in losses] == [
            "$.extras.anthropic.metadata.user_id",
            "$.messages[0].content[0].extras.openai.x",
            "$.messages[0].content[1].detail",
            "$.messages[0].content[2]",
            "$.messages[0].content[3].filename",
            "$.messages[0].content[4]",
            "$.messages[1].content[0].signature",
            "$.messages[1].content[1].redacted",
            "$.messages[1].content[2]",
            "$.messages[1].invalid_tool_calls[0].arguments",
            "$.messages[4]",
            "$.tools[0]",
            "$.response_format.name",
            "$.response_format.strict",
            "$.parallel_tool_calls",
            "$.stream",
        ]
        reasons = {loss.path: loss.reason for loss in losses}
        assert {path: reasons[path] for path in reasons if ".extras." not in path} == {
            "$.messages[0].content[1].detail": "an image detail gemini has no field for",
            "$.messages[0].content[2]": "a file id gemini cannot resolve",
            "$.messages[0].content[3].filename": "a file name gemini has no field for",
            "$.messages[0].content[4]": "an anthropic block gemini cannot carry",
            "$.messages[1].content[0].signature": "a reasoning signature made by another provider",
            "$.messages[1].content[1].redacted": "redacted reasoning gemini cannot carry",
            "$.messages[1].content[2]": "a refusal, which gemini carries as plain text",
            "$.messages[1].invalid_tool_calls[0].arguments": "arguments that are not JSON",
            "$.messages[4]": "an instruction after the conversation began (sent first)",
            "$.tools[0]": "an openai tool gemini cannot run",
            "$.response_format.name": "a schema name gemini has no field for",
            "$.response_format.strict": "a strict flag gemini has no field for",
            "$.parallel_tool_calls": "gemini has no switch for parallel tool calls",
            "$.stream": "gemini streams by endpoint, not by a body field",
        }
        again = gemini.decode_request(body)
        assert isinstance(again.messages[0], SystemMessage)
        results = [m for m in again.messages if isinstance(m, ToolMessage)]
        assert [m.tool_call_id for m in results] == ["c1", "c2"]
        wire = json.loads(body)
        assert wire["contents"][2]["parts"][1]["functionResponse"]["name"] == "g"
        sdk_check_request(wire)

    def test_a_turn_whose_parts_are_all_lost_is_left_out(self) -> None:
        lost = user([OpaquePart("anthropic", msgspec.Raw(b'{"type":"document"}'))])
        losses: list[Loss] = []
        body = gemini.encode_request(Request((user("a"), lost, user("b"))), losses=losses)
        assert [loss.path for loss in losses] == ["$.messages[1].content[0]"]
        assert [m.text for m in gemini.decode_request(body).messages] == ["a", "b"]

    def test_own_signature_is_kept(self) -> None:
        message = AssistantMessage((ReasoningPart("t", signature="s", provider="gemini"),))
        request = Request((user("q"), message))
        assert encoded(request)["contents"][1]["parts"] == [
            {"text": "t", "thought": True, "thoughtSignature": "s"}
        ]

    def test_response_from_another_provider(self) -> None:
        response = Response(
            (
                Choice(
                    assistant("hi"), FinishReason.CONTENT_FILTER, raw_finish_reason="content_filter"
                ),
            ),
            usage=Usage(1, 2, extras={"openai": {"x": 1}}),
            extras={"openai": {"system_fingerprint": "fp"}},
        )
        losses: list[Loss] = []
        body = gemini.encode_response(response, losses=losses)
        assert [loss.path for loss in losses] == [
            "$.extras.openai.system_fingerprint",
            "$.usage.extras.openai.x",
        ]
        again = gemini.decode_response(body)
        assert again.finish_reason is FinishReason.CONTENT_FILTER
        assert again.choices[0].raw_finish_reason == "SAFETY"


def problems(request: Request) -> list[tuple[str, str, str]]:
    return [(p.path, p.rule, p.severity) for p in gemini.check_request(request)]


class TestCheckRequest:
    """Each preflight rule fires when broken and stays quiet when kept."""

    def test_empty_conversation(self) -> None:
        assert problems(Request((system("x"),))) == [
            ("$.messages", "contents must not be empty", "error")
        ]
        assert problems(Request((user("x"),))) == []

    def test_first_turn_is_user(self) -> None:
        assert problems(Request((assistant("a"), user("b")))) == [
            ("$.messages[0]", "the first turn must be a user turn", "error")
        ]

    def test_result_count(self) -> None:
        calls = [tool_call("a", "f"), tool_call("b", "f")]
        short = Request((user("q"), assistant(tool_calls=calls), tool_result("a", "1"), user("n")))
        assert problems(short) == [
            (
                "$.messages[1].tool_calls",
                "the number of function results must equal the number of function calls",
                "error",
            )
        ]
        full = Request(
            (user("q"), assistant(tool_calls=calls), tool_result("a", "1"), tool_result("b", "2"))
        )
        assert problems(full) == []

    def test_result_without_call(self) -> None:
        request = Request((user("q"), tool_result("zz", "1")))
        assert problems(request) == [
            ("$.messages[1]", "a function result must follow a function call turn", "error"),
            (
                "$.messages[1].tool_call_id",
                "answers no function call, so the result has no name",
                "error",
            ),
        ]

    def test_empty_model_turn(self) -> None:
        request = Request((user("q"), AssistantMessage(()), user("r")))
        assert problems(request) == [
            ("$.messages[1].content", "a model turn needs a part", "error")
        ]
        assert problems(Request((user("q"), assistant(""), user("r")))) == []

    def test_file_url_needs_media_type(self) -> None:
        request = Request((user([ImagePart(url="https://example.com/a.png")]),))
        assert problems(request) == [
            (
                "$.messages[0].content[0].media_type",
                "a file by URL (fileData) needs its media type",
                "error",
            )
        ]
        ok = Request((user([ImagePart(url="https://example.com/a.png", media_type="image/png")]),))
        assert problems(ok) == []

    def test_empty_text_part(self) -> None:
        request = Request((user([TextPart(""), TextPart("x")]),))
        assert problems(request) == [
            ("$.messages[0].content[0].text", "empty text part", "warning")
        ]

    def test_late_instruction(self) -> None:
        request = Request((user("q"), system("s")))
        assert problems(request) == [
            ("$.messages[1]", "instructions go before the conversation", "warning")
        ]

    def test_tool_names(self) -> None:
        tools = (
            ToolDefinition("f", strict=False),
            ToolDefinition("f", strict=False),
            ToolDefinition("1g"),
        )
        assert problems(Request((user("q"),), tools=tools)) == [
            ("$.tools[1].name", "function names must be unique", "error"),
            ("$.tools[2].name", "must start with a letter or an underscore", "error"),
        ]

    def test_forced_tool(self) -> None:
        tools = (ToolDefinition("f"),)
        bad = Request((user("q"),), tools=tools, tool_choice=ToolChoice("tool", "g"))
        assert problems(bad) == [("$.tool_choice.name", "must name a declared function", "error")]
        assert (
            problems(Request((user("q"),), tools=tools, tool_choice=ToolChoice("tool", "f"))) == []
        )
        no_tools = Request((user("q"),), tool_choice=ToolChoice("required"))
        assert problems(no_tools) == [
            ("$.tool_choice", "a function calling mode needs tools", "error")
        ]

    def test_sampling_ranges(self) -> None:
        request = Request((user("q"),), temperature=3.0, top_p=1.5, max_tokens=0, stop=("a",) * 6)
        assert problems(request) == [
            ("$.temperature", "must be between 0 and 2", "error"),
            ("$.top_p", "must be between 0 and 1", "error"),
            ("$.max_tokens", "must be at least 1", "error"),
            ("$.stop", "at most 5 stop sequences", "error"),
        ]
        assert problems(Request((user("q"),), temperature=1.0, top_p=0.5, max_tokens=5)) == []

    def test_gemini_3_signatures(self) -> None:
        turn = assistant(tool_calls=[tool_call("a", "f")])
        request = Request((user("q"), turn, tool_result("a", "1")), model="gemini-3-pro-preview")
        assert problems(request) == [
            (
                "$.messages[1].tool_calls[0]",
                "a gemini-3 function call without its thoughtSignature: it is sent with the"
                " placeholder Google documents for calls Gemini did not make",
                "warning",
            )
        ]
        # What is sent carries the placeholder, and reads back signed.
        sent = gemini.decode_request(gemini.encode_request(request))
        assert problems(msgspec.structs.replace(sent, model=request.model)) == []
        call = json.loads(gemini.encode_request(request))["contents"][1]["parts"][0]
        assert call["thoughtSignature"] == "skip_thought_signature_validator"
        signed = tool_call("a", "f")
        signed = msgspec.structs.replace(signed, extras={"gemini": {"thoughtSignature": "s"}})
        ok = Request(
            (user("q"), assistant(tool_calls=[signed]), tool_result("a", "1")), model="gemini-3-pro"
        )
        assert problems(ok) == []


class TestMalformed:
    """Malformed bodies raise chatcodec's errors naming the path."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"contents": 3}', "$.contents"),
            (b'{"contents": [3]}', "$.contents[0]"),
            (b'{"contents": [{"role": "user"}]}', "$.contents[0].parts"),
            (b'{"contents": [{"role": 1, "parts": [{"text": "a"}]}]}', "$.contents[0].role"),
            (
                b'{"contents": [{"role": "user", "parts": [{"text": 5}]}]}',
                "$.contents[0].parts[0].text",
            ),
            (
                b'{"contents": [{"role": "model", "parts": [{"functionCall": 5}]}]}',
                "$.contents[0].parts[0].functionCall",
            ),
            (b'{"contents": [{"role": "user", "parts": []}]}', "$.contents[0].parts"),
            (b'{"contents": [], "tools": 5}', "$.tools"),
            (b'{"contents": [], "generationConfig": []}', "$.generationConfig"),
            (b"{}", "$.contents"),
        ],
    )
    def test_request(self, body: bytes, path: str) -> None:
        with pytest.raises(ValidationError) as info:
            gemini.decode_request(body)
        assert info.value.path == path

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"candidates": {}}', "$.candidates"),
            (b'{"candidates": [1]}', "$.candidates[0]"),
            (b'{"candidates": [{"content": {"parts": [7]}}]}', "$.candidates[0].content.parts[0]"),
            (b'{"usageMetadata": []}', "$.usageMetadata"),
            (b'{"modelVersion": 3}', "$.modelVersion"),
        ],
    )
    def test_response(self, body: bytes, path: str) -> None:
        with pytest.raises(ValidationError) as info:
            gemini.decode_response(body)
        assert info.value.path == path

    @pytest.mark.parametrize("body", [b"[]", b"nope", b'{"contents": [', b'"x"'])
    def test_not_an_object(self, body: bytes) -> None:
        with pytest.raises((DecodeError, ValidationError)):
            gemini.decode_request(body)
        with pytest.raises((DecodeError, ValidationError)):
            gemini.decode_response(body)


def fast_and_general(body: bytes | str) -> Response | None:
    """The fast path's response (None when it does not apply), checked against the general one."""
    fast = fast_response(body)
    if fast is not None:
        assert fast == general_response(body)
    return fast


def gemini_body(*parts: bytes, **keys: bytes) -> bytes:
    """A plain response body of one candidate with ``parts``; ``keys`` replace or add raw
    JSON values at the top level."""
    content = b'{"parts":[' + b",".join(parts or (b'{"text":"hi"}',)) + b'],"role":"model"}'
    top = {
        "candidates": b'[{"content":' + content + b',"finishReason":"STOP","index":0}]',
        "usageMetadata": b'{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5}',
        "modelVersion": b'"gemini-2.5-flash"',
        "responseId": b'"r1"',
    }
    top.update(keys)
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in top.items()) + b"}"


FC = b'{"functionCall":{"name":"f","args":{"a":1}}}'


class TestFastPath:
    """The typed fast path of decode_response builds exactly what the general path builds."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("gemini", "response")))
    def test_corpus(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    @pytest.mark.parametrize("path", curated("gemini", "response"))
    def test_curated(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    def test_corpus_coverage(self) -> None:
        paths, taken = fast_coverage("gemini", "response", fast_response)
        # 446 of 464 when written: code execution, images, empty contents and
        # gateway keys take the general path.
        assert len(taken) >= 440
        assert len(taken) >= 0.95 * len(paths)

    def test_curated_coverage(self) -> None:
        paths = [p.values[0] for p in curated("gemini", "response")]
        taken = [p for p in paths if fast_response(p.read_bytes()) is not None]
        assert len(taken) >= len(paths) - 3

    def test_benchmark_body(self) -> None:
        body = DATA.parents[2] / "perf" / "data" / "providers" / "gemini_response.json"
        if not body.exists():
            pytest.skip("no benchmark body")
        response = fast_and_general(body.read_bytes())
        assert response is not None
        assert len(response.tool_calls) == 3
        assert len({call.id for call in response.tool_calls}) == 3

    @pytest.mark.parametrize(
        "body",
        [
            gemini_body(),
            gemini_body(
                b'{"text":"plan","thought":true,"thoughtSignature":"c2ln"}',
                b'{"text":"ok"}',
                FC,
                b'{"functionCall":{"name":"g","args":{},"id":"call-9"},"thoughtSignature":"eA=="}',
                b'{"functionCall":{"name":"h","args":{"x":[1,2.5,null,"\\u00e9\\u4e2d"]},"id":""}}',
                b'{"functionCall":{"name":"f"}}',
            ),
            gemini_body(b'{"text":"plan","thought":true}', b'{"text":"a"}'),
            gemini_body(b'{"text":"a","thought":false}'),
            gemini_body(b'{"text":"a","thoughtSignature":"c2ln"}', b'{"text":"b"}'),
            gemini_body(FC, b'{"text":"after"}', FC),
            gemini_body(FC, b'{"functionCall":{"name":"f","args":{"a":1}},"thought":true}'),
            gemini_body(b'{"functionCall":{"name":"caf\\u00e9","args":{}}}', FC, FC),
            gemini_body(b'{"functionCall":{"name":"f","args":{ "b" : [ 1 ,2 ], "a":{}}}}'),
            gemini_body(
                candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"model"},"finishReason":1},'
                b'{"content":{"parts":[' + FC + b'],"role":"model"},"finishReason":"STOP",'
                b'"index":1,"safetyRatings":[{"category":"X","probability":"NEGLIGIBLE"}],'
                b'"citationMetadata":{"citationSources":[]},"avgLogprobs":-0.5,'
                b'"finishMessage":"m"},'
                b'{"finishReason":"SAFETY","index":2},{"content":{"parts":[{"text":"b"}],'
                b'"role":"model"},"finishReason":"NEW_REASON"},'
                b'{"content":{"parts":[{"text":"c"}],"role":"model"},"finishReason":99},'
                b'{"content":{"parts":[' + FC + b'],"role":"model"}}]'
            ),
            gemini_body(candidates=b"[]"),
            gemini_body(candidates=b"[{}]"),
            gemini_body(usageMetadata=b"{}"),
            gemini_body(
                usageMetadata=b'{"promptTokenCount":3,"totalTokenCount":3,'
                b'"promptTokensDetails":[{"modality":"TEXT","tokenCount":3}],'
                b'"cachedContentTokenCount":1,"thoughtsTokenCount":4,'
                b'"cacheTokensDetails":[],"candidatesTokensDetails":null,'
                b'"toolUsePromptTokenCount":2,"toolUsePromptTokensDetails":[],'
                b'"trafficType":"ON_DEMAND","serviceTier":"standard"}'
            ),
            gemini_body(createTime=b'"2025-01-01T00:00:00Z"', promptFeedback=b"{}"),
            b'{"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"}}]}',
            b"{}",
        ],
    )
    def test_taken_and_equal(self, body: bytes) -> None:
        assert fast_and_general(body) is not None
        assert fast_and_general(body.decode()) is not None
        data, parsed = body, json.loads(body)
        same_json(json.loads(gemini.encode_response(gemini.decode_response(data))), parsed)

    def test_derived_ids_are_the_general_ones(self) -> None:
        body = gemini_body(FC, FC, b'{"functionCall":{"name":"f","args":{"a":1},"id":""}}')
        fast = fast_and_general(body)
        assert fast is not None
        ids = [call.id for call in fast.tool_calls]
        assert ids == [call.id for call in general_response(body).tool_calls]
        assert len(set(ids)) == 3
        assert all(i.startswith("call_") for i in ids)
        assert fast.finish_reason is FinishReason.TOOL_CALLS

    @pytest.mark.parametrize(
        "body",
        [
            gemini_body(b'{"function_call":{"name":"f","args":{}}}'),
            gemini_body(b'{"text":"a","thought_signature":"c2ln"}'),
            gemini_body(usage_metadata=b'{"prompt_token_count":1}'),
            gemini_body(b'{"inlineData":{"mimeType":"image/png","data":"AAAA"}}'),
            gemini_body(b'{"executableCode":{"language":"PYTHON","code":"1"}}'),
            gemini_body(b'{"thoughtSignature":"c2ln"}'),
            gemini_body(b"{}"),
            gemini_body(b'{"text":"a","functionCall":{"name":"f","args":{}}}'),
            gemini_body(b'{"text":"a","thoughtSignature":null}'),
            gemini_body(b'{"text":"a","thought":"yes"}'),
            gemini_body(b'{"functionCall":{"name":"","args":{}}}'),
            gemini_body(b'{"functionCall":{"name":null,"args":{}}}'),
            gemini_body(b'{"functionCall":{"args":{}}}'),
            gemini_body(b'{"functionCall":{"name":"f","args":[1]}}'),
            gemini_body(b'{"functionCall":{"name":"f","args":null}}'),
            gemini_body(b'{"functionCall":{"name":"f","args":{},"extra":1}}'),
            gemini_body(
                candidates=b'[{"content":{"parts":[],"role":"model"},"finishReason":"STOP"}]'
            ),
            gemini_body(candidates=b'[{"content":{"role":"model"},"finishReason":"MAX_TOKENS"}]'),
            gemini_body(candidates=b'[{"content":{"parts":[{"text":"a"}]}}]'),
            gemini_body(candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"user"}}]'),
            gemini_body(candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"model","x":1}}]'),
            gemini_body(
                candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"model"},'
                b'"finishReason":null,"index":null}]'
            ),
            gemini_body(
                candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"model"},'
                b'"finishReason":true}]'
            ),
            gemini_body(
                candidates=b'[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":1.5}]'
            ),
            gemini_body(usageMetadata=b'{"promptTokenCount":1.0,"totalTokenCount":null}'),
            gemini_body(usageMetadata=b'{"promptTokenCount":1,"pydantic_ai_gateway":{}}'),
            gemini_body(responseId=b"null"),
            gemini_body(modelVersion=b"null"),
            gemini_body(unknown=b'{"a":1}'),
        ],
    )
    def test_general_path_for_the_rest(self, body: bytes) -> None:
        assert fast_response(body) is None
        response = gemini.decode_response(body)
        assert response == general_response(body)
        same_json(json.loads(gemini.encode_response(response)), json.loads(body))

    def test_refused_values_raise_either_way(self) -> None:
        for body in (
            gemini_body(usageMetadata=b'{"promptTokenCount":-1}'),
            gemini_body(responseId=b"3"),
            gemini_body(b'{"text":5}'),
            gemini_body(b'{"functionCall":{"name":"f","args":{},"id":5}}'),
        ):
            assert fast_response(body) is None
            with pytest.raises(ValidationError):
                gemini.decode_response(body)

    def test_error_bodies_and_malformed_json(self) -> None:
        error = b'{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}'
        assert fast_response(error) is None
        with pytest.raises(ProviderError) as info:
            gemini.decode_response(error)
        assert (info.value.type, info.value.code) == ("RESOURCE_EXHAUSTED", 429)
        for bad in (gemini_body()[:-1], b"\xff", b"", b"[]"):
            assert fast_response(bad) is None
            with pytest.raises((DecodeError, ValidationError)):
                gemini.decode_response(bad)


class TestUrlSafeBase64:
    """Gemini's URL-safe, unpadded inlineData: standard base64 elsewhere, as sent in Gemini."""

    RAW = bytes(range(250, 256)) * 5 + b"\xfb\xff"

    def request(self) -> dict[str, Any]:
        data = base64.urlsafe_b64encode(self.RAW).decode().rstrip("=")
        assert "-" in data
        assert "_" in data
        parts = [{"inlineData": {"mimeType": "image/png", "data": data}}, {"text": "What is it?"}]
        return {"contents": [{"role": "user", "parts": parts}]}

    @pytest.mark.parametrize(
        "target", ["openai", "anthropic", "bedrock", "openai-responses", "ollama"]
    )
    def test_standard_elsewhere(self, target: str) -> None:
        body = json.dumps(self.request())
        out, _ = cc.convert(body, source="gemini", target=target, model="m", max_tokens=8)
        found = re.findall(r"[A-Za-z0-9+/_-]{40,}=*", out.decode())
        assert found
        for data in found:
            assert base64.b64decode(data, validate=True) == self.RAW

    def test_kept_within_gemini(self) -> None:
        body = json.dumps(self.request(), separators=(",", ":")).encode()
        request = gemini.decode_request(body)
        assert gemini.encode_request(request) == body
        message = request.messages[0]
        assert isinstance(message.content, tuple)
        image = message.content[0]
        assert isinstance(image, cc.ImagePart)
        assert base64.b64decode(image.data or "", validate=True) == self.RAW

    def test_openai_file_data_url(self) -> None:
        """A file_data that is a URL (not a data: URL) is Gemini fileData, not inlineData."""
        file = {"type": "file", "file": {"file_data": "https://example.com/a.pdf"}}
        body = {"model": "m", "messages": [{"role": "user", "content": [file]}]}
        out, _ = cc.convert(json.dumps(body), source="openai", target="gemini")
        part = json.loads(out)["contents"][0]["parts"][0]
        assert part == {
            "fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"}
        }
        types.Content.model_validate(json.loads(out)["contents"][0])


class TestModelTurnWithoutParts:
    """A model turn without parts ({"role": "model"}, which Gemini accepted) is an empty answer."""

    BODY = (
        b'{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model"},'
        b'{"role":"user","parts":[{"text":"again"}]}]}'
    )

    def test_round_trip(self) -> None:
        request = gemini.decode_request(self.BODY)
        answer = request.messages[1]
        assert isinstance(answer, cc.AssistantMessage)
        assert not answer.content
        assert not answer.tool_calls
        assert gemini.encode_request(request) == self.BODY
        for content in json.loads(self.BODY)["contents"]:
            types.Content.model_validate(content)

    def test_parts_that_are_not_a_list_are_still_refused(self) -> None:
        with pytest.raises(cc.ValidationError, match="must be an array"):
            gemini.decode_request(b'{"contents":[{"role":"model","parts":{}}]}')
        with pytest.raises(cc.ValidationError, match="must be an array"):
            gemini.decode_request(b'{"contents":[{"role":"user"}]}')


class TestFileDataWithoutMimeType:
    """A fileData without mimeType gets none guessed within Gemini (another family's file does)."""

    def test_round_trip(self) -> None:
        body = (
            b'{"contents":[{"role":"user","parts":[{"fileData":'
            b'{"fileUri":"https://example.com/a.pdf"}},{"text":"x"}]}]}'
        )
        assert gemini.encode_request(gemini.decode_request(body)) == body

    def test_from_elsewhere(self) -> None:
        request = cc.Request(
            (cc.user([cc.FilePart(url="https://example.com/a.pdf"), cc.TextPart("x")]),)
        )
        out = json.loads(gemini.encode_request(request))
        assert out["contents"][0]["parts"][0]["fileData"]["mimeType"] == "application/pdf"


def fast_request(body: bytes) -> Request:
    """The fast request path's answer, which must be there for ``body``."""
    request = _fastreq.fast_request(body)
    assert request is not None
    return request


def _unsigned_with_id(param: Any) -> bool:
    """Whether a recorded request has a model turn whose first call has an id, no signature."""
    for content in json.loads(param.values[0].read_bytes()).get("contents") or ():
        if content.get("role") != "model":
            continue
        for part in content.get("parts") or ():
            call = part.get("functionCall")
            if call is not None:
                if "id" in call and "thoughtSignature" not in part:
                    return True
                break
    return False


class TestGemini3OwnCalls:
    """A Gemini 3 request: a call Gemini made goes back as it came, another's is signed."""

    BODY = (
        b'{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":'
        b'[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":'
        b'[{"functionResponse":{"name":"f","response":{"r":1}}}]}]}'
    )

    def test_own_call_unchanged(self) -> None:
        request = gemini.decode_request(self.BODY)
        request = msgspec.structs.replace(request, model="gemini-3-pro-preview")
        assert gemini.encode_request(request) == self.BODY

    def test_another_familys_call_signed(self) -> None:
        call = cc.ToolCall("c1", "f", msgspec.Raw(b"{}"))
        request = cc.Request(
            (cc.user("x"), cc.assistant(tool_calls=(call,)), cc.tool_result("c1", "1")),
            model="gemini-3-pro-preview",
        )
        assert b"skip_thought_signature_validator" in gemini.encode_request(request)

    # A call Gemini sent with an id and no signature: the same bytes come back.
    WITH_ID = (
        b'{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":'
        b'[{"functionCall":{"name":"f","args":{},"id":"c1"}}]},{"role":"user","parts":'
        b'[{"functionResponse":{"name":"f","response":{"r":1},"id":"c1"}}]}]}'
    )

    def test_own_call_with_id_unchanged(self) -> None:
        for request in (gemini.decode_request(self.WITH_ID), fast_request(self.WITH_ID)):
            request = msgspec.structs.replace(request, model="gemini-3-pro-preview")
            losses: list[Loss] = []
            assert gemini.encode_request(request, losses=losses) == self.WITH_ID
            assert losses == []

    def test_own_response_call_with_id_unchanged(self) -> None:
        # The call of an answer, put in the next request of the conversation.
        answer = (
            b'{"candidates":[{"content":{"role":"model","parts":[{"functionCall":'
            b'{"name":"f","args":{},"id":"c1"}}]},"finishReason":"STOP"}]}'
        )
        for response in (gemini.decode_response(answer), fast_and_general(answer)):
            assert response is not None
            assert response.message is not None
            request = cc.Request(
                (cc.user("x"), response.message, cc.tool_result("c1", "1")),
                model="gemini-3-pro-preview",
            )
            assert b"skip_thought_signature_validator" not in gemini.encode_request(request)

    def test_placeholder_reported_from_another_family(self) -> None:
        body = {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "1"},
            ]
        }
        out, report = cc.convert(body, source="openai", target="gemini", model="gemini-3-pro")
        assert b"skip_thought_signature_validator" in out
        assert [loss.path for loss in report.losses] == ["$.messages[1].tool_calls[0]"]

    @pytest.mark.parametrize(
        "path",
        [
            p
            for p in curated("gemini", "request") + corpus("gemini", "request")
            if _unsigned_with_id(p)
        ],
    )
    def test_recorded(self, path: Path) -> None:
        data, parsed = load(path)
        request = msgspec.structs.replace(gemini.decode_request(data), model="gemini-3-pro")
        same_json(json.loads(gemini.encode_request(request)), parsed)
