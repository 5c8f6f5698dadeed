"""OpenTelemetry GenAI messages: what is written passes the published schemas and reads back."""

from __future__ import annotations

import contextlib
import csv
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

import chatcodec as cc
from chatcodec import providers
from chatcodec.interop import otel
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS
from strategies import compact_arguments, messages, usages

SCHEMAS = Path(__file__).parent / "data" / "otel"
DATA = Path(__file__).parent / "data" / "providers"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"gen-ai-{name}.json").read_text())
    return Draft202012Validator(schema)


INPUT = validator("input-messages")
OUTPUT = validator("output-messages")
SYSTEM = validator("system-instructions")


def valid(check: Draft202012Validator, value: Any) -> None:
    errors = sorted(check.iter_errors(value), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:3]]


normalized = compact_arguments


class TestRoundTrip:
    """Whatever chatcodec holds, to_otel writes within the schema and from_otel reads back."""

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(messages, min_size=1, max_size=5))
    def test_any_history(self, history: list[cc.Message]) -> None:
        written = otel.to_otel(history)
        valid(INPUT, written)
        text = msgspec.json.encode(written)
        assert otel.from_otel(text) == normalized(history)
        assert otel.from_otel(written) == normalized(history)

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(messages, min_size=1, max_size=4), st.none() | usages)
    def test_any_response(self, history: list[cc.Message], usage: cc.Usage | None) -> None:
        answers = [m for m in history if type(m) is cc.AssistantMessage]
        reasons = list(cc.FinishReason)
        response = cc.Response(
            tuple(
                cc.Choice(m, finish_reason=reasons[n % len(reasons)], index=n)
                for n, m in enumerate(answers)
            ),
            model="m",
            usage=usage,
        )
        written = otel.to_otel_output(response)
        valid(OUTPUT, written)
        back = otel.from_otel_output(msgspec.json.encode(written), model="m")
        assert [c.message for c in back.choices] == normalized(answers)
        assert [c.finish_reason for c in back.choices] == [
            c.finish_reason for c in response.choices
        ]

    def test_parts_that_read_as_text_stay_parts(self) -> None:
        history: list[cc.Message] = [
            cc.UserMessage((cc.TextPart("one part"),)),
            cc.UserMessage("plain"),
            cc.AssistantMessage(()),
            cc.AssistantMessage(""),
        ]
        assert otel.from_otel(otel.to_otel(history)) == history

    def test_media_by_url_inline_and_id(self) -> None:
        user = cc.user(
            [
                cc.ImagePart(url="https://x/cat.png", detail="high"),
                cc.ImagePart(data="iVBORw0KGgo=", media_type="image/png"),
                cc.AudioPart(data="UklGRg==", media_type="audio/wav"),
                cc.FilePart(file_id="file-1", media_type="application/pdf"),
                cc.FilePart(url="https://x/a.pdf", media_type="application/pdf"),
            ]
        )
        parts = otel.to_otel([user])[0]["parts"]
        assert [(p["type"], p["modality"]) for p in parts] == [
            ("uri", "image"),
            ("blob", "image"),
            ("blob", "audio"),
            ("file", "document"),
            ("uri", "document"),
        ]
        assert parts[0]["detail"] == "high"
        assert otel.from_otel(otel.to_otel([user])) == [user]


class TestSpanAttributes:
    """A call's attributes, from every recorded request and response of every family."""

    def test_system_apart(self) -> None:
        request = cc.Request((cc.system("S"), cc.developer("D"), cc.user("U")), model="m")
        attributes = otel.span_attributes(request, system_apart=True)
        system = json.loads(attributes["gen_ai.system_instructions"])
        valid(SYSTEM, system)
        assert [part["content"] for part in system] == ["S", "D"]
        assert [m["role"] for m in json.loads(attributes["gen_ai.input.messages"])] == ["user"]
        kept = otel.span_attributes(request)
        assert "gen_ai.system_instructions" not in kept
        roles = [m["role"] for m in json.loads(kept["gen_ai.input.messages"])]
        assert roles == ["system", "developer", "user"]

    def test_usage_and_finish(self) -> None:
        response = cc.Response(
            (cc.Choice(cc.assistant("hi"), finish_reason=cc.FinishReason.TOOL_CALLS),),
            id="r1",
            model="m",
            usage=cc.Usage(10, 5, 15, cached_tokens=4, reasoning_tokens=2),
        )
        attributes = otel.span_attributes(response=response, provider="openai")
        assert attributes["gen_ai.response.finish_reasons"] == ["tool_call"]
        assert attributes["gen_ai.usage.input_tokens"] == 10
        assert attributes["gen_ai.usage.cache_read.input_tokens"] == 4
        assert attributes["gen_ai.usage.reasoning.output_tokens"] == 2
        assert attributes["gen_ai.provider.name"] == "openai"

    @pytest.mark.parametrize(
        "path",
        sorted(
            p
            for p in DATA.glob("*/*/*.json")
            if p.parent.name in ("request", "response") and p.parent.parent.name != "error"
        ),
        ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name[:60]}",
    )
    def test_recorded_bodies(self, path: Path) -> None:
        family = path.parent.parent.name
        codec = providers.get(family)
        if path.parent.name == "request":
            try:
                request = codec.decode_request(path.read_bytes())
            except cc.ChatCodecError:
                pytest.skip("a body the family's decoder refuses")
            attributes = otel.span_attributes(request, system_apart=True)
            written = json.loads(attributes["gen_ai.input.messages"])
            valid(INPUT, written)
            assert otel.from_otel(written) == normalized(
                [
                    m
                    for m in request.messages
                    if type(m) not in (cc.SystemMessage, cc.DeveloperMessage)
                ]
            )
        else:
            try:
                response = codec.decode_response(path.read_bytes())
            except cc.ChatCodecError:
                pytest.skip("an error body")
            written = json.loads(otel.span_attributes(response=response)["gen_ai.output.messages"])
            valid(OUTPUT, written)

    @pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
    def test_corpus_requests(self) -> None:
        families = {
            "openai-chat": "openai",
            "openai-responses": "openai-responses",
            "anthropic-messages": "anthropic",
            "gemini-generateContent": "gemini",
            "ollama-chat": "ollama",
            "bedrock-converse": "bedrock",
        }
        with (CORPUS / "MANIFEST.tsv").open() as f:
            rows = [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] == "request"]
        seen = 0
        for row in rows:
            family = families.get(row["api"])
            if family is None:
                continue
            try:
                request = providers.get(family).decode_request((CORPUS / row["path"]).read_bytes())
            except cc.ChatCodecError:
                continue
            written = otel.to_otel(request.messages)
            valid(INPUT, written)
            assert otel.from_otel(written) == normalized(list(request.messages)), row["path"]
            seen += 1
        assert seen > 500


class TestRefused:
    """Bad input: a ValidationError at its path, never another exception."""

    @pytest.mark.parametrize(
        ("data", "path"),
        [
            (b"{}", "$"),
            (b'[{"parts":[]}]', "$[0].role"),
            (b'[{"role":"user"}]', "$[0].parts"),
            (b'[{"role":"user","parts":[{"type":"text"}]}]', "$[0].parts[0].content"),
            (b'[{"role":"user","parts":[5]}]', "$[0].parts[0]"),
            (b'[{"role":"critic","parts":[]}]', "$[0].role"),
            (b'[{"role":"tool","parts":[]}]', "$[0].parts"),
            (b'[{"role":"tool","parts":[{"type":"text","content":"x"}]}]', "$[0].parts[0].type"),
            (
                b'[{"role":"assistant","parts":[{"type":"tool_call","name":"f"}]}]',
                "$[0].parts[0].id",
            ),
            (
                b'[{"role":"system","parts":[{"type":"blob","modality":"image","mime_type":"image/png","content":"x"}]}]',
                "$[0].parts",
            ),
        ],
    )
    def test_paths(self, data: bytes, path: str) -> None:
        with pytest.raises(cc.ValidationError) as raised:
            otel.from_otel(data)
        assert raised.value.path == path

    def test_not_json(self) -> None:
        with pytest.raises(cc.DecodeError):
            otel.from_otel(b"[")

    def test_unknown_part_kept(self) -> None:
        data = b'[{"role":"user","parts":[{"type":"compaction","content":"summary"}]}]'
        (message,) = otel.from_otel(data)
        assert isinstance(message, cc.UserMessage)
        assert isinstance(message.content, tuple)
        (part,) = message.content
        assert isinstance(part, cc.UnknownPart)
        assert otel.to_otel([message]) == json.loads(data)

    @given(st.binary(max_size=200))
    def test_any_bytes(self, data: bytes) -> None:
        with contextlib.suppress(cc.ChatCodecError):
            otel.from_otel(data)
