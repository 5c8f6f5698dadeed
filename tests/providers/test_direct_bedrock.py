"""The usual Bedrock Converse request goes straight across and gives what the general path gives."""

from __future__ import annotations

import json
from typing import Any

import either_path
import pytest
from corpus import NO_CORPUS, corpus
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec.providers._direct import direct_request

TARGETS = ("openai", "anthropic", "gemini", "openai-responses", "ollama", "cohere")


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from bedrock; it gives the general path's answer."""
    return either_path.same("bedrock", body, target, model, max_tokens)


@pytest.mark.parametrize("target", TARGETS)
def test_many_recorded_requests_take_the_direct_path(target: str) -> None:
    # The rest hold what no writer's typed form does: videos, cache points,
    # images in results, reasoning, an answer's schema.
    paths = [param.values[0] for param in corpus("bedrock", "request")]
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    assert len(taken) * 5 > len(paths) * 2, (len(taken), len(paths))


_WEATHER = {
    "toolSpec": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "inputSchema": {
            "json": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
}
_CALL = {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Paris"}}}
_RESULT = {"toolResult": {"toolUseId": "t1", "content": [{"text": "Sunny"}], "status": "success"}}
_PNG = {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
_PDF = {"document": {"format": "pdf", "name": "Report", "source": {"bytes": "JVBERi0xLjQ="}}}

BASE: dict[str, Any] = {
    "system": [{"text": "Be brief."}],
    "messages": [
        {"role": "user", "content": [{"text": "Weather in Paris?"}]},
        {"role": "assistant", "content": [{"text": "Let me look."}, _CALL]},
        {"role": "user", "content": [_RESULT, {"text": "Thanks."}]},
    ],
    "toolConfig": {"tools": [_WEATHER], "toolChoice": {"auto": {}}},
    "inferenceConfig": {"maxTokens": 256, "temperature": 0.5},
}


def body(**changes: Any) -> bytes:
    values = {**BASE, **changes}
    return json.dumps({key: value for key, value in values.items() if value is not None}).encode()


def last(*blocks: Any) -> bytes:
    """The usual request with its last user turn holding ``blocks``."""
    return body(messages=[*BASE["messages"][:2], {"role": "user", "content": list(blocks)}])


class TestDeclines:
    """What is outside the usual shape goes the general way."""

    @pytest.mark.parametrize("target", TARGETS)
    def test_the_usual_request_is_taken(self, target: str) -> None:
        assert same(body(), target, "m", None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({"system": None}, True),
            ({"system": []}, True),  # kept by the general path, and nothing to report
            ({"system": [{"text": "One."}, {"text": "Two."}]}, True),
            ({"system": [{"text": ""}]}, False),  # the whole array kept as sent
            ({"system": [{"text": "Hi"}, {"cachePoint": {"type": "default"}}]}, False),
            ({"inferenceConfig": {}}, True),
            ({"inferenceConfig": None}, True),
            ({"inferenceConfig": {"temperature": 1, "topP": 0.9}}, True),  # 1 stays an int
            ({"inferenceConfig": {"stopSequences": ["END"]}}, True),
            ({"inferenceConfig": {"stopSequences": [" "]}}, False),  # a blank stop
            ({"inferenceConfig": {"maxTokens": 0}}, False),
            ({"inferenceConfig": {"temperature": 1.5}}, False),
            ({"inferenceConfig": {"topK": 5}}, False),  # kept in extras, not typed
            ({"toolConfig": None}, True),  # the calls of the history are undeclared
            ({"toolConfig": {"tools": [_WEATHER]}}, True),
            ({"toolConfig": {"tools": [_WEATHER], "toolChoice": {"any": {}}}}, True),
            (
                {
                    "toolConfig": {
                        "tools": [_WEATHER],
                        "toolChoice": {"tool": {"name": "get_weather"}},
                    }
                },
                True,
            ),
            ({"toolConfig": {"tools": [_WEATHER], "toolChoice": {"tool": {"name": "f"}}}}, False),
            ({"toolConfig": {"tools": [_WEATHER], "toolChoice": {"auto": {}, "any": {}}}}, False),
            ({"toolConfig": {"tools": [_WEATHER], "toolChoice": {"auto": {"x": 1}}}}, False),
            ({"toolConfig": {"tools": []}}, False),
            ({"toolConfig": {"tools": [_WEATHER, {"cachePoint": {"type": "default"}}]}}, False),
            ({"additionalModelRequestFields": {"top_k": 20}}, True),  # reported as lost
            ({"additionalModelRequestFields": {}}, True),
            ({"~hint": 1, "guardrailConfig": {"guardrailIdentifier": "g"}}, True),
            ({"outputConfig": {"textFormat": {"type": "json_schema"}}}, False),
            ({"messages": []}, False),
        ],
        ids=repr,
    )
    def test_settings(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        assert same(body(**changes), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_the_body_s_model(self, target: str) -> None:
        # Anthropic's and Cohere's model is the caller's (see either_path.same).
        assert same(body(modelId="gpt-4o"), target, None, 64)
        assert same(body(modelId="gpt-4o"), target, "m", 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("blocks", "taken"),
        [
            ([_RESULT], True),
            ([_RESULT, {"text": "a"}, {"text": "b"}], True),  # two texts: two parts
            ([_RESULT, {"text": ""}], False),
            ([{"text": "Thanks."}, _RESULT], False),  # a result after text keeps its place
            ([{"toolResult": {**_RESULT["toolResult"], "status": "error"}}], False),
            ([{"toolResult": {"toolUseId": "t1", "content": [{"text": "Sunny"}]}}], True),
            ([{"toolResult": {"toolUseId": "t1", "content": [{"text": ""}]}}], True),
            ([{"toolResult": {"toolUseId": "t1", "content": []}}], False),
            ([{"toolResult": {"toolUseId": "t1"}}], False),
            (
                [{"toolResult": {"toolUseId": "t1", "content": [{"text": "a"}, {"text": "b"}]}}],
                False,
            ),
            ([{"toolResult": {"toolUseId": "t1", "content": [{"json": {"a": 1}}]}}], False),
            ([{"toolResult": {"toolUseId": "t1", "content": [_PNG]}}], False),
            ([{"toolResult": {"toolUseId": "t2", "content": [{"text": "x"}]}}], False),
            ([_RESULT, {"text": "Hi", "cachePoint": {"type": "default"}}], False),
            ([_RESULT, {"video": {"format": "mp4", "source": {"bytes": "AAAA"}}}], False),
            ([_RESULT, _CALL], False),
        ],
        ids=repr,
    )
    def test_user_turns(self, target: str, blocks: list[Any], taken: bool) -> None:
        assert same(last(*blocks), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("blocks", "taken"),
        [
            ([_CALL], True),
            ([{"text": "a"}, {"text": "b"}, _CALL], True),
            ([_CALL, {"text": "Done."}], False),  # text after a call keeps its place
            ([{"text": ""}, _CALL], False),
            ([{"toolUse": {**_CALL["toolUse"], "input": {}}}], True),
            ([{"toolUse": {**_CALL["toolUse"], "input": "city"}}], False),
            ([{"toolUse": {**_CALL["toolUse"], "type": "server_tool_use"}}], False),
            ([{"toolUse": {**_CALL["toolUse"], "toolUseId": ""}}], False),
            ([{"reasoningContent": {"reasoningText": {"text": "hm"}}}, _CALL], False),
        ],
        ids=repr,
    )
    def test_assistant_turns(self, target: str, blocks: list[Any], taken: bool) -> None:
        messages = [BASE["messages"][0], {"role": "assistant", "content": blocks}]
        assert same(body(messages=[*messages, BASE["messages"][2]]), target, "m", 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_a_second_turn_of_a_role_goes_the_general_way(self, target: str) -> None:
        again = {"role": "user", "content": [{"text": "Hello?"}]}
        assert not same(body(messages=[*BASE["messages"], again]), target, "m", 64)

    @pytest.mark.parametrize("target", TARGETS)
    def test_images_and_pdfs(self, target: str) -> None:
        assert same(last(_RESULT, {"text": "See."}, _PNG), target, "m", 64)
        assert not same(
            last(_RESULT, {"image": {**_PNG["image"], "format": "bmp"}}), target, "m", 64
        )
        source = {"s3Location": {"uri": "s3://b/k.png"}}
        assert not same(
            last(_RESULT, {"image": {"format": "png", "source": source}}), target, "m", 64
        )
        # OpenAI Chat's writer leaves files to the general path.
        assert same(last(_RESULT, _PDF), target, "m", 64) is (target != "openai")
        text = {"document": {**_PDF["document"], "format": "txt"}}
        assert not same(last(_RESULT, text), target, "m", 64)

    @pytest.mark.parametrize("target", TARGETS)
    def test_a_key_bedrock_alone_keeps_is_reported_first(self, target: str) -> None:
        sent = json.loads(last(_RESULT, _PDF))
        sent["additionalModelRequestFields"] = {"top_k": 3}
        request = json.dumps(sent).encode()
        assert same(request, target, "m", 64) is (target != "openai")
        done = direct_request("bedrock", target, request, "m", 64)
        if done is not None:
            kept = cc.Loss(
                "$.extras.bedrock.additionalModelRequestFields",
                f"a bedrock field {target} has no place for",
            )
            assert done[1][0] == kept


_TEXT = st.sampled_from(["Hi", "Ünïcode ✓", "line\nbreak", '{"json": "text"}', ""])
_INPUT = st.sampled_from([{}, {"city": "Paris"}, {"n": 1.5, "deep": {"a": [1, None]}}, "x"])


@st.composite
def _turn(draw: st.DrawFn, role: str, calls: list[str]) -> dict[str, Any]:
    blocks: list[Any] = []
    if role == "user":
        for call in calls:
            if draw(st.integers(0, 5)):
                result: dict[str, Any] = {"toolUseId": call}
                result["content"] = draw(
                    st.sampled_from([[{"text": "ok"}], [{"text": ""}], [], [{"json": {"a": 1}}]])
                )
                if draw(st.booleans()):
                    result["status"] = draw(st.sampled_from(["success", "error"]))
                blocks.append({"toolResult": result})
        calls.clear()
        for _ in range(draw(st.integers(0 if blocks else 1, 2))):
            blocks.append(draw(st.sampled_from([{"text": draw(_TEXT)}, _PNG, _PDF])))
        if draw(st.integers(0, 9)) == 0:
            draw(st.randoms()).shuffle(blocks)
        return {"role": role, "content": blocks}
    for _ in range(draw(st.integers(0, 2))):
        blocks.append({"text": draw(_TEXT)})
    for _ in range(draw(st.integers(0, 2))):
        call = draw(st.sampled_from(["t1", "t2", "call_3", ""]))
        name = draw(st.sampled_from(["get_weather", "search", "get weather"]))
        use = {"toolUseId": call, "name": name, "input": draw(_INPUT)}
        blocks.append({"toolUse": use})
        calls.append(call)
    if draw(st.integers(0, 9)) == 0:
        blocks.reverse()
    return {"role": role, "content": blocks}


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """Converse requests near the usual shape: most are taken, some are not."""
    values: dict[str, Any] = {}
    if draw(st.booleans()):
        values["system"] = [{"text": draw(_TEXT)} for _ in range(draw(st.integers(0, 2)))]
    messages: list[Any] = []
    calls: list[str] = []
    role = "user"
    for _ in range(draw(st.integers(0, 5))):
        messages.append(draw(_turn(role, calls)))
        if draw(st.integers(0, 9)):
            role = "assistant" if role == "user" else "user"
    values["messages"] = messages
    if draw(st.booleans()):
        config: dict[str, Any] = {"tools": [_WEATHER]}
        if draw(st.booleans()):
            config["toolChoice"] = draw(
                st.sampled_from([{"auto": {}}, {"any": {}}, {"tool": {"name": "get_weather"}}])
            )
        values["toolConfig"] = config
    if draw(st.booleans()):
        option = st.sampled_from([0, 1, 0.5, 2, 1.5, None])
        keys = draw(st.sets(st.sampled_from(["temperature", "topP", "maxTokens", "stopSequences"])))
        inference: dict[str, Any] = {}
        for key in keys:
            if key == "stopSequences":
                inference[key] = draw(st.lists(_TEXT, max_size=6))
            elif key == "maxTokens":
                inference[key] = draw(st.sampled_from([1, 64, 0, None]))
            else:
                inference[key] = draw(option)
        values["inferenceConfig"] = inference
    if draw(st.booleans()):
        values["modelId"] = draw(st.sampled_from(["gpt-4o", "", "anthropic.claude-3-haiku"]))
    if draw(st.integers(0, 4)) == 0:
        values["additionalModelRequestFields"] = draw(st.sampled_from([{}, {"top_k": 5}, None]))
    return json.dumps(values).encode()


@settings(max_examples=300, deadline=None)
@given(
    request=requests(),
    target=st.sampled_from(TARGETS),
    model=st.sampled_from([None, "m", ""]),
    max_tokens=st.sampled_from([None, 1024]),
)
def test_generated_requests_convert_the_same(
    request: bytes, target: str, model: str | None, max_tokens: int | None
) -> None:
    same(request, target, model, max_tokens)
