"""A tool result's ``name``: read from every family that carries one, sent where needed."""

from __future__ import annotations

import json

import msgspec
import pytest

import chatcodec as cc
from chatcodec import Request
from chatcodec.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses


def _paths(problems: list[cc.Problem]) -> list[str]:
    return [p.path for p in problems if p.severity == "error"]


class TestCanonical:
    """The name is a field of the tool message, checked and stored."""

    def test_round_trips(self) -> None:
        message = cc.tool_result("c1", "42", name="calc")
        data = cc.encode(message)
        assert json.loads(data)["name"] == "calc"
        assert cc.decode(data) == message
        assert cc.decode(data, type=cc.ToolMessage).name == "calc"
        assert cc.decode(cc.encode(message, format="msgpack"), format="msgpack") == message

    def test_from_a_tool_result(self) -> None:
        assert cc.ToolResult.error("c1", "no", name="calc").to_message().name == "calc"
        assert cc.ToolResult.success("c1", "ok").to_message().name is None

    @pytest.mark.parametrize("bad", ["", 5, b"calc"])
    def test_a_bad_name_is_refused(self, bad: object) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolMessage("c1", "42", name=bad)  # type: ignore[arg-type]
        assert info.value.path == "$.name"
        with pytest.raises(cc.ValidationError):
            cc.decode(b'{"role":"tool","tool_call_id":"c1","content":"","name":""}')


class TestGemini:
    """Gemini needs a name on every result: a history whose calls were trimmed still goes."""

    def test_trimmed_history_is_sent_with_the_results_name(self) -> None:
        request = Request((cc.user("hi"), cc.tool_result("c1", "42", name="calc")))
        body = json.loads(gemini.encode_request(request))
        assert body["contents"][1]["parts"][0]["functionResponse"]["name"] == "calc"
        found = gemini.check_request(request)
        assert "$.messages[1].tool_call_id" not in _paths(found)

    def test_without_a_name_the_preflight_still_says_so(self) -> None:
        request = Request((cc.user("hi"), cc.tool_result("c1", "42")))
        assert "$.messages[1].tool_call_id" in _paths(gemini.check_request(request))

    def test_an_openai_name_reaches_gemini(self) -> None:
        body = {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "c1", "name": "calc", "content": "42"},
            ],
        }
        out, report = cc.convert(body, source="openai", target="gemini")
        part = json.loads(out)["contents"][1]["parts"][0]["functionResponse"]
        assert part["name"] == "calc"
        assert not report.losses
        assert "$.messages[1].tool_call_id" not in [p.path for p in report.problems]

    def test_a_result_for_no_call_round_trips(self) -> None:
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "calc", "response": {"result": "4"}}}],
                },
            ]
        }
        request = gemini.decode_request(json.dumps(body))
        result = request.messages[1]
        assert isinstance(result, cc.ToolMessage)
        assert result.name == "calc"
        assert result.extras is None or "functionResponse" not in result.extras.get("gemini", {})
        assert json.loads(gemini.encode_request(request)) == body


class TestOpenAI:
    """OpenAI's ``name`` on a tool (or function) message is the result's name."""

    @pytest.mark.parametrize(
        "wire",
        [
            {"role": "tool", "tool_call_id": "c1", "name": "calc", "content": "4"},
            {"role": "function", "name": "calc", "content": "4"},
        ],
    )
    def test_round_trips(self, wire: dict[str, object]) -> None:
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}, wire]}
        request = openai.decode_request(json.dumps(body))
        result = request.messages[1]
        assert isinstance(result, cc.ToolMessage)
        assert result.name == "calc"
        assert json.loads(openai.encode_request(request)) == body


class TestOllama:
    """Ollama's ``tool_name`` is the result's name where the call does not give it back."""

    def test_a_result_for_no_call(self) -> None:
        body = {
            "model": "m",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_name": "calc", "content": "4"},
            ],
            "stream": False,
        }
        request = ollama.decode_request(json.dumps(body))
        result = request.messages[1]
        assert isinstance(result, cc.ToolMessage)
        assert result.name == "calc"
        assert json.loads(ollama.encode_request(request)) == body

    def test_a_name_is_sent_without_the_call(self) -> None:
        request = Request((cc.user("hi"), cc.tool_result("c1", "4", name="calc")), model="m")
        body = json.loads(ollama.encode_request(request))
        assert body["messages"][1]["tool_name"] == "calc"
        assert not ollama.check_request(request)


class TestNameless:
    """A family whose results carry no name reports one no call gives back."""

    CALL = cc.assistant(tool_calls=[cc.tool_call("c1", "calc", {"x": 1})])

    @pytest.mark.parametrize("codec", [anthropic, bedrock, openai_responses])
    def test_reported_without_the_call(self, codec: object) -> None:
        request = Request((cc.user("hi"), cc.tool_result("c1", "4", name="calc")), model="m")
        losses: list[cc.Loss] = []
        codec.encode_request(request, losses=losses)  # type: ignore[attr-defined]
        assert "$.messages[1].name" in [loss.path for loss in losses]

    @pytest.mark.parametrize("codec", [anthropic, bedrock, openai_responses])
    def test_not_reported_when_the_call_says_it(self, codec: object) -> None:
        messages = (cc.user("hi"), self.CALL, cc.tool_result("c1", "4", name="calc"))
        losses: list[cc.Loss] = []
        codec.encode_request(Request(messages, model="m"), losses=losses)  # type: ignore[attr-defined]
        assert "$.messages[2].name" not in [loss.path for loss in losses]

    def test_another_name_than_the_calls_is_reported(self) -> None:
        messages = (cc.user("hi"), self.CALL, cc.tool_result("c1", "4", name="other"))
        losses: list[cc.Loss] = []
        anthropic.encode_request(Request(messages, model="m", max_tokens=8), losses=losses)
        assert "$.messages[2].name" in [loss.path for loss in losses]


def test_name_is_not_in_extras_any_more() -> None:
    """The canonical decode of a stored result keeps ``name`` as the field."""
    message = cc.decode(b'{"role":"tool","tool_call_id":"c1","content":"4","name":"calc"}')
    assert isinstance(message, cc.ToolMessage)
    assert message.extras is None
    assert msgspec.structs.asdict(message)["name"] == "calc"
