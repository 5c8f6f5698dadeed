"""The Ollama native codec (``/api/chat``) against real payloads and hand-built values."""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from corpus import API, DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json
from hypothesis import given, settings
from hypothesis import strategies as st
from ollama import ChatResponse
from ollama._types import ChatRequest, Image, Message, Tool

import chatcodec as cc
from chatcodec.providers import _wire, ollama
from chatcodec.providers._lower import lower
from chatcodec.providers._wire import Encoding
from chatcodec.providers.ollama._decode import general_response
from chatcodec.providers.ollama._fast import fast_response
from corpus_root import HAVE_CORPUS, NO_CORPUS


def _shared(name: str) -> ModuleType:
    """A module of ``tests/`` (not on the path when this file runs alone)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    import strategies
else:
    strategies = _shared("strategies")

OWN = DATA / "ollama"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(24)).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(12)).decode()


def round_trip_request(body: bytes) -> cc.Request:
    request = ollama.decode_request(body)
    same_json(json.loads(ollama.encode_request(request)), json.loads(body))
    return request


def round_trip_response(body: bytes) -> cc.Response:
    response = ollama.decode_response(body)
    same_json(json.loads(ollama.encode_response(response)), json.loads(body))
    return response


def wire_calls(body: Any) -> list[dict[str, Any]]:
    messages = body.get("messages") or ([body["message"]] if body.get("message") else [])
    return [call for m in messages for call in m.get("tool_calls") or []]


def decoded_calls(value: cc.Request | cc.Response) -> list[cc.ToolCall]:
    if isinstance(value, cc.Response):
        return list(value.tool_calls)
    return [
        call for m in value.messages if isinstance(m, cc.AssistantMessage) for call in m.tool_calls
    ]


def check_arguments(value: cc.Request | cc.Response, parsed: Any) -> None:
    """Tool-call arguments are the bytes of the wire's object, unchanged in value."""
    calls = decoded_calls(value)
    wire = wire_calls(parsed)
    assert len(calls) == len(wire)
    for call, raw in zip(calls, wire, strict=True):
        same_json(json.loads(bytes(call.arguments)), raw["function"]["arguments"])


def sdk_request(body: bytes) -> None:
    """The official SDK's own types take the encoded request."""
    data = json.loads(body)
    ChatRequest.model_validate(data)
    for message in data.get("messages") or []:
        images = message.get("images")
        if images:
            # The SDK wraps image strings in Image before sending; its
            # serializer checks they are base64.
            message = {**message, "images": [Image(value=image) for image in images]}
        Message.model_validate(message).model_dump()
    for tool in data.get("tools") or []:
        Tool.model_validate(tool)


def stream_events(path: Path) -> list[bytes]:
    return [msgspec.json.encode(event) for event in json.loads(path.read_bytes())["events"]]


class TestCorpus:
    """Every ollama-chat request and 200 response of the corpus decodes and round trips."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("ollama", "request")))
    def test_request(self, path: Path) -> None:
        body, parsed = load(path)
        request = round_trip_request(body)
        check_arguments(request, parsed)
        sdk_request(ollama.encode_request(request))

    @pytest.mark.parametrize("path", needs_corpus(corpus("ollama", "response")))
    def test_response(self, path: Path) -> None:
        body, parsed = load(path)
        response = round_trip_response(body)
        check_arguments(response, parsed)
        ChatResponse.model_validate_json(ollama.encode_response(response))

    @pytest.mark.parametrize("path", needs_corpus(corpus("ollama", "stream")))
    def test_stream_events(self, path: Path) -> None:
        """Each streamed NDJSON object is a response body of its own."""
        for body in stream_events(path):
            round_trip_response(body)

    @pytest.mark.parametrize("status", ["400", "404", "500"])
    def test_error_responses(self, status: str) -> None:
        for param in corpus("ollama", "response", status):
            with pytest.raises(cc.ProviderError):
                ollama.decode_response(param.values[0].read_bytes())

    def test_counts(self) -> None:
        if not HAVE_CORPUS:
            pytest.skip(NO_CORPUS)
        assert API["ollama"] == "ollama-chat"
        assert len(corpus("ollama", "request")) == 27
        assert len(corpus("ollama", "response")) == 8


class TestCurated:
    """The curated copies round trip, and their errors raise ProviderError."""

    @pytest.mark.parametrize("path", curated("ollama", "request"))
    def test_request(self, path: Path) -> None:
        body, parsed = load(path)
        check_arguments(round_trip_request(body), parsed)

    @pytest.mark.parametrize("path", curated("ollama", "response"))
    def test_response(self, path: Path) -> None:
        body, parsed = load(path)
        response = round_trip_response(body)
        check_arguments(response, parsed)
        ChatResponse.model_validate_json(ollama.encode_response(response))

    @pytest.mark.parametrize("path", curated("ollama", "error"))
    def test_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(cc.ProviderError) as info:
            ollama.decode_response(body)
        error = info.value
        assert error.provider == "ollama"
        assert (error.type, error.code, error.param) == (None, None, None)
        assert error.message == parsed["error"]
        assert error.body == parsed
        assert parsed["error"] not in str(error)

    def test_sources_list_every_file(self) -> None:
        sources = (OWN / "SOURCES.md").read_text()
        files = sorted(OWN.glob("*/*.json"))
        assert len(files) > 40
        for path in files:
            assert f"`{path.parent.name}/{path.name}`" in sources


class TestErrors:
    """Error bodies raise ProviderError with what they carry."""

    def test_string_error(self) -> None:
        with pytest.raises(cc.ProviderError) as info:
            ollama.decode_response(b'{"error":"model \\"x\\" not found, try pulling it first"}')
        assert info.value.message == 'model "x" not found, try pulling it first'
        assert info.value.type is None
        assert str(info.value) == "ollama answered with an error: error"

    def test_object_error_from_a_proxy(self) -> None:
        body = b'{"error":{"message":"no","type":"invalid_request_error","code":404}}'
        with pytest.raises(cc.ProviderError) as info:
            ollama.decode_response(body)
        assert (info.value.type, info.value.code, info.value.message) == (
            "invalid_request_error",
            404,
            "no",
        )

    def test_error_of_another_type(self) -> None:
        with pytest.raises(cc.ProviderError) as info:
            ollama.decode_response(b'{"error":7}')
        assert info.value.message is None


def corpus_or_curated(kind: str, name: str) -> bytes:
    return (OWN / kind / name).read_bytes()


class TestRequestSemantics:
    """Decoded requests hold the right canonical values."""

    def test_parallel_calls_and_results_by_name(self) -> None:
        body = corpus_or_curated(
            "request",
            "ollama-docs__docs__capabilities__tool-calling.mdx__tool-calling.mdx__req3.json",
        )
        request = ollama.decode_request(body)
        user, assistant, *results = request.messages
        assert isinstance(user, cc.UserMessage)
        assert isinstance(assistant, cc.AssistantMessage)
        assert assistant.content is None
        names = [call.name for call in assistant.tool_calls]
        assert names == ["get_temperature", "get_conditions"] * 2
        args = [bytes(call.arguments) for call in assistant.tool_calls]
        assert args == [b'{"city":"New York"}'] * 2 + [b'{"city":"London"}'] * 2
        ids = [
            _wire.derive_id("call_", 1, j, n, a)
            for j, (n, a) in enumerate(zip(names, args, strict=True))
        ]
        assert [call.id for call in assistant.tool_calls] == ids
        assert assistant.tool_calls[0].extras == {
            "ollama": {"type": "function", "~id": "derived", "function": {"index": 0}}
        }
        # Results answer the calls of their name in order (the same name twice).
        assert [r.tool_call_id for r in results if isinstance(r, cc.ToolMessage)] == ids
        assert [r.text for r in results if isinstance(r, cc.ToolMessage)] == [
            "22°C",
            "Partly cloudy",
            "15°C",
            "Rainy",
        ]
        wire = json.loads(ollama.encode_request(request))
        assert "id" not in wire["messages"][1]["tool_calls"][0]
        assert wire["messages"][2] == {
            "role": "tool",
            "content": "22°C",
            "tool_name": "get_temperature",
        }

    def test_image(self) -> None:
        body = corpus_or_curated(
            "request", "ollama-docs__docs__api.md__Chat_request_with_images__req0.json"
        )
        message = ollama.decode_request(body).messages[0]
        assert isinstance(message, cc.UserMessage)
        assert isinstance(message.content, tuple)
        text, image = message.content
        assert text == cc.TextPart("what is in this image?")
        assert isinstance(image, cc.ImagePart)
        assert image.media_type == "image/png"
        assert image.data == json.loads(body)["messages"][0]["images"][0]

    def test_history(self) -> None:
        body = corpus_or_curated(
            "request", "ollama-docs__docs__api.md__Chat_request_With_History__req0.json"
        )
        request = ollama.decode_request(body)
        assert [m.role for m in request.messages] == [cc.Role.USER, cc.Role.ASSISTANT, cc.Role.USER]
        assert request.messages[1].content == "due to rayleigh scattering."
        assert request.stream is None
        assert request.extras == {"ollama": {"~stream": "absent"}}

    def test_formats(self) -> None:
        schema = ollama.decode_request(
            corpus_or_curated(
                "request", "ollama-docs__docs__api.md__Chat_request_Structured_outputs__req0.json"
            )
        )
        assert schema.response_format is not None
        assert schema.response_format.type == "json_schema"
        assert schema.response_format.schema is not None
        assert schema.response_format.schema["required"] == ["age", "available"]
        assert schema.temperature == 0.0
        as_json = ollama.decode_request(
            corpus_or_curated("request", "langchaingo__llms__ollama__TestWithFormat__00.json")
        )
        assert as_json.response_format == cc.ResponseFormat("json_object")
        empty = ollama.decode_request(
            corpus_or_curated("request", "langchaingo__llms__ollama__TestGenerateContent__00.json")
        )
        assert empty.response_format == cc.ResponseFormat("text")

    def test_options(self) -> None:
        request = ollama.decode_request(
            corpus_or_curated(
                "request",
                "langchaingo__llms__ollama__ollamaclient__TestClient_GenerateChatWithThink__00.json",
            )
        )
        assert (request.max_tokens, request.temperature) == (100, 0.0)
        assert type(request.temperature) is float
        assert request.response_format == cc.ResponseFormat("text")
        assert request.extras == {
            "ollama": {"~stream": "absent", "options": {"think": True}, "~int": ["temperature"]}
        }
        wire = json.loads(ollama.encode_request(request))
        assert wire["options"] == {"num_predict": 100, "temperature": 0, "think": True}
        assert type(wire["options"]["temperature"]) is int
        seed = ollama.decode_request(
            corpus_or_curated(
                "request", "ollama-docs__docs__api.md__Chat_request_Reproducible_outputs__req0.json"
            )
        )
        assert seed.seed == 101
        assert seed.extras == {"ollama": {"~stream": "absent", "~int": ["temperature"]}}

    def test_keep_alive_and_think(self) -> None:
        keep = ollama.decode_request(
            corpus_or_curated("request", "langchaingo__llms__ollama__TestWithKeepAlive__00.json")
        )
        assert keep.extras is not None
        assert keep.extras["ollama"]["keep_alive"] == "1m"
        unload = ollama.decode_request(
            corpus_or_curated("request", "ollama-docs__docs__api.md__Unload_a_model__req0.json")
        )
        assert unload.messages == ()
        assert unload.extras == {"ollama": {"messages": [], "keep_alive": 0, "~stream": "absent"}}
        think = ollama.decode_request(
            corpus_or_curated(
                "request", "ollama-docs__docs__capabilities__thinking.mdx__thinking.mdx__req0.json"
            )
        )
        assert think.reasoning == cc.Reasoning()  # on, at the model's default
        assert think.extras is None
        assert think.stream is False

    def test_tools(self) -> None:
        request = ollama.decode_request(
            corpus_or_curated(
                "request", "ollama-docs__docs__api.md__Chat_request_with_tools__req0.json"
            )
        )
        (tool,) = request.tools
        assert isinstance(tool, cc.ToolDefinition)
        assert tool.name == "get_current_weather"
        assert tool.strict is False
        assert tool.parameters is not None
        assert tool.parameters["required"] == ["location", "format"]

    def test_tool_call_ids_on_the_wire(self) -> None:
        body = {
            "model": "m",
            "messages": [
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": "call_x", "function": {"index": 0, "name": "f", "arguments": {}}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_x", "content": "1"},
                {"role": "tool", "tool_call_id": "call_x", "tool_name": "g", "content": "2"},
            ],
        }
        request = round_trip_request(json.dumps(body).encode())
        call = request.messages[0].tool_calls[0]  # type: ignore[union-attr]
        assert call.id == "call_x"
        assert call.extras == {"ollama": {"function": {"index": 0}}}
        first, second = request.messages[1:]
        assert isinstance(first, cc.ToolMessage)
        assert isinstance(second, cc.ToolMessage)
        assert first.tool_call_id == second.tool_call_id == "call_x"
        assert first.extras == {"ollama": {"~tool_name": "absent"}}
        assert second.name == "g"  # not the name of the call it answers: kept
        assert second.extras is None

    def test_thinking_in_history(self) -> None:
        body = (
            b'{"messages":[{"role":"assistant","content":"4","thinking":"2+2"},'
            b'{"role":"assistant","thinking":"hm"}]}'
        )
        request = round_trip_request(body)
        first, second = request.messages
        assert isinstance(first, cc.AssistantMessage)
        assert first.content == (cc.ReasoningPart("2+2"), cc.TextPart("4"))
        assert first.reasoning == "2+2"
        assert isinstance(second, cc.AssistantMessage)
        assert second.content == (cc.ReasoningPart("hm"),)

    def test_invalid_arguments_kept_verbatim_in_order(self) -> None:
        body = {
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"function": {"name": "a", "arguments": "{not json"}},
                        {"function": {"name": "b", "arguments": {"x": [1, 2.5]}}},
                        {"function": {"name": "c", "arguments": [1]}},
                        {"function": {"name": "d", "arguments": '{"y": 1}'}},
                        {"function": {"name": "e"}},
                    ],
                }
            ]
        }
        request = round_trip_request(json.dumps(body).encode())
        message = request.messages[0]
        assert isinstance(message, cc.AssistantMessage)
        assert [c.name for c in message.tool_calls] == ["b", "d"]
        assert bytes(message.tool_calls[0].arguments) == b'{"x":[1,2.5]}'
        assert bytes(message.tool_calls[1].arguments) == b'{"y": 1}'
        assert [(c.name, c.arguments) for c in message.invalid_tool_calls] == [
            ("a", "{not json"),
            ("c", "[1]"),
            ("e", ""),
        ]
        assert message.invalid_tool_calls[0].error == "arguments are not valid JSON"
        assert message.extras == {"ollama": {"~calls": "ivivi"}}
        # An edit that adds a call makes the order hint stale: valid calls first.
        edited = msgspec.structs.replace(
            message, tool_calls=(*message.tool_calls, cc.tool_call("z", "z"))
        )
        wire = json.loads(
            ollama.encode_request(msgspec.structs.replace(request, messages=(edited,)))
        )
        assert [c["function"]["name"] for c in wire["messages"][0]["tool_calls"]] == list("bdzace")

    def test_odd_messages(self) -> None:
        body = (
            b'{"messages":[{"role":"developer","content":"d"},{"role":"user"},'
            b'{"role":"user","content":"","images":[]},{"role":"tool","content":null},'
            b'{"role":"user","images":["' + JPEG.encode() + b'", "AAAA"],"x":1}],'
            b'"tools":[],"format":null,"options":{},"stream":null,"model":null}'
        )
        request = round_trip_request(body)
        developer, absent, empty, tool, images = request.messages
        assert isinstance(developer, cc.DeveloperMessage)
        assert absent.content == (cc.TextPart(""),)
        assert absent.extras == {"ollama": {"~content": "absent"}}
        assert empty.content == (cc.TextPart(""),)
        assert isinstance(tool, cc.ToolMessage)
        assert tool.content == ""
        assert isinstance(images, cc.UserMessage)
        assert [(p.data, p.media_type) for p in images.content] == [  # type: ignore[union-attr]
            (JPEG, "image/jpeg"),
            ("AAAA", "image/*"),
        ]
        assert images.extras == {"ollama": {"x": 1}}

    def test_other_tool_kinds_stay_opaque(self) -> None:
        body = (
            b'{"tools":[{"type":"web_search"},'
            b'{"type":"function","function":{"name":"a-b","parameters":{"type":"object"}}},'
            b'{"function":{"name":"ok","x":1},"y":2}]}'
        )
        request = round_trip_request(body)
        first, second, third = request.tools
        assert isinstance(first, cc.ProviderTool)
        assert first.provider == "ollama"
        assert isinstance(second, cc.ProviderTool)
        assert isinstance(third, cc.ToolDefinition)
        assert third.extras == {"ollama": {"y": 2, "~type": "absent", "function": {"x": 1}}}


class TestResponseSemantics:
    """Decoded responses hold the right canonical values."""

    def test_tool_calls(self) -> None:
        body = corpus_or_curated(
            "response", "ollama-docs__docs__api.md__Chat_request_No_streaming_with_tools__0.json"
        )
        response = ollama.decode_response(body)
        assert response.finish_reason is cc.FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "stop"
        (call,) = response.tool_calls
        assert (call.name, bytes(call.arguments)) == ("get_weather", b'{"city":"Tokyo"}')
        assert call.id == _wire.derive_id(
            "call_", "2025-07-07T20:32:53.844124Z", 0, "get_weather", b'{"city":"Tokyo"}'
        )
        assert response.usage == cc.Usage(169, 18)
        assert response.model == "llama3.2"
        assert response.id is None
        assert response.extras is not None
        assert response.extras["ollama"]["total_duration"] == 3244883583
        assert response.extras["ollama"]["done"] is True

    def test_finish_reasons(self) -> None:
        cases = {
            "ollama-docs__docs__api.md__Chat_request_Structured_outputs__0.json": ("stop", "stop"),
            "ollama-docs__docs__api.md__Load_a_model__0.json": ("other", "load"),
            "ollama-docs__docs__api.md__Unload_a_model__0.json": ("other", "unload"),
            "ollama-docs__docs__api.md__Chat_request_No_streaming__0.json": (None, None),
            "langchaingo__llms__ollama__ollamaclient__TestClient_GenerateChat__00__final.json": (
                "length",
                "length",
            ),
        }
        for name, (finish, raw) in cases.items():
            choice = ollama.decode_response(corpus_or_curated("response", name)).choices[0]
            assert choice.finish_reason == finish, name
            assert choice.raw_finish_reason == raw, name

    def test_load_has_no_usage(self) -> None:
        response = ollama.decode_response(
            corpus_or_curated("response", "ollama-docs__docs__api.md__Load_a_model__0.json")
        )
        assert response.usage is None
        assert response.message == cc.AssistantMessage("")

    def test_streamed_chunk(self) -> None:
        response = ollama.decode_response(
            corpus_or_curated(
                "response", "langchaingo__llms__ollama__TestWithThink__00__chunk0.json"
            )
        )
        assert response.message is not None
        assert response.message.text == "Okay"
        assert response.finish_reason is None
        assert response.usage is None
        assert response.extras == {
            "ollama": {"created_at": "2025-08-20T13:47:56.683511Z", "done": False}
        }

    def test_images_null_kept(self) -> None:
        response = ollama.decode_response(
            corpus_or_curated(
                "response", "ollama-docs__docs__api.md__Chat_request_with_images__0.json"
            )
        )
        assert response.message is not None
        assert response.message.extras == {"ollama": {"images": None}}

    def test_thinking_answer(self) -> None:
        body = (
            b'{"model":"qwen3","message":{"role":"assistant","content":"3","thinking":"count"},'
            b'"done_reason":"stop","done":true,"eval_count":5}'
        )
        response = round_trip_response(body)
        assert response.message is not None
        assert response.message.content == (cc.ReasoningPart("count"), cc.TextPart("3"))
        assert response.usage == cc.Usage(
            0, 5, extras={"ollama": {"~absent": ["prompt_eval_count"]}}
        )

    def test_final_chunk_without_message(self) -> None:
        body = b'{"model":"llama3.2","done":true,"eval_count":468}'
        response = round_trip_response(body)
        assert response.message is None


class TestImages:
    """Image data goes out in the standard base64 Ollama decodes."""

    def test_urlsafe_data_is_repaired(self) -> None:
        urlsafe = base64.urlsafe_b64encode(b"\xff\xd8\xff\xfe\xfb").decode().rstrip("=")
        part = cc.ImagePart(data=urlsafe, media_type="image/jpeg")
        request = cc.Request((cc.user(["x", part]),), model="m")
        assert [p.rule for p in ollama.check_request(request)] == []
        wire = json.loads(ollama.encode_request(request))
        assert wire["messages"][0]["images"] == [base64.b64encode(b"\xff\xd8\xff\xfe\xfb").decode()]

    def test_ollama_data_is_kept_verbatim(self) -> None:
        body = b'{"model":"m","messages":[{"role":"user","images":["ab-_c"]}]}'
        request = round_trip_request(body)
        image = request.messages[0].content[0]  # type: ignore[index]
        assert image.extras == {"ollama": {"~data": "verbatim"}}  # type: ignore[union-attr]
        assert [p.path for p in ollama.check_request(request)] == ["$.messages[0].content[0].data"]


class TestEncodeExact:
    """Hand-built canonical values encode to the exact expected wire JSON."""

    def test_conversation(self) -> None:
        call = cc.tool_call("call_1", "get_weather", {"city": "Paris"})
        request = cc.Request(
            (
                cc.system("Be brief."),
                cc.user(["What is this?", cc.ImagePart(data=PNG, media_type="image/png")]),
                cc.AssistantMessage((cc.ReasoningPart("look"), cc.TextPart("Checking.")), (call,)),
                cc.tool_result("call_1", "18C"),
            ),
            model="qwen3",
            tools=(cc.ToolDefinition("get_weather", "Weather.", None, strict=False),),
            max_tokens=64,
            temperature=0.5,
            stop=("END",),
            stream=False,
            response_format=cc.ResponseFormat("json_object"),
        )
        losses: list[cc.Loss] = []
        wire = json.loads(ollama.encode_request(request, losses=losses))
        assert losses == []
        assert wire == {
            "model": "qwen3",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is this?", "images": [PNG]},
                {
                    "role": "assistant",
                    "content": "Checking.",
                    "thinking": "look",
                    "tool_calls": [
                        {
                            "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                            "id": "call_1",
                        }
                    ],
                },
                {
                    "role": "tool",
                    "content": "18C",
                    "tool_name": "get_weather",
                    "tool_call_id": "call_1",
                },
            ],
            "tools": [
                {"type": "function", "function": {"name": "get_weather", "description": "Weather."}}
            ],
            "format": "json",
            "options": {"temperature": 0.5, "num_predict": 64, "stop": ["END"]},
            "stream": False,
        }
        sdk_request(ollama.encode_request(request))

    def test_strict_tool_closes_its_schema(self) -> None:
        tool = cc.ToolDefinition("f", parameters={"type": "object", "properties": {}})
        wire = json.loads(ollama.encode_request(cc.Request(tools=(tool,))))
        assert wire["tools"][0]["function"]["parameters"] == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }

    def test_schema_format(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
        rf = cc.ResponseFormat("json_schema", name="answer", schema=schema, strict=True)
        losses: list[cc.Loss] = []
        wire = json.loads(ollama.encode_request(cc.Request(response_format=rf), losses=losses))
        assert wire == {"format": schema, "stream": False}
        assert losses == [cc.Loss("$.response_format.name", "ollama formats have no name")]

    def test_response(self) -> None:
        call = cc.tool_call("call_1", "f", {"x": 1})
        response = cc.Response(
            (cc.Choice(cc.AssistantMessage("", (call,)), cc.FinishReason.TOOL_CALLS),),
            model="m",
            usage=cc.Usage(10, 3),
        )
        wire = json.loads(ollama.encode_response(response))
        assert wire == {
            "model": "m",
            "done_reason": "stop",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}, "id": "call_1"}],
            },
            "done": True,
            "prompt_eval_count": 10,
            "eval_count": 3,
        }
        ChatResponse.model_validate(wire)

    def test_empty_response(self) -> None:
        wire = json.loads(ollama.encode_response(cc.Response()))
        assert wire == {"message": {"role": "assistant", "content": ""}, "done": False}
        ChatResponse.model_validate(wire)

    def test_edited_finish_reason_wins_over_raw(self) -> None:
        body = corpus_or_curated(
            "response", "ollama-docs__docs__api.md__Chat_request_Structured_outputs__0.json"
        )
        response = ollama.decode_response(body)
        choice = msgspec.structs.replace(response.choices[0], finish_reason=cc.FinishReason.LENGTH)
        edited = msgspec.structs.replace(response, choices=(choice,))
        assert json.loads(ollama.encode_response(edited))["done_reason"] == "length"


def cross_source_request() -> cc.Request:
    """A request with everything another provider may send."""
    return cc.Request(
        (
            cc.DeveloperMessage("Rules.", extras={"openai": {"name": "x"}}),
            cc.UserMessage(
                (
                    cc.TextPart(
                        "a", extras={"anthropic": {"cache_control": {"type": "ephemeral"}}}
                    ),
                    cc.TextPart("b"),
                    cc.ImagePart(url="https://example.com/x.png", detail="high"),
                    cc.ImagePart(url=f"data:image/png;base64,{PNG}", detail="low"),
                    cc.AudioPart(data="AAAA", media_type="audio/wav"),
                    cc.FilePart(file_id="file_1"),
                    cc.FilePart(data=JPEG, media_type="image/jpeg"),
                    cc.OpaquePart("anthropic", msgspec.Raw(b'{"type":"document"}')),
                )
            ),
            cc.AssistantMessage(
                (
                    cc.ReasoningPart("think", signature="sig", provider="anthropic"),
                    cc.ReasoningPart(redacted="xxx", provider="anthropic"),
                    cc.TextPart("ok"),
                    cc.RefusalPart("no"),
                    cc.OpaquePart("gemini", msgspec.Raw(b'{"executableCode":{}}')),
                ),
                (cc.tool_call("toolu_1", "f", {"q": 1}),),
                (cc.InvalidToolCall("toolu_2", "g", "{bad", "arguments are not valid JSON"),),
                extras={"gemini": {"~id": "derived"}, "anthropic": {"stop_sequence": "END"}},
            ),
            cc.ToolMessage("toolu_1", "done", is_error=True),
            cc.ToolMessage(
                "toolu_2", (cc.TextPart("fail"), cc.ImagePart(data=PNG, media_type="image/png"))
            ),
        ),
        model="claude",
        tools=(
            cc.ProviderTool("anthropic", msgspec.Raw(b'{"type":"web_search_20250305"}')),
            cc.ToolDefinition("f", strict=False, extras={"openai": {"x": 1}}),
        ),
        tool_choice=cc.ToolChoice("tool", "f"),
        parallel_tool_calls=False,
        response_format=cc.ResponseFormat("json_schema"),
        extras={"openai": {"seed": 3, "~hint": 1}, "other": 1},
    )


class TestCrossSource:
    """Requests from other providers encode, report their losses, and decode again."""

    def test_losses(self) -> None:
        losses: list[cc.Loss] = []
        body = ollama.encode_request(cross_source_request(), losses=losses)
        assert [(loss.path, loss.reason) for loss in losses] == [
            ("$.extras.openai.seed", "an openai field ollama has no place for"),
            ("$.extras.other", "a field ollama has no place for"),
            ("$.messages[0].extras.openai.name", "an openai field ollama has no place for"),
            (
                "$.messages[1].content[0].extras.anthropic.cache_control",
                "an anthropic field ollama has no place for",
            ),
            (
                "$.messages[1].content[1]",
                "ollama takes one text per message: joined to the text before",
            ),
            ("$.messages[1].content[2]", "ollama cannot carry an image by URL"),
            ("$.messages[1].content[3].detail", "ollama has no image detail"),
            ("$.messages[1].content[4]", "ollama cannot carry an audio part"),
            ("$.messages[1].content[5]", "ollama cannot carry a file part"),
            ("$.messages[1].content[7]", "an anthropic block ollama cannot carry"),
            (
                "$.messages[2].extras.anthropic.stop_sequence",
                "an anthropic field ollama has no place for",
            ),
            ("$.messages[2].content[0].signature", "an anthropic reasoning signature"),
            ("$.messages[2].content[1].redacted", "redacted reasoning ollama cannot carry"),
            ("$.messages[2].content[3]", "ollama has no refusal part; sent as text"),
            ("$.messages[2].content[4]", "a gemini block ollama cannot carry"),
            (
                "$.messages[2].invalid_tool_calls[0].arguments",
                "arguments that are not a JSON object are sent as {}",
            ),
            ("$.messages[3].is_error", "ollama has no tool error flag"),
            ("$.tools[0]", "an anthropic tool ollama cannot run"),
            ("$.tools[1].extras.openai.x", "an openai field ollama has no place for"),
            ("$.response_format", "a JSON schema format without a schema is sent as json"),
            ("$.tool_choice", "ollama cannot require or forbid tool calls"),
            ("$.parallel_tool_calls", "ollama has no parallel tool calls setting"),
        ]
        wire = json.loads(body)
        developer, user, assistant, result, failed = wire["messages"]
        assert developer == {"role": "system", "content": "Rules."}
        assert user == {"role": "user", "content": "a\nb", "images": [PNG, JPEG]}
        assert assistant["content"] == "ok\nno"
        assert assistant["thinking"] == "think"
        assert [c.get("id") for c in assistant["tool_calls"]] == ["toolu_1", "toolu_2"]
        assert assistant["tool_calls"][1]["function"]["arguments"] == {}
        assert result == {
            "role": "tool",
            "content": "done",
            "tool_name": "f",
            "tool_call_id": "toolu_1",
        }
        assert failed["tool_name"] == "g"
        assert failed["images"] == [PNG]
        again = ollama.decode_request(body)
        roles = [m.role.value for m in again.messages]
        assert roles == ["system", "user", "assistant", "tool", "tool"]
        assert again.messages[3].tool_call_id == "toolu_1"  # type: ignore[union-attr]
        assert ollama.encode_request(again) == body

    def test_response_losses(self) -> None:
        response = cc.Response(
            (
                cc.Choice(cc.assistant("a"), cc.FinishReason.CONTENT_FILTER, "content_filter"),
                cc.Choice(cc.assistant("b"), cc.FinishReason.STOP),
            ),
            id="resp_1",
            usage=cc.Usage(1, 2, 4, cached_tokens=1, reasoning_tokens=1),
            extras={"openai": {"system_fingerprint": "x"}},
        )
        losses: list[cc.Loss] = []
        wire = json.loads(ollama.encode_response(response, losses=losses))
        assert [loss.path for loss in losses] == [
            "$.extras.openai.system_fingerprint",
            "$.id",
            "$.choices[1]",
            "$.choices[0].finish_reason",
            "$.usage.total_tokens",
            "$.usage.cached_tokens",
            "$.usage.reasoning_tokens",
        ]
        assert wire["done_reason"] == "content_filter"  # no equal: never a plain stop, reported
        assert ollama.decode_response(json.dumps(wire)).message == cc.assistant("a")

    @settings(max_examples=150, deadline=None)
    @given(
        st.lists(strategies.messages, max_size=6), st.lists(strategies.tool_definitions, max_size=2)
    )
    def test_any_canonical_request_encodes(
        self, messages: list[cc.Message], tools: list[cc.ToolDefinition]
    ) -> None:
        request = cc.Request(tuple(messages), model="m", tools=tuple(tools))
        losses: list[cc.Loss] = []
        body = ollama.encode_request(request, losses=losses)
        again = ollama.decode_request(body)
        # Arguments are objects on this wire: their layout is not kept, their JSON is.
        same_json(json.loads(ollama.encode_request(again)), json.loads(body))
        # Lowering may add a result for a denied call or leave out an emptied message.
        lowered = lower(request, Encoding("ollama"))
        assert len(again.messages) == len(lowered.messages)

    @settings(max_examples=100, deadline=None)
    @given(strategies.assistant_messages(), strategies.usages)
    def test_any_canonical_response_encodes(
        self, message: cc.AssistantMessage, usage: cc.Usage
    ) -> None:
        response = cc.Response((cc.Choice(message, cc.FinishReason.STOP),), usage=usage)
        body = ollama.encode_response(response, losses=[])
        again = ollama.decode_response(body)
        same_json(json.loads(ollama.encode_response(again)), json.loads(body))


class TestCheck:
    """Each preflight rule fires on a request that breaks it, and not on one that does not."""

    @staticmethod
    def rules(request: cc.Request) -> list[tuple[str, str, str]]:
        return [(p.path, p.rule, p.severity) for p in ollama.check_request(request)]

    def test_clean_corpus(self) -> None:
        for path in sorted((OWN / "request").glob("*.json")):
            request = ollama.decode_request(path.read_bytes())
            assert ollama.check_request(request) == [], path.name

    def test_model_required(self) -> None:
        assert self.rules(cc.Request((cc.user("hi"),))) == [
            ("$.model", "model is required", "error")
        ]
        assert self.rules(cc.Request((cc.user("hi"),), model="m")) == []

    def test_format(self) -> None:
        bad = ollama.decode_request(b'{"model":"m","format":"xml"}')
        assert self.rules(bad) == [
            ("$.extras.ollama.format", 'format must be "", "json" or a JSON schema object', "error")
        ]
        assert self.rules(ollama.decode_request(b'{"model":"m","format":null}')) == []

    def test_keep_alive(self) -> None:
        for value in ('"5"', '"1x"', "true", "[]"):
            bad = ollama.decode_request(f'{{"model":"m","keep_alive":{value}}}')
            assert [p[0] for p in self.rules(bad)] == ["$.extras.ollama.keep_alive"], value
        for value in ('"5m"', '"1h30m"', '"-1"', '"0"', "0", "3.5", '"1.5s"', '"-1m"'):
            good = ollama.decode_request(f'{{"model":"m","keep_alive":{value}}}')
            if value == '"-1"':
                assert self.rules(good) != []  # Go needs a unit on anything but 0
            else:
                assert self.rules(good) == [], value

    def test_think(self) -> None:
        bad = ollama.decode_request(b'{"model":"m","think":"max"}')
        assert [p[0] for p in self.rules(bad)] == ["$.extras.ollama.think"]
        for value in (b"true", b"false", b'"high"', b'"low"'):
            good = ollama.decode_request(b'{"model":"m","think":' + value + b"}")
            assert self.rules(good) == []

    def test_image_data(self) -> None:
        bad = cc.Request(
            (cc.user([cc.ImagePart(data="not base64!", media_type="image/png")]),), model="m"
        )
        assert self.rules(bad) == [
            ("$.messages[0].content[0].data", "image data must be base64", "error")
        ]
        url = cc.ImagePart(url="data:image/png;base64,@@")
        assert self.rules(cc.Request((cc.user([url]),), model="m"))[0][0].endswith(".data")
        good = cc.Request((cc.user([cc.ImagePart(data=PNG, media_type="image/png")]),), model="m")
        assert self.rules(good) == []

    def test_dropped_parts(self) -> None:
        request = cc.Request(
            (
                cc.user(
                    [
                        "x",
                        cc.ImagePart(url="https://example.com/a.png"),
                        cc.AudioPart(data="AAAA", media_type="audio/wav"),
                        cc.FilePart(file_id="f"),
                        cc.FilePart(data=PNG, media_type="image/png"),
                    ]
                ),
            ),
            model="m",
        )
        assert self.rules(request) == [
            (
                "$.messages[0].content[1]",
                "an image by URL cannot be sent; it is dropped",
                "warning",
            ),
            ("$.messages[0].content[2]", "an audio part cannot be sent; it is dropped", "warning"),
            ("$.messages[0].content[3]", "a file part cannot be sent; it is dropped", "warning"),
        ]

    def test_invalid_arguments(self) -> None:
        def decoded(arguments: bytes) -> cc.Request:
            return ollama.decode_request(
                b'{"model":"m","messages":[{"role":"assistant","tool_calls":'
                b'[{"function":{"name":"f"' + arguments + b"}}]}]}"
            )

        path = "$.messages[0].invalid_tool_calls[0].arguments"
        rule = "tool call arguments must be a JSON object"
        for sent in (b',"arguments":"{x"', b',"arguments":[1]'):
            assert self.rules(decoded(sent)) == [(path, rule, "error")], sent
        as_string = decoded(b',"arguments":"{}"')
        assert self.rules(as_string) == [("$.messages[0].tool_calls[0].arguments", rule, "error")]
        for fine in (b"", b',"arguments":null'):
            assert self.rules(decoded(fine)) == [], fine
        # Another provider's: sent as {} (a loss), so Ollama takes it.
        other = cc.AssistantMessage(None, invalid_tool_calls=(cc.InvalidToolCall("c", "f", "{x"),))
        assert self.rules(cc.Request((other,), model="m")) == [
            (path, "arguments that are not a JSON object are sent as {}", "warning")
        ]
        no_id = cc.AssistantMessage(None, invalid_tool_calls=(cc.InvalidToolCall(None, "f", "{}"),))
        assert self.rules(cc.Request((no_id,), model="m")) == []

    def test_result_answers_no_call(self) -> None:
        orphan = cc.Request((cc.user("hi"), cc.tool_result("call_9", "x")), model="m")
        assert self.rules(orphan) == [
            (
                "$.messages[1].tool_call_id",
                "answers no earlier tool call: no tool_name can be sent",
                "warning",
            )
        ]
        named = ollama.decode_request(
            b'{"model":"m","messages":[{"role":"tool","tool_name":"f","content":"1"}]}'
        )
        assert self.rules(named) == []
        call = cc.tool_call("call_9", "f")
        answered = cc.Request(
            (cc.assistant(None, [call]), cc.tool_result("call_9", "x")), model="m"
        )
        assert self.rules(answered) == []

    def test_tool_schema(self) -> None:
        schema = {
            "type": "object",
            "required": "a",
            "properties": {"a": {"type": 1, "description": 2}, "b": {"type": ["string", "null"]}},
        }
        with pytest.raises(cc.ValidationError):  # refused when built, by the meta-schema
            cc.ToolDefinition("f", parameters=schema, strict=False)
        # The preflight still guards a definition that went round the check.
        tool = cc.ToolDefinition("f", strict=False)
        msgspec.structs.force_setattr(tool, "parameters", schema)
        assert self.rules(cc.Request(tools=(tool,), model="m")) == [
            ("$.tools[0].parameters.required", "required must be an array of strings", "error"),
            (
                "$.tools[0].parameters.properties.a.type",
                "a property's type must be a string or an array of strings",
                "error",
            ),
            (
                "$.tools[0].parameters.properties.a.description",
                "a property's description must be a string",
                "error",
            ),
        ]
        bad_props = cc.ToolDefinition("f", strict=False)
        msgspec.structs.force_setattr(bad_props, "parameters", {"type": "object", "properties": []})
        assert self.rules(cc.Request(tools=(bad_props,), model="m")) == [
            ("$.tools[0].parameters.properties", "properties must be an object", "error")
        ]
        good = cc.ToolDefinition("f", parameters={"type": "object", "properties": {"a": {}}})
        assert self.rules(cc.Request(tools=(good,), model="m")) == []


class TestMalformed:
    """Wrong bodies raise DecodeError or ValidationError naming the path."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"messages":{}}', "$.messages"),
            (b'{"messages":[1]}', "$.messages[0]"),
            (b'{"messages":[{"role":"robot","content":"x"}]}', "$.messages[0].role"),
            (b'{"messages":[{"role":"user","content":1}]}', "$.messages[0].content"),
            (b'{"messages":[{"role":"user","images":"x"}]}', "$.messages[0].images"),
            (b'{"messages":[{"role":"user","images":[1]}]}', "$.messages[0].images[0]"),
            (b'{"messages":[{"role":"system","content":""}]}', "$.messages[0].content"),
            (b'{"messages":[{"role":"assistant","tool_calls":{}}]}', "$.messages[0].tool_calls"),
            (
                b'{"messages":[{"role":"assistant","tool_calls":[{"function":1}]}]}',
                "$.messages[0].tool_calls[0].function",
            ),
            (
                b'{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":1}}]}]}',
                "$.messages[0].tool_calls[0].function.name",
            ),
            (b'{"messages":[{"role":"tool","tool_name":1}]}', "$.messages[0].tool_name"),
            (b'{"tools":[1]}', "$.tools[0]"),
            (b'{"tools":{}}', "$.tools"),
            (b'{"model":1}', "$.model"),
            (b'{"options":[]}', "$.options"),
            (b'{"stream":"yes"}', "$.stream"),
            (b"[]", "$"),
        ],
    )
    def test_request(self, body: bytes, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            ollama.decode_request(body)
        assert info.value.path == path

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"message":[]}', "$.message"),
            (b'{"message":{"role":"user","content":"x"}}', "$.message.role"),
            (b'{"message":{"content":2}}', "$.message.content"),
            (b'{"done_reason":1}', "$.done_reason"),
            (b'{"eval_count":"3"}', "$.eval_count"),
            (b'{"prompt_eval_count":-1}', "$.prompt_eval_count"),
            (b'{"message":{"thinking":[]}}', "$.message.thinking"),
            (b"1", "$"),
        ],
    )
    def test_response(self, body: bytes, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            ollama.decode_response(body)
        assert info.value.path == path

    @pytest.mark.parametrize("body", [b"", b"{", b'{"a":}', b"\xff"])
    def test_not_json(self, body: bytes) -> None:
        with pytest.raises(cc.DecodeError):
            ollama.decode_request(body)
        with pytest.raises(cc.DecodeError):
            ollama.decode_response(body)

    def test_messages_do_not_echo_content(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            ollama.decode_request(b'{"messages":[{"role":"secret-role","content":"x"}]}')
        assert "secret" not in str(info.value)


# -- the round-trip property ------------------------------------------------

images = st.sampled_from([PNG, JPEG]).map(
    lambda data: cc.ImagePart(data=data, media_type=ollama._common.guess_media_type(data))
)


@st.composite
def conversations(draw: st.DrawFn) -> cc.Request:
    """A canonical request as Ollama's decoder makes it: ids derived, results by name."""
    messages: list[cc.Message] = []
    if draw(st.booleans()):
        messages.append(cc.system(draw(strategies.nonempty)))
    for _ in range(draw(st.integers(1, 3))):
        text = draw(strategies.nonempty)
        pictures = draw(st.lists(images, max_size=2))
        content: Any = (cc.TextPart(draw(strategies.text)), *pictures) if pictures else text
        messages.append(cc.UserMessage(content))
        index = len(messages)
        calls = []
        for j in range(draw(st.integers(0, 3))):
            name = draw(strategies.names)
            arguments = msgspec.json.encode(draw(strategies.json_objects))
            call_id = _wire.derive_id("call_", index, j, name, arguments)
            derived = {"ollama": {"~id": "derived"}}
            calls.append(cc.ToolCall(call_id, name, msgspec.Raw(arguments), extras=derived))
        reasoning = draw(st.none() | strategies.text)
        answer = draw(st.none() | strategies.text)
        parts: Any
        if reasoning is not None:
            parts = (cc.ReasoningPart(reasoning),)
            parts += (cc.TextPart(answer),) if answer is not None else ()
        elif answer is None and not calls:
            parts = ()
        else:
            parts = answer
        messages.append(cc.AssistantMessage(parts, tuple(calls)))
        for call in calls:
            messages.append(
                cc.ToolMessage(
                    call.id,
                    draw(strategies.text),
                    extras={"ollama": {"~tool_call_id": "derived"}},
                )
            )
    floats = st.none() | st.floats(0, 2, allow_nan=False).filter(lambda x: not x.is_integer())
    return cc.Request(
        tuple(messages),
        model=draw(strategies.nonempty),
        max_tokens=draw(st.none() | st.integers(0, 10**6)),
        temperature=draw(floats),
        top_p=draw(floats),
        stop=draw(st.none() | st.lists(strategies.nonempty, max_size=2).map(tuple)),
        stream=draw(st.booleans()),
        response_format=draw(
            st.none()
            | st.sampled_from(
                [
                    cc.ResponseFormat("text"),
                    cc.ResponseFormat("json_object"),
                    cc.ResponseFormat("json_schema", schema={"type": "object"}),
                ]
            )
        ),
    )


class TestRoundTripProperty:
    """Canonical requests encode and decode back to the same canonical value."""

    @settings(max_examples=200, deadline=None)
    @given(conversations())
    def test_request(self, request: cc.Request) -> None:
        losses: list[cc.Loss] = []
        body = ollama.encode_request(request, losses=losses)
        assert losses == []
        assert ollama.decode_request(body) == request
        sdk_request(body)


def fast_and_general(body: bytes) -> cc.Response | None:
    """The fast path's response (None when it does not apply), checked against the general one."""
    fast = fast_response(body)
    if fast is not None:
        assert fast == general_response(body)
        assert fast.extras == general_response(body).extras  # hints and carried keys too
    return fast


CALL = b'{"function":{"name":"get_weather","arguments":{"city":"Paris","n":[1,2.5e0]}}}'


def answer(message: bytes = b'{"role":"assistant","content":"Hi"}', **keys: bytes) -> bytes:
    """A usual final answer; ``keys`` replace or add raw JSON values at the top level."""
    top = {
        "model": b'"qwen3"',
        "created_at": b'"2025-07-07T20:32:53.844124Z"',
        "message": message,
        "done_reason": b'"stop"',
        "done": b"true",
        "total_duration": b"885095291",
        "load_duration": b"3753500",
        "prompt_eval_count": b"122",
        "prompt_eval_duration": b"328493000",
        "eval_count": b"33",
        "eval_duration": b"552222000",
    }
    top.update(keys)
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in top.items() if v) + b"}"


class TestFastPath:
    """The typed fast path of decode_response builds exactly what the general path builds."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("ollama", "response")))
    def test_corpus(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    @pytest.mark.parametrize("path", curated("ollama", "response"))
    def test_curated(self, path: Path) -> None:
        fast_and_general(path.read_bytes())

    @pytest.mark.parametrize("path", needs_corpus(corpus("ollama", "stream")))
    def test_stream_events(self, path: Path) -> None:
        for body in stream_events(path):
            fast_and_general(body)

    def test_coverage(self) -> None:
        paths, taken = fast_coverage("ollama", "response", fast_response)
        # Every recorded answer has the usual shape.
        assert len(taken) == len(paths) == 8
        mine = list((OWN / "response").glob("*.json"))
        assert all(fast_response(p.read_bytes()) is not None for p in mine)

    def test_benchmark_body(self) -> None:
        body = (Path(__file__).parents[2] / "perf/data/providers/ollama_response.json").read_bytes()
        response = fast_and_general(body)
        assert response is not None
        assert response == ollama.decode_response(body)
        assert response.finish_reason is cc.FinishReason.TOOL_CALLS
        call = response.tool_calls[0]
        assert call.extras == {"ollama": {"~id": "derived"}}
        assert call.id == _wire.derive_id(
            "call_", "2024-07-22T20:33:28.123648Z", 0, call.name, bytes(call.arguments)
        )

    @pytest.mark.parametrize(
        "body",
        [
            answer(),
            answer(b'{"role":"assistant","content":"Hi","images":null}'),
            answer(b'{"role":"assistant","content":"Hi","thinking":"hmm"}'),
            answer(b'{"role":"assistant","thinking":"hmm"}'),
            answer(b'{"role":"assistant","content":null,"thinking":null}'),
            answer(b'{"role":"assistant","content":"","tool_calls":[' + CALL + b"]}"),
            answer(b'{"role":"assistant","tool_calls":[' + CALL + b"," + CALL + b"]}"),
            answer(
                b'{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,'
                b'"name":"f","arguments":{}}},{"id":"call_x","function":{"index":1,'
                b'"name":"g","arguments":{"\xc3\xa9":"\\u00e9 \\ud83d\\ude00"}}},'
                b'{"id":"","function":{"name":"h","arguments":{ "a" : 1.0 }}}]}'
            ),
            answer(b'{"role":"assistant","content":"x","tool_calls":[]}'),
            answer(b'{"role":"assistant","content":"x","tool_calls":null}'),
            answer(b'{"content":"no role"}'),
            answer(b'{"role":"assistant"}'),
            answer(b"null"),
            answer(b""),
            answer(
                b'{"role":"assistant","tool_calls":[' + CALL + b"]}",
                created_at=b"12",
            ),
            answer(
                b'{"role":"assistant","tool_calls":[' + CALL + b"]}",
                created_at=b"",
                done_reason=b'"length"',
            ),
            answer(done_reason=b"null", done=b"false"),
            answer(done_reason=b'"load"', done=b""),
            answer(done_reason=b'"something new"'),
            answer(done_reason=b""),
            answer(model=b"null"),
            answer(model=b""),
            answer(prompt_eval_count=b"null"),
            answer(eval_count=b""),
            answer(prompt_eval_count=b"", eval_count=b"null"),
            answer(prompt_eval_count=b"", eval_count=b""),
            answer(prompt_eval_count=b"0", eval_count=b"0"),
            answer(total_duration=b"null", load_duration=b"1.5", eval_duration=b'"x"'),
            b'{"model":"qwen3","created_at":"2025-08-20T13:47:56Z","message":'
            b'{"role":"assistant","content":"Okay"},"done":false}',
            b"{}",
        ],
    )
    def test_taken_and_equal(self, body: bytes) -> None:
        assert fast_and_general(body) is not None
        assert fast_and_general(body.decode()) is not None  # type: ignore[arg-type]
        assert ollama.decode_response(body) == general_response(body)

    @pytest.mark.parametrize(
        "body",
        [
            answer(context=b"[1,2]"),
            answer(b'{"role":"assistant","content":"x","extra":1}'),
            answer(b'{"role":"assistant","content":"x","images":["aGk="],"tool_name":"f"}'),
            answer(b'{"role":"assistant","tool_calls":[{"function":{"name":"","arguments":{}}}]}'),
            answer(
                b'{"role":"assistant","tool_calls":[{"function":'
                b'{"name":"f","arguments":"{\\"a\\":1}"}}]}'
            ),
            answer(
                b'{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":[1]}}]}'
            ),
            answer(b'{"role":"assistant","tool_calls":[{"function":{"name":"f"}}]}'),
            answer(
                b'{"role":"assistant","tool_calls":[{"id":null,"function":'
                b'{"name":"f","arguments":{}}}]}'
            ),
            answer(
                b'{"role":"assistant","tool_calls":[{"type":"function","function":'
                b'{"name":"f","arguments":{}}}]}'
            ),
        ],
    )
    def test_general_path_for_the_rest(self, body: bytes) -> None:
        assert fast_response(body) is None
        response = ollama.decode_response(body)
        assert response == general_response(body)
        same_json(json.loads(ollama.encode_response(response)), json.loads(body))

    @pytest.mark.parametrize(
        "body",
        [
            answer(b'{"role":"user","content":"x"}'),
            answer(b"[]"),
            answer(done_reason=b"1"),
            answer(model=b"1"),
            answer(prompt_eval_count=b"-1"),
            answer(eval_count=b"-1", prompt_eval_count=b""),
            answer(eval_count=b"1.0"),
            answer(eval_count=b"true"),
            answer(b'{"role":"assistant","thinking":1}'),
            answer(b'{"role":"assistant","content":["x"]}'),
            answer(b'{"role":"assistant","tool_calls":{}}'),
            answer(b'{"role":"assistant","tool_calls":[1]}'),
        ],
    )
    def test_invalid_bodies_raise_either_way(self, body: bytes) -> None:
        assert fast_response(body) is None
        with pytest.raises(cc.ValidationError) as info:
            general_response(body)
        with pytest.raises(cc.ValidationError) as again:
            ollama.decode_response(body)
        assert (again.value.path, str(again.value)) == (info.value.path, str(info.value))

    def test_error_bodies_and_malformed_json(self) -> None:
        for error in (
            b'{"error":"model \\"x\\" not found"}',
            b'{"error":{"message":"no","type":"t","code":404}}',
            answer(error=b'"overloaded"'),
        ):
            assert fast_response(error) is None
            with pytest.raises(cc.ProviderError):
                ollama.decode_response(error)
        for bad in (answer()[:-1], b"\xff", b"", b"[]", b'"x"'):
            assert fast_response(bad) is None
            with pytest.raises((cc.DecodeError, cc.ValidationError)):
                ollama.decode_response(bad)
