"""Token counting endpoints: the request each family's counter takes, and its answer read."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec
import pydantic
import pytest
from anthropic import Anthropic
from anthropic.types import MessageCountTokensParams
from openai import OpenAI
from openai.types.responses import InputTokenCountParams

import chatcodec as cc
from chatcodec import http
from official import _MODEL, _VALIDATOR, _params, sdk_check_request

COUNTERS = ("anthropic", "openai-responses", "gemini", "bedrock")
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai-responses": "gpt-5",
    "gemini": "gemini-2.5-flash",
    "bedrock": "anthropic.claude-3-haiku-20240307-v1:0",
}
WEATHER = cc.ToolDefinition(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def history(model: str) -> cc.Request:
    """A tool loop with a system prompt, settings that count no token, and tools."""
    call = cc.ToolCall("call_1", "get_weather", msgspec.Raw(b'{"city":"Paris"}'))
    return cc.Request(
        (
            cc.system("Be brief."),
            cc.user("Weather in Paris?"),
            cc.assistant(None, tool_calls=(call,)),
            cc.tool_result("call_1", "18 C, clear", name="get_weather"),
        ),
        model=model,
        max_tokens=256,
        temperature=0.3,
        tools=(WEATHER,),
    )


def body_of(sent: http.HTTPRequest) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(sent.body)
    return parsed


class TestRequests:
    """Each family's endpoint, with the fields it takes and no other."""

    def test_anthropic(self) -> None:
        sent = http.build_count_tokens_request(
            "anthropic", history(MODELS["anthropic"]), api_key="k"
        )
        assert sent.url == "https://api.anthropic.com/v1/messages/count_tokens"
        body = body_of(sent)
        assert set(body) == {"model", "system", "messages", "tools"}
        pydantic.TypeAdapter(MessageCountTokensParams).validate_python(body)
        assert sent.headers["x-api-key"] == "k"
        assert sent.headers["anthropic-version"]

    def test_responses(self) -> None:
        sent = http.build_count_tokens_request(
            "openai-responses", history(MODELS["openai-responses"])
        )
        assert sent.url == "https://api.openai.com/v1/responses/input_tokens"
        body = body_of(sent)
        assert "max_output_tokens" not in body
        assert "temperature" not in body
        assert {"model", "input", "instructions", "tools"} <= set(body)
        pydantic.TypeAdapter(InputTokenCountParams).validate_python(body)

    def test_gemini_whole_request(self) -> None:
        sent = http.build_count_tokens_request("gemini", history(MODELS["gemini"]))
        assert sent.url.endswith("/models/gemini-2.5-flash:countTokens")
        body = body_of(sent)
        assert list(body) == ["generateContentRequest"]
        inner = body["generateContentRequest"]
        assert inner["model"] == "models/gemini-2.5-flash"
        sdk_check_request({key: value for key, value in inner.items() if key != "model"})

    def test_gemini_contents_alone(self) -> None:
        request = cc.Request((cc.user("Hi"),), model="gemini-2.5-flash")
        assert json.loads(http.build_count_tokens_request("gemini", request).body) == {
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}]
        }

    def test_gemini_tuned_model(self) -> None:
        request = cc.Request((cc.system("S"), cc.user("Hi")), model="tunedModels/mine")
        sent = http.build_count_tokens_request("gemini", request)
        assert sent.url.endswith("/tunedModels/mine:countTokens")
        assert body_of(sent)["generateContentRequest"]["model"] == "tunedModels/mine"

    def test_bedrock(self) -> None:
        model = MODELS["bedrock"]
        sent = http.build_count_tokens_request("bedrock", history(model), region="eu-west-3")
        assert sent.url == (
            "https://bedrock-runtime.eu-west-3.amazonaws.com/model/"
            "anthropic.claude-3-haiku-20240307-v1%3A0/count-tokens"
        )
        body = body_of(sent)
        assert set(body["input"]["converse"]) == {"messages", "system", "toolConfig"}
        shape = _MODEL.operation_model("CountTokens").input_shape
        report = _VALIDATOR.validate(_params(shape, {"modelId": model, **body}), shape)
        assert not report.has_errors(), report.generate_report()

    @pytest.mark.parametrize("family", ["openai", "ollama", "groq", "cohere"])
    def test_no_counter(self, family: str) -> None:
        with pytest.raises(cc.ValidationError, match="no endpoint that counts tokens"):
            http.build_count_tokens_request(family, history("m"))
        with pytest.raises(cc.ValidationError, match="no endpoint that counts tokens"):
            http.read_count_tokens(family, 200, {}, b"{}")

    def test_cohere_says_why(self) -> None:
        # Cohere tokenizes one text (/v1/tokenize), not a chat request: no count is made up.
        for call in (
            lambda: http.build_count_tokens_request("cohere", history("command-a-03-2025")),
            lambda: http.read_count_tokens("cohere", 200, {}, b'{"tokens":[1,2]}'),
        ):
            with pytest.raises(cc.ValidationError, match="/v1/tokenize") as caught:
                call()
            assert caught.value.path == "family"

    def test_losses_are_collected(self) -> None:
        extras = {"openai": {"logprobs": True}}
        request = cc.Request((cc.user("Hi"),), model="gemini-2.5-flash", extras=extras)
        losses: list[cc.Loss] = []
        http.build_count_tokens_request("gemini", request, losses=losses)
        assert [loss.path for loss in losses] == ["$.extras.openai.logprobs"]


class TestOfficialClients:
    """The official SDKs send their count to the same URL with the same body."""

    @staticmethod
    def captured(make: Any, library: Any = httpx) -> Any:
        """What the SDK sent, taken at its HTTP client's transport (the SDK's own library)."""
        seen: list[Any] = []

        def answer(request: Any) -> Any:
            seen.append(request)
            counted = {"input_tokens": 7, "object": "response.input_tokens"}
            return library.Response(200, json=counted)

        make(library.Client(transport=library.MockTransport(answer)))
        return seen[0]

    def test_anthropic_sdk(self) -> None:
        request = cc.Request((cc.system("Be brief."), cc.user("Hi")), model="claude-sonnet-4-5")
        ours = http.build_count_tokens_request("anthropic", request, api_key="k")
        sdk = self.captured(
            lambda client: Anthropic(api_key="k", http_client=client).messages.count_tokens(
                model="claude-sonnet-4-5",
                system="Be brief.",
                messages=[{"role": "user", "content": "Hi"}],
            ),
            pytest.importorskip("httpx2"),
        )
        assert str(sdk.url) == ours.url
        assert json.loads(sdk.content) == json.loads(ours.body)

    def test_openai_sdk(self) -> None:
        request = cc.Request((cc.system("Be brief."), cc.user("Hi")), model="gpt-5")
        ours = http.build_count_tokens_request("openai-responses", request, api_key="k")
        sdk = self.captured(
            lambda client: OpenAI(api_key="k", http_client=client).responses.input_tokens.count(
                model="gpt-5", instructions="Be brief.", input=json.loads(ours.body)["input"]
            )
        )
        assert str(sdk.url) == ours.url
        assert json.loads(sdk.content) == json.loads(ours.body)


class TestAnswers:
    """The count read from each family's answer; errors as every reader raises them."""

    @pytest.mark.parametrize(
        ("family", "answer", "count"),
        [
            ("anthropic", b'{"input_tokens":2095}', 2095),
            ("openai-responses", b'{"object":"response.input_tokens","input_tokens":11}', 11),
            ("gemini", b'{"totalTokens":31,"promptTokensDetails":[{"modality":"TEXT"}]}', 31),
            ("gemini", b"{}", 0),  # proto3 JSON leaves a zero out
            ("bedrock", b'{"inputTokens":123}', 123),
        ],
    )
    def test_count(self, family: str, answer: bytes, count: int) -> None:
        assert http.read_count_tokens(family, 200, {}, answer) == count

    @pytest.mark.parametrize(
        ("family", "answer", "path"),
        [
            ("anthropic", b"{}", "$.input_tokens"),
            ("anthropic", b'{"input_tokens":"5"}', "$.input_tokens"),
            ("bedrock", b'{"inputTokens":-1}', "$.inputTokens"),
            ("gemini", b'{"totalTokens":1.5}', "$.totalTokens"),
            ("openai-responses", b"[]", "$"),
        ],
    )
    def test_no_count(self, family: str, answer: bytes, path: str) -> None:
        with pytest.raises(cc.ValidationError) as raised:
            http.read_count_tokens(family, 200, {}, answer)
        assert raised.value.path == path

    def test_not_json(self) -> None:
        with pytest.raises(cc.DecodeError):
            http.read_count_tokens("anthropic", 200, {}, b"<html>")

    def test_an_error_answer(self) -> None:
        body = b'{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}'
        with pytest.raises(cc.ProviderError) as raised:
            http.read_count_tokens("anthropic", 429, {"retry-after": "3"}, body)
        assert (raised.value.kind, raised.value.retry_after) == ("rate_limit", 3.0)
