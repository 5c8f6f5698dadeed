"""Hostile and broken input never escapes as anything but chatcodec's own errors.

Every public entry point that takes bytes or text from outside is fed input that
is malformed, nested past the recursion limit, not UTF-8, or of the wrong type at
every position; each must answer with a ChatCodecError (or, in lenient mode, a
reported problem), never a bare TypeError, UnicodeError or RecursionError.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers

DEEP_JSON = b'{"role":"user","content":"x","metadata":{"a":' + b"[" * 3000 + b"]" * 3000 + b"}}"
DEEP_LIST = b"[" * 3000 + b"]" * 3000
DEEP_MSGPACK = b"\x91" * 100_000 + b"\xc0"
DEEP_ARGS = b'{"a":' + b"[" * 5000 + b"]" * 5000 + b"}"
BAD_UTF8_ARGS = (
    b'{"role":"assistant","tool_calls":[{"id":"a","name":"b","arguments":{"x":"\xff"}}]}'
)
ENC = msgspec.msgpack.encode

HOSTILE: list[bytes | str] = [
    b"",
    b" ",
    b"nul",
    b"[{",
    DEEP_JSON,
    DEEP_LIST,
    BAD_UTF8_ARGS,
    b'{"role":"user","content":"\xff"}',
    '{"role":"user","content":"\ud800"}',
    b'{"role":5,"content":"x"}',
    b'{"role":null}',
    b'{"role":"assistant","tool_calls":5}',
    b'{"role":"assistant","tool_calls":[5]}',
    b'{"role":"assistant","tool_calls":[{"id":1,"name":[],"arguments":null}]}',
    b'{"role":"assistant","content":"x","invalid_tool_calls":5}',
    b'{"role":"user","content":[{"type":5}]}',
    b'{"role":"user","content":"x","extras":[]}',
    b'{"role":"user","content":"x","metadata":5}',
    b'{"prompt_tokens":123456789012345678901234567890}',
    b'{"v":"1","messages":{"a":1},"policy":7}',
]
HOSTILE_MSGPACK: list[bytes] = [
    DEEP_MSGPACK,
    b"\xc1",
    b"\x82\xa4role\xa4user\xa7content\xa1\xff",
    ENC({"role": "assistant", "tool_calls": [{"id": "a", "name": "b", "arguments": {(1, 2): 1}}]}),
    ENC([{"role": "system", "content": [msgspec.msgpack.Ext(1, b"x")]}]),
    ENC({"role": "user", "content": "x", "metadata": {1: 2}}),
    ENC({"v": 1, "messages": [{"role": "user", "content": "x"}], "extras": 4}),
]
TYPES: list[Any] = [cc.Message, list[cc.Message], cc.Conversation, cc.Usage, cc.ToolCall]
LENIENT_TYPES: list[Any] = [cc.Message, list[cc.Message], cc.Conversation]


def only_our_errors(action: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    with contextlib.suppress(cc.ChatCodecError):
        action(*args, **kwargs)


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_json_decoders(data: bytes | str) -> None:
    for type_ in TYPES:
        only_our_errors(cc.decode, data, type=type_)
    for type_ in LENIENT_TYPES:
        only_our_errors(cc.decode_lenient, data, type=type_)
    only_our_errors(cc.validate_untrusted, data)
    lines = [data] if data.strip() else []
    only_our_errors(lambda: list(cc.iter_jsonl(lines)))
    reader = cc.iter_jsonl([*lines, b'{"role":"user","content":"after"}'], lenient=True)
    assert list(reader)[-1] == cc.user("after")  # a bad line never stops the stream


@pytest.mark.parametrize("data", HOSTILE_MSGPACK, ids=range(len(HOSTILE_MSGPACK)))
def test_msgpack_decoders(data: bytes) -> None:
    for type_ in TYPES:
        only_our_errors(cc.decode, data, type=type_, format="msgpack")
    for type_ in LENIENT_TYPES:
        only_our_errors(cc.decode_lenient, data, type=type_, format="msgpack")


@settings(max_examples=200)
@given(data=st.binary(max_size=64) | st.text(max_size=64))
def test_random_input(data: bytes | str) -> None:
    for type_ in LENIENT_TYPES:
        only_our_errors(cc.decode, data, type=type_)
        only_our_errors(cc.decode_lenient, data, type=type_)
    if isinstance(data, bytes):
        only_our_errors(cc.decode, data, format="msgpack")


@settings(max_examples=200)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "role",
                        "content",
                        "tool_calls",
                        "id",
                        "name",
                        "arguments",
                        "type",
                        "text",
                        "extras",
                    ]
                )
                | st.text(max_size=3),
                inner,
                max_size=4,
            )
        ),
        max_leaves=12,
    )
)
def test_random_shapes(value: Any) -> None:
    try:
        data = json.dumps(value).encode()
    except ValueError:
        return
    for type_ in LENIENT_TYPES:
        only_our_errors(cc.decode, data, type=type_)
        only_our_errors(cc.decode_lenient, data, type=type_)
    only_our_errors(cc.validate_untrusted, data)
    only_our_errors(cc.validate_untrusted, value if isinstance(value, list) else [value])


def test_deep_input_is_a_decode_error() -> None:
    with pytest.raises(cc.DecodeError, match="nested too deeply"):
        cc.decode(DEEP_JSON)
    with pytest.raises(cc.DecodeError, match="nested too deeply"):
        cc.decode(DEEP_LIST, type=list[cc.Message])  # refused by the types, then too deep to read
    with pytest.raises(cc.DecodeError, match="nested too deeply"):
        cc.decode_lenient(DEEP_LIST)  # too deep to even split into messages
    with pytest.raises(cc.DecodeError, match="nested too deeply"):
        cc.decode(DEEP_MSGPACK, format="msgpack")
    assert cc.parse_tool_call("c", "f", DEEP_ARGS) == cc.InvalidToolCall(
        "c", "f", DEEP_ARGS.decode(), "arguments are not valid JSON"
    )
    with pytest.raises(cc.DecodeError, match="nested too deeply"):
        cc.ToolCall("c", "f", msgspec.Raw(DEEP_ARGS)).try_get_argument("a")


def test_invalid_utf8_inside_arguments() -> None:
    with pytest.raises(cc.ValidationError) as info:
        cc.decode(BAD_UTF8_ARGS)
    assert (info.value.path, info.value.rule) == ("$.tool_calls[0].arguments", "must be UTF-8")
    (message,), problems = cc.decode_lenient(b"[" + BAD_UTF8_ARGS + b"]")
    assert isinstance(message, cc.AssistantMessage)
    assert message.invalid_tool_calls[0].error == "arguments are not valid UTF-8"
    assert [p.severity for p in problems] == ["warning"]
    with pytest.raises(cc.ValidationError, match="must be UTF-8"):
        cc.ToolCall("a", "b", msgspec.Raw(b'{"x":"\xff"}'))
    assert cc.parse_tool_call("a", "b", b'{"x":"\xff"}').error == "arguments are not valid UTF-8"  # type: ignore[union-attr]


def test_encode_failures_are_encode_errors() -> None:
    huge = cc.decode(b'{"prompt_tokens":123456789012345678901234567890}', type=cc.Usage)
    assert cc.encode(huge) == b'{"prompt_tokens":123456789012345678901234567890}'
    with pytest.raises(cc.EncodeError, match="OverflowError"):
        cc.encode(huge, format="msgpack")


OPENAI, GEMINI, OLLAMA = (providers.get(name) for name in ("openai", "gemini", "ollama"))
NESTED = b'{\\"a\\":' * 1000 + b"1" + b"}" * 1000  # JSON text inside a JSON string
DEEP_CALL = b'{"id":"c","type":"function","function":{"name":"f","arguments":"' + NESTED + b'"}}'
DEEP_REQUEST = b'{"model":"m","messages":[{"role":"assistant","tool_calls":[' + DEEP_CALL + b"]}]}"
DEEP_RESPONSE = (
    b'{"id":"r","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
    b'"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":['
    + DEEP_CALL
    + b"]}}]}"
)


def strict_tool(schema: bytes) -> bytes:
    return (
        b'{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function",'
        b'"function":{"name":"f","strict":true,"parameters":' + schema + b"}}]}"
    )


class TestEscapedExceptions:
    """The inputs that once escaped as builtin exceptions give values or chatcodec's errors."""

    def test_deep_openai_arguments(self) -> None:
        for message in (
            OPENAI.decode_request(DEEP_REQUEST).messages[0],
            OPENAI.decode_response(DEEP_RESPONSE).choices[0].message,
        ):
            assert isinstance(message, cc.AssistantMessage)
            (call,) = message.invalid_tool_calls
            assert call.arguments == NESTED.decode().replace('\\"', '"')
        for target in providers.NAMES:
            cc.convert(DEEP_REQUEST, source="openai", target=target, model="m", max_tokens=1)
            cc.convert(DEEP_RESPONSE, source="openai", target=target, kind="response")

    def test_response_format_type_not_a_string(self) -> None:
        request = OPENAI.decode_request(b'{"response_format":{"type":[]}}')
        assert request.response_format is None
        assert request.extras == {"openai": {"response_format": {"type": []}}}
        assert OPENAI.decode_request(OPENAI.encode_request(request)) == request

    def test_strict_tool_required_not_a_list(self) -> None:
        schema = b'{"type":"object","properties":{"a":{"type":"string"}},"required":1}'
        for body in (strict_tool(schema), strict_tool(b'{"type":"object","required":1}')):
            problems = OPENAI.check_request(OPENAI.decode_request(body))
            assert [(p.path, p.rule) for p in problems] == [
                (
                    "$.tools[0].parameters.required",
                    "strict tools must list every property in required",
                )
            ][: len(problems)]

    def test_assistant_tool_calls_null_after_a_call(self) -> None:
        body = (
            b'{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function",'
            b'"function":{"name":"f","arguments":"{}"}}]},'
            b'{"role":"assistant","content":"x","tool_calls":null}]}'
        )
        out = OPENAI.encode_request(OPENAI.decode_request(body))
        (message,) = OPENAI.decode_request(out).messages
        assert isinstance(message, cc.AssistantMessage)
        assert [call.id for call in message.tool_calls] == ["c"]
        assert message.text == "x"

    def test_ollama_think_not_a_level(self) -> None:
        body = b'{"model":"m","messages":[],"think":[]}'
        problems = OLLAMA.check_request(OLLAMA.decode_request(body))
        assert (
            "$.extras.ollama.think",
            'think must be a boolean or "high", "medium" or "low"',
        ) in [(p.path, p.rule) for p in problems]
        for target in providers.NAMES:
            cc.convert(body, source="ollama", target=target, max_tokens=1)

    def test_ollama_temperature_past_float(self) -> None:
        body = b'{"model":"m","messages":[],"options":{"temperature":1' + b"0" * 400 + b"}}"
        request = OLLAMA.decode_request(body)
        assert request.temperature is None
        out = OLLAMA.encode_request(request)
        assert b'"temperature":1' + b"0" * 400 + b"}" in out
        assert OLLAMA.decode_request(out) == request

    def test_urls_urllib_cannot_split(self) -> None:
        body = b'{"contents":[{"role":"user","parts":[{"fileData":{"fileUri":"h://]"}}]}]}'
        GEMINI.encode_request(GEMINI.decode_request(body))
        image = (
            b'{"model":"m","messages":[{"role":"user","content":[{"type":"image_url",'
            b'"image_url":{"url":"http://[x"}}]}]}'
        )
        out, report = cc.convert(image, source="openai", target="gemini")
        GEMINI.decode_request(out)
        assert [loss.path for loss in report.losses] == ["$.messages[0].content[0]"]

    def test_lenient_arguments_not_utf8(self) -> None:
        line = b'{"role":"assistant","tool_calls":[{"id":"a","name":"b","arguments":"\xc3"}]}'
        (message,), problems = cc.decode_lenient(b"[" + line + b"]")
        assert isinstance(message, cc.AssistantMessage)
        assert message.invalid_tool_calls[0].error == "arguments are not valid UTF-8"
        assert [p.path for p in problems] == ["$[0].tool_calls[0]"]
        (again,) = cc.iter_jsonl([line], lenient=True)
        assert again == message

    @pytest.mark.parametrize(
        "value",
        [
            {"role": "zzz", "x": msgspec.msgpack.Ext(1, b"x")},
            [{"role": "zzz", "x": msgspec.msgpack.Ext(1, b"x")}],
            {"v": 1, None: ""},
        ],
        ids=["unknown-record-ext", "list-unknown-record-ext", "transcript-key-not-str"],
    )
    def test_msgpack_that_json_cannot_hold(self, value: Any) -> None:
        data = ENC(value)
        for type_ in (cc.Message, list[cc.Message], cc.Conversation):
            with pytest.raises(cc.ChatCodecError) as info:
                cc.decode(data, type=type_, format="msgpack")
            assert isinstance(info.value, ValueError)
            if "JSON values" in str(info.value):
                assert info.value.path == "$"  # type: ignore[attr-defined]
        with pytest.raises(cc.ValidationError, match="must hold only JSON values"):
            cc.decode(ENC({"v": 1, None: ""}), type=cc.Conversation, format="msgpack")
        with pytest.raises(cc.ValidationError, match="must hold only JSON values"):
            cc.decode(ENC({"role": "zzz", "x": msgspec.msgpack.Ext(1, b"x")}), format="msgpack")


TWO_RUNS = (
    b'{"model":"m","max_tokens":5,"messages":['
    b'{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},'
    b'{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"g","arguments":"{}"}}]},'
    b'{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"a","content":"2"}]}'
)


class TestConvertedIdsStayUnique:
    """A target that joins assistant messages renames repeated call ids, results following."""

    @pytest.mark.parametrize("target", ["openai", "anthropic"])
    def test_repeated_ids_in_joined_messages(self, target: str) -> None:
        out, report = cc.convert(TWO_RUNS, source="openai", target=target)
        request = providers.get(target).decode_request(out)
        (assistant,) = [m for m in request.messages if isinstance(m, cc.AssistantMessage)]
        first, second = assistant.tool_calls
        assert (first.id, first.name, second.name) == ("a", "f", "g")
        assert second.id != "a"
        results = [m for m in request.messages if isinstance(m, cc.ToolMessage)]
        assert [(m.tool_call_id, m.text) for m in results] == [("a", "1"), (second.id, "2")]
        assert [loss.path for loss in report.losses] == ["$.messages[1].tool_calls[0].id"]
        assert providers.get(target).check_request(request) == []

    def test_anthropic_source(self) -> None:
        body = (
            b'{"model":"m","max_tokens":5,"messages":['
            b'{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},'
            b'{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]}'
        )
        for target in providers.NAMES:
            out, _ = cc.convert(body, source="anthropic", target=target)
            providers.get(target).decode_request(out)

    def test_distinct_ids_untouched(self) -> None:
        body = TWO_RUNS.replace(
            b'"id":"a","type":"function","function":{"name":"g"',
            b'"id":"b","type":"function","function":{"name":"g"',
        )
        out, report = cc.convert(body, source="openai", target="openai")
        assert not report.losses
        assert b'"id":"b"' in out

    def test_three_repeats_and_invalid_calls(self) -> None:
        call = cc.tool_call("a", "f", {})
        bad = cc.InvalidToolCall("a", "g", "{", "arguments are not valid JSON")
        request = cc.Request(
            (
                cc.user("Hi"),
                cc.AssistantMessage(None, (call,)),
                cc.AssistantMessage(None, (call,)),
                cc.AssistantMessage(None, (), (bad,)),
                cc.ToolMessage("a", "1"),
                cc.ToolMessage("a", "2"),
                cc.ToolMessage("a", "3"),
            ),
            model="m",
            max_tokens=5,
        )
        for name in ("openai", "anthropic"):
            codec = providers.get(name)
            losses: list[cc.Loss] = []
            again = codec.decode_request(codec.encode_request(request, losses=losses))
            (assistant,) = [m for m in again.messages if isinstance(m, cc.AssistantMessage)]
            ids = [c.id for c in assistant.tool_calls] + [
                c.id for c in assistant.invalid_tool_calls
            ]
            assert len(set(ids)) == len(ids) >= 2
            assert ids[0] == "a"
            answered = [m.tool_call_id for m in again.messages if isinstance(m, cc.ToolMessage)]
            assert answered[:2] == ids[:2]
            assert {loss.path for loss in losses} >= {"$.messages[2].tool_calls[0].id"}
