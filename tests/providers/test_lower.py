"""Transcript kinds lowered for providers: what is sent, what is left out, what is reported."""

from __future__ import annotations

import base64
import importlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec
import pydantic
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from corpus import API, CORPUS, DATA, corpus, needs_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec._conversation import CURRENT_VERSION
from chatcodec.providers import _lower, get
from chatcodec.providers._lower import (
    AWAITING,
    CONTROL,
    DENIED_RESULT,
    EMPTY,
    NO_STAND_IN,
    UNKNOWN_PART,
    UNKNOWN_RECORD,
    UNRESOLVED,
    VISION_UNAVAILABLE,
    lower,
    to_request,
)
from chatcodec.providers._wire import Encoding


def _shared(name: str) -> ModuleType:
    """A module of ``tests/`` (not on the path when this file runs alone)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    import strategies
else:
    strategies = _shared("strategies")

PROVIDERS = ("openai", "anthropic", "gemini", "ollama")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(24)).decode()
DONE = cc.ToolMessage("c0", "done")
FILE = cc.FileReference(
    "src/app.py", start_line=10, end_line=11, status="resolved", content="10\ta = 1\n11\tb = 2"
)
FILE_TEXT = "File: src/app.py (lines 10-11)\n10\ta = 1\n11\tb = 2"
RESOURCE = cc.McpResource("docs", "file:///guide.md", "# Guide")
RESOURCE_TEXT = "[resource file:///guide.md from docs]\n# Guide"


def encode(name: str, request: cc.Request, **options: Any) -> tuple[Any, list[tuple[str, str]]]:
    """The wire body (parsed) and the losses as (path, reason) pairs."""
    losses: list[cc.Loss] = []
    body = get(name).encode_request(request, losses=losses, **options)
    return json.loads(body), [(loss.path, loss.reason) for loss in losses]


def turns(name: str, body: Any) -> list[Any]:
    """The wire messages (Gemini: contents)."""
    return list(body["contents" if name == "gemini" else "messages"])


def text_turn(name: str, text: str) -> Any:
    """A user message holding one text part, as each provider writes it."""
    if name == "openai":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    if name == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    if name == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    return {"role": "user", "content": text}


def parts(*items: Any) -> cc.UserMessage:
    """A user message of these parts (unknown parts included, which its type does not admit)."""
    return cc.UserMessage(items)


def request(*messages: Any, **fields: Any) -> cc.Request:
    return cc.Request(tuple(messages), **fields)


def assistant_calls(*calls: cc.ToolCall) -> cc.AssistantMessage:
    return cc.assistant(tool_calls=calls)


def denied(id: str, name: str = "run") -> cc.ToolCall:
    return cc.tool_call(id, name, {"cmd": "ls"}).with_approval("denied")


def result_turn(name: str, pairs: list[tuple[str, str, str, bool]]) -> list[Any]:
    """The wire of consecutive tool results ``(id, tool name, text, is_error)``."""
    if name == "openai":
        return [{"role": "tool", "content": t, "tool_call_id": i} for i, _, t, _ in pairs]
    if name == "ollama":
        return [
            {"role": "tool", "content": t, "tool_name": n, "tool_call_id": i}
            for i, n, t, _ in pairs
        ]
    if name == "anthropic":
        blocks: list[Any] = []
        for i, _, t, error in pairs:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": i, "content": t}
            if error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]
    parts = [
        {"functionResponse": {"name": n, "response": {"error" if e else "result": t}, "id": i}}
        for i, n, t, e in pairs
    ]
    return [{"role": "user", "parts": parts}]


class TestFileReferences:
    """A resolved file reference goes as its lines under a header; others are left out."""

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_resolved_is_sent_as_text(self, name: str) -> None:
        body, losses = encode(name, request(cc.user([FILE])))
        assert turns(name, body) == [text_turn(name, FILE_TEXT)]
        assert losses == []

    @pytest.mark.parametrize(
        ("start", "end", "head"),
        [
            (10, 20, "File: a.py (lines 10-20)"),
            (10, None, "File: a.py (from line 10)"),
            (None, None, "File: a.py"),
        ],
    )
    def test_the_header_names_the_path_and_range(
        self, start: int | None, end: int | None, head: str
    ) -> None:
        ref = cc.FileReference(
            "a.py", start_line=start, end_line=end, status="resolved", content="x"
        )
        lowered = lower(request(cc.user([ref])), Encoding("openai"))
        assert lowered.messages[0].content == (cc.TextPart(f"{head}\nx"),)

    @pytest.mark.parametrize("name", PROVIDERS)
    @pytest.mark.parametrize(
        "ref",
        [
            cc.FileReference("a.py"),
            cc.FileReference("a.py", status="failed", error="the file does not exist"),
        ],
        ids=["pending", "failed"],
    )
    def test_unresolved_is_left_out_and_reported(self, name: str, ref: cc.FileReference) -> None:
        body, losses = encode(name, request(cc.user([ref]), cc.user([cc.TextPart("Hi")])))
        assert turns(name, body) == [text_turn(name, "Hi")]
        assert losses == [("$.messages[0].content[0]", UNRESOLVED), ("$.messages[0]", EMPTY)]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_unresolved_beside_text_leaves_the_text(self, name: str) -> None:
        message = cc.user([cc.FileReference("a.py"), cc.TextPart("Hi")])
        body, losses = encode(name, request(message))
        assert turns(name, body) == [text_turn(name, "Hi")]
        assert losses == [("$.messages[0].content[0]", UNRESOLVED)]

    def test_its_extras_go_with_the_text(self) -> None:
        ref = cc.FileReference(
            "a.py",
            status="resolved",
            content="1\tx",
            extras={"anthropic": {"cache_control": {"type": "ephemeral"}}},
        )
        body, losses = encode("anthropic", request(cc.user([ref]), max_tokens=8))
        assert body["messages"][0]["content"] == [
            {"type": "text", "text": "File: a.py\n1\tx", "cache_control": {"type": "ephemeral"}}
        ]
        assert losses == []
        _, losses = encode("openai", request(cc.user([ref])))
        assert losses == [
            (
                "$.messages[0].content[0].extras.anthropic.cache_control",
                "an anthropic field openai has no place for",
            )
        ]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_in_a_tool_result(self, name: str) -> None:
        call = cc.tool_call("c0", "read", {})
        body, losses = encode(
            name, request(cc.user("Read it."), assistant_calls(call), cc.ToolMessage("c0", (FILE,)))
        )
        wire = json.dumps(turns(name, body)[2])
        assert json.dumps(FILE_TEXT)[1:-1] in wire
        assert losses == []


ANTHROPIC_DOCUMENT = {
    "type": "document",
    "source": {"type": "text", "media_type": "text/plain", "data": "# Guide"},
    "title": "file:///guide.md",
}


class TestMcpResources:
    """An MCP resource goes as its text (Anthropic: a text document titled with its URI)."""

    @pytest.mark.parametrize("name", ["openai", "gemini", "ollama"])
    def test_sent_as_text(self, name: str) -> None:
        body, losses = encode(name, request(cc.user([RESOURCE])))
        assert turns(name, body) == [text_turn(name, RESOURCE_TEXT)]
        assert losses == []

    def test_anthropic_takes_a_document(self) -> None:
        body, losses = encode("anthropic", request(cc.user([RESOURCE]), model="m", max_tokens=8))
        assert body["messages"] == [{"role": "user", "content": [ANTHROPIC_DOCUMENT]}]
        assert losses == []
        sdk_validate(body)

    def test_anthropic_document_in_a_tool_result(self) -> None:
        call = cc.tool_call("c0", "fetch", {})
        message = cc.ToolMessage("c0", (RESOURCE,))
        r = request(cc.user("Go."), assistant_calls(call), message, model="m", max_tokens=8)
        body, losses = encode("anthropic", r)
        assert body["messages"][2]["content"] == [
            {"type": "tool_result", "tool_use_id": "c0", "content": [ANTHROPIC_DOCUMENT]}
        ]
        assert losses == []
        sdk_validate(body)

    def test_anthropic_sends_an_empty_resource_as_text(self) -> None:
        empty = cc.McpResource("docs", "file:///empty.md", "")
        body, _ = encode("anthropic", request(cc.user([empty]), max_tokens=8))
        assert body["messages"][0]["content"] == [
            {"type": "text", "text": "[resource file:///empty.md from docs]\n"}
        ]

    def test_metadata_is_not_a_loss(self) -> None:
        import datetime

        resource = cc.McpResource(
            "docs",
            "file:///guide.md",
            "# Guide",
            mime_type="text/markdown",
            retrieved_at=datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC),
        )
        for name in PROVIDERS:
            plain, _ = encode(name, request(cc.user([RESOURCE]), max_tokens=8))
            body, losses = encode(name, request(cc.user([resource]), max_tokens=8))
            assert body == plain
            assert losses == []


def image(**recognition: Any) -> cc.ImagePart:
    return cc.ImagePart(data=PNG, media_type="image/png", **recognition)


class TestImages:
    """With vision an image goes as is; without, as the text read from it or not at all."""

    @pytest.mark.parametrize("name", PROVIDERS)
    @pytest.mark.parametrize("mode", [None, "vision", "auto"])
    def test_with_vision_recognition_stays_in_storage(self, name: str, mode: Any) -> None:
        plain, plain_losses = encode(name, request(cc.user([image()])))
        read = image(recognition=mode, recognized_text="HELLO", vision_analysis="a sign")
        body, losses = encode(name, request(cc.user([read])))
        assert body == plain
        assert losses == plain_losses == []
        assert lower(request(cc.user([read])), Encoding(name)).messages[0].content == (read,)

    @pytest.mark.parametrize("name", PROVIDERS)
    @pytest.mark.parametrize("vision", [True, False])
    def test_ocr_sends_the_recognized_text_even_with_vision(self, name: str, vision: bool) -> None:
        read = image(recognition="ocr", recognized_text="HELLO", vision_analysis="a sign")
        message = cc.user([cc.TextPart("What does it say?"), read])
        body, losses = encode(name, request(message), vision=vision)
        as_text = request(cc.user(["What does it say?", "HELLO"]))
        expected, expected_losses = encode(name, as_text)
        assert body == expected
        assert losses == expected_losses  # Ollama joins the two texts, as for any two

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_ocr_without_text_sends_the_image_to_vision(self, name: str) -> None:
        plain, _ = encode(name, request(cc.user([image()])))
        failed = image(recognition="ocr", recognition_error="unreadable")
        body, losses = encode(name, request(cc.user([failed])))
        assert body == plain
        assert losses == []

    @pytest.mark.parametrize("name", PROVIDERS)
    @pytest.mark.parametrize(
        ("recognition", "text"),
        [
            ({"recognized_text": "HELLO", "vision_analysis": "a sign"}, "HELLO"),
            ({"vision_analysis": "a sign"}, "a sign"),
            ({"recognized_text": "", "vision_analysis": "a sign"}, "a sign"),
        ],
        ids=["ocr", "analysis", "empty-ocr"],
    )
    def test_without_vision_the_text_is_sent(
        self, name: str, recognition: dict[str, str], text: str
    ) -> None:
        body, losses = encode(name, request(cc.user([image(**recognition)])), vision=False)
        assert turns(name, body) == [text_turn(name, text)]
        assert losses == []

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_auto_recognition_without_vision_is_reported(self, name: str) -> None:
        # "auto" left the choice to the target: the caller is told it had no vision.
        part = image(recognition="auto", recognized_text="HELLO")
        body, losses = encode(name, request(cc.user([part])), vision=False)
        assert turns(name, body) == [text_turn(name, "HELLO")]
        assert losses == [("$.messages[0].content[0]", VISION_UNAVAILABLE)]
        _, losses = encode(name, request(cc.user([part])))
        assert losses == []

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_without_vision_or_text_it_is_left_out(self, name: str) -> None:
        message = cc.user([cc.TextPart("What is it?"), image(recognition_error="unreadable")])
        body, losses = encode(name, request(message), vision=False)
        assert turns(name, body) == [text_turn(name, "What is it?")]
        assert losses == [("$.messages[0].content[1]", NO_STAND_IN)]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_without_vision_in_a_tool_result(self, name: str) -> None:
        call = cc.tool_call("c0", "shot", {})
        message = cc.ToolMessage("c0", (image(recognized_text="OK"),))
        r = request(cc.user("Go."), assistant_calls(call), message)
        body, losses = encode(name, r, vision=False)
        text = {"type": "text", "text": "OK"}
        expected = {
            "openai": {"role": "tool", "content": [text], "tool_call_id": "c0"},
            "anthropic": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c0", "content": [text]}],
            },
            "gemini": result_turn("gemini", [("c0", "shot", "OK", False)])[0],
            "ollama": result_turn("ollama", [("c0", "shot", "OK", False)])[0],
        }
        assert turns(name, body)[2:] == [expected[name]]
        assert losses == []

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_a_tool_result_left_empty_is_still_sent(self, name: str) -> None:
        call = cc.tool_call("c0", "shot", {})
        r = request(cc.user("Go."), assistant_calls(call), cc.ToolMessage("c0", (image(),)))
        lowered = lower(r, Encoding(name), vision=False)
        assert lowered.messages[2] == cc.ToolMessage("c0", "")
        _, losses = encode(name, r, vision=False)
        assert losses[0] == ("$.messages[2].content[0]", NO_STAND_IN)


class TestApprovals:
    """A denied call gets a result saying so; a pending one is reported; the field is storage."""

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_denied_gets_a_result_after_the_existing_answers(self, name: str) -> None:
        calls = (cc.tool_call("c0", "look", {}), denied("c1"))
        r = request(
            cc.user("Go."),
            assistant_calls(*calls),
            DONE,
            cc.user("And?"),
            model="m",
            max_tokens=64,
        )
        body, losses = encode(name, r)
        results = [("c0", "look", "done", False), ("c1", "run", DENIED_RESULT, True)]
        wire = turns(name, body)
        if name == "anthropic":
            # The results and the next user text share a turn.
            blocks = result_turn(name, results)[0]["content"]
            assert wire[2] == {
                "role": "user",
                "content": [*blocks, {"type": "text", "text": "And?"}],
            }
        else:
            expected = result_turn(name, results)
            assert wire[2 : 2 + len(expected)] == expected
        assert losses == []
        codec = get(name)
        if name != "ollama":  # Ollama takes a call without an answer
            assert any(p.severity == "error" for p in codec.check_request(r))
        lowered = lower(r, Encoding(name))
        assert lowered.messages[3] == cc.ToolMessage("c1", DENIED_RESULT, is_error=True)
        assert [p for p in codec.check_request(lowered) if p.severity == "error"] == []

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_denied_result_text_is_an_option(self, name: str) -> None:
        r = request(cc.user("Go."), assistant_calls(denied("c1")))
        body, _ = encode(name, r, denied_result="Not allowed.")
        assert turns(name, body)[2:] == result_turn(name, [("c1", "run", "Not allowed.", True)])

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_denied_and_answered_gets_nothing_more(self, name: str) -> None:
        answered = request(
            cc.user("Go."), assistant_calls(denied("c1")), cc.ToolMessage("c1", "skipped")
        )
        plain = request(
            cc.user("Go."),
            assistant_calls(cc.tool_call("c1", "run", {"cmd": "ls"})),
            cc.ToolMessage("c1", "skipped"),
        )
        assert encode(name, answered) == encode(name, plain)

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_approved_is_storage(self, name: str) -> None:
        call = cc.tool_call("c0", "look", {})
        plain = request(cc.user("Go."), assistant_calls(call), DONE)
        approved = request(cc.user("Go."), assistant_calls(call.with_approval("approved")), DONE)
        assert lower(approved, Encoding(name)) is approved
        assert get(name).encode_request(approved) == get(name).encode_request(plain)

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_pending_unanswered_is_reported_and_left(self, name: str) -> None:
        call = cc.tool_call("c0", "look", {}).with_approval("pending")
        r = request(cc.user("Go."), assistant_calls(call), model="m", max_tokens=8)
        body, losses = encode(name, r)
        assert losses == [("$.messages[1].tool_calls[0]", AWAITING)]
        assert len(turns(name, body)) == 2
        lowered = lower(r, Encoding(name))
        assert lowered.messages == r.messages

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_pending_answered_is_not_reported(self, name: str) -> None:
        call = cc.tool_call("c0", "look", {}).with_approval("pending")
        _, losses = encode(name, request(cc.user("Go."), assistant_calls(call), DONE))
        assert losses == []

    def test_joined_turns_get_the_result_after_the_last_answer(self) -> None:
        # Gemini joins consecutive model contents: the answers of the first
        # message come after the second.
        first = cc.assistant(tool_calls=[cc.tool_call("c0", "look", {}), denied("c1")])
        second = cc.assistant(tool_calls=[cc.tool_call("c2", "look", {})])
        r = request(cc.user("Go."), first, second, DONE, cc.ToolMessage("c2", "more"))
        lowered = lower(r, Encoding("openai"))
        ids = [getattr(m, "tool_call_id", None) for m in lowered.messages]
        assert ids == [None, None, None, "c0", "c1", "c2"]
        body, losses = encode("openai", r)
        # OpenAI joins the two calling messages, then takes the three results.
        assert [len(m.get("tool_calls", ())) for m in body["messages"]] == [0, 3, 0, 0, 0]
        assert [m.get("tool_call_id") for m in body["messages"]] == [None, None, "c0", "c1", "c2"]
        assert losses == []

    def test_a_denied_call_without_answers_gets_its_result_right_after(self) -> None:
        first = cc.assistant(tool_calls=[denied("c1")])
        second = cc.assistant(tool_calls=[cc.tool_call("c2", "look", {})])
        r = request(cc.user("Go."), first, second, cc.ToolMessage("c2", "more"))
        lowered = lower(r, Encoding("openai"))
        ids = [getattr(m, "tool_call_id", None) for m in lowered.messages]
        assert ids == [None, None, "c1", None, "c2"]

    def test_losses_about_the_made_result_are_not_reported(self) -> None:
        # OpenAI has no error flag: the flag of a result chatcodec made is
        # not the caller's loss.
        _, losses = encode("openai", request(cc.user("Go."), assistant_calls(denied("c1"))))
        assert losses == []
        _, losses = encode(
            "openai",
            request(cc.user("Go."), assistant_calls(cc.tool_call("c1", "f", {})), DONE_ERROR),
        )
        assert losses == [("$.messages[2].is_error", "openai has no error flag for tool results")]


DONE_ERROR = cc.ToolMessage("c1", "failed", is_error=True)


class TestToolDetails:
    """A tool result's run details stay in storage: not sent, not a loss."""

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_not_sent(self, name: str) -> None:
        import datetime

        call = cc.tool_call("c0", "look", {})
        details = cc.ToolResultDetails(
            error_message="boom",
            recoverable=True,
            duration=1.5,
            timestamp=datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC),
            output=msgspec.Raw(b'{"rows":3}'),
        )
        with_details = cc.ToolMessage("c0", "done", details=details)
        plain = request(cc.user("Go."), assistant_calls(call), DONE)
        detailed = request(cc.user("Go."), assistant_calls(call), with_details)
        assert lower(detailed, Encoding(name)) is detailed
        assert encode(name, detailed) == encode(name, plain)


UNKNOWN = cc.UnknownPart(b'{"type":"hologram","depth":3}')


class TestUnknownKinds:
    """Parts and records of unknown kinds are left out and reported."""

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_unknown_part_in_user_content(self, name: str) -> None:
        message = parts(UNKNOWN, cc.TextPart("Hi"))
        body, losses = encode(name, request(message))
        assert turns(name, body) == [text_turn(name, "Hi")]
        assert losses == [("$.messages[0].content[0]", UNKNOWN_PART)]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_unknown_part_alone_leaves_the_message_out(self, name: str) -> None:
        r = request(parts(UNKNOWN), cc.user([cc.TextPart("Hi")]))
        body, losses = encode(name, r)
        assert turns(name, body) == [text_turn(name, "Hi")]
        assert losses == [("$.messages[0].content[0]", UNKNOWN_PART), ("$.messages[0]", EMPTY)]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_unknown_part_in_assistant_content(self, name: str) -> None:
        message = cc.AssistantMessage((UNKNOWN, cc.TextPart("Sure.")))  # type: ignore[arg-type]
        plain, _ = encode(name, request(cc.user("Hi"), cc.assistant("Sure.")))
        body, losses = encode(name, request(cc.user("Hi"), message))
        assert losses == [("$.messages[1].content[0]", UNKNOWN_PART)]
        assert turns(name, body)[0] == turns(name, plain)[0]
        assert len(turns(name, body)) == 2

    def test_assistant_with_calls_keeps_its_calls(self) -> None:
        call = cc.tool_call("c0", "look", {})
        message = cc.AssistantMessage((UNKNOWN,), (call,))  # type: ignore[arg-type]
        lowered = lower(request(cc.user("Hi"), message, DONE), Encoding("openai"))
        assert lowered.messages[1] == cc.assistant(tool_calls=[call])

    def test_assistant_with_nothing_left_is_left_out(self) -> None:
        message = cc.AssistantMessage((UNKNOWN,))  # type: ignore[arg-type]
        losses: list[cc.Loss] = []
        lowered = lower(request(cc.user("Hi"), message), Encoding("openai", losses))
        assert lowered.messages == (cc.user("Hi"),)
        assert [(x.path, x.reason) for x in losses] == [
            ("$.messages[1].content[0]", UNKNOWN_PART),
            ("$.messages[1]", EMPTY),
        ]

    @pytest.mark.parametrize("name", PROVIDERS)
    def test_records_in_messages_are_left_out(self, name: str) -> None:
        control = cc.mode_change("plan", "act")
        unknown = cc.UnknownRecord(b'{"role":"narrator","text":"x"}')
        r = request(control, cc.user([cc.TextPart("Hi")]), unknown)
        body, losses = encode(name, r)
        assert turns(name, body) == [text_turn(name, "Hi")]
        assert losses == [("$.messages[0]", CONTROL), ("$.messages[2]", UNKNOWN_RECORD)]


class TestPaths:
    """What the encoder reports after lowering names the caller's paths."""

    def test_losses_after_a_left_out_part_keep_their_index(self) -> None:
        audio = cc.AudioPart(url="https://example.com/a.wav")
        message = parts(UNKNOWN, cc.FileReference("a.py"), audio, cc.TextPart("Hi"))
        r = request(cc.mode_change(None, "act"), message)
        expected = {
            "openai": "openai cannot carry audio by URL",
            "anthropic": "anthropic cannot carry an audio part",
            "ollama": "ollama cannot carry an audio part",
        }
        for name, reason in expected.items():
            _, losses = encode(name, r)
            assert losses == [
                ("$.messages[0]", CONTROL),
                ("$.messages[1].content[0]", UNKNOWN_PART),
                ("$.messages[1].content[1]", UNRESOLVED),
                ("$.messages[1].content[2]", reason),
            ]

    def test_losses_after_a_made_result_keep_their_index(self) -> None:
        r = request(
            cc.user("Go."),
            assistant_calls(denied("c1")),
            cc.user([cc.AudioPart(url="https://example.com/a.wav")]),
        )
        _, losses = encode("anthropic", r)
        assert losses == [
            ("$.messages[2].content[0]", "anthropic cannot carry an audio part"),
        ]

    def test_no_losses_list_is_fine(self) -> None:
        r = request(cc.mode_change(None, "act"), parts(UNKNOWN, cc.TextPart("Hi")))
        for name in PROVIDERS:
            assert get(name).encode_request(r)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(
            strategies.messages | st.just(parts(UNKNOWN)),
            max_size=6,
        ),
        st.booleans(),
    )
    def test_every_loss_names_something_in_the_request(
        self, messages: list[cc.Message], vision: bool
    ) -> None:
        r = request(*messages)
        for name in PROVIDERS:
            _, losses = encode(name, r, vision=vision)
            for path, _reason in losses:
                assert_names_something(r, path)


_PREFIX = re.compile(r"\$\.messages\[(\d+)\](?:\.(content|tool_calls)\[(\d+)\])?")


def assert_names_something(r: cc.Request, path: str) -> None:
    match = _PREFIX.match(path)
    if match is None:
        return
    message = r.messages[int(match[1])]
    if match[2] is not None:
        items = getattr(message, match[2])
        assert isinstance(items, tuple), path
        assert int(match[3]) < len(items), path


class TestFastPath:
    """A request without transcript kinds is not touched: the same object, the same bytes."""

    def test_lower_returns_the_request_itself(self) -> None:
        r = request(cc.system("Be brief."), cc.user([cc.TextPart("Hi"), image()]))
        assert lower(r, Encoding("openai")) is r
        assert lower(r, Encoding("openai"), vision=False) is not r

    @pytest.mark.parametrize("source", PROVIDERS)
    def test_curated_requests_encode_as_before(
        self, source: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        bodies = [p.read_bytes() for p in sorted((DATA / source / "request").glob("*.json"))]
        assert bodies
        assert_as_before(source, bodies, monkeypatch)

    @pytest.mark.parametrize("source", [pytest.param(s, id=s) for s in PROVIDERS])
    def test_corpus_requests_encode_as_before(
        self, source: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        files = needs_corpus(corpus(source, "request"))
        if files[0].values[0] is None:
            pytest.skip(f"the recorded corpus is not at {CORPUS} ({API[source]})")
        bodies = [param.values[0].read_bytes() for param in files]
        assert_as_before(source, bodies, monkeypatch)


def assert_as_before(source: str, bodies: list[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every body, decoded by ``source``, encodes to every provider as with no lowering."""
    requests = []
    for body in bodies:
        try:
            requests.append(get(source).decode_request(body))
        except cc.ChatCodecError:
            continue  # a body its codec refuses is the codec's tests' business
    assert requests
    now = {name: [encode_bytes(name, r) for r in requests] for name in PROVIDERS}
    for name in PROVIDERS:
        module = importlib.import_module(f"chatcodec.providers.{name}._encode")
        monkeypatch.setattr(module, "lower", lambda request, enc, **options: request)
    before = {name: [encode_bytes(name, r) for r in requests] for name in PROVIDERS}
    assert now == before
    for r in requests:
        assert not _lower._needs(r.messages, True, frozenset())


def encode_bytes(name: str, r: cc.Request) -> tuple[bytes, list[cc.Loss]]:
    losses: list[cc.Loss] = []
    return get(name).encode_request(r, losses=losses), losses


class TestToRequest:
    """A transcript's records become a request; control and unknown records are reported."""

    def test_records_left_out_by_index(self) -> None:
        records: list[Any] = [
            cc.system("Be brief."),
            cc.mode_change("plan", "act"),
            cc.user("Hi"),
            cc.UnknownRecord(b'{"role":"narrator","text":"x"}'),
            cc.assistant("Hello."),
        ]
        r, losses = to_request(records, model="m", max_tokens=16)
        assert r == cc.Request(
            (cc.system("Be brief."), cc.user("Hi"), cc.assistant("Hello.")),
            model="m",
            max_tokens=16,
        )
        assert losses == [
            cc.Loss("$.records[1]", CONTROL),
            cc.Loss("$.records[3]", UNKNOWN_RECORD),
        ]

    def test_from_a_transcript_and_a_conversation(self) -> None:
        records = (cc.user("Hi"), cc.branch_switch("main", "try"), cc.assistant("Hello."))
        transcript = cc.Transcript(v=CURRENT_VERSION, records=records)
        conversation = cc.Conversation(records, policy="lenient")
        for source in (transcript, conversation):
            r, losses = cc.to_request(source)
            assert r.messages == (cc.user("Hi"), cc.assistant("Hello."))
            assert losses == [cc.Loss("$.records[1]", CONTROL)]

    def test_mcp_resources_as_system_information(self) -> None:
        records: list[Any] = [
            cc.system("Be brief."),
            cc.user(["Use this:", RESOURCE]),
            cc.assistant(tool_calls=[cc.tool_call("c1", "fetch", {})]),
            cc.ToolMessage("c1", (RESOURCE,)),
            cc.user([RESOURCE]),
        ]
        r, losses = to_request(records, mcp_resources="system", model="m", max_tokens=16)
        assert losses == []
        assert r.messages == (
            cc.system("Be brief."),
            cc.system(RESOURCE_TEXT),
            cc.system(RESOURCE_TEXT),
            cc.system(RESOURCE_TEXT),
            cc.user([cc.TextPart("Use this:")]),
            records[2],
            cc.tool_result("c1", ""),
        )
        inline, _ = to_request(records, model="m", max_tokens=16)
        assert inline.messages == tuple(records)
        for name in PROVIDERS:
            body, encode_losses = encode(name, r)
            assert encode_losses == []
            if name == "anthropic":
                system = body["system"]
                assert [block["text"] for block in system][1:] == [RESOURCE_TEXT] * 3
            elif name == "gemini":
                parts = body["systemInstruction"]["parts"]
                assert [p["text"] for p in parts][1:] == [RESOURCE_TEXT] * 3
            else:
                wire = body["messages"]
                assert [m["content"] for m in wire[1:4]] == [RESOURCE_TEXT] * 3
                assert {m["role"] for m in wire[:4]} == {"system"}

    def test_mcp_resources_only_two_places(self) -> None:
        with pytest.raises(cc.ValidationError, match="mcp_resources"):
            to_request([cc.user("Hi")], mcp_resources="footer")  # type: ignore[arg-type]

    def test_the_request_encodes(self) -> None:
        records: list[Any] = [cc.user("Hi"), cc.mode_change(None, "act"), cc.user([FILE])]
        r, _ = to_request(records, model="m")
        body, losses = encode("openai", r)
        assert body["messages"][1] == text_turn("openai", FILE_TEXT)
        assert losses == []


ANTHROPIC = pydantic.TypeAdapter(MessageCreateParamsNonStreaming)


def sdk_validate(body: dict[str, Any]) -> None:
    """Validate against the anthropic SDK's request type, lazy iterables included."""
    consume(ANTHROPIC.validate_python(body))


def consume(value: Any) -> None:
    if isinstance(value, dict):
        for item in value.values():
            consume(item)
    elif isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        for item in value:
            consume(item)
