"""Structured output as one forced tool, for a target that has none, and the answer read back."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._answer_tool import answer_as_tool, answer_from_tool

CITY = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "people": {"type": "integer"}},
    "required": ["name", "people"],
    "additionalProperties": False,
}
FORMAT = cc.ResponseFormat("json_schema", "city", CITY, strict=True)
WEATHER = cc.ToolDefinition(
    "get_weather", "The weather in a city.", {"type": "object"}, strict=False
)


def ask(**fields: Any) -> cc.Request:
    return cc.Request((cc.user("Which city?"),), model="m", max_tokens=256, **fields)


def answered(
    *content: Any, calls: tuple[Any, ...] = (), invalid: tuple[Any, ...] = ()
) -> cc.Response:
    body: Any = tuple(content) if content else None
    message = cc.AssistantMessage(body, calls, invalid)
    finish = cc.FinishReason.TOOL_CALLS if calls else cc.FinishReason.LENGTH
    return cc.Response((cc.Choice(message, finish, "tool_use"),), "r1", "m")


ANSWER = cc.tool_call("toolu_1", cc.ANSWER_TOOL, {"name": "Paris", "people": 2102650})


class TestAsTool:
    def test_a_schema_becomes_the_one_forced_tool(self) -> None:
        sent, problems = answer_as_tool(ask(response_format=FORMAT))
        (tool,) = sent.tools
        assert isinstance(tool, cc.ToolDefinition)
        assert (tool.name, tool.parameters, tool.strict) == (cc.ANSWER_TOOL, CITY, True)
        assert tool.description is not None
        assert "(city)" in tool.description
        assert sent.tool_choice == cc.ToolChoice("tool", cc.ANSWER_TOOL)
        assert sent.response_format is None
        assert [(p.path, p.severity) for p in problems] == [("$.response_format", "warning")]

    def test_any_json_object_is_an_open_object_schema(self) -> None:
        sent, _ = answer_as_tool(ask(response_format=cc.ResponseFormat("json_object")))
        assert sent.tools[0].parameters == {"type": "object"}  # type: ignore[union-attr]
        assert sent.tools[0].strict is False  # type: ignore[union-attr]

    @pytest.mark.parametrize("fmt", [None, cc.ResponseFormat("text")])
    def test_a_request_without_a_json_format_is_returned_as_it_is(
        self, fmt: cc.ResponseFormat | None
    ) -> None:
        request = ask(response_format=fmt)
        sent, problems = answer_as_tool(request)
        assert sent is request
        assert problems == []

    def test_beside_the_requests_tools_a_tool_is_required(self) -> None:
        sent, problems = answer_as_tool(ask(tools=(WEATHER,), response_format=FORMAT))
        assert [t.name for t in sent.tools] == ["get_weather", cc.ANSWER_TOOL]  # type: ignore[union-attr]
        assert sent.tool_choice == cc.ToolChoice("required")
        assert [p.path for p in problems] == ["$.response_format", "$.tool_choice"]

    def test_a_required_choice_stays_without_a_note(self) -> None:
        request = ask(
            tools=(WEATHER,), tool_choice=cc.ToolChoice("required"), response_format=FORMAT
        )
        sent, problems = answer_as_tool(request)
        assert sent.tool_choice == cc.ToolChoice("required")
        assert [p.path for p in problems] == ["$.response_format"]

    def test_no_tools_of_the_requests_own_forces_the_answer(self) -> None:
        request = ask(tools=(WEATHER,), tool_choice=cc.ToolChoice("none"), response_format=FORMAT)
        sent, _ = answer_as_tool(request)
        assert sent.tool_choice == cc.ToolChoice("tool", cc.ANSWER_TOOL)

    def test_thinking_keeps_the_choice_automatic_and_says_so(self) -> None:
        request = ask(reasoning=cc.Reasoning(budget_tokens=2048), response_format=FORMAT)
        sent, problems = answer_as_tool(request)
        assert sent.tool_choice is None
        assert sent.tools[0].name == cc.ANSWER_TOOL  # type: ignore[union-attr]
        assert "may answer in text" in problems[0].rule

    def test_a_root_that_is_no_object_is_refused(self) -> None:
        fmt = cc.ResponseFormat("json_schema", "list", {"type": "array", "items": {}})
        with pytest.raises(cc.ValidationError) as caught:
            answer_as_tool(ask(response_format=fmt))
        assert caught.value.path == "$.response_format.schema"

    def test_a_strict_schema_that_is_open_is_refused_at_the_format(self) -> None:
        schema = {"type": "object", "additionalProperties": {"type": "string"}}
        fmt = cc.ResponseFormat("json_schema", "map", schema, strict=True)
        with pytest.raises(cc.ValidationError) as caught:
            answer_as_tool(ask(response_format=fmt))
        assert caught.value.path == "$.response_format.schema"

    def test_a_tool_of_the_same_name_is_refused(self) -> None:
        taken = cc.ToolDefinition(cc.ANSWER_TOOL, None, {"type": "object"}, strict=False)
        with pytest.raises(cc.ValidationError) as caught:
            answer_as_tool(ask(tools=(WEATHER, taken), response_format=FORMAT))
        assert caught.value.path == "$.tools[1].name"

    def test_a_choice_forcing_another_tool_is_refused(self) -> None:
        choice = cc.ToolChoice("tool", "get_weather")
        with pytest.raises(cc.ValidationError) as caught:
            answer_as_tool(ask(tools=(WEATHER,), tool_choice=choice, response_format=FORMAT))
        assert caught.value.path == "$.tool_choice"


class TestFromTool:
    def test_the_call_becomes_the_answers_text(self) -> None:
        response, losses = answer_from_tool(answered(calls=(ANSWER,)))
        assert response.message is not None
        assert json.loads(response.message.text) == {"name": "Paris", "people": 2102650}
        assert response.message.tool_calls == ()
        assert (response.finish_reason, response.choices[0].raw_finish_reason) == ("stop", None)
        assert losses == []

    def test_an_answer_cut_off_is_its_text_and_the_finish_stays(self) -> None:
        cut = cc.InvalidToolCall("toolu_1", cc.ANSWER_TOOL, '{"name": "Pa', "cut off")
        response, _ = answer_from_tool(answered(invalid=(cut,)))
        assert response.message is not None
        assert response.message.text == '{"name": "Pa'
        assert response.message.invalid_tool_calls == ()
        assert response.finish_reason == "length"

    def test_text_beside_the_answer_is_dropped_and_reported(self) -> None:
        thought = cc.ReasoningPart("Paris is large.", "sig", provider="anthropic")
        response, losses = answer_from_tool(
            answered(thought, cc.TextPart("Here it is:"), calls=(ANSWER,))
        )
        assert response.message is not None
        content = response.message.content
        assert isinstance(content, tuple)
        assert content[0] == thought
        assert json.loads(content[1].text)["name"] == "Paris"  # type: ignore[union-attr]
        assert [(x.path, "beside" in x.reason) for x in losses] == [
            ("$.choices[0].message.content[1]", True)
        ]

    def test_other_calls_stay_with_their_finish(self) -> None:
        other = cc.tool_call("toolu_2", "get_weather", {"city": "Paris"})
        response, _ = answer_from_tool(answered(calls=(ANSWER, other)))
        assert response.message is not None
        assert response.message.tool_calls == (other,)
        assert response.finish_reason == "tool_calls"

    def test_a_response_without_the_call_is_returned_as_it_is(self) -> None:
        plain = cc.Response((cc.Choice(cc.assistant("Paris"), cc.FinishReason.STOP),))
        response, losses = answer_from_tool(plain)
        assert response is plain
        assert losses == []


# The request as OpenAI Chat sends it, with its schema.
ASKED = {
    "model": "gpt-4o",
    "messages": [{"role": "user", "content": "Which city?"}],
    "response_format": {
        "type": "json_schema",
        "json_schema": {"name": "city", "schema": CITY, "strict": True},
    },
}


MODELS = {
    "openai": "gpt-4o",
    "openai-responses": "gpt-4o",
    "anthropic": "claude-3-5-haiku-latest",
    "gemini": "gemini-2.5-flash",
    "bedrock": "anthropic.claude-3-haiku-20240307-v1:0",
    "ollama": "llama3.2",
    "cohere": "command-a-03-2025",
}


@pytest.mark.parametrize("target", providers.NAMES)
def test_every_family_is_sent_the_forced_tool_and_reads_it(target: str) -> None:
    out, report = cc.convert(
        ASKED,
        source="openai",
        target=target,
        model=MODELS.get(target, "m"),
        max_tokens=256,
        structured_output="tool",
    )
    sent = providers.get(target).decode_request(out)
    assert [t.name for t in sent.tools] == [cc.ANSWER_TOOL]  # type: ignore[union-attr]
    assert sent.tools[0].parameters == CITY  # type: ignore[union-attr]
    assert sent.response_format is None
    assert "$.response_format" in [p.path for p in report.problems]
    assert not [p for p in report.problems if p.severity == "error"]
    if target == "ollama":  # a tool, but no way to force it: said
        assert sent.tool_choice is None
        assert report.paths == ["$.tool_choice"]
    elif target == "cohere":  # no named tool forced, but the one tool required: said
        assert sent.tool_choice == cc.ToolChoice("required")
        assert report.paths == ["$.tool_choice.name"]
    else:
        assert sent.tool_choice is not None
        assert sent.tool_choice.name == cc.ANSWER_TOOL
        assert not report.losses


@pytest.mark.parametrize("source", providers.NAMES)
def test_every_familys_answer_call_reads_back_as_the_answer(source: str) -> None:
    body = providers.get(source).encode_response(answered(calls=(ANSWER,)))
    out, _report = cc.convert(
        body, source=source, target="openai", kind="response", structured_output="tool"
    )
    message = json.loads(out)["choices"][0]
    assert json.loads(message["message"]["content"]) == {"name": "Paris", "people": 2102650}
    assert "tool_calls" not in message["message"]
    assert message["finish_reason"] == "stop"


def test_native_stays_the_default() -> None:
    out, _report = cc.convert(ASKED, source="openai", target="anthropic", max_tokens=256)
    assert b"json_answer" not in out
    assert b'"output_config"' in out


def test_another_value_is_refused() -> None:
    with pytest.raises(cc.ValidationError) as caught:
        cc.convert(ASKED, source="openai", target="anthropic", structured_output="tools")  # type: ignore[arg-type]
    assert caught.value.path == "structured_output"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    source=st.sampled_from(providers.NAMES),
    answer=st.dictionaries(st.text(min_size=1, max_size=6), JSON_VALUES, max_size=4),
)
def test_any_answer_comes_back_as_its_json(source: str, answer: dict[str, Any]) -> None:
    call = cc.tool_call("call_1", cc.ANSWER_TOOL, answer)
    body = providers.get(source).encode_response(answered(calls=(call,)))
    out, _ = cc.convert(
        body, source=source, target="openai", kind="response", structured_output="tool"
    )
    text = json.loads(out)["choices"][0]["message"]["content"]
    assert msgspec.json.decode(text) == answer


ASKED_LINE = msgspec.json.encode(ASKED)
ANSWER_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-3-5-haiku-latest",
    "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "json_answer", "input": {"name": "Paris"}}
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 9, "output_tokens": 5},
}


class TestBulk:
    """convert_lines takes the option: requests out, responses and batch results back."""

    def test_requests_carry_the_tool_and_a_warning_each(self) -> None:
        result = cc.convert_lines(
            [ASKED_LINE, ASKED_LINE],
            source="openai",
            target="anthropic",
            model="claude-3-5-haiku-latest",
            max_tokens=256,
            structured_output="tool",
        )
        assert (result.converted, result.refused) == (2, 0)
        for record in result.records:
            sent = json.loads(record)
            assert sent["tool_choice"] == {"type": "tool", "name": "json_answer"}
            assert sent["tools"][0]["input_schema"]["properties"] == CITY["properties"]
        assert [(p.line, p.path, p.severity) for p in result.problems] == [
            (1, "$.response_format", "warning"),
            (2, "$.response_format", "warning"),
        ]

    def test_a_schema_no_tool_can_take_fails_its_line(self) -> None:
        listed = json.loads(ASKED_LINE)
        listed["response_format"]["json_schema"]["schema"] = {"type": "array"}
        result = cc.convert_lines(
            [msgspec.json.encode(listed), ASKED_LINE],
            source="openai",
            target="anthropic",
            model="claude-3-5-haiku-latest",
            max_tokens=256,
            structured_output="tool",
        )
        assert (result.converted, result.failed) == (1, 1)
        assert (result.problems[0].line, result.problems[0].path) == (
            1,
            "$.response_format.schema",
        )

    def test_batch_results_read_back_as_answers(self) -> None:
        line = msgspec.json.encode(
            {"custom_id": "r1", "result": {"type": "succeeded", "message": ANSWER_MESSAGE}}
        )
        result = cc.convert_lines(
            [line], source="anthropic", target="openai", kind="batch", structured_output="tool"
        )
        assert result.converted == 1
        out = json.loads(result.records[0])
        choice = out["response"]["body"]["choices"][0]
        assert (json.loads(choice["message"]["content"]), choice["finish_reason"]) == (
            {"name": "Paris"},
            "stop",
        )

    def test_another_value_is_refused_before_any_line(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.convert_lines(
                [ASKED_LINE],
                source="openai",
                target="anthropic",
                kind="request",
                structured_output="forced",  # type: ignore[arg-type]
            )


def translated(source: str, target: str, response: cc.Response, cuts: list[int]) -> cc.Response:
    """``response`` streamed by ``source``, translated at ``cuts``, read back by ``target``."""
    data = providers.get(source).encode_stream(response)
    translator = cc.translate_stream(source, target, structured_output="tool")
    out = b""
    at = 0
    for cut in sorted({c % (len(data) + 1) for c in cuts}):
        out += translator.feed(data[at:cut])
        at = cut
    out += translator.feed(data[at:])
    tail, report = translator.finish()
    assert not [x for x in report.losses if "answer" in x.reason]
    decoder = providers.get(target).stream()
    decoder.feed(out + tail)
    decoder.flush()
    got: cc.Response = decoder.finish()
    return got


class TestStreams:
    @settings(max_examples=40, deadline=None)
    @given(
        source=st.sampled_from(providers.NAMES),
        target=st.sampled_from(providers.NAMES),
        cuts=st.lists(st.integers(0, 1 << 16), max_size=6),
    )
    def test_the_answer_streams_as_text_into_every_family(
        self, source: str, target: str, cuts: list[int]
    ) -> None:
        got = translated(source, target, answered(calls=(ANSWER,)), cuts)
        assert got.message is not None
        assert json.loads(got.message.text) == {"name": "Paris", "people": 2102650}
        assert got.message.tool_calls == ()
        assert got.finish_reason == "stop"

    @pytest.mark.parametrize("source", providers.NAMES)
    def test_another_call_keeps_its_place_and_the_finish(self, source: str) -> None:
        other = cc.tool_call("call_2", "get_weather", {"city": "Paris"})
        got = translated(source, "openai", answered(calls=(ANSWER, other)), [])
        assert got.message is not None
        assert json.loads(got.message.text)["name"] == "Paris"
        assert [(c.name, bytes(c.arguments)) for c in got.message.tool_calls] == [
            ("get_weather", b'{"city":"Paris"}')
        ]
        assert got.finish_reason == "tool_calls"

    def test_text_before_the_answer_is_reported(self) -> None:
        data = providers.get("anthropic").encode_stream(
            answered(cc.TextPart("Sure."), calls=(ANSWER,))
        )
        translator = cc.translate_stream("anthropic", "openai", structured_output="tool")
        translator.feed(data)
        _, report = translator.finish()
        assert report.paths == ["$.choices[0].message.content"]

    def test_native_streams_the_call_as_a_call(self) -> None:
        data = providers.get("anthropic").encode_stream(answered(calls=(ANSWER,)))
        translator = cc.translate_stream("anthropic", "openai")
        out = translator.feed(data) + translator.finish()[0]
        assert b'"name":"json_answer"' in out

    def test_another_value_is_refused(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.translate_stream("anthropic", "openai", structured_output="forced")  # type: ignore[arg-type]
