"""LangChain messages: every canonical message round trips; LangChain's own shapes read."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatcodec as cc

lc = pytest.importorskip("langchain_core.messages")

from chatcodec.interop.langchain import NAME, from_langchain, to_langchain  # noqa: E402
from strategies import compact_arguments, messages  # noqa: E402

normalized = compact_arguments


class TestRoundTrip:
    """What chatcodec holds goes to LangChain and comes back equal."""

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(messages, min_size=1, max_size=5))
    def test_any_history(self, history: list[cc.Message]) -> None:
        written = to_langchain(history)
        for message in written:
            assert isinstance(message, lc.BaseMessage)
            # LangChain's own (de)serialization keeps it.
            assert type(message).model_validate(message.model_dump()) == message
        assert from_langchain(written) == normalized(history)

    def test_types_and_fields(self) -> None:
        call = cc.tool_call("c1", "f", {"a": 1})
        history: list[cc.Message] = [
            cc.system("S"),
            cc.developer("D"),
            cc.user([cc.TextPart("look"), cc.ImagePart(url="https://x/i.png", detail="low")]),
            cc.assistant("", tool_calls=[call]),
            cc.tool_result("c1", "out", is_error=True, name="f"),
        ]
        written = to_langchain(history)
        assert [type(m).__name__ for m in written] == [
            "SystemMessage",
            "SystemMessage",
            "HumanMessage",
            "AIMessage",
            "ToolMessage",
        ]
        assert written[1].additional_kwargs["__openai_role__"] == "developer"
        assert written[2].content == [
            {"type": "text", "text": "look"},
            {"type": "image", "url": "https://x/i.png", "extras": {"detail": "low"}},
        ]
        assert isinstance(written[3], lc.AIMessage)
        assert written[3].tool_calls == [
            {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}
        ]
        assert isinstance(written[4], lc.ToolMessage)
        assert (written[4].status, written[4].name, written[4].tool_call_id) == ("error", "f", "c1")
        assert from_langchain(written) == history

    def test_arguments_that_are_no_json(self) -> None:
        # What the class checks in O(1) (a leading brace) lets cut-off JSON through.
        message = cc.AssistantMessage(None, (cc.ToolCall("c1", "f", msgspec.Raw(b'{"a":')),))
        losses: list[cc.Loss] = []
        (written,) = to_langchain([message], losses=losses)
        assert isinstance(written, lc.AIMessage)
        assert written.tool_calls == []
        assert written.invalid_tool_calls[0]["args"] == '{"a":'
        assert [loss.path for loss in losses] == ["$[0].tool_calls[0].arguments"]


class TestLangChainShapes:
    """Messages as LangChain and its integrations build them."""

    def test_provider_blocks_read_through_v1(self) -> None:
        human = lc.HumanMessage(
            content=[
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "https://x/cat.png"}},
            ]
        )
        (message,) = from_langchain([human])
        assert message == cc.user(
            [cc.TextPart("what is this?"), cc.ImagePart(url="https://x/cat.png")]
        )

    def test_ai_message_with_usage_and_metadata(self) -> None:
        ai = lc.AIMessage(
            content="Sunny.",
            id="run-1",
            name="bot",
            usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
            response_metadata={"model_name": "gpt-5", "finish_reason": "stop"},
        )
        (message,) = from_langchain([ai])
        assert isinstance(message, cc.AssistantMessage)
        assert (message.content, message.id) == ("Sunny.", "run-1")
        kept = (message.extras or {})[NAME]
        assert kept["usage_metadata"]["total_tokens"] == 5
        assert kept["name"] == "bot"
        (back,) = to_langchain([message])
        assert back == ai

    def test_tool_message_artifact(self) -> None:
        tool = lc.ToolMessage(content="42", tool_call_id="c1", artifact={"rows": [1, 2]})
        (message,) = from_langchain([tool])
        assert isinstance(message, cc.ToolMessage)
        assert message.details is None or message.details.output is None
        (back,) = to_langchain([message])
        assert isinstance(back, lc.ToolMessage)
        assert back.artifact == {"rows": [1, 2]}

    def test_a_block_chatcodec_has_no_part_for(self) -> None:
        block = {"type": "video", "url": "https://x/v.mp4", "mime_type": "video/mp4"}
        (message,) = from_langchain([lc.HumanMessage(content=[block])])
        assert isinstance(message.content, tuple)
        assert isinstance(message.content[0], cc.UnknownPart)
        (back,) = to_langchain([message])
        assert back.content == [{"type": "non_standard", "value": block}]

    @pytest.mark.parametrize(
        ("message", "path"),
        [
            (lc.ChatMessage(content="x", role="critic"), "$[0]"),
            (
                lc.AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": None}]),
                "$[0].tool_calls[0].id",
            ),
            (lc.SystemMessage(content=[{"type": "image", "url": "https://x"}]), "$[0].content"),
            (lc.HumanMessage(content=[{"type": "image"}]), "$[0].content[0]"),
            # Blocks LangChain's own translation fails on: a type that is not a string
            (lc.AIMessage(content=[{"type": {}}]), "$[0].content"),
            (lc.HumanMessage(content=[{"type": ["text"]}]), "$[0].content"),
            (lc.ToolMessage(content=[{"type": {"a": 1}}], tool_call_id="c1"), "$[0].content"),
        ],
    )
    def test_refused(self, message: Any, path: str) -> None:
        with pytest.raises(cc.ValidationError) as raised:
            from_langchain([message])
        assert raised.value.path == path
