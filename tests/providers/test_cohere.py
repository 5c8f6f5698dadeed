"""The Cohere v2 Chat codec: curated bodies, the mapping, conversion, preflight, fast paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import DATA, corpus, curated
from hypothesis import HealthCheck, given, settings

import chatcodec as cc
from chatcodec import providers
from chatcodec.providers._wire import json_body
from chatcodec.providers.cohere import _cite, _decode, _fast
from official import check_request, check_response
from strategies import strict_conversations

codec = providers.get("cohere")
CURATED = DATA / "cohere"
BODIES = [
    *curated("cohere", "request"),
    *curated("cohere", "response"),
]


def recorded(kind: str) -> list[Any]:
    return curated("cohere", kind) + corpus("cohere", kind)  # the corpus has none yet


class TestCurated:
    """Every curated body round trips byte for byte; the fast paths read their bodies alike."""

    @pytest.mark.parametrize("path", recorded("request"))
    def test_request(self, path: Path | None) -> None:
        body = path.read_bytes()  # type: ignore[union-attr]
        request = codec.decode_request(body)
        assert codec.encode_request(request) == body
        # Both paths keep citations as sent, alike; one step reads them for both.
        general = _decode.decode_request(body)
        assert request == _cite.read_request(general)
        fast = _fast.fast_request(body)
        assert fast is None or fast == general

    @pytest.mark.parametrize("path", recorded("response"))
    def test_response(self, path: Path | None) -> None:
        body = path.read_bytes()  # type: ignore[union-attr]
        response = codec.decode_response(body)
        assert codec.encode_response(response) == body
        general = _decode.response_from(json_body(body))
        assert response == _cite.read_response(general)
        fast = _fast.fast_response(body)
        assert fast is None or fast == general

    def test_the_fast_paths_are_taken(self) -> None:
        taken = [
            _fast.fast_request(path.read_bytes()) is not None
            for path in (CURATED / "request").glob("*.json")
        ]
        assert sum(taken) >= 3
        for path in (CURATED / "response").glob("*.json"):
            assert _fast.fast_response(path.read_bytes()) is not None, path.name

    @pytest.mark.parametrize("path", curated("cohere", "error"))
    def test_error(self, path: Path) -> None:
        with pytest.raises(cc.ProviderError) as raised:
            codec.decode_response(path.read_bytes())
        assert raised.value.provider == "cohere"
        assert raised.value.message == json.loads(path.read_bytes())["message"]
        assert (raised.value.type, raised.value.code) == (None, None)


TEXT_B = {"type": "text", "text": "b"}
PNG_URL = "data:image/png;base64,iVBO"


def request_of(*messages: dict[str, Any], **fields: Any) -> cc.Request:
    body = {"model": "command-a-03-2025", "messages": list(messages), **fields}
    return codec.decode_request(json.dumps(body, separators=(",", ":")).encode())


def same_bytes(body: dict[str, Any]) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()
    assert codec.encode_request(codec.decode_request(data)) == data


class TestRequests:
    """What each part of a Cohere request becomes."""

    def test_plan_and_calls(self) -> None:
        request = request_of(
            {"role": "user", "content": "Weather in Madrid?"},
            {
                "role": "assistant",
                "tool_plan": "I will check.",
                "tool_calls": [
                    {
                        "id": "get_weather_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location":"Madrid"}'},
                    }
                ],
            },
        )
        answer = request.messages[1]
        assert isinstance(answer, cc.AssistantMessage)
        plan = answer.content[0]  # type: ignore[index]
        assert isinstance(plan, cc.ReasoningPart)
        assert plan.text == "I will check."
        assert plan.extras == {"cohere": {"~plan": True}}
        assert bytes(answer.tool_calls[0].arguments) == b'{"location":"Madrid"}'

    def test_documents_in_a_tool_result(self) -> None:
        result = {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [
                {"type": "document", "document": {"data": {"temp": "24C"}, "id": "d1"}},
                {"type": "document", "document": {"data": '{"temp": "28C"}'}},
                {"type": "text", "text": "done"},
            ],
        }
        request = request_of(result)
        parts = request.messages[0].content
        assert [part.text for part in parts] == ['{"temp":"24C"}', '{"temp": "28C"}', "done"]  # type: ignore[union-attr]
        same_bytes({"model": "command-a-03-2025", "messages": [result]})
        out, report = cc.convert(
            json.dumps({"model": "m", "messages": [result]}), source="cohere", target="openai"
        )
        assert json.loads(out)["messages"][0]["content"][0]["text"] == '{"temp":"24C"}'
        assert "$.messages[0].content[0].extras.cohere.id" in report.paths

    def test_settings(self) -> None:
        request = request_of(
            {"role": "user", "content": "Hi"},
            temperature=1,
            p=0.5,
            k=40,
            stop_sequences=["END"],
            tool_choice="NONE",
            thinking={"type": "enabled", "token_budget": 1024},
            response_format={"type": "json_object", "json_schema": {"type": "object"}},
        )
        assert (request.temperature, request.top_p, request.top_k) == (1.0, 0.5, 40)
        assert request.tool_choice == cc.ToolChoice("none")
        assert request.reasoning == cc.Reasoning(budget_tokens=1024)
        schema = cc.ResponseFormat("json_schema", schema={"type": "object"})
        assert request.response_format == schema
        assert json.loads(codec.encode_request(request))["temperature"] == 1  # an int stays one

    @pytest.mark.parametrize(
        "message",
        [
            {"role": "user", "content": ""},
            {"role": "user", "content": []},
            {"role": "user"},
            {"role": "system", "content": [{"type": "text", "text": "a"}, TEXT_B]},
            {
                "role": "assistant",
                "tool_plan": "",
                "tool_calls": [],
                "content": [],
                "citations": [],
            },
            {"role": "assistant", "tool_plan": "p", "content": "text"},
            {
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": "t"}, {"type": "x"}],
            },
            {"role": "tool", "tool_call_id": "c"},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG_URL}}]},
            {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{"}}]},
        ],
    )
    def test_spellings_round_trip(self, message: dict[str, Any]) -> None:
        same_bytes({"model": "m", "messages": [message], "strict_tools": False, "priority": 1})

    def test_strict_tools(self) -> None:
        tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
        request = request_of({"role": "user", "content": "Hi"}, tools=[tool], strict_tools=True)
        assert request.tools[0].strict is True  # type: ignore[union-attr]
        assert request.extras is None
        loose = cc.ToolDefinition("g", None, {"type": "object"}, strict=False)
        mixed = cc.Request(request.messages, tools=(request.tools[0], loose))
        losses: list[cc.Loss] = []
        assert "strict_tools" not in json.loads(codec.encode_request(mixed, losses=losses))
        assert [loss.path for loss in losses] == ["$.tools[0].strict"]

    def test_unknown_role(self) -> None:
        with pytest.raises(cc.ValidationError, match=r"\$\.messages\[0\]\.role"):
            request_of({"role": "chatbot", "content": "Hi"})


class TestConversion:
    """What other families' requests become, and what Cohere's become elsewhere."""

    def test_from_openai(self) -> None:
        body = {
            "model": "command-a-03-2025",
            "messages": [
                {"role": "developer", "content": "Be brief."},
                {"role": "user", "content": "Weather?"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "w", "parameters": {"type": "object", "properties": {}}},
                }
            ],
            "tool_choice": {"type": "function", "function": {"name": "w"}},
            "parallel_tool_calls": False,
        }
        out, report = cc.convert(body, source="openai", target="cohere")
        wire = json.loads(out)
        assert wire["messages"][0] == {"role": "system", "content": "Be brief."}
        assert wire["tool_choice"] == "REQUIRED"
        assert report.paths == ["$.tool_choice.name", "$.parallel_tool_calls"]
        check_request("cohere", out)

    def test_to_anthropic(self) -> None:
        path = CURATED / "request" / "docs__tool-use-streaming__response_generation.json"
        body = path.read_bytes()
        out, report = cc.convert(body, source="cohere", target="anthropic", max_tokens=512)
        turns = json.loads(out)["messages"]
        assert [block["type"] for block in turns[1]["content"]] == ["tool_use", "tool_use"]
        result = turns[2]["content"][0]["content"]
        assert result == [{"type": "text", "text": '{"temperature": {"madrid": "24°C"}}'}]
        # The plan is Cohere's reasoning, which Anthropic cannot take unsigned.
        assert "$.messages[1].content[0]" in report.paths

    def test_citations_and_documents_are_reported(self) -> None:
        response = (CURATED / "response" / "docs__tool-use__citations.json").read_bytes()
        _, report = cc.convert(response, source="cohere", target="gemini", kind="response")
        # Tool results are no source Gemini grounds in: each citation is reported.
        assert {
            "$.choices[0].message.content[0].citations[0]",
            "$.choices[0].message.content[0].citations[1]",
        } <= set(report.paths)
        request = (CURATED / "request" / "docs__rag__documents.json").read_bytes()
        _, report = cc.convert(request, source="cohere", target="ollama")
        assert "$.extras.cohere.documents" in report.paths

    @pytest.mark.parametrize("path", curated("cohere", "response"))
    @pytest.mark.parametrize("target", [name for name in providers.NAMES if name != "cohere"])
    def test_responses_into_every_family_and_back(self, path: Path, target: str) -> None:
        out, _ = cc.convert(path.read_bytes(), source="cohere", target=target, kind="response")
        back, _ = cc.convert(out, source=target, target="cohere", kind="response")
        check_response("cohere", back)
        again, first = codec.decode_response(back).message, codec.decode_response(path.read_bytes())
        assert again is not None
        assert first.message is not None
        assert again.text == first.message.text


class TestResponses:
    """Finish reasons, usage and errors."""

    @pytest.mark.parametrize(
        ("raw", "reason"),
        [
            ("COMPLETE", "stop"),
            ("STOP_SEQUENCE", "stop"),
            ("MAX_TOKENS", "length"),
            ("TOOL_CALL", "tool_calls"),
            ("ERROR", "error"),
            ("TIMEOUT", "error"),
            ("NEW_REASON", "other"),
        ],
    )
    def test_finish_reasons(self, raw: str, reason: str) -> None:
        body = {"id": "r", "message": {"role": "assistant", "content": []}, "finish_reason": raw}
        response = codec.decode_response(json.dumps(body))
        assert (response.finish_reason, response.choices[0].raw_finish_reason) == (reason, raw)

    def test_usage(self) -> None:
        body = (CURATED / "response" / "docs__chat__basic.json").read_bytes()
        usage = codec.decode_response(body).usage
        assert usage is not None
        assert (usage.prompt_tokens, usage.completion_tokens) == (71, 9)
        assert usage.extras == {"cohere": {"billed_units": {"input_tokens": 5, "output_tokens": 9}}}
        _, report = cc.convert(body, source="cohere", target="openai", kind="response")
        assert "$.usage.extras.cohere.billed_units" in report.paths

    def test_from_another_family(self) -> None:
        response = cc.Response(
            (cc.Choice(cc.assistant("Hi"), cc.FinishReason.CONTENT_FILTER),),
            id="r1",
            model="gpt-4o",
            usage=cc.Usage(3, 4, 8),
        )
        losses: list[cc.Loss] = []
        out = codec.encode_response(response, losses=losses)
        check_response("cohere", out)
        assert json.loads(out)["finish_reason"] == "ERROR"
        assert [loss.path for loss in losses] == [
            "$.model",
            "$.choices[0].finish_reason",
            "$.usage.total_tokens",
        ]

    def test_a_gateways_error(self) -> None:
        with pytest.raises(cc.ProviderError) as raised:
            codec.decode_response(b'{"error":{"message":"slow","type":"rate_limit_error"}}')
        assert (raised.value.type, raised.value.kind) == ("rate_limit_error", "rate_limit")


class TestCheck:
    """What Cohere refuses, before sending."""

    def test_rules(self) -> None:
        request = cc.Request(
            (cc.user([cc.TextPart("Hi"), cc.AudioPart(data="UklG", media_type="audio/wav")]),),
            model="claude-sonnet-4-5",
            tools=(cc.ToolDefinition("f"),),
            tool_choice=cc.ToolChoice("required"),
            temperature=-1.0,
            top_p=1.0,
            stop=("a", "b", "c", "d", "e", "f"),
        )
        found = {(p.path, p.severity) for p in codec.check_request(request)}
        assert found == {
            ("$.model", "error"),
            ("$.temperature", "error"),
            ("$.top_p", "error"),
            ("$.stop", "error"),
            ("$.tools[0].parameters", "error"),
            ("$.messages[0].content[1]", "warning"),
        }

    @pytest.mark.parametrize("path", curated("cohere", "request"))
    def test_curated_requests_pass(self, path: Path) -> None:
        request = codec.decode_request(path.read_bytes())
        assert [p for p in codec.check_request(request) if p.severity == "error"] == []


class TestRoundTrips:
    """Any strict conversation written as a Cohere body reads back the same."""

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(messages=strict_conversations())
    def test_write_read_write(self, messages: list[cc.Message]) -> None:
        request = cc.Request(tuple(messages), model="command-a-03-2025")
        body = codec.encode_request(request)
        back = codec.decode_request(body)
        assert codec.encode_request(back) == body
        assert back == _decode.decode_request(body)
        check_request("cohere", body)
        sent = [m.tool_calls for m in messages if isinstance(m, cc.AssistantMessage)]
        read = [m.tool_calls for m in back.messages if isinstance(m, cc.AssistantMessage)]
        assert [[(c.id, c.name, bytes(c.arguments)) for c in calls] for calls in sent] == [
            [(c.id, c.name, bytes(c.arguments)) for c in calls] for calls in read
        ]


def test_bodies_are_json() -> None:
    for param in BODIES:
        msgspec.json.decode(param.values[0].read_bytes())
