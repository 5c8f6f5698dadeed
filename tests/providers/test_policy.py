"""The provider ordering policy against what the providers really accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus import corpus, needs_corpus, rejected

import chatcodec as cc
from chatcodec import providers

ASSISTANT_FIRST = "the first message after the instructions must not be an assistant message"
FAMILIES = ("openai", "anthropic", "gemini", "ollama")


def accepted(family: str) -> list[Any]:
    """Recorded requests of one family that its provider answered without an error."""
    return [p for p in corpus(family, "request") if not rejected(p.values[0])]


class TestRecordedRequests:
    """A request its provider accepted passes the policy, but for one rule of another provider."""

    @pytest.mark.parametrize(
        "case",
        needs_corpus(
            [pytest.param((f, p.values[0]), id=p.id) for f in FAMILIES for p in accepted(f)]
        ),
    )
    def test_accepted_requests_pass(self, case: tuple[str, Path]) -> None:
        family, path = case
        request = providers.get(family).decode_request(path.read_bytes())
        problems = cc.validate(request.messages, policy="provider", collect=True)
        # Gemini alone refuses an assistant message first; the others took it.
        allowed = set() if family == "gemini" else {ASSISTANT_FIRST}
        assert {p.rule for p in problems} <= allowed


class TestJoinedAssistantMessages:
    """Consecutive assistant messages are one turn: their calls are answered after the last."""

    def test_calls_of_consecutive_assistant_messages(self) -> None:
        first = cc.assistant("Looking.", [cc.tool_call("c1", "search", {})])
        second = cc.assistant(tool_calls=[cc.tool_call("c2", "load", {})])
        history: list[cc.Message] = [cc.user("Find it."), first, second, cc.tool_result("c1", "a"),
                   cc.tool_result("c2", "b"), cc.assistant("Found.")]  # fmt: skip
        assert cc.validate(history, policy="provider") == []
        with pytest.raises(cc.OrderingError):
            cc.validate(history, policy="strict")
        unanswered = [*history[:4], cc.user("And?")]
        with pytest.raises(cc.OrderingError, match="every tool call must be answered"):
            cc.validate(unanswered, policy="provider")
        request = cc.Request(tuple(history), model="m", max_tokens=10)
        for name in FAMILIES[:3]:  # each family's encoder joins them into one turn
            body = providers.get(name).encode_request(request)
            again = providers.get(name).decode_request(body)
            assert cc.validate(again.messages, policy="provider") == []
