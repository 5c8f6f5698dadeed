"""The usual Ollama request goes straight across and gives what the general path gives."""

from __future__ import annotations

import json
from typing import Any

import either_path
import pytest
from corpus import NO_CORPUS, corpus
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec.providers._direct import direct

TARGETS = ("openai", "anthropic", "gemini", "openai-responses", "bedrock", "cohere")


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from ollama; it gives the general path's answer."""
    return either_path.same("ollama", body, target, model, max_tokens)


@pytest.mark.parametrize("target", TARGETS)
def test_most_recorded_requests_take_the_direct_path(target: str) -> None:
    paths = [param.values[0] for param in corpus("ollama", "request")]
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    assert len(taken) * 2 > len(paths), (len(taken), len(paths))


BASE: dict[str, Any] = {
    "model": "llama3.2",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Where?"},
        {"role": "user", "content": "Paris."},
    ],
    "format": "",
    "options": {"temperature": 0, "num_predict": 64},
    "stream": False,
}


def body(**changes: Any) -> bytes:
    values = {**BASE, **changes}
    return json.dumps({key: value for key, value in values.items() if value is not None}).encode()


class TestDeclines:
    """What is outside the usual shape goes the general way."""

    @pytest.mark.parametrize("target", TARGETS)
    def test_the_usual_request_is_taken(self, target: str) -> None:
        assert same(body(), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({"format": "json"}, True),
            ({"format": None}, True),
            ({"format": {"type": "object"}}, False),  # a schema: the general way
            ({"stream": True}, True),
            ({"stream": None}, True),
            ({"options": None}, True),
            ({"options": {}}, False),  # kept as sent, and reported
            ({"options": {"top_p": 0.9, "stop": ["END"]}}, True),
            ({"options": {"temperature": 0.5, "stop": ["\n"]}}, False),  # a blank stop
            ({"options": {"num_predict": -1}}, False),  # no limit: kept as sent
            ({"options": {"num_predict": 0}}, False),
            ({"options": {"temperature": 2**60}}, False),
            ({"options": {"seed": 1}}, False),
            ({"options": {"temperature": "hot"}}, False),
            ({"keep_alive": "5m"}, True),  # kept as sent, and reported by either path
            ({"keep_alive": 0, "~x": 1}, True),
            ({"think": True}, False),  # read by the general path
            ({"model": None}, False),
        ],
        ids=repr,
    )
    def test_settings(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        assert same(body(**changes), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_a_key_kept_as_sent_is_reported(self, target: str) -> None:
        changed = body(keep_alive="5m")
        losses = cc.convert(changed, source="ollama", target=target, max_tokens=64)[1].losses
        assert "$.extras.ollama.keep_alive" in [loss.path for loss in losses]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("message", "taken"),
        [
            ({"role": "user", "content": "Hi"}, True),
            ({"role": "user", "content": ""}, False),
            ({"role": "user", "content": "Hi", "images": ["iVBORw0KGgo="]}, False),
            ({"role": "assistant", "content": "Hi", "thinking": "hm"}, False),
            ({"role": "tool", "content": "ok", "tool_name": "f"}, False),
            ({"role": "developer", "content": "Be kind."}, False),
            ({"role": "user"}, False),
        ],
        ids=repr,
    )
    def test_messages(self, target: str, message: dict[str, Any], taken: bool) -> None:
        messages = [{"role": "user", "content": "Go"}, {"role": "assistant", "content": "Ok"}]
        assert same(body(messages=[*messages, message]), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_tools_as_openai_sends_them(self, target: str) -> None:
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "description": "The weather in a city.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ]
        assert same(body(tools=tools), target, None, 64)
        assert not same(body(tools=[]), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("strict", [True, False])
    def test_a_tools_strict_switch_goes_the_general_way(self, target: str, strict: bool) -> None:
        # OpenAI's switch, not Ollama's: the general path keeps it in the
        # tool's extras and reports it (the fuzz target direct's find).
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        }
        function = {"name": "weather", "parameters": schema, "strict": strict}
        tools = [{"type": "function", "function": function}]
        assert not same(body(tools=tools), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    def test_an_empty_description_goes_the_general_way(self, target: str) -> None:
        # Kept in the tool's extras by Ollama's decoder, and reported (a mutation
        # search of the fuzz target direct found it).
        function = {"name": "weather", "description": "", "parameters": {"type": "object"}}
        assert not same(body(tools=[{"type": "function", "function": function}]), target, None, 64)

    def test_the_batch_form_leaves_a_stream_out(self) -> None:
        convert = direct("ollama", "anthropic", "claude-sonnet-4-5", 1024, batch=True)
        assert convert is not None
        done = convert(body(stream=True))
        assert done is not None
        assert b'"stream"' not in done[0]
        assert done[1][0] == cc.Loss("$.stream", "a batch request is not streamed: stream left out")


_TEXT = st.sampled_from(["Hi", "Ünïcode ✓", "line\nbreak", '{"json": "text"}', ""])


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """Ollama requests near the usual shape: most are taken, some are not."""
    messages: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 5))):
        role = draw(st.sampled_from(["system", "user", "assistant", "developer"]))
        message: dict[str, Any] = {"role": role, "content": draw(_TEXT)}
        messages.append(message)
    values: dict[str, Any] = {"model": draw(st.sampled_from(["llama3.2", "", "gpt-4o"]))}
    values["messages"] = messages
    if draw(st.booleans()):
        values["format"] = draw(st.sampled_from(["", "json", None, "yaml"]))
    if draw(st.booleans()):
        values["stream"] = draw(st.booleans())
    if draw(st.booleans()):
        option = st.sampled_from([0, 1, 0.5, 2, -1, 1.5, None])
        keys = draw(st.sets(st.sampled_from(["temperature", "top_p", "num_predict", "stop"])))
        options: dict[str, Any] = {}
        for key in keys:
            if key == "stop":
                options[key] = draw(st.lists(_TEXT, max_size=6))
            elif key == "num_predict":
                options[key] = draw(st.sampled_from([1, 64, 0, -1, None]))
            else:
                options[key] = draw(option)
        values["options"] = options
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
