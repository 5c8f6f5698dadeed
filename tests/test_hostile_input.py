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
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import http, providers
from chatcodec._paths import key_step

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


# -- the depth limit ------------------------------------------------------------------

DATA = Path(__file__).parent / "data"
DEEP = 600  # well inside what the JSON decoders read, far past MAX_DEPTH
ITEMS_SCHEMA = (
    b'{"type":"object","properties":{"a":' + b'{"items":' * DEEP + b"{}" + b"}" * DEEP + b"}}"
)
ENUM_SCHEMA = b'{"type":"object","enum":' + b"[" * DEEP + b"1" + b"]" * DEEP + b"}"


def _request_with_schema(family: str, schema: bytes) -> bytes:
    """A request of ``family`` with one function tool whose schema is ``schema``."""
    return {
        "openai": b'{"model":"m","messages":[{"role":"user","content":"hi"}],'
        b'"tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":'
        + schema
        + b"}}]}",
        "ollama": b'{"model":"m","messages":[{"role":"user","content":"hi"}],'
        b'"tools":[{"type":"function","function":{"name":"f","parameters":' + schema + b"}}]}",
        "anthropic": b'{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],'
        b'"tools":[{"name":"f","input_schema":' + schema + b"}]}",
        "gemini": b'{"contents":[{"role":"user","parts":[{"text":"hi"}]}],'
        b'"tools":[{"functionDeclarations":[{"name":"f","parameters":' + schema + b"}]}]}",
        "openai-responses": b'{"model":"m","input":"hi",'
        b'"tools":[{"type":"function","name":"f","parameters":' + schema + b"}]}",
        "bedrock": b'{"messages":[{"role":"user","content":[{"text":"hi"}]}],'
        b'"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":'
        + schema
        + b"}}}]}}",
    }[family]


SCHEMA_PATHS = {
    "openai": "$.tools[0].function.parameters",
    "ollama": "$.tools[0].function.parameters",
    "anthropic": "$.tools[0].input_schema",
    "gemini": "$.tools[0].functionDeclarations[0].parameters",
    "openai-responses": "$.tools[0].parameters",
    "bedrock": "$.toolConfig.tools[0].toolSpec.inputSchema.json",
}


class TestDepthLimit:
    """A value chatcodec walks (a tool schema) deeper than MAX_DEPTH is refused where it is read."""

    @pytest.mark.parametrize("schema", [ITEMS_SCHEMA, ENUM_SCHEMA], ids=["items", "enum"])
    @pytest.mark.parametrize("family", sorted(SCHEMA_PATHS))
    def test_every_decoder_refuses_a_deep_schema(self, family: str, schema: bytes) -> None:
        body = _request_with_schema(family, schema)
        with pytest.raises(cc.DepthError) as caught:
            providers.get(family).decode_request(body)
        error = caught.value
        assert isinstance(error, cc.ChatCodecError)
        assert isinstance(error, ValueError)
        assert error.limit == 128
        assert error.path.startswith(SCHEMA_PATHS[family])
        assert error.rule == "must not nest arrays and objects more than 128 deep"
        assert str(error) == f"{error.rule} - at `{error.path}`"

    @pytest.mark.parametrize("target", sorted(SCHEMA_PATHS))
    @pytest.mark.parametrize("source", ["openai", "anthropic"])
    def test_convert_refuses_a_deep_schema(self, source: str, target: str) -> None:
        body = _request_with_schema(source, ITEMS_SCHEMA)
        with pytest.raises(cc.DepthError):
            cc.convert(body, source=source, target=target, max_tokens=8)

    def test_schema_at_the_limit_is_taken(self) -> None:
        # 128 levels counted from the schema object itself: it and 127 inside.
        inner = b'{"items":' * 125 + b"{}" + b"}" * 125
        schema = b'{"type":"object","properties":{"a":' + inner + b"}}"
        assert msgspec.json.decode(schema) is not None
        request = providers.get("openai").decode_request(_request_with_schema("openai", schema))
        assert request.tools is not None
        body = _request_with_schema("openai", schema)
        for target in SCHEMA_PATHS:
            cc.convert(body, source="openai", target=target, max_tokens=8)
        deeper = b'{"type":"object","properties":{"a":' + b'{"items":' + inner + b"}" + b"}}"
        with pytest.raises(cc.DepthError):
            providers.get("openai").decode_request(_request_with_schema("openai", deeper))

    def test_a_built_definition_is_checked(self) -> None:
        schema: dict[str, Any] = {}
        for _ in range(2000):
            schema = {"items": schema}
        with pytest.raises(cc.DepthError) as caught:
            cc.ToolDefinition("f", parameters={"type": "object", "properties": {"a": schema}})
        assert caught.value.path == "$.parameters"

    def test_deep_arguments_are_checked_before_a_walk(self) -> None:
        nested: Any = None
        for _ in range(2000):
            nested = [nested]
        with pytest.raises((cc.DepthError, cc.ValidationError)):
            cc.tool_call("c", "f", {"a": nested})
        data = b'{"a":' + b"[" * 700 + b"null" + b"]" * 700 + b"}"
        call = cc.ToolCall("c", "f", msgspec.Raw(data))
        with pytest.raises(cc.DepthError):  # a null the type does not take: the nulls are cut
            call.arguments_as(dict[str, list[list[int]]])

    def test_depth_error_pickles(self) -> None:
        import pickle

        error = cc.DepthError(128, "$.tools[0].parameters")
        again = pickle.loads(pickle.dumps(error))
        assert (again.limit, again.path, str(again)) == (error.limit, error.path, str(error))


class TestDeepExtrasInStreamWriters:
    """Unknown fields nested hundreds deep, which the decoders read, are written back as streams."""

    N = 550
    DEEP_VALUE = b'{"a":' * N + b"1" + b"}" * N
    BODIES: ClassVar[dict[str, bytes]] = {
        "gemini": b'{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},'
        b'"finishReason":"STOP","x":' + DEEP_VALUE + b"}]}",
        "anthropic": b'{"id":"m","type":"message","role":"assistant","model":"m",'
        b'"content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","x":'
        + DEEP_VALUE
        + b"}",
        "bedrock": b'{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},'
        b'"stopReason":"end_turn","x":' + DEEP_VALUE + b"}",
    }

    @pytest.mark.parametrize("family", sorted(BODIES))
    def test_encode_stream_and_head(self, family: str) -> None:
        codec = providers.get(family)
        response = codec.decode_response(self.BODIES[family])
        stream = codec.encode_stream(response, losses=[])
        decoder = codec.stream()
        decoder.feed(stream)
        assert decoder.finish().choices[0].message == response.choices[0].message
        codec.stream_encoder(response)

    @pytest.mark.parametrize("step", [1, 7, 64, 1 << 20])
    @pytest.mark.parametrize("target", sorted(BODIES))
    def test_translate_a_deep_part(self, target: str, step: int) -> None:
        data = (
            b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi","x":'
            + self.DEEP_VALUE
            + b'}]},"finishReason":"STOP"}]}\n\n'
        )
        translator = cc.translate_stream("gemini", target)
        for i in range(0, len(data), step):
            translator.feed(data[i : i + step])
        translator.finish()

    @pytest.mark.parametrize("step", [1, 7, 64, 1 << 20])
    def test_recorded_translation(self, step: int) -> None:
        """The fuzzer's input (after its 8-byte header): a gemini stream translated to gemini."""
        recorded = (DATA / "hostile" / "translate_gemini_gemini_recursion.bin").read_bytes()
        data = recorded[8:]
        translator = cc.translate_stream("gemini", "gemini")

        def run() -> None:
            for i in range(0, len(data), step):
                translator.feed(data[i : i + step])
            translator.finish()

        with pytest.raises(cc.StreamError, match=r"must be an object"):
            run()


def _built_deep(levels: int = 10_000) -> dict[str, Any]:
    """A value a caller built, ``levels`` objects and arrays deep."""
    value: dict[str, Any] = {}
    for _ in range(levels // 2):
        value = {"private": [value]}
    return value


DEEP_BUILT = _built_deep()
RULE = "must not nest arrays and objects more than 128 deep"


def _refused(where: str, write: Callable[[], Any]) -> None:
    """``write`` raises DepthError naming ``where``, and no content, never RecursionError."""
    with pytest.raises(cc.DepthError) as caught:
        write()
    error = caught.value
    assert isinstance(error, cc.ChatCodecError)
    assert (error.limit, error.rule, error.path) == (128, RULE, where)
    assert str(error) == f"{RULE} - at `{where}`"
    assert "private" not in str(error)


class TestDeepBuiltValuesInEncoders:
    """A value a caller built 10,000 deep is refused by every encoder with DepthError."""

    @staticmethod
    def request(family: str, where: str) -> cc.Request:
        own = {family: {"note": DEEP_BUILT}}
        call = cc.ToolCall("c1", "f", msgspec.Raw(b"{}"), extras=own if where == "call" else None)
        messages: list[Any] = [
            cc.UserMessage("Hi", extras=own if where == "message" else None),
            cc.AssistantMessage(tool_calls=(call,)),
            cc.ToolMessage(tool_call_id="c1", content="ok"),
            cc.UserMessage((cc.TextPart("Go on", extras=own if where == "part" else None),)),
        ]
        tool = cc.ToolDefinition("f", extras=own if where == "tool" else None)
        return cc.Request(
            tuple(messages),
            model="m",
            max_tokens=8,
            tools=(tool,),
            extras=own if where == "request" else None,
        )

    REQUEST_PLACES: ClassVar[dict[str, str]] = {
        "request": "$.extras",
        "message": "$.messages[0].extras",
        "call": "$.messages[1].tool_calls[0].extras",
        "part": "$.messages[3].content[0].extras",
        "tool": "$.tools[0].extras",
    }
    # What a family has no place for is reported lost, not written: nothing to refuse.
    NOT_WRITTEN: ClassVar[set[tuple[str, str]]] = {
        ("ollama", "part"),
        ("bedrock", "message"),
        ("bedrock", "part"),
    }

    @pytest.mark.parametrize("where", sorted(REQUEST_PLACES))
    @pytest.mark.parametrize("family", providers.NAMES)
    def test_requests(self, family: str, where: str) -> None:
        if (family, where) in self.NOT_WRITTEN:
            pytest.skip(f"{family} does not write {where} extras")
        codec = providers.get(family)
        request = self.request(family, where)
        place = self.REQUEST_PLACES[where]
        _refused(place, lambda: codec.encode_request(request, losses=[]))
        key = None if family == "bedrock" else "k"  # Bedrock's requests are signed
        _refused(place, lambda: http.build_request(family, request, api_key=key))

    @pytest.mark.parametrize("where", ["response", "message", "call"])
    @pytest.mark.parametrize("family", providers.NAMES)
    def test_responses_and_streams(self, family: str, where: str) -> None:
        if (family, where) in self.NOT_WRITTEN:
            pytest.skip(f"{family} does not write {where} extras")
        codec = providers.get(family)
        own = {family: {"note": DEEP_BUILT}}
        call = cc.ToolCall("c1", "f", msgspec.Raw(b"{}"), extras=own if where == "call" else None)
        message = cc.AssistantMessage(
            content="Hi", tool_calls=(call,), extras=own if where == "message" else None
        )
        response = cc.Response(
            (cc.Choice(message, cc.FinishReason.TOOL_CALLS),),
            id="r",
            model="m",
            usage=cc.Usage(3, 4),
            extras=own if where == "response" else None,
        )
        place = {
            "response": "$.extras",
            "message": "$.choices[0].message.extras",
            "call": "$.choices[0].message.tool_calls[0].extras",
        }[where]
        _refused(place, lambda: codec.encode_response(response))
        _refused(place, lambda: codec.encode_stream(response))
        _refused(place, lambda: codec.stream_encoder(response))

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_stream_events(self, family: str) -> None:
        encoder = providers.get(family).stream_encoder(cc.Response(id="r", model="m"))
        part = cc.TextPart("Hi", extras={family: {"note": DEEP_BUILT}})
        if family in ("openai", "ollama", "bedrock"):
            encoder.encode(cc.PartReceived(part))  # written as text, its extras lost
        else:
            _refused("$.part.extras", lambda: encoder.encode(cc.PartReceived(part)))
        encoder.encode(cc.Finished(cc.FinishReason.STOP))
        assert encoder.finish()

    @pytest.mark.parametrize("target", providers.NAMES)
    @pytest.mark.parametrize("source", providers.NAMES)
    def test_convert_of_a_built_body(self, source: str, target: str) -> None:
        body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "meta": DEEP_BUILT}
        # The member is named as every input key is (one outside the vocabulary by a hash).
        _refused(
            "$" + key_step("meta"),
            lambda: cc.convert(body, source=source, target=target, max_tokens=8),
        )

    def test_a_tool_schema_is_refused_where_it_is_built(self) -> None:
        schema = {"type": "object", "properties": {"a": DEEP_BUILT}}
        _refused("$.parameters", lambda: cc.ToolDefinition("f", parameters=schema))

    def test_a_response_formats_schema_is_refused_where_it_is_built(self) -> None:
        schema = {"type": "object", "properties": {"a": DEEP_BUILT}}
        _refused("$.schema", lambda: cc.ResponseFormat("json_schema", "a", schema=schema))

    def test_a_stack_near_its_limit_is_no_depth_error(self) -> None:
        # A RecursionError with no value past the limit is the caller's own stack.
        request = cc.Request((cc.UserMessage("Hi"),), model="m")

        def down(levels: int) -> None:
            if levels:
                down(levels - 1)
            else:
                providers.get("openai").encode_request(request)

        with pytest.raises(RecursionError):
            down(10_000)


# -- indexes from the wire --------------------------------------------------------------

_ADDED = (
    b'data: {"type":"response.output_item.added","output_index":0,'
    b'"item":{"type":"message","id":"m","role":"assistant","content":[]}}\n\n'
)


def _text_delta(index: bytes, key: bytes = b"content_index") -> bytes:
    return (
        b'data: {"type":"response.output_text.delta","output_index":0,"'
        + key
        + b'":'
        + index
        + b',"delta":"hi"}\n\n'
    )


def _part_added(index: bytes) -> bytes:
    return (
        b'data: {"type":"response.content_part.added","output_index":0,"content_index":'
        + index
        + b',"part":{"type":"output_text","text":""}}\n\n'
    )


class TestWireIndexes:
    """An index from the wire names what exists or the next one; it never sizes anything."""

    @pytest.mark.parametrize(
        ("index", "rule"),
        [
            (b'"0"', "must be an integer"),
            (b"{}", "must be an integer"),
            (b"[]", "must be an integer"),
            (b"-1", "must be the index of a part so far or of the next one"),
            (b"1000000", "must be the index of a part so far or of the next one"),
            (b"18446744073709551616", "must be the index of a part so far or of the next one"),
        ],
    )
    def test_responses_text_delta(self, index: bytes, rule: str) -> None:
        decoder = providers.get("openai-responses").stream()
        events = decoder.feed(_ADDED + _text_delta(index))
        assert [type(e) for e in events] == [cc.TextDelta]
        with pytest.raises(cc.StreamError) as caught:
            decoder.finish(allow_incomplete=True)
        assert str(caught.value) == f"{rule} - at `$.content_index`"

    @pytest.mark.parametrize("index", [b"-1", b"2", b"1000000", b"18446744073709551616", b'"0"'])
    def test_responses_content_part(self, index: bytes) -> None:
        decoder = providers.get("openai-responses").stream()
        with pytest.raises(cc.StreamError, match=r"- at `\$\.content_index`"):
            decoder.feed(_ADDED + _part_added(index))

    def test_responses_summary_index(self) -> None:
        decoder = providers.get("openai-responses").stream()
        reasoning = (
            b'data: {"type":"response.output_item.added","output_index":0,'
            b'"item":{"type":"reasoning","id":"r","summary":[]}}\n\n'
        )
        decoder.feed(
            reasoning + b'data: {"type":"response.reasoning_summary_text.delta","output_index":0,'
            b'"summary_index":10000000,"delta":"x"}\n\n'
        )
        with pytest.raises(cc.StreamError, match=r"- at `\$\.summary_index`"):
            decoder.finish(allow_incomplete=True)

    def test_responses_indexes_that_exist_or_come_next(self) -> None:
        decoder = providers.get("openai-responses").stream()
        decoder.feed(_ADDED + _part_added(b"0") + _text_delta(b"0") + _text_delta(b"1"))
        decoder.feed(_text_delta(b"2") + _part_added(b"3"))
        message = decoder.finish(allow_incomplete=True).choices[0].message
        assert message is not None
        assert not isinstance(message.content, str)
        assert len(message.content or ()) == 4  # the parts named, none more

    def test_responses_translator(self) -> None:
        translator = cc.translate_stream("openai-responses", "openai")
        translator.feed(_ADDED + _text_delta(b"{}"))
        translator.finish(allow_incomplete=True)

    @pytest.mark.parametrize("index", [b"99999999999999999999", b"-1", b"5"])
    def test_openai_reasoning_details_index(self, index: bytes) -> None:
        body = (
            b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
            b'{"reasoning_details":[{"type":"reasoning.text","text":"a","index":'
            + index
            + b"}]}}]}\n\n"
        )
        rule = "must be the index of an entry so far or of the next one"
        path = "$.choices[0].delta.reasoning_details[0].index"
        decoders: tuple[Any, ...] = (
            providers.get("openai").stream(),
            cc.translate_stream("openai", "anthropic"),
        )
        for decoder in decoders:

            def run(decoder: Any = decoder) -> None:
                decoder.feed(body)
                decoder.finish()

            with pytest.raises(cc.StreamError) as caught:
                run()
            assert str(caught.value) == f"{rule} - at `{path}`"

    def test_openai_reasoning_details_by_index(self) -> None:
        def chunk(entries: bytes, finish: bytes = b"") -> bytes:
            return (
                b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
                b'"delta":{"reasoning_details":' + entries + b"}" + finish + b"}]}\n\n"
            )

        decoder = providers.get("openai").stream()
        decoder.feed(chunk(b'[{"type":"reasoning.text","text":"a","index":0}]'))
        decoder.feed(chunk(b'[{"type":"reasoning.text","text":"b","index":0}]'))
        decoder.feed(chunk(b'[{"type":"reasoning.text","text":"c","index":1}]'))
        decoder.feed(chunk(b'[{"type":"reasoning.text","text":"d"}]', b',"finish_reason":"stop"'))
        decoder.feed(b"data: [DONE]\n\n")
        response = decoder.finish()
        extras = response.choices[0].message.extras if response.choices[0].message else None
        body = providers.get("openai").encode_response(response)
        details = msgspec.json.decode(body)["choices"][0]["message"]["reasoning_details"]
        assert [d["text"] for d in details] == ["ab", "c", "d"], extras


# -- JSON values where a string is expected -------------------------------------------


class TestUnhashableWhereAStringIsExpected:
    """An object or array where a string is expected is the family's error, never TypeError."""

    @pytest.mark.parametrize("value", [b"{}", b"[]"])
    def test_responses_item_type(self, value: bytes) -> None:
        body = (
            b'{"object":"response","status":"completed","output":[{"type":'
            + value
            + b',"role":"assistant","content":[]}]}'
        )
        with pytest.raises(cc.ValidationError) as caught:
            providers.get("openai-responses").decode_response(body)
        assert str(caught.value) == "must be a string - at `$.output[0].type`"
        with pytest.raises(cc.ValidationError):
            cc.convert(body, source="openai-responses", target="anthropic", kind="response")

    def test_responses_item_type_after_a_message(self) -> None:
        body = (
            b'{"object":"response","status":"completed","output":[{"type":"message","id":"m",'
            b'"role":"assistant","content":[{"type":"output_text","text":"hi"}]},'
            b'{"type":[],"id":"x"}]}'
        )
        with pytest.raises(cc.ValidationError, match=r"at `\$\.output\[1\]\.type`"):
            providers.get("openai-responses").decode_response(body)

    def test_responses_reasoning_effort_object(self) -> None:
        request = providers.get("openai-responses").decode_request(
            b'{"reasoning":{"effort":{}},"input":"x"}'
        )
        assert request.reasoning is None  # kept as sent
        body = providers.get("openai-responses").encode_request(request)
        assert msgspec.json.decode(body)["reasoning"] == {"effort": {}}

    def test_responses_stream_item_type(self) -> None:
        data = (
            b'data: {"type":"response.output_item.done","output_index":0,'
            b'"item":{"type":[],"id":"x"}}\n\n'
        )
        with pytest.raises(cc.StreamError, match=r"must be a string - at `\$\.item\.type`"):
            providers.get("openai-responses").stream().feed(data)

    def test_responses_stream_item_ids_not_strings(self) -> None:
        data = (
            b'data: {"type":"response.output_item.done","output_index":0,"item":'
            b'{"type":"web_search_call","id":{},"status":"completed"}}\n\n'
            b'data: {"type":"response.output_item.done","output_index":1,"item":'
            b'{"type":"web_search_call","id":{},"status":"completed"}}\n\n'
        )
        translator = cc.translate_stream("openai-responses", "openai-responses")
        out = translator.feed(data)
        events = providers.get("openai-responses").stream().feed(data)
        encoder = providers.get("openai-responses").stream_encoder()
        written = b"".join(encoder.encode(e) for e in events)
        assert out
        assert written

    @pytest.mark.parametrize("form", [b"{}", b"[]"])
    def test_bedrock_image_format(self, form: bytes) -> None:
        image = b'{"image":{"format":' + form + b',"source":{"bytes":"aGk="}}}'
        bodies = [
            b'{"messages":[{"role":"user","content":[' + image + b"]}]}",
            b'{"messages":[{"role":"user","content":[{"text":"q"}]},{"role":"assistant",'
            b'"content":[{"toolUse":{"toolUseId":"t","name":"f","input":{}}}]},'
            b'{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":['
            + image
            + b"]}}]}]}",
        ]
        for body in bodies:
            request = providers.get("bedrock").decode_request(body)
            # Not an image chatcodec models: kept as the block was sent.
            again = providers.get("bedrock").encode_request(request)
            assert msgspec.json.decode(again)["messages"] == msgspec.json.decode(body)["messages"]
            cc.convert(body, source="bedrock", target="openai")
