from __future__ import annotations

import io
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from strategies import (
    content_parts,
    deltas,
    messages,
    strict_conversations,
    tool_calls,
    tool_definitions,
    tool_results,
    usages,
)

FORMATS: list[cc.Format] = ["json", "msgpack"]


def roundtrip(obj: Any, type_: Any, format: cc.Format) -> Any:
    return cc.decode(cc.encode(obj, format=format), type=type_, format=format)


class TestRoundTrip:
    """encode -> decode gives back an equal value, for every type and both formats."""

    @pytest.mark.parametrize("format", FORMATS)
    @given(message=messages)
    def test_message(self, format: cc.Format, message: cc.Message) -> None:
        assert roundtrip(message, cc.Message, format) == message

    @pytest.mark.parametrize("format", FORMATS)
    @given(items=st.lists(messages, max_size=5))
    def test_message_list(self, format: cc.Format, items: list[cc.Message]) -> None:
        assert roundtrip(items, list[cc.Message], format) == items

    @pytest.mark.parametrize("format", FORMATS)
    @given(history=strict_conversations())
    def test_conversation(self, format: cc.Format, history: list[cc.Message]) -> None:
        conv = cc.Conversation(history)
        back = roundtrip(conv, cc.Conversation, format)
        assert back == conv
        assert back.policy == "strict"

    @pytest.mark.parametrize("format", FORMATS)
    @pytest.mark.parametrize(
        ("strategy", "type_"),
        [
            (content_parts, cc.ContentPart),
            (tool_calls, cc.ToolCall),
            (tool_results, cc.ToolResult),
            (tool_definitions, cc.ToolDefinition),
            (usages, cc.Usage),
            (deltas, cc.ToolCallDelta),
        ],
    )
    @given(data=st.data())
    def test_other_types(
        self, format: cc.Format, strategy: st.SearchStrategy[Any], type_: Any, data: st.DataObject
    ) -> None:
        value = data.draw(strategy)
        assert roundtrip(value, type_, format) == value

    @given(call=tool_calls)
    def test_arguments_bytes_survive_exactly(self, call: cc.ToolCall) -> None:
        for format in FORMATS:
            back = roundtrip(call, cc.ToolCall, format)
            assert bytes(back.arguments) == bytes(call.arguments)

    def test_arguments_are_embedded_verbatim_in_json(self) -> None:
        raw = msgspec.Raw(b'{ "city" : "Par\\u00eds",\n "n": 1.50 }')
        message = cc.assistant(tool_calls=[cc.ToolCall("c1", "f", raw)])
        assert raw_bytes(message) in cc.encode(message)
        back = cc.decode(cc.encode(message))
        assert isinstance(back, cc.AssistantMessage)
        assert bytes(back.tool_calls[0].arguments) == bytes(raw)


def raw_bytes(message: cc.AssistantMessage) -> bytes:
    return bytes(message.tool_calls[0].arguments)


class TestCanonicalShape:
    """The JSON written is the documented canonical shape."""

    def test_null_and_default_fields_are_left_out(self) -> None:
        assert cc.encode(cc.assistant("Hi")) == b'{"role":"assistant","content":"Hi"}'
        assert cc.encode(cc.tool_result("c1", "")) == (
            b'{"role":"tool","tool_call_id":"c1","content":""}'
        )

    def test_shapes(self) -> None:
        call = cc.tool_call("call_1", "get_weather", {"city": "Paris"})
        convo = [
            cc.system("Be brief."),
            cc.user(["What is this?", cc.ImagePart(url="https://x/cat.png", detail="low")]),
            cc.assistant(None, [call], id="m3", metadata={"latency_ms": 410}),
            cc.tool_result("call_1", "boom", is_error=True),
        ]
        assert json.loads(cc.encode(convo)) == [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "url": "https://x/cat.png", "detail": "low"},
                ],
            },
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
                ],
                "id": "m3",
                "metadata": {"latency_ms": 410},
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "boom", "is_error": True},
        ]

    def test_conversation_document(self) -> None:
        conv = cc.Conversation([cc.user("Hi")], policy="lenient")
        assert json.loads(cc.encode(conv)) == {
            "v": 2,
            "records": [{"role": "user", "content": "Hi"}],
            "policy": "lenient",
        }

    def test_missing_optional_fields_decode(self) -> None:
        message = cc.decode(
            b'{"role":"assistant","content":null,"tool_calls":[{"id":"c",'
            b'"name":"f","arguments":{}}]}'
        )
        assert isinstance(message, cc.AssistantMessage)
        assert message.content is None
        assert cc.decode(b'{"role":"tool","tool_call_id":"c","content":"x"}') == cc.ToolMessage(
            "c", "x"
        )
        # null content and no calls breaks the assistant rule
        with pytest.raises(cc.ValidationError, match="must have content or tool calls"):
            cc.decode(b'{"role":"assistant","content":null,"tool_calls":[]}')

    def test_decode_accepts_str(self) -> None:
        assert cc.decode('{"role":"user","content":"é"}') == cc.user("é")


class TestExtras:
    """Unknown fields are kept in extras, at every level, and survive a round trip."""

    def test_top_level_unknown_field(self) -> None:
        message = cc.decode(
            b'{"role":"user","content":"x","lang":"en","n":[1,2]}', type=cc.UserMessage
        )
        assert message.extras == {"lang": "en", "n": [1, 2]}
        again = cc.decode(cc.encode(message))
        assert again == message

    def test_nested_unknown_fields_keep_argument_bytes(self) -> None:
        data = (
            b'[{"role":"assistant","refusal":null,"tool_calls":[{"id":"c1","name":"f",'
            b'"arguments":{ "a" : 1 },"index":0}]},{"role":"user","content":[{"type":"text",'
            b'"text":"t","cache_control":{"type":"ephemeral"}}]}]'
        )
        first, second = cc.decode(data, type=list[cc.Message])
        assert isinstance(first, cc.AssistantMessage)
        assert first.extras == {"refusal": None}
        assert first.tool_calls[0].extras == {"index": 0}
        assert bytes(first.tool_calls[0].arguments) == b'{ "a" : 1 }'
        assert isinstance(second, cc.UserMessage)
        assert isinstance(second.content, tuple)
        assert second.content[0].extras == {"cache_control": {"type": "ephemeral"}}

    def test_explicit_extras_merge_with_unknown(self) -> None:
        message = cc.decode(
            b'{"role":"user","content":"x","extras":{"a":1},"b":2}', type=cc.UserMessage
        )
        assert message.extras == {"a": 1, "b": 2}

    def test_field_both_unknown_and_in_extras_is_an_error(self) -> None:
        with pytest.raises(cc.ValidationError, match="both unknown and in extras"):
            cc.decode(b'{"role":"user","content":"x","extras":{"a":1},"a":2}')

    def test_msgpack_unknown_fields(self) -> None:
        data = msgspec.msgpack.encode({"role": "user", "content": "x", "lang": "en"})
        assert cc.decode(data, type=cc.UserMessage, format="msgpack").extras == {"lang": "en"}

    def test_unknown_field_in_a_conversation(self) -> None:
        data = b'{"v":1,"messages":[{"role":"system","content":"s","x":1}],"saved_by":"me"}'
        conv = cc.decode(data, type=cc.Conversation)
        assert conv[0].extras == {"x": 1}
        assert conv.extras == {"saved_by": "me"}
        assert json.loads(cc.encode(conv))["extras"] == {"saved_by": "me"}
        assert cc.decode(cc.encode(conv), type=cc.Conversation) == conv

    @pytest.mark.parametrize("format", FORMATS)
    def test_conversation_metadata_and_extras_survive(self, format: cc.Format) -> None:
        conv = cc.Conversation(
            [cc.user("u")], policy="lenient", metadata={"title": "t"}, extras={"x": [1]}
        )
        assert roundtrip(conv, cc.Conversation, format) == conv
        assert cc.decode_lenient(
            cc.encode(conv, format=format), type=cc.Conversation, format=format
        ) == (
            conv,
            [],
        )


class TestErrors:
    """Bad input gets a clear error naming the path and the rule."""

    @pytest.mark.parametrize(
        ("data", "error", "text"),
        [
            (b'{"role":"user","content":"x"', cc.DecodeError, "truncated"),
            (b'{"role":"user","content":"\xff"}', cc.DecodeError, "invalid UTF-8"),
            (b'{"role":"user"}', cc.ValidationError, "missing required field `content`"),
            (b'{"role":"USER","content":"x"}', cc.ValidationError, "role must be one of"),
            (
                b'{"role":"user","content":""}',
                cc.ValidationError,
                "must not be empty - at `$.content`",
            ),
            (
                b'{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":[1]}]}',
                cc.ValidationError,
                "must be a JSON object - at `$.tool_calls[0].arguments`",
            ),
            (
                b'{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{}"}]}',
                cc.ValidationError,
                "must be a JSON object - at `$.tool_calls[0].arguments`",
            ),
        ],
    )
    def test_bad_documents(self, data: bytes, error: type[Exception], text: str) -> None:
        with pytest.raises(error) as info:
            cc.decode(data)
        assert text in str(info.value)
        assert isinstance(info.value, cc.ChatCodecError)
        assert isinstance(info.value, ValueError)

    def test_paths_inside_lists(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(
                b'[{"role":"user","content":"a"},{"role":"user","content":""}]',
                type=list[cc.Message],
            )
        assert info.value.path == "$[1].content"
        assert info.value.rule == "must not be empty"

    def test_encode_error(self) -> None:
        with pytest.raises(cc.EncodeError) as info:
            cc.encode(cc.UserMessage("x", extras={"when": object()}))
        assert isinstance(info.value, TypeError)
        with pytest.raises(cc.EncodeError):
            cc.encode(cc.UserMessage("x", extras={"when": object()}), format="msgpack")

    def test_msgpack_errors(self) -> None:
        with pytest.raises(cc.DecodeError):
            cc.decode(b"\xc1", format="msgpack")
        with pytest.raises(cc.DecodeError, match="must be bytes"):
            cc.decode("text", format="msgpack")
        bad_args = msgspec.msgpack.encode(
            {"role": "assistant", "tool_calls": [{"id": "a", "name": "f", "arguments": "{oops"}]}
        )
        with pytest.raises(
            cc.ValidationError, match=r"must be JSON text - at `\$.tool_calls\[0\].arguments`"
        ):
            cc.decode(bad_args, format="msgpack")

    def test_unknown_format(self) -> None:
        with pytest.raises(ValueError, match="format"):
            cc.encode(cc.user("x"), format="xml")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="format"):
            cc.decode(b"{}", format="xml")  # type: ignore[call-overload]

    def test_conversation_version_is_checked(self) -> None:
        with pytest.raises(cc.ValidationError, match=r"unsupported version.* - at `\$.v`"):
            cc.decode(b'{"v":3,"records":[]}', type=cc.Conversation)
        with pytest.raises(cc.ValidationError, match="missing required field `v`"):
            cc.decode(b'{"records":[]}', type=cc.Conversation)

    def test_conversation_order_is_checked_on_decode(self) -> None:
        data = b'{"v":1,"messages":[{"role":"user","content":"x"}]}'
        with pytest.raises(cc.OrderingError, match="first message must be a system message"):
            cc.decode(data, type=cc.Conversation)


class TestLenient:
    """Lenient decoding repairs what it can and reports every repair and skip."""

    def test_repairs_are_warnings(self) -> None:
        data = json.dumps(
            [
                {"role": "USER", "content": {"q": 1}},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": 1}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": None},
                {"role": "assistant", "content": 3.5},
                {"role": "user", "content": ["hi", {"type": "image", "url": "u"}]},
            ]
        ).encode()
        value, problems = cc.decode_lenient(data)
        assert [str(m) for m in value] == [
            "user: 7 chars",
            "assistant: no content, 1 tool calls",
            "tool: 0 chars",
            "assistant: 3 chars",
            "user: 2 parts (text, image)",
        ]
        assert value[0].content == '{"q":1}'
        assert bytes(value[1].tool_calls[0].arguments) == b'{"a": 1}'
        assert all(p.severity == "warning" for p in problems)
        assert {p.path for p in problems} == {
            "$[0].role",
            "$[0].content",
            "$[1].tool_calls[0]",
            "$[1].tool_calls[0].arguments",
            "$[2].content",
            "$[3].content",
            "$[4].content",
        }

    def test_invalid_arguments_are_kept_not_dropped(self) -> None:
        data = (
            b'[{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{\\"x\\": 1"},'
            b'{"id":"b","name":"g","arguments":"[1]"},{"id":"c","name":"h","arguments":"{}"}]}]'
        )
        (message,), problems = cc.decode_lenient(data)
        assert isinstance(message, cc.AssistantMessage)
        assert [c.id for c in message.tool_calls] == ["c"]
        assert [(c.id, c.arguments, c.error) for c in message.invalid_tool_calls] == [
            ("a", '{"x": 1', "arguments are not valid JSON"),
            ("b", "[1]", "arguments are valid JSON but not an object"),
        ]
        assert len(problems) == 3

    def test_seed_repairs(self) -> None:
        # An assistant's null content without calls is empty text; a user's list
        # that is not parts is kept as its JSON text. Both warned.
        data = b'[{"role":"assistant","content":null},{"role":"user","content":[1,{"a":2}]}]'
        value, problems = cc.decode_lenient(data)
        assert value == [cc.assistant(""), cc.user('[1,{"a":2}]')]
        assert [(p.path, p.severity) for p in problems] == [
            ("$[0].content", "warning"),
            ("$[1].content", "warning"),
        ]

    def test_unrepairable_messages_are_skipped_and_reported(self) -> None:
        data = (
            b'[{"role":"user","content":null},{"role":"robot","content":"x"},'
            b'{"role":"user","content":"ok"},7]'
        )
        value, problems = cc.decode_lenient(data)
        # A role this version does not know is a newer kind: kept verbatim.
        assert value == [cc.UnknownRecord(b'{"role":"robot","content":"x"}'), cc.user("ok")]
        assert [(p.path, p.severity) for p in problems] == [
            ("$[0].content", "error"),
            ("$[1]", "warning"),
            ("$[3]", "error"),
        ]

    def test_single_message(self) -> None:
        assert cc.decode_lenient(b'{"role":"user","content":""}', type=cc.Message) == (
            None,
            [cc.Problem("$.content", "must not be empty")],
        )
        value, problems = cc.decode_lenient(b'{"role":"User","content":"x"}', type=cc.Message)
        assert value == cc.user("x")
        assert len(problems) == 1

    def test_msgpack(self) -> None:
        data = msgspec.msgpack.encode([{"role": "Tool", "tool_call_id": "c", "content": 5}, {}])
        value, problems = cc.decode_lenient(data, format="msgpack")
        assert value == [cc.tool_result("c", "5")]
        assert [p.severity for p in problems] == ["warning", "warning", "error"]

    def test_conversation_skips_and_reports_order_problems(self) -> None:
        data = json.dumps(
            {
                "v": 2,
                "policy": "strict",
                "records": [
                    {"role": "system", "content": "s"},
                    {"role": "tool", "tool_call_id": "nope", "content": "x"},
                    {"role": "user", "content": "u"},
                    {"role": "user", "content": ""},
                    {"role": "assistant", "content": "a"},
                ],
            }
        ).encode()
        conv, problems = cc.decode_lenient(data, type=cc.Conversation)
        assert [m.role for m in conv] == ["system", "user", "assistant"]
        assert [p.path for p in problems] == ["$.records[1]", "$.records[3].content"]
        conv.add(cc.user("next"))  # the state carries on
        assert len(conv) == 4

    @pytest.mark.parametrize(
        ("data", "paths", "policy"),
        [
            (b'{"records":[{"role":"user","content":"u"}]}', ["$.v"], "strict"),
            (b'{"v":3,"records":[{"role":"user","content":"u"}]}', ["$.v"], "strict"),
            (b'{"v":2,"policy":"loose","records":[]}', ["$.policy"], "lenient"),
            (b'{"v":2,"records":{"role":"user"}}', ["$.records"], "strict"),
            (b'{"v":2}', [], "strict"),
            (b'{"v":1,"messages":[]}', ["$.messages"], "strict"),
        ],
    )
    def test_conversation_envelope_problems(
        self, data: bytes, paths: list[str], policy: str
    ) -> None:
        for format in FORMATS:
            payload = data if format == "json" else msgspec.msgpack.encode(json.loads(data))
            conv, problems = cc.decode_lenient(payload, type=cc.Conversation, format=format)
            assert [
                p.path for p in problems if p.path in ("$.v", "$.policy", "$.messages", "$.records")
            ] == paths
            assert conv.policy == policy

    def test_unsupported_type(self) -> None:
        with pytest.raises(TypeError):
            cc.decode_lenient(b"{}", type=cc.ToolCall)

    def test_malformed_document_still_raises(self) -> None:
        with pytest.raises(cc.DecodeError):
            cc.decode_lenient(b"[{")


class TestEncodeErrorsShowNoContent:
    """An encode that fails names the problem, never the text around it."""

    @pytest.mark.parametrize("format", ["json", "msgpack"])
    def test_lone_surrogate(self, format: cc.Format) -> None:
        with pytest.raises(cc.EncodeError) as info:
            cc.encode(cc.user("my secret \ud800 text"), format=format)
        text = str(info.value)
        assert text == "a string holds an unpaired surrogate (not UTF-8)"
        assert "secret" not in text
        assert "\ud800" not in text
        assert "position" not in text

    def test_lone_surrogate_in_jsonl(self) -> None:
        with pytest.raises(cc.EncodeError) as info:
            cc.write_jsonl(io.BytesIO(), [cc.user("ok"), cc.user("my secret \udfff")])
        assert str(info.value) == "item 1: a string holds an unpaired surrogate (not UTF-8)"

    def test_other_failures_keep_their_kind(self) -> None:
        with pytest.raises(cc.EncodeError, match="cannot encode objects of type object"):
            cc.encode(cc.UserMessage("x", extras={"k": object()}))


class TestJsonl:
    """JSONL streams are read and written line by line."""

    def test_round_trip_binary_and_text(self) -> None:
        items = [cc.system("s"), cc.user("Hé"), cc.assistant("a")]
        binary = io.BytesIO()
        assert cc.write_jsonl(binary, items) == 3
        assert binary.getvalue().count(b"\n") == 3
        binary.seek(0)
        assert list(cc.iter_jsonl(binary)) == items
        text = io.StringIO()
        cc.write_jsonl(text, items)
        text.seek(0)
        assert list(cc.iter_jsonl(text)) == items

    def test_blank_lines_are_passed_over(self) -> None:
        lines = [
            b'{"role":"user","content":"a"}\n',
            b"\n",
            b"  \n",
            b'{"role":"user","content":"b"}',
        ]
        assert len(list(cc.iter_jsonl(lines))) == 2

    def test_strict_error_names_the_line(self) -> None:
        lines = [b'{"role":"user","content":"a"}', b'{"role":"user","content":""}']
        with pytest.raises(cc.ValidationError) as info:
            list(cc.iter_jsonl(lines))
        assert str(info.value).startswith("line 2: must not be empty")
        assert info.value.line == 2  # type: ignore[attr-defined]

    def test_lenient_reports_by_line(self) -> None:
        lines = [b'{"role":"user","content":"a"}', b"{oops", b'{"role":"User","content":"b"}']
        reader = cc.iter_jsonl(lines, lenient=True)
        assert [m.content for m in reader] == ["a", "b"]
        assert [(p.line, p.severity) for p in reader.problems] == [(2, "error"), (3, "warning")]
        assert "line 2" in str(reader.problems[0])

    def test_conversations_per_line(self) -> None:
        convs = [cc.Conversation([cc.system("s"), cc.user("u")]), cc.Conversation([cc.system("t")])]
        stream = io.BytesIO()
        cc.write_jsonl(stream, convs)
        stream.seek(0)
        assert list(cc.iter_jsonl(stream, type=cc.Conversation)) == convs

    def test_other_record_types(self) -> None:
        reader = cc.iter_jsonl(
            [b'{"prompt_tokens":1}', b'{"prompt_tokens":-1}'], type=cc.Usage, lenient=True
        )
        assert list(reader) == [cc.Usage(1)]
        assert reader.problems == [cc.Problem("$.prompt_tokens", "must not be negative", line=2)]

    def test_write_error(self) -> None:
        with pytest.raises(cc.EncodeError, match="item 1"):
            cc.write_jsonl(io.BytesIO(), [cc.user("a"), object()])


class TestReviewRegressions:
    """Cases found in review: each once lost data or gave the wrong answer."""

    def test_lenient_repair_keeps_argument_bytes(self) -> None:
        args = b'{"x": 1.50, "y": "\\u00e9", "a":1, "a":2}'
        data = (
            b'[{"role":"Assistant","tool_calls":[{"id":"c","name":"f","arguments":' + args + b"}]}]"
        )
        (message,), problems = cc.decode_lenient(data)
        assert isinstance(message, cc.AssistantMessage)
        assert bytes(message.tool_calls[0].arguments) == args
        assert [p.rule for p in problems] == ["role was not lowercase"]

    def test_function_unwrap_keeps_every_field(self) -> None:
        data = (
            b'[{"role":"assistant","tool_calls":[{"id":"c","type":"function",'
            b'"function":{"name":"f","arguments":"{}","strict":true,"x":1}}]}]'
        )
        (message,), _ = cc.decode_lenient(data)
        assert isinstance(message, cc.AssistantMessage)
        assert message.tool_calls[0].extras == {
            "type": "function",
            "function": {"strict": True, "x": 1},
        }

    def test_source_error_field_does_not_replace_ours(self) -> None:
        data = (
            b'[{"role":"assistant","tool_calls":'
            b'[{"id":"c","name":"f","arguments":"{","error":"theirs"}]}]'
        )
        (message,), _ = cc.decode_lenient(data)
        assert isinstance(message, cc.AssistantMessage)
        (bad,) = message.invalid_tool_calls
        assert bad.error == "arguments are not valid JSON"
        assert bad.extras == {"error": "theirs"}

    def test_invalid_tool_calls_of_the_wrong_type(self) -> None:
        data = b'[{"role":"assistant","content":"x","invalid_tool_calls":5,"tool_calls":[]}]'
        value, problems = cc.decode_lenient(data)
        assert value == []
        assert problems[0].path == "$[0].invalid_tool_calls"

    def test_lenient_header_keeps_metadata_and_unknown_fields(self) -> None:
        data = b'{"v":"1","policy":"loose","metadata":{"keep":1},"saved":2,"records":[]}'
        conv, problems = cc.decode_lenient(data, type=cc.Conversation)
        assert conv.metadata == {"keep": 1}
        assert conv.extras == {"v": "1", "policy": "loose", "saved": 2}
        assert conv.policy == "lenient"
        assert {p.path for p in problems} == {"$.v", "$.policy"}

    def test_indexes_after_a_lenient_decode(self) -> None:
        data = (
            b'{"v":2,"records":[{"role":"system","content":"s"},{"role":"bogus"},'
            b'{"role":"user"},{"role":"user","content":"u"}]}'
        )
        conv, problems = cc.decode_lenient(data, type=cc.Conversation)
        assert len(conv) == 2  # messages
        assert len(conv.records) == 3  # and the record of an unknown kind, kept
        assert [p.severity for p in problems] == ["warning", "error"]
        with pytest.raises(cc.OrderingError) as info:
            conv.add(cc.user("x"))
        assert info.value.index == 3

    def test_ordering_errors_name_the_messages_path(self) -> None:
        data = (
            b'{"v":2,"records":[{"role":"system","content":"s"},'
            b'{"role":"assistant","content":"a"}]}'
        )
        with pytest.raises(cc.OrderingError) as info:
            cc.decode(data, type=cc.Conversation)
        assert (info.value.index, info.value.path) == (1, "$.records[1]")

    def test_msgpack_key_paths(self) -> None:
        data = msgspec.msgpack.encode({"role": "user", "content": "x", "metadata": {1: 2}})
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(data, format="msgpack")
        assert info.value.path == "$.metadata[...]"
        assert "`" not in info.value.rule.replace("`str`", "").replace("`int`", "")

    def test_one_message_class_without_its_tag(self) -> None:
        message = cc.decode(b'{"content":"x","lang":"en"}', type=cc.UserMessage)
        assert message == cc.UserMessage("x", extras={"lang": "en"})

    def test_jsonl_lenient_lists_per_line(self) -> None:
        lines = [b'[{"role":"user","content":"a"},{"role":"user","content":""}]']
        reader = cc.iter_jsonl(lines, type=list[cc.Message], lenient=True)
        assert list(reader) == [[cc.user("a")]]
        assert [(p.line, p.path) for p in reader.problems] == [(1, "$[1].content")]

    def test_write_jsonl_to_text_streams_that_do_not_say_so(self) -> None:
        import tempfile

        with tempfile.SpooledTemporaryFile(mode="w+") as stream:
            assert cc.write_jsonl(stream, [cc.user("a")]) == 1
            stream.seek(0)
            assert stream.read() == '{"role":"user","content":"a"}\n'

        class Sink:
            def __init__(self) -> None:
                self.parts: list[str] = []

            def write(self, text: str) -> int:
                if not isinstance(text, str):
                    raise TypeError("text only")
                self.parts.append(text)
                return len(text)

        sink = Sink()
        cc.write_jsonl(sink, [cc.user("a"), cc.user("b")])  # type: ignore[arg-type]
        assert "".join(sink.parts).count("\n") == 2


class TestToBuiltins:
    """Plain JSON values where msgspec.to_builtins stops at a Raw."""

    def test_arguments_come_out_parsed(self) -> None:
        message = cc.assistant(tool_calls=[cc.tool_call("c1", "f", {"a": [1, 2.5, None]})])
        with pytest.raises(TypeError):
            msgspec.to_builtins(message)  # what a user meets without it
        plain = cc.to_builtins(message)
        assert plain == {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": [1, 2.5, None]}}],
        }
        assert json.loads(json.dumps(plain)) == plain

    def test_a_response_and_a_conversation(self) -> None:
        from chatcodec import providers

        body = (
            b'{"id":"r","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
            b'"message":{"role":"assistant","content":"Hi","tool_calls":[{"id":"c","type":'
            b'"function","function":{"name":"f","arguments":"{\\"x\\":1}"}}]},'
            b'"finish_reason":"tool_calls"}]}'
        )
        response = providers.get("openai").decode_response(body)
        assert response.text == "Hi"
        plain = cc.to_builtins(response)
        assert plain["choices"][0]["message"]["tool_calls"][0]["arguments"] == {"x": 1}
        conv = cc.Conversation([cc.user("Hi")], policy="provider")
        assert cc.to_builtins(conv)["records"] == [{"role": "user", "content": "Hi"}]

    def test_no_wire_form_is_an_encode_error(self) -> None:
        with pytest.raises(cc.EncodeError):
            cc.to_builtins(cc.UserMessage("x", extras={"k": object()}))
