from __future__ import annotations

import inspect
import sys
from typing import Any

import msgspec
import pytest

import chatcodec as cc
from chatcodec._messages import MESSAGE_TYPES

CALL = cc.ToolCall("call_1", "get_weather", msgspec.Raw(b'{"city":"Paris"}'))


class TestRules:
    """Each single-message rule has a passing and a failing case, built and decoded."""

    @pytest.mark.parametrize("cls", [cc.SystemMessage, cc.DeveloperMessage, cc.UserMessage])
    def test_content_must_not_be_empty(self, cls: type[cc.Message]) -> None:
        assert cls("x").content == "x"  # type: ignore[call-arg]
        with pytest.raises(cc.ValidationError) as info:
            cls("")  # type: ignore[call-arg]
        assert (info.value.path, info.value.rule) == ("$.content", "must not be empty")
        role = cls.role.value
        with pytest.raises(cc.ValidationError, match=r"must not be empty - at `\$.content`"):
            cc.decode(f'{{"role":"{role}","content":""}}'.encode())

    def test_user_parts_must_not_be_empty(self) -> None:
        assert cc.UserMessage((cc.TextPart("a"),)).text == "a"
        with pytest.raises(cc.ValidationError, match="must not be empty"):
            cc.UserMessage(())

    def test_assistant_needs_content_or_tool_calls(self) -> None:
        assert cc.AssistantMessage("").content == ""
        assert cc.AssistantMessage(None, (CALL,)).tool_calls == (CALL,)
        assert cc.AssistantMessage(None, (), (cc.InvalidToolCall(arguments="{"),))
        with pytest.raises(cc.ValidationError, match="must have content or tool calls"):
            cc.AssistantMessage()

    def test_assistant_tool_call_ids_are_unique(self) -> None:
        other = cc.ToolCall("call_2", "f", msgspec.Raw(b"{}"))
        assert len(cc.AssistantMessage(None, (CALL, other)).tool_calls) == 2
        with pytest.raises(cc.ValidationError) as info:
            cc.AssistantMessage(None, (CALL, CALL))
        assert (info.value.path, info.value.rule) == (
            "$.tool_calls",
            "tool call ids must be unique",
        )
        clash = cc.InvalidToolCall(id="call_1", arguments="{")
        with pytest.raises(cc.ValidationError, match="unique"):
            cc.AssistantMessage(None, (CALL,), (clash,))
        nameless = cc.InvalidToolCall(arguments="{")
        assert cc.AssistantMessage(None, (CALL,), (nameless, nameless))

    def test_tool_message_needs_tool_call_id(self) -> None:
        assert cc.ToolMessage("c", "").content == ""
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolMessage("", "x")
        assert info.value.path == "$.tool_call_id"
        with pytest.raises(cc.ValidationError, match="missing required field `content`"):
            cc.decode(b'{"role":"tool","tool_call_id":"c"}')


SECRET = 123456789
# Typed Any: these tests pass what the annotations forbid.
NUMBER: Any = SECRET
NOTHING: Any = None


def loose(value: object) -> Any:
    return value


class TestTypesAtConstruction:
    """A value of the wrong type is refused where it is built, not where it is encoded."""

    @pytest.mark.parametrize(
        ("build", "path", "rule"),
        [
            (lambda: cc.UserMessage(NUMBER), "$.content", "must be a string or a tuple of parts"),
            (
                lambda: cc.UserMessage(loose(["a"])),
                "$.content",
                "must be a string or a tuple of parts",
            ),
            (lambda: cc.user(NUMBER), "$.content", "must be a string or a tuple of parts"),
            (lambda: cc.SystemMessage(NUMBER), "$.content", "must be a string"),
            (lambda: cc.DeveloperMessage(NOTHING), "$.content", "must be a string"),
            (
                lambda: cc.AssistantMessage(content=NUMBER),
                "$.content",
                "must be a string or a tuple of parts",
            ),
            (
                lambda: cc.AssistantMessage(None, loose([CALL])),
                "$.tool_calls",
                "must be a tuple of tool calls",
            ),
            (
                lambda: cc.AssistantMessage("a", invalid_tool_calls=loose([])),
                "$.invalid_tool_calls",
                "must be a tuple of tool calls",
            ),
            (
                lambda: cc.ToolMessage("c1", NOTHING),
                "$.content",
                "must be a string or a tuple of parts",
            ),
            (
                lambda: cc.tool_result("c1", NOTHING),
                "$.content",
                "must be a string or a tuple of parts",
            ),
            (lambda: cc.ToolMessage(NUMBER, "r"), "$.tool_call_id", "must be a string"),
            (
                lambda: cc.ToolMessage("c1", "r", is_error=loose("yes")),
                "$.is_error",
                "must be true or false",
            ),
            (lambda: cc.UserMessage("hi", id=NUMBER), "$.id", "must be a string"),
            (lambda: cc.system("s", id=NUMBER), "$.id", "must be a string"),
        ],
    )
    def test_refused(self, build: Any, path: str, rule: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            build()
        assert (info.value.path, info.value.rule) == (path, rule)
        assert str(SECRET) not in str(info.value)

    def test_str_subclasses_are_text(self) -> None:
        class Markup(str):
            pass

        assert cc.UserMessage(Markup("hi")).content == "hi"
        assert cc.SystemMessage(Markup("s")).content == "s"
        with pytest.raises(cc.ValidationError, match="must not be empty"):
            cc.UserMessage(Markup(""))

    def test_decode_accepts_what_encode_writes(self) -> None:
        messages = [
            cc.tool_result("c1", ""),
            cc.ToolMessage("c1", (cc.TextPart("t"),), is_error=True),
            cc.user("hi", id="m1"),
            cc.assistant("", [CALL], id="m2"),
        ]
        for message in messages:
            assert cc.decode(cc.encode(message)) == message
            assert cc.decode(cc.encode(message, format="msgpack"), format="msgpack") == message

    @pytest.mark.parametrize(
        "factory", [cc.system, cc.developer, cc.user, cc.assistant, cc.tool_result]
    )
    def test_factories_document_their_preconditions(self, factory: Any) -> None:
        doc = inspect.getdoc(factory) or ""
        assert "Raises\n------\nValidationError" in doc


class TestFactories:
    """The factories build the same values as the classes."""

    def test_factories(self) -> None:
        assert cc.system("s", id="1") == cc.SystemMessage("s", id="1")
        assert cc.developer("d") == cc.DeveloperMessage("d")
        assert cc.user("u", metadata={"k": 1}) == cc.UserMessage("u", metadata={"k": 1})
        assert cc.assistant("a") == cc.AssistantMessage("a")
        assert cc.assistant(tool_calls=[CALL]) == cc.AssistantMessage(None, (CALL,))
        assert cc.tool_result("c", "r", is_error=True) == cc.ToolMessage("c", "r", is_error=True)

    def test_user_parts_from_strings(self) -> None:
        image = cc.ImagePart(url="https://x/y.png")
        message = cc.user(["look", image])
        assert message.content == (cc.TextPart("look"), image)
        assert message.text == "look"

    def test_factories_validate(self) -> None:
        with pytest.raises(cc.ValidationError):
            cc.user([])
        with pytest.raises(cc.ValidationError):
            cc.assistant()


class TestValueSemantics:
    """Messages are frozen values: equal by content, hashable, small."""

    def test_frozen(self) -> None:
        message = cc.user("x")
        with pytest.raises(AttributeError):
            message.content = "y"  # type: ignore[misc]

    def test_equality_and_hash(self) -> None:
        assert cc.user("x") == cc.user("x")
        assert cc.user("x") != cc.system("x")  # type: ignore[comparison-overlap]
        assert hash(cc.user("x")) == hash(cc.user("x"))
        assert hash(cc.assistant(None, [CALL])) == hash(cc.assistant(None, [CALL]))
        assert len({cc.user("x"), cc.user("x"), cc.user("y")}) == 2

    def test_hashable_with_metadata(self) -> None:
        a = cc.user("x", metadata={"a": [1, {"b": 2}]})
        b = cc.decode(cc.encode(a))
        assert a == b
        assert hash(a) == hash(b)
        assert len({a, b, cc.user("x")}) == 2
        assert a.metadata == {"a": [1, {"b": 2}]}  # still compares with plain values

    def test_metadata_cannot_change_in_place(self) -> None:
        given = {"a": 1, "nested": {"b": [1]}}
        message = cc.user("x", metadata=given)
        given["a"] = 2  # the caller's dict is theirs: the message holds a copy
        assert message.metadata is not None
        assert message.metadata["a"] == 1
        with pytest.raises(TypeError, match="cannot be changed"):
            message.metadata["a"] = 999
        with pytest.raises(TypeError, match="cannot be changed"):
            message.metadata["nested"]["b"].append(2)
        with pytest.raises(TypeError, match="cannot be changed"):
            message.metadata.update(a=3)
        conv = cc.Conversation([message], policy="provider")
        with pytest.raises(TypeError):
            conv.messages[0].metadata["a"] = 999  # type: ignore[index]
        assert (
            cc.encode(message)
            == b'{"role":"user","content":"x","metadata":{"a":1,"nested":{"b":[1]}}}'
        )

    def test_every_metadata_is_frozen(self) -> None:
        details = cc.ToolResultDetails(output={"rows": [1, 2]})
        record = cc.ControlRecord("mode_change", parameters={"p": [1]}, metadata={"m": {}})
        transcript = cc.Transcript(v=2, metadata={"t": [1]})
        for value in (details.output, record.parameters, record.metadata, transcript.metadata):
            with pytest.raises(TypeError):
                value.clear()  # type: ignore[union-attr]
        assert hash(record) == hash(cc.decode(cc.encode(record), type=cc.ControlRecord))
        decoded = cc.decode(b'{"role":"system","content":"s","metadata":{"k":[1]}}')
        with pytest.raises(TypeError):
            decoded.metadata["k"].append(2)  # type: ignore[index, union-attr]

    def test_roles(self) -> None:
        assert [cls.role for cls in MESSAGE_TYPES.values()] == list(cc.Role)
        assert cc.assistant("x").role is cc.Role.ASSISTANT

    @pytest.mark.parametrize(
        "message",
        [
            cc.system("s"),
            cc.user("u"),
            cc.assistant(None, [CALL]),
        ],
    )
    def test_size_is_at_most_64_bytes(self, message: cc.Message) -> None:
        assert sys.getsizeof(message) <= 64

    def test_tool_message_size(self) -> None:
        # Three slots more than the others: the tool's name, the run's details and
        # the cache point a result may close.
        assert sys.getsizeof(cc.tool_result("c", "r")) <= 88

    def test_str_shows_role_and_sizes(self) -> None:
        assert str(cc.user("hello")) == "user: 5 chars"
        assert str(cc.assistant("ok", [CALL])) == "assistant: 2 chars, 1 tool calls"
        assert str(cc.assistant(None, [], invalid_tool_calls=[cc.InvalidToolCall()])) == (
            "assistant: no content, 1 invalid tool calls"
        )
        assert str(cc.tool_result("c", "boom", is_error=True)) == "tool: 4 chars, error"

    def test_repr_shows_shapes(self) -> None:
        assert repr(cc.user("hello", id="m1")) == "UserMessage(content=<5 chars>, id=<2 chars>)"
        assert repr(cc.assistant(None, [CALL])) == (
            "AssistantMessage(tool_calls=(ToolCall(id=<6 chars>, name=<11 chars>, "
            "arguments=<16 bytes>),))"
        )


class TestText:
    """Every message has one text accessor."""

    def test_every_message_has_text(self) -> None:
        messages: list[cc.Message] = [
            cc.system("Be brief."),
            cc.developer("Be brief."),
            cc.user(["Be ", "brief."]),
            cc.assistant("Be brief."),
            cc.tool_result("c1", "Be brief."),
        ]
        assert [m.text for m in messages] == ["Be brief."] * 5
        assert {type(m).text.__doc__ is not None for m in messages} == {True}

    def test_text_of_messages_without_text(self) -> None:
        assert cc.assistant(tool_calls=[cc.tool_call("c1", "f")]).text == ""
        assert cc.tool_result("c1", "").text == ""
