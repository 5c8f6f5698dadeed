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
    with pytest.raises(cc.ValidationError, match="Expected `object`, got `array`"):
        cc.decode(DEEP_LIST, type=list[cc.Message])  # the types stop it first
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
