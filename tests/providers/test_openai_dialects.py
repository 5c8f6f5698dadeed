"""The dialects of OpenAI Chat: each service's own request shape, written from any family.

Bodies are built from each service's documented request shape (DeepSeek's
thinking mode with tool calls, OpenRouter's ``reasoning_details``, Gemini's
OpenAI-compatible ``extra_content``, Mistral's nine-character ids) or taken
from the recorded corpus where one exists.
"""

from __future__ import annotations

import csv
import json
import re
from typing import Any, ClassVar, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import Message, Request, http, providers
from chatcodec.bulk import convert_lines
from chatcodec.providers.openai import DIALECTS, DialectCodec
from chatcodec.providers.openai._call_ids import nine_char_ids
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

NINE = re.compile(r"[A-Za-z0-9]{9}")
KINDS = ("request", "response")

# An Anthropic thinking turn with a tool call: signed thinking, redacted
# thinking, text, the call and its result.
ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 256,
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should call the tool.", "signature": "SIG-A"},
                {"type": "redacted_thinking", "data": "REDACTED-A"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_01A", "name": "weather", "input": {"c": "P"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "sunny"}],
        },
    ],
}


def _to(target: str, body: Any = ANTHROPIC, source: str = "anthropic") -> tuple[Any, list[str]]:
    out, report = cc.convert(body, source=source, target=target, model="m", check=False)
    return json.loads(out), [f"{loss.path}: {loss.reason}" for loss in report.losses]


class TestRegistry:
    """A service's name gives the openai codec writing its dialect."""

    @pytest.mark.parametrize("name", sorted(set(DIALECTS) - {"openai"}))
    def test_every_dialect_has_a_codec(self, name: str) -> None:
        codec = providers.get(name)
        assert isinstance(codec, DialectCodec)
        assert codec.NAME == "openai"
        assert codec.DIALECT is DIALECTS[name]
        assert name in providers.ALIASES

    def test_reading_is_openai_s(self) -> None:
        body = b'{"model":"m","messages":[{"role":"assistant","content":"a","reasoning":"r"}]}'
        assert providers.get("deepseek").decode_request(body) == providers.get(
            "openai"
        ).decode_request(body)


class TestDeepSeek:
    """DeepSeek takes reasoning_content, and needs it back on messages with tool calls."""

    # DeepSeek's thinking-mode guide: the assistant turn that called a tool is
    # sent back with its reasoning_content beside content and tool_calls.
    DOCUMENTED = (
        b'{"model":"deepseek-v4-pro","messages":[{"role":"user","content":"Weather tomorrow?"},'
        b'{"role":"assistant","content":"","reasoning_content":"I need the date first.",'
        b'"tool_calls":[{"id":"call_00_x","type":"function","function":{"name":"get_date",'
        b'"arguments":"{}"}}]},{"role":"tool","content":"2025-12-01","tool_call_id":"call_00_x"}],'
        b'"reasoning_effort":"high"}'
    )

    def test_anthropic_thinking_goes_as_reasoning_content(self) -> None:
        body, losses = _to("deepseek")
        turn = body["messages"][1]
        assert turn["reasoning_content"] == "I should call the tool."
        assert turn["tool_calls"][0]["id"] == "toolu_01A"
        # The signature and the redacted thinking are Anthropic's: reported.
        assert losses == [
            "$.messages[1].content[0].signature: an anthropic reasoning signature",
            "$.messages[1].content[1].redacted: anthropic redacted reasoning",
        ]

    def test_plain_openai_still_reports_the_reasoning(self) -> None:
        body, losses = _to("openai")
        assert "reasoning_content" not in body["messages"][1]
        assert "$.messages[1].content[0]: openai has no field for reasoning" in losses

    def test_an_openrouter_entry_of_unknown_format_goes_as_text(self) -> None:
        openrouter = (
            b'{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant",'
            b'"content":"a","reasoning_details":[{"type":"reasoning.text","text":"T",'
            b'"signature":"S","format":"unknown"}]}]}'
        )
        body, losses = _to("deepseek", openrouter, "openrouter")
        assert body["messages"][1]["reasoning_content"] == "T"
        assert "reasoning_details" not in body["messages"][1]
        assert losses == ["$.messages[1].content[0].signature: an openai reasoning signature"]
        same, _ = cc.convert(openrouter, source="openrouter", target="openai", check=False)
        assert same == openrouter

    def test_documented_body_round_trips(self) -> None:
        codec = providers.get("deepseek")
        assert codec.encode_request(codec.decode_request(self.DOCUMENTED)) == self.DOCUMENTED

    def test_vllm_reasoning_becomes_deepseek_s_key(self) -> None:
        vllm = self.DOCUMENTED.replace(b'"reasoning_content"', b'"reasoning"')
        assert (
            providers.get("deepseek").encode_request(providers.get("vllm").decode_request(vllm))
            == self.DOCUMENTED
        )
        assert (
            providers.get("vllm").encode_request(
                providers.get("deepseek").decode_request(self.DOCUMENTED)
            )
            == vllm
        )

    def test_preflight_warns_of_a_call_without_reasoning(self) -> None:
        body = json.loads(self.DOCUMENTED)
        del body["messages"][1]["reasoning_content"]
        codec = providers.get("deepseek")
        problems = codec.check_request(codec.decode_request(json.dumps(body)))
        assert [(p.path, p.severity) for p in problems] == [("$.messages[1]", "warning")]
        assert not codec.check_request(codec.decode_request(self.DOCUMENTED))
        assert not providers.get("openai").check_request(codec.decode_request(json.dumps(body)))

    @pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
    def test_recorded_request_round_trips(self) -> None:
        name = (
            "pydantic-ai__models__test_deepseek__"
            "test_deepseek_deferred_capability_with_thinking__02.json"
        )
        body = (CORPUS / "other" / "request" / name).read_bytes()
        same, _ = cc.convert(body, source="openai", target="openai", check=False)
        out, report = cc.convert(body, source="deepseek", target="deepseek", check=False)
        assert out == same
        assert not report.losses
        assert json.loads(out)["messages"][3]["reasoning_content"]


class TestOpenRouter:
    """OpenRouter's reasoning_details keep each signature with the family that made it."""

    def test_anthropic_signature_and_redacted_thinking(self) -> None:
        body, losses = _to("openrouter")
        assert body["messages"][1]["reasoning_details"] == [
            {
                "type": "reasoning.text",
                "text": "I should call the tool.",
                "signature": "SIG-A",
                "format": "anthropic-claude-v1",
            },
            {"type": "reasoning.encrypted", "data": "REDACTED-A", "format": "anthropic-claude-v1"},
        ]
        assert losses == []

    def test_back_to_anthropic_replays_the_signature(self) -> None:
        there, _ = cc.convert(ANTHROPIC, source="anthropic", target="openrouter", check=False)
        back, _ = cc.convert(
            there, source="openrouter", target="anthropic", model="claude-sonnet-4-5",
            max_tokens=256, check=False,
        )  # fmt: skip
        blocks = json.loads(back)["messages"][1]["content"]
        assert blocks[0] == {
            "type": "thinking",
            "thinking": "I should call the tool.",
            "signature": "SIG-A",
        }
        assert blocks[1] == {"type": "redacted_thinking", "data": "REDACTED-A"}

    def test_an_anthropic_signature_is_not_replayed_to_gemini(self) -> None:
        there, _ = cc.convert(ANTHROPIC, source="anthropic", target="openrouter", check=False)
        _, report = cc.convert(there, source="openrouter", target="gemini", check=False)
        assert any(loss.path.endswith(".signature") for loss in report.losses)

    RESPONSES_ITEM: ClassVar[dict[str, Any]] = {
        "model": "o4-mini",
        "input": [
            {"role": "user", "content": "Hi"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Greeting."}],
                "encrypted_content": "gAAAA-enc",
            },
            {"role": "assistant", "content": "Hello"},
        ],
    }

    def test_responses_reasoning_item_is_summary_and_encrypted_entry(self) -> None:
        body, losses = _to("openrouter", self.RESPONSES_ITEM, "openai-responses")
        assert body["messages"][1]["reasoning_details"] == [
            {"type": "reasoning.summary", "summary": "Greeting.", "format": "openai-responses-v1"},
            {
                "type": "reasoning.encrypted",
                "data": "gAAAA-enc",
                "id": "rs_1",
                "format": "openai-responses-v1",
            },
        ]
        assert not [loss for loss in losses if "reasoning" in loss or "signature" in loss]

    def test_a_responses_item_comes_back_whole(self) -> None:
        there, _ = cc.convert(self.RESPONSES_ITEM, source="openai-responses", target="openrouter")
        back, report = cc.convert(there, source="openrouter", target="openai-responses")
        assert json.loads(back) == self.RESPONSES_ITEM
        assert not report

    @pytest.mark.parametrize(
        "details",
        [
            # As OpenRouter answers: each entry with its index.
            [
                {"type": "reasoning.summary", "summary": "S.", "format": "openai-responses-v1",
                 "index": 0},
                {"type": "reasoning.encrypted", "data": "E", "id": "rs_9",
                 "format": "openai-responses-v1", "index": 0},
            ],
            # The encrypted entry alone, without an id; an empty summary.
            [{"type": "reasoning.encrypted", "data": "E", "format": "openai-responses-v1"}],
            [
                {"type": "reasoning.summary", "summary": "", "format": "openai-responses-v1"},
                {"type": "reasoning.encrypted", "data": "E", "format": "openai-responses-v1"},
            ],
        ],
    )  # fmt: skip
    def test_read_as_one_responses_item(self, details: list[Any]) -> None:
        body = {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello", "reasoning_details": details},
            ]
        }
        codec = providers.get("openrouter")
        request = codec.decode_request(json.dumps(body))
        message = request.messages[1]
        assert isinstance(message, cc.AssistantMessage)
        reasoning = [p for p in message.content or () if isinstance(p, cc.ReasoningPart)]
        assert len(reasoning) == 1
        assert (reasoning[0].provider, reasoning[0].signature) == ("openai-responses", "E")
        assert json.loads(codec.encode_request(request)) == body
        out, report = cc.convert(body, source="openrouter", target="openai-responses")
        item = json.loads(out)["input"][1]
        assert (item["type"], item["encrypted_content"]) == ("reasoning", "E")
        assert not report.losses

    def test_a_summary_before_another_family_s_entry_stays_apart(self) -> None:
        details = [
            {"type": "reasoning.summary", "summary": "S.", "format": "openai-responses-v1"},
            {"type": "reasoning.encrypted", "data": "E", "format": "anthropic-claude-v1"},
        ]
        body = {"messages": [{"role": "assistant", "content": "A", "reasoning_details": details}]}
        codec = providers.get("openrouter")
        request = codec.decode_request(json.dumps(body))
        message = request.messages[0]
        assert isinstance(message, cc.AssistantMessage)
        reasoning = [p for p in message.content or () if isinstance(p, cc.ReasoningPart)]
        assert [p.provider for p in reasoning] == [None, "anthropic"]
        assert json.loads(codec.encode_request(request)) == body

    def test_gemini_thought_signature(self) -> None:
        gemini = {
            "contents": [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "Thinking.", "thought": True, "thoughtSignature": "G-SIG"},
                        {"text": "Hello"},
                    ],
                },
            ]
        }
        body, losses = _to("openrouter", gemini, "gemini")
        assert body["messages"][1]["reasoning_details"] == [
            {
                "type": "reasoning.text",
                "text": "Thinking.",
                "signature": "G-SIG",
                "format": "google-gemini-v1",
            }
        ]
        assert losses == []

    def test_a_bedrock_signature_is_reported(self) -> None:
        bedrock = {
            "messages": [
                {"role": "user", "content": [{"text": "Hi"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"reasoningContent": {"reasoningText": {"text": "T", "signature": "B"}}},
                        {"text": "Hello"},
                    ],
                },
            ]
        }
        body, losses = _to("openrouter", bedrock, "bedrock")
        assert body["messages"][1]["reasoning_details"] == [{"type": "reasoning.text", "text": "T"}]
        assert losses == ["$.messages[1].content[0].signature: a bedrock reasoning signature"]

    @pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
    def test_recorded_bodies_round_trip(self) -> None:
        with (CORPUS / "MANIFEST.tsv").open() as manifest:
            rows = list(csv.DictReader(manifest, delimiter="\t"))
        found = 0
        for row in rows:
            if row["endpoint_host"] != "openrouter.ai" or row["kind"] not in (
                "request",
                "response",
            ):
                continue
            data = (CORPUS / row["path"]).read_bytes()
            if b"reasoning_details" not in data:
                continue
            found += 1
            kind: Literal["request", "response"] = (
                "request" if row["kind"] == "request" else "response"
            )
            same, _ = cc.convert(data, source="openai", target="openai", kind=kind, check=False)
            out, _ = cc.convert(data, source="openai", target="openrouter", kind=kind, check=False)
            assert out == same, row["path"]
        assert found


SIGNED = {"type": "reasoning.encrypted", "data": "S", "id": "call_1", "format": "google-gemini-v1"}


class TestGeminiCallSignatures:
    """A Gemini call's thought signature through OpenRouter: an encrypted entry keyed by id.

    OpenRouter hands Gemini's function-call signatures over as
    ``reasoning_details`` entries ``{"type": "reasoning.encrypted", "data": ...,
    "id": <the call's id>, "format": "google-gemini-v1"}`` and wants them back on
    the next request (Gemini 3 answers 400 "Function call is missing a
    thought_signature" otherwise).
    """

    GEMINI: ClassVar[dict[str, Any]] = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Two lookups.", "thought": True, "thoughtSignature": "T-SIG"},
                    {
                        "functionCall": {"id": "c1", "name": "get", "args": {"city": "Paris"}},
                        "thoughtSignature": "SIG-1",
                    },
                    {"functionCall": {"id": "c2", "name": "get", "args": {"city": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "get", "response": {"r": "sun"}}},
                    {"functionResponse": {"id": "c2", "name": "get", "response": {"r": "rain"}}},
                ],
            },
        ]
    }
    # As OpenRouter answers and takes it back: the entries in its order, with
    # their index.
    OPENROUTER: ClassVar[dict[str, Any]] = {
        "model": "google/gemini-3-pro-preview",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "reasoning_details": [
                    {"type": "reasoning.encrypted", "data": "SIG-1", "id": "call_1",
                     "format": "google-gemini-v1", "index": 0},
                    {"type": "reasoning.text", "text": "Look it up.",
                     "format": "google-gemini-v1", "index": 1},
                ],
                "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "get", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "content": "sun", "tool_call_id": "call_1"},
        ],
    }  # fmt: skip

    def test_written_for_openrouter(self) -> None:
        body, losses = _to("openrouter", self.GEMINI, "gemini")
        assert body["messages"][1]["reasoning_details"] == [
            {
                "type": "reasoning.text",
                "text": "Two lookups.",
                "signature": "T-SIG",
                "format": "google-gemini-v1",
            },
            {
                "type": "reasoning.encrypted",
                "data": "SIG-1",
                "id": "c1",
                "format": "google-gemini-v1",
            },
        ]
        assert "extra_content" not in body["messages"][1]["tool_calls"][0]
        assert losses == []

    def test_back_to_gemini(self) -> None:
        there, _ = cc.convert(self.GEMINI, source="gemini", target="openrouter")
        back, report = cc.convert(there, source="openrouter", target="gemini")
        assert json.loads(back) == self.GEMINI
        assert not report

    def test_read_onto_the_call(self) -> None:
        request = providers.get("openrouter").decode_request(json.dumps(self.OPENROUTER))
        message = request.messages[1]
        assert isinstance(message, cc.AssistantMessage)
        call = message.tool_calls[0]
        assert call.extras is not None
        assert call.extras["gemini"] == {"thoughtSignature": "SIG-1"}
        assert [type(part) for part in message.content or ()] == [cc.ReasoningPart]

    def test_openrouter_body_round_trips(self) -> None:
        codec = providers.get("openrouter")
        data = json.dumps(self.OPENROUTER).encode()
        assert json.loads(codec.encode_request(codec.decode_request(data))) == self.OPENROUTER
        same, _ = cc.convert(data, source="openai", target="openai")
        assert json.loads(same) == self.OPENROUTER

    def test_to_gemini_with_the_real_signature(self) -> None:
        out, report = cc.convert(self.OPENROUTER, source="openrouter", target="gemini")
        parts = json.loads(out)["contents"][1]["parts"]
        calls = [part for part in parts if "functionCall" in part]
        assert calls[0]["thoughtSignature"] == "SIG-1"
        assert "skip_thought_signature_validator" not in out.decode()
        assert not [loss for loss in report.losses if "call" in loss.path]

    def test_to_gemini_openai_as_extra_content(self) -> None:
        body, losses = _to("gemini-openai", self.OPENROUTER, "openrouter")
        call = body["messages"][1]["tool_calls"][0]
        assert call["extra_content"] == {"google": {"thought_signature": "SIG-1"}}
        assert not [loss for loss in losses if "tool_calls" in loss]

    @pytest.mark.parametrize(
        "entry",
        [
            # The id names no call of the message.
            {**SIGNED, "id": "other"},
            # Another family's format.
            {**SIGNED, "format": "anthropic-claude-v1"},
            # A key the signature's entry does not have.
            {**SIGNED, "x": 1},
        ],
    )
    def test_other_entries_stay_reasoning(self, entry: dict[str, Any]) -> None:
        body = json.loads(json.dumps(self.OPENROUTER))
        body["messages"][1]["reasoning_details"] = [entry]
        request = providers.get("openrouter").decode_request(json.dumps(body))
        message = request.messages[1]
        assert isinstance(message, cc.AssistantMessage)
        assert "gemini" not in (message.tool_calls[0].extras or {})
        assert [type(part) for part in message.content or ()] == [cc.ReasoningPart]
        same = providers.get("openrouter").encode_request(request)
        assert json.loads(same) == body

    ANSWER: ClassVar[dict[str, Any]] = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"id": "c1", "name": "get", "args": {"city": "P"}},
                            "thoughtSignature": "SIG-1",
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ]
    }

    @pytest.mark.parametrize("size", [1, 7, 64, 10_000])
    def test_streamed_through_openrouter(self, size: int) -> None:
        answer = providers.get("gemini").decode_response(json.dumps(self.ANSWER))
        stream = providers.get("openrouter").encode_stream(answer)
        assert b'"id":"c1","format":"google-gemini-v1"' in stream
        translator = cc.translate_stream("openrouter", "gemini")
        out = b"".join(
            translator.feed(stream[at : at + size]) for at in range(0, len(stream), size)
        )
        tail, report = translator.finish()
        back = providers.get("gemini").stream()
        back.feed(out + tail)
        message = back.finish().choices[0].message
        assert message is not None
        assert (message.tool_calls[0].extras or {}).get("gemini") == {"thoughtSignature": "SIG-1"}
        assert not report

    @pytest.mark.parametrize("size", [1, 7, 64, 10_000])
    def test_streamed_from_gemini(self, size: int) -> None:
        stream = providers.get("gemini").encode_stream(
            providers.get("gemini").decode_response(json.dumps(self.ANSWER))
        )
        translator = cc.translate_stream("gemini", "openrouter")
        out = b"".join(
            translator.feed(stream[at : at + size]) for at in range(0, len(stream), size)
        )
        tail, report = translator.finish()
        decoder = providers.get("openrouter").stream()
        events = decoder.feed(out + tail) + decoder.flush()
        message = decoder.finish().choices[0].message
        assert message is not None
        assert (message.tool_calls[0].extras or {}).get("gemini") == {"thoughtSignature": "SIG-1"}
        assert not [e for e in events if isinstance(e, cc.PartReceived)]
        assert not report

    def test_a_streamed_entry_no_call_takes_is_reasoning(self) -> None:
        answer = providers.get("gemini").decode_response(json.dumps(self.ANSWER))
        stream = (
            providers.get("openrouter")
            .encode_stream(answer)
            .replace(b'"id":"c1","f', b'"id":"c9","f')
        )
        decoder = providers.get("openrouter").stream()
        events = decoder.feed(stream) + decoder.flush()
        message = decoder.finish().choices[0].message
        assert message is not None
        assert [type(e).__name__ for e in events].count("PartReceived") == 1
        assert [type(p) for p in message.content or ()] == [cc.ReasoningPart]


class TestHostileEntries:
    """reasoning_details entries of odd shapes: kept as they came, never another exception."""

    @staticmethod
    def _body(details: list[Any], calls: list[Any]) -> dict[str, Any]:
        answer = {"role": "assistant", "content": None, "reasoning_details": details,
                  "tool_calls": calls}  # fmt: skip
        return {"messages": [{"role": "user", "content": "Hi"}, answer]}

    CALL: ClassVar[dict[str, Any]] = {
        "id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"},
    }  # fmt: skip

    @pytest.mark.parametrize("ident", [[1], {"a": 1}, 3, None])
    def test_an_id_of_another_type(self, ident: Any) -> None:
        body = self._body([{**SIGNED, "id": ident}], [self.CALL])
        codec = providers.get("openrouter")
        assert json.loads(codec.encode_request(codec.decode_request(json.dumps(body)))) == body

    def test_a_signature_for_an_invalid_call(self) -> None:
        bad = {**self.CALL, "id": "call_1", "function": {"name": "f", "arguments": "{bad"}}
        body = self._body([SIGNED], [bad])
        codec = providers.get("openrouter")
        request = codec.decode_request(json.dumps(body))
        message = request.messages[1]
        assert isinstance(message, cc.AssistantMessage)
        assert (message.invalid_tool_calls[0].extras or {})["gemini"] == {"thoughtSignature": "S"}
        assert json.loads(codec.encode_request(request)) == body

    def test_a_summary_with_a_signature_of_its_own(self) -> None:
        summary = {"type": "reasoning.summary", "summary": "s", "format": "openai-responses-v1",
                   "signature": "q"}  # fmt: skip
        encrypted = {"type": "reasoning.encrypted", "data": "e", "format": "openai-responses-v1"}
        body = self._body([summary, encrypted], [self.CALL])
        codec = providers.get("openrouter")
        assert json.loads(codec.encode_request(codec.decode_request(json.dumps(body)))) == body

    def test_two_entries_of_one_id_in_a_stream(self) -> None:
        entries = [{**SIGNED, "id": "a", "data": "SIG"}, {**SIGNED, "id": "a", "data": "OTHER"}]
        chunks = [
            {"choices": [{"index": 0, "delta": {"reasoning_details": entries}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, **self.CALL}]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]  # fmt: skip
        stream = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
        decoder = providers.get("openrouter").stream()
        events = decoder.feed(stream + b"data: [DONE]\n\n") + decoder.flush()
        message = decoder.finish().choices[0].message
        assert message is not None
        said = [getattr(e.part, "redacted", None) for e in events if isinstance(e, cc.PartReceived)]
        held = [p.redacted for p in message.content or () if isinstance(p, cc.ReasoningPart)]
        assert said == held == ["OTHER"]

    def test_a_streamed_signature_a_writer_does_not_carry_is_reported(self) -> None:
        answer = providers.get("gemini").decode_response(
            json.dumps(TestGeminiCallSignatures.ANSWER)
        )
        stream = providers.get("gemini").encode_stream(answer)
        for target in ("openai", "anthropic", "bedrock", "cohere"):
            translator = cc.translate_stream("gemini", target)
            translator.feed(stream)
            _, report = translator.finish()
            assert "$.choices[0].message.tool_calls[0].extras.gemini.thoughtSignature" in (
                report.paths
            ), target


class TestReportedOnlyWhenLost:
    """What a dialect's wire form marks (an entry's type, format, index) is no loss elsewhere."""

    def test_openrouter_back_to_anthropic(self) -> None:
        there, _ = cc.convert(ANTHROPIC, source="anthropic", target="openrouter", check=False)
        back, report = cc.convert(
            there, source="openrouter", target="anthropic", model="claude-sonnet-4-5",
            max_tokens=256,
        )  # fmt: skip
        assert json.loads(back)["messages"] == ANTHROPIC["messages"]
        assert report.losses == ()

    @staticmethod
    def _said(entry: dict[str, Any]) -> dict[str, Any]:
        """A request whose answer came with one reasoning_details ``entry``."""
        answer = {"role": "assistant", "content": "Hello", "reasoning_details": [entry]}
        return {"messages": [{"role": "user", "content": "Hi"}, answer]}

    def test_an_entry_s_index_and_format_are_not_lost(self) -> None:
        entry = {"type": "reasoning.text", "text": "Greet.", "signature": "S",
                 "format": "anthropic-claude-v1", "index": 0}  # fmt: skip
        _, report = cc.convert(self._said(entry), source="openrouter", target="anthropic",
                               model="claude-sonnet-4-5", max_tokens=64)  # fmt: skip
        assert report.losses == ()

    def test_an_unknown_format_and_an_id_are_reported(self) -> None:
        entry = {"type": "reasoning.text", "text": "Greet.", "format": "unknown", "id": "rd_1",
                 "index": 0}  # fmt: skip
        _, report = cc.convert(self._said(entry), source="openrouter", target="gemini")
        assert sorted(report.paths) == [
            "$.messages[1].content[0].extras.openai.format",
            "$.messages[1].content[0].extras.openai.id",
        ]

    def test_gemini_openai_back_to_gemini(self) -> None:
        _, report = cc.convert(TestGeminiOpenAI.DOCUMENTED, source="gemini-openai", target="gemini")
        assert report.losses == ()


class TestGeminiOpenAI:
    """Gemini's OpenAI-compatible endpoint: a call's signature in extra_content."""

    # Google's thought-signature guide for the OpenAI-compatible endpoint.
    CALL: ClassVar[dict[str, Any]] = {
        "id": "function-call-1",
        "type": "function",
        "function": {"name": "check_flight", "arguments": '{"flight":"AA100"}'},
        "extra_content": {"google": {"thought_signature": "SIG-G"}},
    }
    DOCUMENTED: ClassVar[dict[str, Any]] = {
        "model": "gemini-3-pro-preview",
        "messages": [
            {"role": "user", "content": "Check flight AA100"},
            {"role": "assistant", "tool_calls": [CALL]},
            {"role": "tool", "content": "on time", "tool_call_id": "function-call-1"},
        ],
    }

    def test_read_into_gemini_s_own_place(self) -> None:
        body, _ = _to("gemini", self.DOCUMENTED, "gemini-openai")
        part = body["contents"][1]["parts"][0]
        assert part["thoughtSignature"] == "SIG-G"

    def test_written_from_gemini(self) -> None:
        native, _ = cc.convert(self.DOCUMENTED, source="gemini-openai", target="gemini")
        body, losses = _to("gemini-openai", native, "gemini")
        assert body["messages"][1]["tool_calls"][0]["extra_content"] == {
            "google": {"thought_signature": "SIG-G"}
        }
        assert losses == []

    def test_snake_case_gemini_body(self) -> None:
        vertex = {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {
                    "role": "model",
                    "parts": [
                        {"function_call": {"name": "f", "args": {}}, "thought_signature": "S"}
                    ],
                },
            ]
        }
        body, losses = _to("gemini-openai", vertex, "gemini")
        call = body["messages"][1]["tool_calls"][0]
        assert call["extra_content"] == {"google": {"thought_signature": "S"}}
        assert losses == []
        _, losses = _to("openai", vertex, "gemini")
        assert [loss.split(":")[0] for loss in losses] == [
            "$.messages[1].tool_calls[0].extras.gemini.thought_signature"
        ]

    def test_documented_body_round_trips(self) -> None:
        data = json.dumps(self.DOCUMENTED, separators=(",", ":")).encode()
        codec = providers.get("gemini-openai")
        assert codec.encode_request(codec.decode_request(data)) == data

    def test_another_target_reports_the_signature(self) -> None:
        native, _ = cc.convert(self.DOCUMENTED, source="gemini-openai", target="gemini")
        body, losses = _to("openai", native, "gemini")
        assert "extra_content" not in body["messages"][1]["tool_calls"][0]
        assert losses == [
            "$.messages[1].tool_calls[0].extras.gemini.thoughtSignature: a gemini thought"
            " signature: only gemini's openai-compatible endpoint takes one"
        ]

    def test_a_call_gemini_did_not_make_gets_the_placeholder(self) -> None:
        body, losses = _to("gemini-openai")
        call = body["messages"][1]["tool_calls"][0]
        assert call["extra_content"] == {
            "google": {"thought_signature": "skip_thought_signature_validator"}
        }
        assert any(loss.startswith("$.messages[1].tool_calls[0]: ") for loss in losses)


class TestMistralIds:
    """Mistral's tool-call ids: nine letters and digits, the same in a call and its result."""

    def test_call_and_result_get_the_same_id(self) -> None:
        body, _ = _to("mistral")
        new = body["messages"][1]["tool_calls"][0]["id"]
        assert NINE.fullmatch(new)
        assert body["messages"][2]["tool_call_id"] == new
        again, _ = _to("mistral")
        assert again == body

    def test_an_id_that_fits_stays(self) -> None:
        data = (
            b'{"model":"mistral-large-latest","messages":[{"role":"user","content":"q"},'
            b'{"role":"assistant","tool_calls":[{"id":"D681PevKs","type":"function",'
            b'"function":{"name":"f","arguments":"{}"}}]},'
            b'{"role":"tool","content":"r","tool_call_id":"D681PevKs"}]}'
        )
        codec = providers.get("mistral")
        assert codec.encode_request(codec.decode_request(data)) == data

    def test_reasoning_goes_as_a_thinking_chunk(self) -> None:
        body, _ = _to("mistral")
        assert body["messages"][1]["content"] == [
            {"type": "thinking", "thinking": [{"type": "text", "text": "I should call the tool."}]},
            {"type": "text", "text": "Checking."},
        ]

    @given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=12, unique=True))
    def test_ids_fit_and_stay_unique(self, ids: list[str]) -> None:
        calls = [cc.tool_call(i, "f", {}) for i in ids]
        messages: list[Message] = [cc.user("q"), cc.AssistantMessage((), tuple(calls))]
        messages += [cc.ToolMessage(i, "r") for i in ids]
        out = nine_char_ids(Request(tuple(messages)))
        assistant = out.messages[1]
        assert isinstance(assistant, cc.AssistantMessage)
        new = [call.id for call in assistant.tool_calls]
        assert all(NINE.fullmatch(i) for i in new)
        assert len(set(new)) == len(new)
        answers = [m.tool_call_id for m in out.messages[2:] if isinstance(m, cc.ToolMessage)]
        assert answers == new

    def test_a_fitting_id_keeps_its_place_when_another_maps_onto_it(self) -> None:
        from chatcodec.providers.openai._call_ids import nine_chars

        taken = nine_chars("call_1")
        calls = (cc.tool_call("call_1", "f", {}), cc.tool_call(taken, "f", {}))
        out = nine_char_ids(Request((cc.user("q"), cc.AssistantMessage((), calls))))
        assistant = out.messages[1]
        assert isinstance(assistant, cc.AssistantMessage)
        first, second = (call.id for call in assistant.tool_calls)
        assert second == taken
        assert first != taken
        assert NINE.fullmatch(first)


class TestResponsesReplay:
    """Responses reasoning items with encrypted_content replay into Responses."""

    BODY = (
        b'{"model":"o4-mini","input":[{"role":"user","content":"Hi"},'
        b'{"type":"reasoning","summary":[{"type":"summary_text","text":"Greeting."}],'
        b'"encrypted_content":"gAAAA-enc","id":"rs_1"},'
        b'{"role":"assistant","content":"Hello","type":"message"},'
        b'{"role":"user","content":"Again"}],"include":["reasoning.encrypted_content"],'
        b'"store":false}'
    )

    def test_round_trip(self) -> None:
        codec = providers.get("openai-responses")
        assert codec.encode_request(codec.decode_request(self.BODY)) == self.BODY
        out, report = cc.convert(
            self.BODY, source="openai-responses", target="openai-responses", check=False
        )
        assert out == self.BODY
        assert not report.losses


class TestEntryPoints:
    """convert, http.build_request and the bulk command all write the dialect."""

    def test_build_request(self) -> None:
        request = providers.get("anthropic").decode_request(json.dumps(ANTHROPIC))
        sent = http.build_request("deepseek", request, api_key="k")
        assert sent.url == "https://api.deepseek.com/chat/completions"
        assert b'"reasoning_content":"I should call the tool."' in sent.body
        assert http.base_url("openrouter") == "https://openrouter.ai/api/v1"
        plain = http.build_request(
            "azure", request, base_url="https://r.openai.azure.com/openai/v1"
        )
        assert plain.url == "https://r.openai.azure.com/openai/v1/chat/completions"

    def test_bulk(self) -> None:
        line = json.dumps(ANTHROPIC)
        result = convert_lines([line], source="anthropic", target="deepseek", model="deepseek-chat")
        (record,) = result.records
        assert json.loads(record)["messages"][1]["reasoning_content"] == "I should call the tool."
        result = convert_lines([line], source="anthropic", target="mistral", model="mistral-large")
        (record,) = result.records
        assert NINE.fullmatch(json.loads(record)["messages"][1]["tool_calls"][0]["id"])


class TestStreams:
    """A dialect's stream carries reasoning deltas under the key its clients read."""

    THINKING = (
        b'{"id":"r1","model":"m","object":"chat.completion","created":1,"choices":[{"index":0,'
        b'"message":{"role":"assistant","content":"4","reasoning_content":"2+2."},'
        b'"finish_reason":"stop"}]}'
    )

    @pytest.mark.parametrize(
        ("name", "whole", "key"),
        [
            ("deepseek", "reasoning_content", "reasoning_content"),
            ("vllm", "reasoning", "reasoning"),
            ("openrouter", "reasoning_details", "reasoning"),
        ],
    )
    def test_reasoning_key(self, name: str, whole: str, key: str) -> None:
        codec = providers.get(name)
        response = codec.decode_response(self.THINKING)
        stream = codec.encode_stream(response)
        deltas = [
            json.loads(line[6:])["choices"][0]["delta"]
            for line in stream.split(b"\n\n")
            if line.startswith(b"data: {") and b'"delta":{"' in line
        ]
        assert any(whole in delta for delta in deltas)
        events = providers.get("openai").stream().feed(stream)
        encoder = codec.stream_encoder()
        assert f'"{key}":"2+2."'.encode() in encoder.encode_all(events)
