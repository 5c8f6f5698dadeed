"""The usual Cohere request goes straight across and gives what the general path gives."""

from __future__ import annotations

import json
from typing import Any

import either_path
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

TARGETS = ("openai", "anthropic", "gemini", "openai-responses", "bedrock", "ollama")


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from cohere; it gives the general path's answer."""
    return either_path.same("cohere", body, target, model, max_tokens)


BASE: dict[str, Any] = {
    "model": "command-a-03-2025",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Madrid?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "get_weather_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"location": "Madrid"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "get_weather_1", "content": "24C, sunny"},
        {"role": "assistant", "content": "Sunny, 24C."},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}]},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather of a place.",
                "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
            },
        }
    ],
    "max_tokens": 64,
    "temperature": 0,
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
            ({"response_format": {"type": "json_object"}}, True),
            ({"response_format": {"type": "text"}}, True),
            ({"response_format": {"type": "json_object", "json_schema": {}}}, False),
            ({"tool_choice": "REQUIRED"}, True),
            ({"tool_choice": "NONE"}, True),
            ({"tool_choice": "required"}, False),  # not Cohere's spelling: kept as sent
            ({"stream": True}, True),
            ({"stop_sequences": ["END"], "p": 0.5, "temperature": None}, True),
            ({"stop_sequences": [" "]}, False),  # a blank stop: the preflights' rule
            ({"max_tokens": -1}, False),
            ({"temperature": 2**60}, False),
            ({"k": 5}, False),
            ({"strict_tools": True}, False),
            ({"thinking": {"type": "enabled"}}, False),
            ({"documents": [{"data": {"a": "b"}}]}, False),
            ({"model": None}, False),
        ],
        ids=repr,
    )
    def test_settings(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        assert same(body(**changes), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("message", "taken"),
        [
            ({"role": "user", "content": "Hi"}, True),
            ({"role": "user", "content": [{"type": "text", "text": "Hi"}]}, True),
            ({"role": "user", "content": ""}, False),
            ({"role": "user"}, False),
            (
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
                False,
            ),
            ({"role": "assistant", "content": "Hi", "tool_plan": "I will."}, False),
        ],
        ids=repr,
    )
    def test_messages(self, target: str, message: dict[str, Any], taken: bool) -> None:
        messages = [*BASE["messages"], {"role": "assistant", "content": "Ok"}, message]
        if message["role"] == "assistant":
            messages = [*BASE["messages"], message]
        assert same(body(messages=messages), target, None, 64) is taken


_TEXT = st.sampled_from(["Hi", "Ünïcode ✓", "line\nbreak", '{"json": "text"}', ""])
_ARGUMENTS = st.sampled_from(['{"location": "Madrid"}', "{}", "not json", '["a"]', ""])


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """Cohere requests near the usual shape: most are taken, some are not."""
    messages: list[dict[str, Any]] = []
    serial = 0
    for _ in range(draw(st.integers(0, 5))):
        role = draw(st.sampled_from(["system", "user", "assistant", "calls"]))
        if role == "calls":
            ids = []
            calls = []
            for _ in range(draw(st.integers(0, 2))):
                serial += 1
                ids.append(f"call_{serial}")
                function = {"name": "get_weather", "arguments": draw(_ARGUMENTS)}
                calls.append({"id": ids[-1], "type": "function", "function": function})
            messages.append({"role": "assistant", "tool_calls": calls})
            for call_id in draw(st.permutations(ids)):
                messages.append({"role": "tool", "tool_call_id": call_id, "content": draw(_TEXT)})
            continue
        content: Any = draw(_TEXT)
        if role == "user" and draw(st.booleans()):
            content = [{"type": "text", "text": content}]
        messages.append({"role": role, "content": content})
    values: dict[str, Any] = {"model": draw(st.sampled_from(["command-a-03-2025", "", "gpt-4o"]))}
    values["messages"] = messages
    if draw(st.booleans()):
        values["tools"] = BASE["tools"]
    for key, choices in (
        ("response_format", [{"type": "text"}, {"type": "json_object"}, {"type": "x"}]),
        ("tool_choice", ["REQUIRED", "NONE", "AUTO"]),
        ("stream", [True, False]),
        ("temperature", [0, 0.5, 1, 2]),
        ("p", [0.5, 1, 0]),
        ("max_tokens", [1, 64, 0]),
        ("stop_sequences", [["END"], [], ["a", "b", "c", "d", "e", "f"]]),
    ):
        if draw(st.booleans()):
            values[key] = draw(st.sampled_from(choices))
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


def test_generated_requests_take_the_direct_path_often() -> None:
    # The property above would pass if nothing were taken: most usual bodies are.
    taken = sum(same(body(), target, None, 64) for target in TARGETS)
    assert taken == len(TARGETS)
