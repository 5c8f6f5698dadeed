"""The OpenAI Chat Completions codec, on real recorded traffic and by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pydantic
import pytest
from corpus import DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json
from openai.types.chat import ChatCompletion, completion_create_params

from chatcodec import (
    AssistantMessage,
    AudioPart,
    CachePoint,
    Choice,
    DecodeError,
    DeveloperMessage,
    FilePart,
    FinishReason,
    ImagePart,
    InvalidToolCall,
    Loss,
    OpaquePart,
    ProviderError,
    ProviderTool,
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
    providers,
    system,
    tool_call,
    tool_result,
    user,
)
from chatcodec._schema import close_objects
from chatcodec.providers import openai as codec
from chatcodec.providers.openai._common import is_closed
from chatcodec.providers.openai._decode import general_request
from chatcodec.providers.openai._decode_assistant import general_response
from chatcodec.providers.openai._fast import fast_response
from chatcodec.providers.openai._fastreq import fast_request

CURATED = DATA / "openai"

NON_STREAMING = pydantic.TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)
STREAMING = pydantic.TypeAdapter(completion_create_params.CompletionCreateParamsStreaming)


def request_round_trip(path: Path) -> None:
    body, parsed = load(path)
    request = codec.decode_request(body)
    same_json(json.loads(codec.encode_request(request)), parsed)
    check_arguments(request.messages, parsed.get("messages", []))


def response_round_trip(path: Path) -> None:
    body, parsed = load(path)
    response = codec.decode_response(body)
    same_json(json.loads(codec.encode_response(response)), parsed)
    wire = [c.get("message") or {} for c in parsed.get("choices") or []]
    check_arguments(tuple(c.message for c in response.choices if c.message), wire)


def check_arguments(messages: tuple[Any, ...], wire: list[Any]) -> None:
    """Valid tool-call arguments are the wire's argument string, byte for byte."""
    sent = {
        call["id"]: call["function"]["arguments"]
        for m in wire
        for call in m.get("tool_calls") or []
        if call.get("id") and isinstance(call["function"].get("arguments"), str)
    }
    for m in messages:
        for call in getattr(m, "tool_calls", ()):
            if call.id in sent:
                assert bytes(call.arguments) == sent[call.id].encode()
        for bad in getattr(m, "invalid_tool_calls", ()):
            if bad.id in sent:
                assert bad.arguments == sent[bad.id]


def validate_request(body: bytes) -> None:
    payload = json.loads(body)
    (STREAMING if payload.get("stream") else NON_STREAMING).validate_python(payload)


def error_files() -> list[Any]:
    return [p for status in ("400", "404", "429") for p in corpus("openai", "response", status)]


class TestCorpusFidelity:
    """Every recorded openai-chat request and 200 response round trips losslessly."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "request")))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "response")))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)


class TestCurated:
    """The curated copies round trip too, without the corpus."""

    @pytest.mark.parametrize("path", curated("openai", "request"))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", curated("openai", "response"))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    def test_sources_list_every_file(self) -> None:
        sources = (CURATED / "SOURCES.md").read_text()
        files = sorted(CURATED.glob("*/*.json"))
        assert len(files) >= 40
        for path in files:
            assert f"{path.parent.name}/{path.name}" in sources


class TestErrors:
    """Error bodies raise ProviderError with the provider's type and code."""

    @pytest.mark.parametrize("path", needs_corpus(error_files()))
    def test_corpus_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(ProviderError) as info:
            codec.decode_response(body)
        assert info.value.provider == "openai"
        assert info.value.code == parsed["error"].get("code")
        assert info.value.message == parsed["error"]["message"]
        assert info.value.body == parsed

    @pytest.mark.parametrize("path", curated("openai", "error"))
    def test_curated_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(ProviderError) as info:
            codec.decode_response(body)
        assert info.value.type == parsed["error"].get("type")
        assert info.value.code == parsed["error"].get("code")

    def test_openai_fields(self) -> None:
        path = (
            CURATED
            / "error"
            / (
                "openai__pydantic-ai__models__test_openai__test_openai_o1_mini_system_role_developer"
                "__00__http400.json"
            )
        )
        with pytest.raises(ProviderError) as info:
            codec.decode_response(path.read_bytes())
        error = info.value
        assert (error.type, error.code, error.param) == (
            "invalid_request_error",
            "unsupported_value",
            "messages[0].role",
        )
        assert "does not support" not in str(error)  # the message stays apart

    def test_openrouter_integer_code(self) -> None:
        path = (
            CURATED
            / "error"
            / (
                "other__pydantic-ai__models__test_openrouter__test_openrouter_errors_raised__00__http429.json"
            )
        )
        with pytest.raises(ProviderError) as info:
            codec.decode_response(path.read_bytes())
        assert info.value.code == 429
        assert info.value.type is None

    def test_string_error(self) -> None:
        with pytest.raises(ProviderError) as info:
            codec.decode_response(b'{"error":"model not found"}')
        assert info.value.message == "model not found"


def curated_request(name: str) -> Request:
    return codec.decode_request((CURATED / "request" / name).read_bytes())


def curated_response(name: str) -> Response:
    return codec.decode_response((CURATED / "response" / name).read_bytes())


class TestRequestSemantics:
    """Decoded requests say what the wire said."""

    def test_developer_role(self) -> None:
        request = curated_request(
            "openai__pydantic-ai__models__test_openai__test_openai_o1_mini_system_role_developer__00.json"
        )
        assert isinstance(request.messages[0], DeveloperMessage)
        assert request.model == "o1-mini"

    def test_invalid_arguments_kept_verbatim(self) -> None:
        request = curated_request(
            "openai__langchaingo__agents__TestOpenAIFunctionsAgentWithHTTPRR__01.json"
        )
        message = next(m for m in request.messages if isinstance(m, AssistantMessage))
        (bad,) = message.invalid_tool_calls
        assert bad.arguments == "15 * 4"
        assert bad.error == "arguments are not valid JSON"
        assert message.tool_calls == ()
        answer = request.messages[request.messages.index(message) + 1]
        assert isinstance(answer, ToolMessage)
        assert answer.tool_call_id == bad.id

    def test_legacy_functions(self) -> None:
        request = curated_request(
            "openai__langchaingo__llms__openai__openaiclient__TestClient_FunctionCall__00.json"
        )
        (tool,) = request.tools
        assert isinstance(tool, ToolDefinition)
        assert tool.name == "get_weather"
        assert request.extras is not None
        assert request.extras["openai"]["~functions"] == 1

    def test_strict_tool_and_absent_strict(self) -> None:
        request = curated_request(
            "openai__langchaingo__llms__openai__TestStructuredOutputFunctionCalling__00.json"
        )
        (tool,) = request.tools
        assert isinstance(tool, ToolDefinition)
        assert tool.strict is True
        mistral = curated_request(
            "mistral__pydantic-ai__models__test_mistral__test_image_as_binary_content_tool_response__01.json"
        )
        (plain,) = mistral.tools
        assert isinstance(plain, ToolDefinition)
        assert plain.strict is False
        # "" is canonically absent; the wire's "" is kept for the way back.
        assert plain.description is None
        assert plain.extras == {"openai": {"~type": None, "~function": {"description": ""}}}

    def test_response_format(self) -> None:
        request = curated_request(
            "openai__langchaingo__llms__openai__TestStructuredOutputObjectSchema__00.json"
        )
        rf = request.response_format
        assert rf is not None
        assert rf.type == "json_schema"
        assert rf.name is not None
        assert rf.schema is not None
        assert rf.schema["type"] == "object"

    def test_multimodal_parts(self) -> None:
        audio = curated_request(
            "openai__pydantic-ai__models__test_multimodal_tool_returns__"
            "test_multimodal_tool_return_matrix_direct-binary-audio-openai_chat__01.json"
        )
        parts = [p for m in audio.messages if isinstance(m, UserMessage) for p in m.content]
        (sound,) = [p for p in parts if isinstance(p, AudioPart)]
        assert sound.media_type == "audio/mpeg"
        assert sound.data
        document = curated_request(
            "openai__pydantic-ai__models__test_multimodal_tool_returns__"
            "test_multimodal_tool_return_matrix_direct-binary-document-openai_chat__01.json"
        )
        files = [
            p
            for m in document.messages
            if isinstance(m, UserMessage) and not isinstance(m.content, str)
            for p in m.content
            if isinstance(p, FilePart)
        ]
        assert files[0].media_type == "application/pdf"
        assert files[0].filename == "filename.pdf"
        uploaded = curated_request(
            "openai__pydantic-ai__models__test_multimodal_tool_returns__"
            "test_multimodal_tool_return_matrix_direct-uploaded_file-document-openai_chat__01.json"
        )
        ids = [
            p.file_id
            for m in uploaded.messages
            if isinstance(m, UserMessage) and not isinstance(m.content, str)
            for p in m.content
            if isinstance(p, FilePart)
        ]
        assert ids == ["file-7qh8AjzrjyRGiQ7kaFybfG"]

    def test_image_data_url_split(self) -> None:
        request = curated_request(
            "groq__pydantic-ai__models__test_groq__test_image_as_binary_content_tool_response__01.json"
        )
        images = [
            p
            for m in request.messages
            if isinstance(m, UserMessage) and not isinstance(m.content, str)
            for p in m.content
            if isinstance(p, ImagePart)
        ]
        assert images[0].media_type == "image/jpeg"
        assert images[0].url is None

    def test_video_is_opaque_in_position(self) -> None:
        request = curated_request(
            "other__pydantic-ai__models__test_openrouter__test_openrouter_video_url_public_api__00.json"
        )
        (message,) = request.messages
        assert isinstance(message, UserMessage)
        assert isinstance(message.content, tuple)
        text, video = message.content
        assert isinstance(text, TextPart)
        assert isinstance(video, OpaquePart)
        assert video.provider == "openai"
        assert json.loads(bytes(video.data))["type"] == "video_url"

    def test_mistral_document_and_thinking(self) -> None:
        document = curated_request(
            "mistral__pydantic-ai__models__test_multimodal_tool_returns__"
            "test_multimodal_tool_return_matrix_direct-binary-document-mistral__01.json"
        )
        files = [
            p
            for m in document.messages
            if isinstance(m, UserMessage) and not isinstance(m.content, str)
            for p in m.content
            if isinstance(p, FilePart)
        ]
        assert files[0].media_type == "application/pdf"
        assert files[0].extras == {"openai": {"~type": "document_url"}}
        thinking = curated_request(
            "mistral__pydantic-ai__models__test_mistral__test_mistral_model_thinking_part__01.json"
        )
        message = next(m for m in thinking.messages if isinstance(m, AssistantMessage))
        assert isinstance(message.content, tuple)
        assert isinstance(message.content[0], ReasoningPart)
        assert message.reasoning.startswith("**Providing crossing guidelines**")

    def test_openrouter_server_tools(self) -> None:
        request = curated_request(
            "other__pydantic-ai__models__test_openrouter__test_openrouter_advisor_tool__00.json"
        )
        server = [t for t in request.tools if isinstance(t, ProviderTool)]
        assert server
        assert json.loads(bytes(server[0].data))["type"] == "openrouter:advisor"

    def test_openrouter_reasoning_details_in_history(self) -> None:
        request = curated_request(
            "other__pydantic-ai__models__test_snowflake__test_snowflake_thinking__01.json"
        )
        message = next(m for m in request.messages if isinstance(m, AssistantMessage))
        assert isinstance(message.content, tuple)
        reasoning, text = message.content
        assert isinstance(reasoning, ReasoningPart)
        assert reasoning.text == "Let me get the weather for Mexico City."
        assert reasoning.signature is not None
        # Its format, anthropic-claude-v1, names the family that signed it.
        assert reasoning.provider == "anthropic"
        assert isinstance(text, TextPart)
        assert message.tool_calls[0].get_argument("city") == "Mexico City"

    def test_cached_system_parts(self) -> None:
        request = curated_request(
            "other__pydantic-ai__models__openrouter__test_cache__test_openrouter_cache_all_settings_real_api__01.json"
        )
        first = request.messages[0]
        assert isinstance(first, SystemMessage)
        assert first.extras == {"openai": {"~parts": [[len(first.content), {}]], "~cache": 1}}
        assert first.cache == CachePoint(ttl="5m")  # the cache_control of its one text part

    def test_stop_and_limits(self) -> None:
        request = curated_request(
            "openai__pydantic-ai__test_settings__test_stop_settings_openai__00.json"
        )
        assert request.stop is not None
        assert all(isinstance(s, str) for s in request.stop)
        one = codec.decode_request(b'{"model":"m","messages":[],"stop":"END","max_tokens":5}')
        assert one.stop == ("END",)
        assert one.max_tokens == 5
        assert one.extras == {"openai": {"~stop": "str"}}


class TestNothingMovedOrInvented:
    """Within OpenAI's wire, a body comes back as it went: nothing moved, nothing made up."""

    def test_media_in_a_tool_message_stays_there(self) -> None:
        body = json.dumps(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "Show me"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    {
                        "role": "tool",
                        "tool_call_id": "c1",
                        "content": [
                            {"type": "text", "text": "here"},
                            {"type": "image_url", "image_url": {"url": "https://x/a.png"}},
                        ],
                    },
                ],
            }
        ).encode()
        losses: list[Loss] = []
        same_json(
            json.loads(codec.encode_request(codec.decode_request(body), losses=losses)),
            json.loads(body),
        )
        assert losses == []

    def test_a_schema_without_a_name_gets_none(self) -> None:
        body = (
            b'{"model":"m","messages":[{"role":"user","content":"q"}],'
            b'"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object"}}}}'
        )
        assert codec.encode_request(codec.decode_request(body)) == body


class TestResponseSemantics:
    """Decoded responses say what the wire said."""

    def test_parallel_tool_calls(self) -> None:
        response = curated_response(
            "openai__openai-python__chat_completions__test_parse_multiple_pydantic_tools__00.json"
        )
        assert response.finish_reason is FinishReason.TOOL_CALLS
        names = [call.name for call in response.tool_calls]
        assert names == ["GetWeatherArgs", "get_stock_price"]
        assert response.tool_calls[0].id == "call_fdNz3vOBKYgOIpMdWotB9MjY"
        assert response.message is not None
        assert response.message.content is None
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.total) == (149, 209)
        assert response.usage.reasoning_tokens == 0

    def test_refusal(self) -> None:
        response = curated_response(
            "openai__openai-python__chat_completions__test_parse_pydantic_model_refusal__00.json"
        )
        assert response.message is not None
        content = response.message.content
        assert isinstance(content, tuple)
        (refusal,) = content
        assert isinstance(refusal, RefusalPart)
        assert refusal.text.startswith("I'm very sorry")

    def test_length(self) -> None:
        response = curated_response(
            "openai__openai-python__chat_completions__test_parse_max_tokens_reached__00.json"
        )
        assert response.finish_reason is FinishReason.LENGTH

    def test_legacy_function_call(self) -> None:
        response = curated_response(
            "openai__langchaingo__llms__openai__openaiclient__TestClient_FunctionCall__00.json"
        )
        (choice,) = response.choices
        assert choice.finish_reason is FinishReason.TOOL_CALLS
        assert choice.raw_finish_reason == "function_call"
        (call,) = response.tool_calls
        assert call.name == "get_weather"
        assert bytes(call.arguments) == b'{"location":"Boston"}'
        assert call.id.startswith("call_")

    def test_deepseek_reasoning_content(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_deepseek__test_deepseek_deferred_capability_with_thinking__01.json"
        )
        message = response.message
        assert message is not None
        assert message.reasoning
        assert message.extras is not None
        assert message.extras["openai"]["~reasoning"] == "reasoning_content"
        assert len(message.tool_calls) == 2

    def test_groq_reasoning_and_cache(self) -> None:
        response = curated_response(
            "groq__pydantic-ai__models__test_groq__test_tool_use_failed_error__02.json"
        )
        assert response.message is not None
        assert response.message.extras == {"openai": {"~reasoning": "reasoning", "~content": "str"}}
        assert response.usage == Usage(
            336,
            96,
            432,
            cached_tokens=256,
            reasoning_tokens=59,
            extras=response.usage.extras if response.usage else None,
        )

    def test_mistral_thinking_content(self) -> None:
        response = curated_response(
            "mistral__pydantic-ai__test_thinking_wire_contract__"
            "test_reasoning_wire_contract_mistral-small-thinking-high__00.json"
        )
        assert response.message is not None
        content = response.message.content
        assert isinstance(content, tuple)
        assert [type(p) for p in content] == [ReasoningPart, TextPart]
        assert response.message.text == "4"
        assert content[0].extras == {"openai": {"closed": True, "~in": "content"}}

    def test_openrouter_reasoning_details(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_openrouter__test_openrouter_usage__00.json"
        )
        assert response.message is not None
        content = response.message.content
        assert isinstance(content, tuple)
        item, _ = content
        # openai-responses-v1: a Responses reasoning item, split by OpenRouter into its
        # summary and its encrypted_content, read as the one part that codec reads.
        assert isinstance(item, ReasoningPart)
        assert item.text.startswith("**Exploring Venus**")
        assert item.signature is not None
        assert item.provider == "openai-responses"

    def test_call_without_arguments(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_openrouter__test_openrouter_tool_optional_parameters__00.json"
        )
        (call,) = response.tool_calls
        assert bytes(call.arguments) == b"{}"
        assert call.extras == {"openai": {"index": 0, "~arguments": "absent"}}

    def test_call_with_empty_id(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_openai__test_compatible_api_with_tool_calls_without_id__00.json"
        )
        (call,) = response.tool_calls
        assert call.id.startswith("call_")
        assert call.extras == {"openai": {"id": "", "~id": "derived"}}

    def test_empty_finish_reason(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_snowflake__test_snowflake_llama__00.json"
        )
        (choice,) = response.choices
        assert choice.finish_reason is None
        assert choice.raw_finish_reason == ""

    def test_no_choices(self) -> None:
        response = curated_response(
            "other__pydantic-ai__models__test_openai__test_invalid_response__00.json"
        )
        assert response.choices == ()
        assert response.message is None

    def test_unknown_finish_reason(self) -> None:
        body = (
            b'{"choices":[{"index":0,"message":{"role":"assistant","content":"x"},'
            b'"finish_reason":"eos"}]}'
        )
        response = codec.decode_response(body)
        assert response.finish_reason is FinishReason.OTHER
        assert codec.encode_response(response) == body


class TestEncodeByHand:
    """Canonical values built by hand encode to the exact wire JSON."""

    def test_registry_example(self) -> None:
        body = b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'
        got = providers.get("openai")
        assert got.encode_request(got.decode_request(body)) == body
        groq = providers.get("groq")  # a dialect: the same codec, writing Groq's wire
        assert groq.NAME == "openai"
        assert groq.encode_request(groq.decode_request(body)) == body

    def test_tool_conversation(self) -> None:
        call = tool_call("call_1", "get_weather", {"city": "Paris"})
        request = Request(
            (
                system("Be brief."),
                user("Weather?"),
                assistant(None, [call]),
                tool_result("call_1", "sunny"),
            ),
            model="gpt-4o",
            tools=(
                ToolDefinition(
                    "get_weather",
                    "Weather",
                    {"type": "object", "properties": {"city": {"type": "string"}}},
                    strict=False,
                ),
            ),
            tool_choice=ToolChoice("tool", "get_weather"),
            max_tokens=100,
            temperature=0.5,
            stop=("END",),
            response_format=ResponseFormat("json_object"),
        )
        assert json.loads(codec.encode_request(request)) == {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Weather",
                        "parameters": {
                            "type": "object",
                            "properties": {"city": {"type": "string"}},
                        },
                    },
                }
            ],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
            "max_tokens": 100,
            "temperature": 0.5,
            "stop": ["END"],
            "response_format": {"type": "json_object"},
        }

    def test_strict_tool_is_closed(self) -> None:
        tool = ToolDefinition(
            "f", None, {"type": "object", "properties": {"a": {"type": "string"}}}
        )
        body = json.loads(codec.encode_request(Request((user("x"),), model="m", tools=(tool,))))
        assert body["tools"][0]["function"] == {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
            "strict": True,
        }

    def test_developer_role_option(self) -> None:
        request = Request((developer("Rules."), user("Hi")), model="o1-mini")
        default = json.loads(codec.encode_request(request))
        assert default["messages"][0]["role"] == "developer"
        old = json.loads(codec.encode_request(request, developer_role="system"))
        assert old["messages"][0] == {"role": "system", "content": "Rules."}

    def test_parts_and_media(self) -> None:
        request = Request(
            (
                user(
                    [
                        "Look",
                        ImagePart(url="https://x/cat.png", detail="low"),
                        ImagePart(data="AAAA", media_type="image/png"),
                        AudioPart(data="BBBB", media_type="audio/wav"),
                        FilePart(data="CCCC", media_type="application/pdf", filename="a.pdf"),
                        FilePart(file_id="file-1"),
                    ]
                ),
            ),
            model="gpt-4o",
        )
        body = json.loads(codec.encode_request(request))
        assert body["messages"][0]["content"] == [
            {"type": "text", "text": "Look"},
            {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "low"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "input_audio", "input_audio": {"data": "BBBB", "format": "wav"}},
            {
                "type": "file",
                "file": {"file_data": "data:application/pdf;base64,CCCC", "filename": "a.pdf"},
            },
            {"type": "file", "file": {"file_id": "file-1"}},
        ]
        validate_request(codec.encode_request(request))

    def test_invalid_calls_keep_their_place(self) -> None:
        body = (
            b'{"messages":[{"role":"assistant","tool_calls":['
            b'{"id":"a","type":"function","function":{"name":"f","arguments":"nope"}},'
            b'{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]}]}'
        )
        request = codec.decode_request(body)
        message = request.messages[0]
        assert isinstance(message, AssistantMessage)
        assert [c.id for c in message.tool_calls] == ["b"]
        assert message.invalid_tool_calls == (
            InvalidToolCall(
                id="a", name="f", arguments="nope", error="arguments are not valid JSON"
            ),
        )
        same_json(json.loads(codec.encode_request(request)), json.loads(body))

    def test_response(self) -> None:
        response = Response(
            (
                Choice(
                    AssistantMessage(
                        (TextPart("Hello"), RefusalPart("no")),
                        (tool_call("c1", "f", {"x": 1}),),
                    ),
                    FinishReason.TOOL_CALLS,
                    index=0,
                ),
            ),
            id="chatcmpl-1",
            model="gpt-4o",
            usage=Usage(10, 5, 15, cached_tokens=3, reasoning_tokens=2),
            extras={"openai": {"object": "chat.completion", "created": 1}},
        )
        body = codec.encode_response(response)
        assert json.loads(body) == {
            "id": "chatcmpl-1",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Hello",
                        "refusal": "no",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"x":1}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "model": "gpt-4o",
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "total_tokens": 15,
                "prompt_tokens_details": {"cached_tokens": 3},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
            "object": "chat.completion",
            "created": 1,
        }
        ChatCompletion.model_validate_json(body)
        again = codec.decode_response(body)
        assert again.message is not None
        assert again.message.content == (TextPart("Hello"), RefusalPart("no"))


class TestSdkValidation:
    """Encoded bodies validate against the openai SDK's own types."""

    @pytest.mark.parametrize(
        "path",
        needs_corpus(
            [p for p in corpus("openai", "request") if "/openai/request/" in str(p.values[0])]
        ),
    )
    def test_corpus_openai_request(self, path: Path) -> None:
        validate_request(codec.encode_request(codec.decode_request(path.read_bytes())))

    @pytest.mark.parametrize(
        "path",
        [p for p in curated("openai", "request") if p.values[0].name.startswith("openai__")],
    )
    def test_curated_request(self, path: Path) -> None:
        validate_request(codec.encode_request(codec.decode_request(path.read_bytes())))

    @pytest.mark.parametrize(
        "path",
        [p for p in curated("openai", "response") if p.values[0].name.startswith("openai__")],
    )
    def test_curated_response(self, path: Path) -> None:
        ChatCompletion.model_validate_json(
            codec.encode_response(codec.decode_response(path.read_bytes()))
        )

    def test_streaming_request(self) -> None:
        request = Request((user("Hi"),), model="gpt-4o", stream=True)
        validate_request(codec.encode_request(request))

    @pytest.mark.parametrize(
        ("source", "path"),
        [
            pytest.param(family, p.values[0], id=f"{family}:{p.id}")
            for family in ("anthropic", "gemini", "ollama")
            for p in curated(family, "response") + corpus(family, "response")
        ],
    )
    def test_converted_response(self, source: str, path: Path) -> None:
        out, report = convert(path.read_bytes(), source=source, target="openai", kind="response")
        body = json.loads(out)
        for k, choice in enumerate(body["choices"]):
            if choice.get("finish_reason") == "error":
                # A failure (Gemini's MALFORMED_FUNCTION_CALL...) has no name in openai-python's
                # types: it is OpenRouter's "error", never a plain stop, and reported.
                assert f"$.choices[{k}].finish_reason" in report.paths
                choice["finish_reason"] = "stop"
        ChatCompletion.model_validate(body)

    def test_hand_built_response(self) -> None:
        response = Response((Choice(None, None),), usage=Usage(3, 0))
        body = ChatCompletion.model_validate_json(codec.encode_response(response))
        assert (body.object, body.choices[0].finish_reason) == ("chat.completion", "stop")


class TestToolCallContent:
    """An assistant message that only calls tools sends content as the caller chooses."""

    CALLS = assistant(tool_calls=[tool_call("c1", "get_time", {})])

    def body(self, request: Request, **options: Any) -> Any:
        return json.loads(codec.encode_request(request, **options))["messages"][1]

    def test_omitted_by_default_and_null_or_empty_on_request(self) -> None:
        request = Request((user("Time?"), self.CALLS, tool_result("c1", "noon")), model="m")
        assert "content" not in self.body(request)
        assert list(self.body(request, tool_call_content="null").items())[:2] == [
            ("role", "assistant"),
            ("content", None),
        ]
        empty = self.body(request, tool_call_content="empty")
        assert list(empty.items())[:2] == [("role", "assistant"), ("content", "")]
        assert empty["tool_calls"][0]["id"] == "c1"
        validate_request(codec.encode_request(request, tool_call_content="empty"))

    def test_text_is_left_alone(self) -> None:
        said = assistant("Let me check.", [tool_call("c1", "get_time", {})])
        request = Request((user("Time?"), said), model="m")
        assert self.body(request, tool_call_content="empty")["content"] == "Let me check."

    def test_what_was_read_is_written_back(self) -> None:
        call = (
            b'"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]'
        )
        for content in (b"", b'"content":null,', b'"content":"",'):
            body = (
                b'{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant",'
                + content
                + call
                + b"}]}"
            )
            request = codec.decode_request(body)
            assert json.loads(codec.encode_request(request)) == json.loads(body)
            if content:  # the body's own content wins over the option
                again = codec.encode_request(request, tool_call_content="empty")
                assert json.loads(again) == json.loads(body)

    def test_an_unknown_choice(self) -> None:
        with pytest.raises(ValidationError, match="tool_call_content"):
            codec.encode_request(Request((user("x"),)), tool_call_content="blank")  # type: ignore[arg-type]


class TestCrossSource:
    """Requests from other providers (or by hand) encode, report losses, and decode again."""

    def make(self) -> Request:
        return Request(
            (
                SystemMessage(
                    "sys", extras={"anthropic": {"cache_control": {"type": "ephemeral"}}}
                ),
                user(
                    [
                        TextPart("hi"),
                        AudioPart(url="https://x/a.wav"),
                        OpaquePart("gemini", msgspec.Raw(b'{"videoMetadata":{}}')),
                        ImagePart(data="AAAA", media_type="image/png"),
                    ]
                ),
                AssistantMessage(
                    (
                        ReasoningPart("thinking", signature="sig", provider="anthropic"),
                        ReasoningPart(redacted="xyz", provider="anthropic"),
                        TextPart("answer"),
                        OpaquePart("anthropic", msgspec.Raw(b'{"type":"server_tool_use"}')),
                    ),
                    (tool_call("toolu_1", "f", {"a": 1}),),
                ),
                ToolMessage("toolu_1", (TextPart("boom"),), is_error=True),
            ),
            model="claude",
            tools=(ProviderTool("anthropic", msgspec.Raw(b'{"type":"web_search_20250305"}')),),
            extras={"anthropic": {"top_k": 5}, "gemini": {"safetySettings": [{"threshold": "x"}]}},
        )

    def test_losses(self) -> None:
        losses: list[Any] = []
        body = codec.encode_request(self.make(), losses=losses)
        got = {(loss.path, loss.reason) for loss in losses}
        assert got == {
            ("$.extras.anthropic.top_k", "an anthropic field openai has no place for"),
            ("$.extras.gemini.safetySettings", "a gemini field openai has no place for"),
            (
                "$.messages[0].extras.anthropic.cache_control",
                "an anthropic field openai has no place for",
            ),
            ("$.messages[1].content[1]", "openai cannot carry audio by URL"),
            ("$.messages[1].content[2]", "a gemini block openai cannot carry"),
            ("$.messages[2].content[0]", "openai has no field for reasoning"),
            ("$.messages[2].content[1]", "openai has no field for reasoning"),
            ("$.messages[2].content[3]", "an anthropic block openai cannot carry"),
            ("$.messages[3].is_error", "openai has no error flag for tool results"),
            ("$.tools[0]", "an anthropic tool openai cannot run"),
        }
        parsed = json.loads(body)
        assert parsed["messages"][2] == {
            "role": "assistant",
            "content": "answer",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a":1}'},
                }
            ],
        }
        assert "tools" not in parsed  # OpenAI refuses an empty array (empty_array)
        again = codec.decode_request(body)
        assert len(again.messages) == 4

    def test_reasoning_signature_of_another_provider(self) -> None:
        message = AssistantMessage(
            (ReasoningPart("why", signature="sig", provider="anthropic"), TextPart("ok")),
            extras={"openai": {"~reasoning": "reasoning_content", "~content": "str"}},
        )
        losses: list[Any] = []
        body = codec.encode_request(Request((user("q"), message), model="m"), losses=losses)
        assert [(loss.path, loss.reason) for loss in losses] == [
            ("$.messages[1].content[0].signature", "an anthropic reasoning signature")
        ]
        assert json.loads(body)["messages"][1] == {
            "role": "assistant",
            "content": "ok",
            "reasoning_content": "why",
        }

    def test_every_part_kind_without_losses_asked(self) -> None:
        body = codec.encode_request(self.make())
        assert codec.decode_request(body).model == "claude"

    def test_response_from_elsewhere(self) -> None:
        response = Response(
            (
                Choice(
                    AssistantMessage((ReasoningPart("t"), TextPart("x"))),
                    FinishReason.OTHER,
                    "end_turn",
                ),
            ),
            extras={"anthropic": {"stop_sequence": "END"}},
        )
        losses: list[Any] = []
        body = codec.encode_response(response, losses=losses)
        assert [loss.path for loss in losses] == [
            "$.extras.anthropic.stop_sequence",
            "$.choices[0].message.content[0]",
            "$.choices[0].finish_reason",
        ]
        assert json.loads(body)["choices"][0] == {
            "index": 0,
            "message": {"role": "assistant", "content": "x"},
            "finish_reason": "stop",
        }
        assert codec.decode_response(body).message is not None

    def test_finish_reason_of_another_provider_is_normalized(self) -> None:
        response = Response((Choice(assistant("x"), FinishReason.LENGTH, "max_tokens", 0),))
        body = json.loads(codec.encode_response(response))
        assert body["choices"][0]["finish_reason"] == "length"


def problems(request: Request) -> list[tuple[str, str]]:
    return [(p.path, p.severity) for p in codec.check_request(request)]


WEATHER = ToolDefinition(
    "get_weather",
    None,
    {"type": "object", "properties": {"city": {"type": "string"}}},
    strict=False,
)


class TestCheckRequest:
    """One test per preflight rule: a request that breaks it, and one that does not."""

    def test_messages_not_empty(self) -> None:
        assert ("$.messages", "error") in problems(Request((), model="m"))
        assert problems(Request((user("x"),), model="m")) == []

    def test_model_set(self) -> None:
        assert problems(Request((user("x"),))) == [("$.model", "error")]

    def test_tool_result_answers_a_call(self) -> None:
        bad = Request((user("x"), tool_result("c1", "r")), model="m")
        assert problems(bad) == [("$.messages[1].tool_call_id", "error")]
        good = Request(
            (user("x"), assistant(None, [tool_call("c1", "f")]), tool_result("c1", "r")), model="m"
        )
        assert problems(good) == []

    def test_calls_answered_before_next_message(self) -> None:
        bad = Request((user("x"), assistant(None, [tool_call("c1", "f")]), user("y")), model="m")
        assert problems(bad) == [("$.messages[1].tool_calls[0]", "error")]
        pending = Request((user("x"), assistant(None, [tool_call("c1", "f")])), model="m")
        assert problems(pending) == []

    def test_tool_results_are_text(self) -> None:
        bad = Request(
            (
                user("x"),
                assistant(None, [tool_call("c1", "f")]),
                ToolMessage("c1", (ImagePart(url="https://x/y.png"),)),
            ),
            model="m",
        )
        assert problems(bad) == [("$.messages[2].content[0]", "error")]

    def test_assistant_needs_content_or_calls(self) -> None:
        bad = Request((user("x"), AssistantMessage(())), model="m")
        assert problems(bad) == [("$.messages[1].content", "warning")]
        assert problems(Request((user("x"), assistant("")), model="m")) == []

    def test_invalid_calls_warned(self) -> None:
        message = AssistantMessage(
            None, invalid_tool_calls=(InvalidToolCall(id="c1", name="f", arguments="x"),)
        )
        request = Request((user("x"), message, tool_result("c1", "r")), model="m")
        assert problems(request) == [("$.messages[1].invalid_tool_calls[0]", "warning")]

    def test_tool_count(self) -> None:
        tools = tuple(ToolDefinition(f"t{i}", strict=False) for i in range(129))
        assert problems(Request((user("x"),), model="m", tools=tools)) == [("$.tools", "error")]
        assert problems(Request((user("x"),), model="m", tools=tools[:128])) == []

    def test_tool_names_unique(self) -> None:
        request = Request((user("x"),), model="m", tools=(WEATHER, WEATHER))
        assert problems(request) == [("$.tools[1].name", "warning")]

    def test_tool_of_another_provider(self) -> None:
        tool = ProviderTool("anthropic", msgspec.Raw(b"{}"))
        assert problems(Request((user("x"),), model="m", tools=(tool,))) == [
            ("$.tools[0]", "error")
        ]
        own = ProviderTool("openai", msgspec.Raw(b'{"type":"openrouter:web_search"}'))
        assert problems(Request((user("x"),), model="m", tools=(own,))) == []

    def test_long_description(self) -> None:
        tool = ToolDefinition("f", "d" * 1025, strict=False)
        assert problems(Request((user("x"),), model="m", tools=(tool,))) == [
            ("$.tools[0].description", "warning")
        ]

    def test_strict_needs_every_property_required(self) -> None:
        tool = ToolDefinition(
            "f", None, {"type": "object", "properties": {"a": {"type": "string"}}}
        )
        assert problems(Request((user("x"),), model="m", tools=(tool,))) == [
            ("$.tools[0].parameters.required", "error")
        ]
        schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
        ok = ToolDefinition("f", None, schema)
        assert problems(Request((user("x"),), model="m", tools=(ok,))) == []

    def test_tool_choice_needs_tools(self) -> None:
        bad = Request((user("x"),), model="m", tool_choice=ToolChoice("required"))
        assert problems(bad) == [("$.tool_choice", "error")]
        none = Request((user("x"),), model="m", tool_choice=ToolChoice("none"))
        assert problems(none) == []

    def test_forced_tool_exists(self) -> None:
        bad = Request(
            (user("x"),), model="m", tools=(WEATHER,), tool_choice=ToolChoice("tool", "f")
        )
        assert problems(bad) == [("$.tool_choice.name", "error")]
        good = Request(
            (user("x"),), model="m", tools=(WEATHER,), tool_choice=ToolChoice("tool", "get_weather")
        )
        assert problems(good) == []

    def test_parallel_tool_calls_needs_tools(self) -> None:
        bad = Request((user("x"),), model="m", parallel_tool_calls=False)
        assert problems(bad) == [("$.parallel_tool_calls", "error")]
        good = Request((user("x"),), model="m", tools=(WEATHER,), parallel_tool_calls=False)
        assert problems(good) == []

    def test_sampling_ranges(self) -> None:
        bad = Request((user("x"),), model="m", temperature=2.5, top_p=1.5, max_tokens=0)
        assert problems(bad) == [
            ("$.temperature", "error"),
            ("$.top_p", "error"),
            ("$.max_tokens", "error"),
        ]
        good = Request((user("x"),), model="m", temperature=2, top_p=1, max_tokens=1)
        assert problems(good) == []

    def test_stop_count(self) -> None:
        bad = Request((user("x"),), model="m", stop=("a", "b", "c", "d", "e"))
        assert problems(bad) == [("$.stop", "error")]
        assert problems(Request((user("x"),), model="m", stop=("a", "b", "c", "d"))) == []

    def test_stream_options_need_stream(self) -> None:
        extras = {"openai": {"stream_options": {"include_usage": True}}}
        bad = Request((user("x"),), model="m", extras=extras)
        assert problems(bad) == [("$.extras.openai.stream_options", "error")]
        assert problems(Request((user("x"),), model="m", stream=True, extras=extras)) == []

    def test_json_schema_name(self) -> None:
        bad = Request((user("x"),), model="m", response_format=ResponseFormat("json_schema"))
        assert problems(bad) == [("$.response_format.name", "error")]
        spaced = Request(
            (user("x"),), model="m", response_format=ResponseFormat("json_schema", "a b")
        )
        assert problems(spaced) == [("$.response_format.name", "error")]
        good = Request(
            (user("x"),), model="m", response_format=ResponseFormat("json_schema", "answer")
        )
        assert problems(good) == []


class TestMalformed:
    """Bodies of the wrong shape raise DecodeError or ValidationError naming the path."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b"[]", "$"),
            (b'{"messages":{}}', "$.messages"),
            (b'{"messages":[1]}', "$.messages[0]"),
            (b'{"messages":[{"role":5}]}', "$.messages[0].role"),
            (b'{"messages":[{"role":"wizard","content":"x"}]}', "$.messages[0].role"),
            (b'{"messages":[{"role":"user","content":5}]}', "$.messages[0].content"),
            (b'{"messages":[{"role":"user","content":""}]}', "$.messages[0].content"),
            (
                b'{"messages":[{"role":"user","content":"a"},{"role":"system","content":""}]}',
                "$.messages[1].content",
            ),
            (
                b'{"messages":[{"role":"system","content":[{"type":"image_url"}]}]}',
                "$.messages[0].content[0]",
            ),
            (b'{"messages":[{"role":"assistant","content":7}]}', "$.messages[0].content"),
            (b'{"messages":[{"role":"assistant","tool_calls":{}}]}', "$.messages[0].tool_calls"),
            (
                b'{"messages":[{"role":"assistant","tool_calls":[{"id":"a"}]}]}',
                "$.messages[0].tool_calls[0].function",
            ),
            (b'{"messages":[],"model":1}', "$.model"),
            (b'{"messages":[],"temperature":"hot"}', "$.temperature"),
            (b'{"messages":[],"max_tokens":1.5}', "$.max_tokens"),
            (b'{"messages":[],"stream":"yes"}', "$.stream"),
            (b'{"messages":[],"stop":[1]}', "$.stop[0]"),
            (b'{"messages":[],"tools":[3]}', "$.tools[0]"),
            (b'{"messages":[],"tools":{}}', "$.tools"),
        ],
    )
    def test_request(self, body: bytes, path: str) -> None:
        with pytest.raises(ValidationError) as info:
            codec.decode_request(body)
        assert info.value.path == path

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'"x"', "$"),
            (b'{"choices":{}}', "$.choices"),
            (b'{"choices":[[]]}', "$.choices[0]"),
            (b'{"choices":[{"message":5}]}', "$.choices[0].message"),
            (b'{"choices":[],"usage":[]}', "$.usage"),
            (b'{"choices":[],"id":5}', "$.id"),
        ],
    )
    def test_response(self, body: bytes, path: str) -> None:
        with pytest.raises(ValidationError) as info:
            codec.decode_response(body)
        assert info.value.path == path

    @pytest.mark.parametrize("body", [b"", b"{", b'{"messages":[}', b"\xff"])
    def test_not_json(self, body: bytes) -> None:
        with pytest.raises(DecodeError):
            codec.decode_request(body)
        with pytest.raises(DecodeError):
            codec.decode_response(body)

    def test_odd_values_are_kept_not_refused(self) -> None:
        body = (
            b'{"messages":[{"role":"tool","content":null},{"role":"function","name":"f",'
            b'"content":"r"}],"tool_choice":{"type":"allowed_tools"},"response_format":'
            b'{"type":"regex","regex":"a+"}}'
        )
        request = codec.decode_request(body)
        assert request.tool_choice is None
        assert request.response_format is None
        same_json(json.loads(codec.encode_request(request)), json.loads(body))


def fast_and_general(body: bytes) -> Response | None:
    """The fast path's response (None when it does not apply), checked against the general one."""
    fast = fast_response(body)
    if fast is not None:
        assert fast == general_response(body)
    return fast


CALL = b'{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}'


def body_with(message: bytes = b'{"role":"assistant","content":"hi"}', **keys: bytes) -> bytes:
    """A plain response body; ``keys`` replace or add raw JSON values at the top level."""
    top = {
        "id": b'"chatcmpl-1"',
        "object": b'"chat.completion"',
        "created": b"1",
        "model": b'"gpt-4o"',
        "choices": b'[{"index":0,"message":' + message + b',"finish_reason":"stop"}]',
        "usage": b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}',
    }
    top.update(keys)
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in top.items()) + b"}"


class TestFastPath:
    """The typed fast path of decode_response builds exactly what the general path builds."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "response")))
    def test_corpus(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    @pytest.mark.parametrize("path", curated("openai", "response"))
    def test_curated(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    def test_corpus_coverage(self) -> None:
        paths, taken = fast_coverage("openai", "response", fast_response)
        plain = [p for p in paths if p.parent.parent.name == "openai"]
        plain_taken = [p for p in taken if p.parent.parent.name == "openai"]
        # Plain OpenAI bodies take the fast path; dialects' keys send theirs to the general one.
        assert len(plain_taken) >= 0.95 * len(plain)
        assert len(taken) >= 270

    @pytest.mark.parametrize(
        "name",
        [
            "openai__pydantic-ai__models__test_openai__test_multiple_agent_tool_calls__02.json",
            "openai__langchaingo__agents__TestConversationalWithMemory__00.json",
            "openai__openai-python__chat_completions__test_parse_multiple_pydantic_tools__00.json",
            "openai__openai-python__chat_completions__test_parse_pydantic_model_refusal__00.json",
        ],
    )
    def test_taken_by_plain_bodies(self, name: str) -> None:
        body = (CURATED / "response" / name).read_bytes()
        assert fast_and_general(body) is not None
        assert fast_and_general(body.decode()) is not None  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        "body",
        [
            body_with(),
            body_with(b'{"role":"assistant","content":null,"refusal":"no"}'),
            body_with(b'{"role":"assistant","content":"x","refusal":"no","annotations":[]}'),
            body_with(b'{"role":"assistant","content":"x","reasoning_content":"think"}'),
            body_with(
                b'{"role":"assistant","content":"x","reasoning_content":null,"reasoning":"t"}'
            ),
            body_with(
                b'{"role":"assistant","content":null,"reasoning":"t","reasoning_content":"u"}'
            ),
            body_with(b'{"role":"assistant","content":"x","reasoning":null}'),
            body_with(b'{"role":"assistant","content":"x","tool_calls":[]}'),
            body_with(b'{"role":"assistant","content":"x","tool_calls":null,"audio":null}'),
            body_with(b'{"role":"assistant","content":null,"tool_calls":[' + CALL + b"]}"),
            body_with(b'{"role":"assistant","tool_calls":[' + CALL + b"]}"),
            body_with(b'{"role":"assistant"}'),
            body_with(b'{"role":"assistant","content":null}'),
            body_with(
                b'{"role":"assistant","tool_calls":[{"id":"a","index":0,"function":'
                b'{"name":"f","arguments":" {}"}},{"id":"b","type":"custom","function":'
                b'{"name":"g","arguments":"{\\"\xc3\xa9\\":[1]}"}}]}'
            ),
            body_with(choices=b"[]"),
            body_with(
                choices=b'[{"index":0,"message":{"role":"assistant","content":"a"},'
                b'"finish_reason":"eos","logprobs":null},{"index":1,"message":'
                b'{"role":"assistant","content":"b"},"finish_reason":null},{"index":2,'
                b'"message":{"role":"assistant","content":"c"},"finish_reason":""},'
                b'{"index":3,"message":{"role":"assistant","content":"d"}}]'
            ),
            body_with(usage=b"null"),
            body_with(
                usage=b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,'
                b'"prompt_tokens_details":null,"completion_tokens_details":{}}'
            ),
            body_with(
                usage=b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,'
                b'"prompt_tokens_details":{"cached_tokens":-1,"audio_tokens":0,"image_tokens":2},'
                b'"completion_tokens_details":{"reasoning_tokens":-2,"text_tokens":1,"image_tokens":0}}'
            ),
            body_with(system_fingerprint=b"null", service_tier=b'"default"', created=b"1.5"),
            body_with(id=b'"a"', model=b'"first"'),
        ],
    )
    def test_taken_and_equal(self, body: bytes) -> None:
        assert fast_and_general(body) is not None

    @pytest.mark.parametrize(
        "body",
        [
            body_with(b'{"role":"assistant","content":[{"type":"text","text":"x"}]}'),
            body_with(b'{"role":"assistant","content":"x","reasoning_details":[]}'),
            body_with(b'{"role":"user","content":"x"}'),
            body_with(b'{"content":"x"}'),
            body_with(
                b'{"role":"assistant","tool_calls":[{"id":"","function":'
                b'{"name":"f","arguments":"{}"}}]}'
            ),
            body_with(
                b'{"role":"assistant","tool_calls":[{"id":"a","function":'
                b'{"name":"","arguments":"{}"}}]}'
            ),
            body_with(
                b'{"role":"assistant","tool_calls":[{"id":"a","function":'
                b'{"name":"f","arguments":"[1]"}}]}'
            ),
            body_with(
                b'{"role":"assistant","tool_calls":[{"id":"a","function":'
                b'{"name":"f","arguments":"{oops"}},' + CALL + b"]}"
            ),
            body_with(b'{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}}]}'),
            body_with(usage=b'{"prompt_tokens":-3,"completion_tokens":2,"total_tokens":5}'),
            body_with(usage=b'{"prompt_tokens":3,"completion_tokens":2}'),
            body_with(usage=b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":true}'),
            body_with(
                usage=b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,'
                b'"prompt_tokens_details":{"cached_tokens":null}}'
            ),
            body_with(id=b"null"),
            body_with(x_groq=b'{"id":"req_1"}'),
        ],
    )
    def test_general_path_for_the_rest(self, body: bytes) -> None:
        assert fast_response(body) is None
        response = codec.decode_response(body)
        assert response == general_response(body)
        same_json(json.loads(codec.encode_response(response)), json.loads(body))

    def test_duplicate_ids_raise_either_way(self) -> None:
        body = body_with(b'{"role":"assistant","tool_calls":[' + CALL + b"," + CALL + b"]}")
        assert fast_response(body) is None
        with pytest.raises(ValidationError) as info:
            codec.decode_response(body)
        assert info.value.path == "$.tool_calls"

    def test_error_bodies_and_malformed_json(self) -> None:
        error = b'{"error":{"message":"m","type":"invalid_request_error","code":"c"}}'
        assert fast_response(error) is None
        with pytest.raises(ProviderError):
            codec.decode_response(error)
        for bad in (body_with()[:-1], b"\xff", b""):
            assert fast_response(bad) is None
            with pytest.raises(DecodeError):
                codec.decode_response(bad)


def fast_and_general_request(body: bytes) -> Request | None:
    """The request fast path's result (None if it does not apply), checked against the general."""
    fast = fast_request(body)
    if fast is not None:
        assert fast == general_request(body)
    return fast


HISTORY = (
    b'[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},'
    b'{"role":"assistant","content":null,"tool_calls":[' + CALL + b"]},"
    b'{"role":"tool","tool_call_id":"call_1","content":"ok"},'
    b'{"role":"assistant","content":"Done."}]'
)
TOOL = (
    b'{"type":"function","function":{"name":"f","description":"d","parameters":'
    b'{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}'
)


def request_with(**keys: bytes) -> bytes:
    """A plain request body; ``keys`` replace or add raw JSON values at the top level."""
    top = {"model": b'"gpt-4o"', "messages": HISTORY}
    top.update(keys)
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in top.items()) + b"}"


class TestFastRequestPath:
    """The typed fast path of decode_request builds exactly what the general path builds."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "request")))
    def test_corpus(self, path: Path) -> None:
        fast_and_general_request(path.read_bytes())

    @pytest.mark.parametrize("path", curated("openai", "request"))
    def test_curated(self, path: Path) -> None:
        fast_and_general_request(path.read_bytes())

    def test_corpus_coverage(self) -> None:
        _, taken = fast_coverage("openai", "request", fast_request)
        # Text histories and content parts take it; dialects' keys take the general path.
        assert len(taken) >= 350

    @pytest.mark.parametrize(
        "body",
        [
            request_with(),
            request_with(messages=b"[]"),
            request_with(
                messages=b'[{"role":"developer","content":"x","name":null},'
                b'{"role":"user","content":"y","name":"bob","tool_calls":null}]'
            ),
            request_with(tools=b"[" + TOOL + b"]", tool_choice=b'"auto"', n=b"1"),
            request_with(tools=b"[]", tool_choice=b'"any"', parallel_tool_calls=b"false"),
            request_with(tools=b"null", tool_choice=b"null", parallel_tool_calls=b"null"),
            request_with(tool_choice=b'"sometimes"', stream=b"true", stream_options=b"{}"),
            request_with(
                tools=b'[{"function":{"name":"f","parameters":null,"description":null,'
                b'"strict":false}},{"type":"function","function":{"name":"g","strict":true}},'
                b'{"type":"function","function":{"name":"h","strict":null,"parameters":'
                b'{"type":"object","properties":{}}}}]'
            ),
            request_with(
                tools=b'[{"type":"function","function":{"name":"f","strict":true,"parameters":'
                b'{"type":"object","properties":{"a":{"type":"object","properties":{}}},'
                b'"additionalProperties":false}}},{"type":"function","function":{"name":"g",'
                b'"strict":true,"parameters":{"type":"object","properties":{},'
                b'"additionalProperties":false}}}]'
            ),
            request_with(max_tokens=b"5", max_completion_tokens=b"7"),
            request_with(max_completion_tokens=b"7"),
            request_with(max_completion_tokens=b"null"),
            request_with(max_tokens=b"null", max_completion_tokens=b"7"),
            request_with(temperature=b"1", top_p=b"0.5"),
            request_with(temperature=b"0.0", top_p=b"null", model=b"null"),
            request_with(stop=b'"END"'),
            request_with(stop=b'["a","b"]', seed=b"7", user=b'"u"', metadata=b'{"k":"v"}'),
            request_with(stop=b"[]", reasoning_effort=b'"low"', store=b"false"),
            request_with(stop=b"null", logprobs=b"true", top_logprobs=b"2"),
            request_with(
                messages=b'[{"role":"user","content":"x"},{"role":"assistant","content":"a",'
                b'"reasoning_content":"t","refusal":null}]'
            ),
            # A forced choice, and the response formats: read by the general path's functions.
            request_with(tool_choice=b'{"type":"function","function":{"name":"f"}}'),
            request_with(tool_choice=b'{"function":{"name":"f"}}'),
            request_with(tool_choice=b'{"type":"function","function":{"name":""}}'),
            request_with(tool_choice=b'{"type":"allowed_tools","mode":"auto"}'),
            request_with(tool_choice=b"7"),
            request_with(tool_choice=b'["auto"]'),
            request_with(response_format=b'{"type":"json_object"}'),
            request_with(response_format=b'{"type":"text","extra":1}'),
            request_with(
                response_format=b'{"type":"json_schema","json_schema":{"name":"r","schema":'
                b'{"type":"object"},"strict":true,"description":"d"}}'
            ),
            request_with(response_format=b'{"type":"json_schema","json_schema":{"schema":{}}}'),
            request_with(response_format=b'{"type":"json_schema","json_schema":{"name":3}}'),
            request_with(response_format=b'{"type":"xml"}'),
            request_with(response_format=b"null"),
        ],
    )
    def test_taken_and_equal(self, body: bytes) -> None:
        assert fast_and_general_request(body) is not None
        same_json(json.loads(codec.encode_request(codec.decode_request(body))), json.loads(body))

    @pytest.mark.parametrize(
        "content",
        [
            b'[{"type":"text","text":"x"}]',
            b'[{"type":"text","text":"x"},{"type":"text","text":""}]',
            b'[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]',
            b'[{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]',
            b'[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA==",'
            b'"detail":"low"}}]',
            b'[{"type":"image_url","image_url":{"url":"https://e.x/a.png","detail":"odd"}}]',
            b'[{"type":"image_url","image_url":"https://e.x/a.png"}]',
            b'[{"type":"input_audio","input_audio":{"data":"AA==","format":"wav"}}]',
            b'[{"type":"file","file":{"file_data":"data:application/pdf;base64,AA==",'
            b'"filename":"a.pdf"}}]',
            b'[{"type":"file","file":{"file_id":"file-1"}}]',
            b'[{"type":"document_url","document_url":"https://e.x/a.pdf"}]',
            b'[{"type":"video_url","video_url":{"url":"https://e.x/a.mp4"}}]',
            b'[{"type":"text"}]',
            b'[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}}]',
        ],
    )
    @pytest.mark.parametrize("role", ["user", "tool"])
    def test_content_parts_taken_and_equal(self, content: bytes, role: str) -> None:
        # The general path maps each part; the fast path reads the same parts.
        if role == "user":
            messages = b'[{"role":"user","content":%s}]' % content
        else:
            messages = (
                b'[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[' + CALL + b"]},"
                b'{"role":"tool","tool_call_id":"call_1","content":%s}]' % content
            )
        body = request_with(messages=messages)
        assert fast_and_general_request(body) is not None
        same_json(json.loads(codec.encode_request(codec.decode_request(body))), json.loads(body))

    def test_an_empty_result_in_parts_taken_and_equal(self) -> None:
        body = request_with(messages=b'[{"role":"tool","tool_call_id":"c","content":[]}]')
        assert fast_and_general_request(body) is not None

    @pytest.mark.parametrize(
        ("role", "content"),
        [("user", b"[]")]
        + [(role, c) for role in ("user", "tool") for c in (b"[1]", b'["x"]', b"[null]")],
    )
    def test_content_parts_refused_as_the_general_path(self, content: bytes, role: str) -> None:
        body = request_with(
            messages=b'[{"role":"%s","tool_call_id":"c","content":%s}]' % (role.encode(), content)
            if role == "tool"
            else b'[{"role":"user","content":%s}]' % content
        )
        # The fast path declines; the general path's answer or error is the decoder's.
        assert fast_request(body) is None
        with pytest.raises(ValidationError) as general:
            general_request(body)
        with pytest.raises(ValidationError) as info:
            codec.decode_request(body)
        assert info.value.path == general.value.path

    @pytest.mark.parametrize(
        "body",
        [
            request_with(messages=b'[{"role":"system","content":[{"type":"text","text":"x"}]}]'),
            request_with(messages=b'[{"role":"function","name":"f","content":"r"}]'),
            request_with(messages=b'[{"role":"tool","tool_call_id":"","content":"r"}]'),
            request_with(messages=b'[{"role":"tool","content":null,"tool_call_id":"a"}]'),
            request_with(
                messages=b'[{"role":"assistant","tool_calls":[{"id":"a","function":'
                b'{"name":"f","arguments":"{oops"}}]}]'
            ),
            request_with(tools=b'[{"type":"function","function":{"name":"bad name"}}]'),
            request_with(tools=b'[{"type":"function","function":{"name":"f","parameters":[]}}]'),
            request_with(
                tools=b'[{"type":"function","function":{"name":"f","strict":true,"parameters":'
                b'{"type":"object","additionalProperties":true}}}]'
            ),
            request_with(tools=b'[{"type":"web_search"}]'),
            request_with(functions=b'[{"name":"f"}]'),
            request_with(max_completion_tokens=b"null", max_tokens=b"3", x_custom=b"1"),
        ],
    )
    def test_general_path_for_the_rest(self, body: bytes) -> None:
        assert fast_request(body) is None
        request = codec.decode_request(body)
        assert request == general_request(body)
        same_json(json.loads(codec.encode_request(request)), json.loads(body))

    def test_errors_are_the_general_paths(self) -> None:
        for body, path in [
            (request_with(messages=b'[{"role":"user","content":""}]'), "$.messages[0].content"),
            (request_with(temperature=b'"hot"'), "$.temperature"),
            (request_with(stream=b'"yes"'), "$.stream"),
            (request_with(messages=b'[{"content":"x"}]'), "$.messages[0].role"),
        ]:
            assert fast_request(body) is None
            with pytest.raises(ValidationError) as info:
                codec.decode_request(body)
            assert info.value.path == path
        for bad in (request_with()[:-1], b"\xff", b"[]"):
            assert fast_request(bad) is None
            with pytest.raises((DecodeError, ValidationError)):
                codec.decode_request(bad)


class TestIsClosed:
    """is_closed(schema) says exactly whether close_objects would change the schema."""

    @pytest.mark.parametrize(
        "schema",
        [
            {"type": "object"},
            {"type": "object", "additionalProperties": False},
            {"type": "object", "additionalProperties": 0},
            {"type": ["object", "null"], "additionalProperties": False},
            {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
            {"properties": {"a": {"type": "object"}}, "additionalProperties": False},
            {"type": "object", "additionalProperties": {"type": "string"}},
            {"type": "string", "additionalProperties": {"type": "object"}},
            {"type": "array", "items": {"type": "object", "additionalProperties": False}},
            {"type": "array", "items": {"type": "object"}},
            {"anyOf": [{"type": "null"}, {"type": "object", "properties": {}}]},
            {"$defs": {"x": {"type": "object"}}, "type": "string"},
            {"type": "object", "additionalProperties": False, "properties": {"p": 5}},
            {"not": 1, "type": "integer"},
        ],
    )
    def test_same_as_close_objects(self, schema: dict[str, Any]) -> None:
        assert is_closed(schema) == (close_objects(schema) == schema)

    def test_corpus_schemas(self) -> None:
        seen = 0
        for param in corpus("openai", "request"):
            for tool in json.loads(param.values[0].read_bytes()).get("tools") or []:
                schema = (tool.get("function") or {}).get("parameters")
                if isinstance(schema, dict):
                    seen += 1
                    assert is_closed(schema) == (close_objects(schema) == schema)
        assert seen or not corpus("openai", "request")
