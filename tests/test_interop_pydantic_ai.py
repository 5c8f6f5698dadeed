"""pydantic-ai histories: what both hold round trips exactly; the rest is reported."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatcodec as cc

pai = pytest.importorskip("pydantic_ai.messages")

from chatcodec.interop.pydantic_ai import NAME, from_pydantic_ai, to_pydantic_ai  # noqa: E402
from strategies import messages  # noqa: E402


def reported(losses: list[cc.Loss], history: list[cc.Message]) -> set[int]:
    """The indexes of the messages a loss names."""
    return {int(loss.path[2 : loss.path.index("]")]) for loss in losses}


class TestRoundTrip:
    """Every message pydantic-ai can hold comes back equal; every other is reported."""

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(messages, min_size=1, max_size=5))
    def test_any_history(self, history: list[cc.Message]) -> None:
        losses: list[cc.Loss] = []
        written = to_pydantic_ai(history, losses=losses)
        # pydantic-ai's own storage keeps it.
        stored = pai.ModelMessagesTypeAdapter.dump_json(written)
        again = pai.ModelMessagesTypeAdapter.validate_json(stored)
        back = from_pydantic_ai(again)
        if not losses:
            assert back == history
            return
        # What was not reported comes back, in order, equal.
        lossy = reported(losses, history)
        kept = iter(back)
        for n, before in enumerate(history):
            if n not in lossy:
                assert any(after == before for after in kept), n

    def test_exact_arguments_and_fields(self) -> None:
        call = cc.ToolCall("c1", "f", msgspec.Raw(b'{ "a" : 1 }'), "approved")
        history: list[cc.Message] = [
            cc.developer("D", id="m0"),
            cc.user([cc.TextPart("see"), cc.ImagePart(url="https://x/i.png", detail="high")]),
            cc.AssistantMessage(
                (cc.ReasoningPart("hmm", signature="sig", provider="anthropic"),),
                (call,),
                metadata={"k": 1},
            ),
            cc.tool_result("c1", "out", is_error=True),
        ]
        losses: list[cc.Loss] = []
        written = to_pydantic_ai(history, losses=losses)
        assert losses == []
        request, response, result = written
        assert [p.part_kind for p in request.parts] == ["system-prompt", "user-prompt"]
        prompt = request.parts[1]
        assert isinstance(prompt, pai.UserPromptPart)
        image = prompt.content[1]
        assert isinstance(image, pai.ImageUrl)
        assert (image.url, image.vendor_metadata) == ("https://x/i.png", {"detail": "high"})
        sent = response.parts[1]
        assert isinstance(sent, pai.ToolCallPart)
        assert sent.args == '{ "a" : 1 }'
        returned = result.parts[0]
        assert isinstance(returned, pai.ToolReturnPart)
        assert returned.tool_name == "f"  # the result had no name: its call's
        assert returned.outcome == "failed"
        assert from_pydantic_ai(written) == history

    def test_reported(self) -> None:
        history: list[cc.Message] = [
            cc.user([cc.FilePart(file_id="file-1"), cc.McpResource("s", "u", "c")]),
            cc.AssistantMessage((cc.RefusalPart("no"),)),
        ]
        losses: list[cc.Loss] = []
        to_pydantic_ai(history, losses=losses)
        assert [loss.path for loss in losses] == [
            "$[0].content[0]",
            "$[0].content[1]",
            "$[0]",  # none of its parts left: the message
            "$[1].content[0]",
        ]

    def test_citations_reported(self) -> None:
        cited = cc.TextPart("Paris.", (cc.Citation("url", url="https://a.example"),))
        history: list[cc.Message] = [
            cc.user([cited]),
            cc.AssistantMessage((cited,)),
        ]
        losses: list[cc.Loss] = []
        to_pydantic_ai(history, losses=losses)
        assert [loss.path for loss in losses] == [
            "$[0].content[0].citations[0]",
            "$[1].content[0].citations[0]",
        ]


class TestPydanticAiShapes:
    """Histories as pydantic-ai builds them."""

    def test_response_fields_kept(self) -> None:
        response = pai.ModelResponse(
            [pai.TextPart("Hi"), pai.ToolCallPart("f", {"x": 1}, "c1")],
            model_name="gpt-5",
            provider_name="openai",
            finish_reason="tool_call",
            usage=pai.RequestUsage(input_tokens=3, output_tokens=2),
        )
        (message,) = from_pydantic_ai([response])
        assert isinstance(message, cc.AssistantMessage)
        assert (message.content, bytes(message.tool_calls[0].arguments)) == ("Hi", b'{"x":1}')
        kept = (message.extras or {})[NAME]
        assert kept["model_name"] == "gpt-5"
        assert kept["usage"] == {"input_tokens": 3, "output_tokens": 2}
        (back,) = to_pydantic_ai([message])
        assert isinstance(back, pai.ModelResponse)
        assert (back.model_name, back.finish_reason, back.usage.input_tokens) == (
            "gpt-5",
            "tool_call",
            3,
        )

    def test_retry(self) -> None:
        request = pai.ModelRequest(
            [pai.ToolReturnPart("f", "bad arguments", "c1", outcome="retried")]
        )
        (message,) = from_pydantic_ai([request])
        assert isinstance(message, cc.ToolMessage)
        assert (message.tool_call_id, message.is_error, message.name) == ("c1", True, "f")
        assert "bad arguments" in str(message.content)

    def test_binary_content(self) -> None:
        request = pai.ModelRequest(
            [pai.UserPromptPart(["look", pai.BinaryContent(b"\x89PNG", media_type="image/png")])]
        )
        (message,) = from_pydantic_ai([request])
        assert message == cc.user(
            [cc.TextPart("look"), cc.ImagePart(data="iVBORw==", media_type="image/png")]
        )

    def test_video_is_a_file(self) -> None:
        request = pai.ModelRequest([pai.UserPromptPart([pai.VideoUrl("https://x/v.mp4")])])
        (message,) = from_pydantic_ai([request])
        assert message.content == (cc.FilePart(url="https://x/v.mp4"),)

    def test_what_chatcodec_has_no_part_for(self) -> None:
        response = pai.ModelResponse(
            [pai.FilePart(pai.BinaryContent(b"x", media_type="image/png"))]
        )
        losses: list[cc.Loss] = []
        (message,) = from_pydantic_ai([response], losses=losses)
        assert [loss.path for loss in losses] == ["$[0].parts[0]"]
        assert message == cc.AssistantMessage("")

    def test_refused(self) -> None:
        bad = pai.ModelRequest([pai.SystemPromptPart("S"), pai.UserPromptPart("")])
        with pytest.raises(cc.ValidationError) as raised:
            from_pydantic_ai([bad])
        assert raised.value.path == "$[0].parts[1].content"
