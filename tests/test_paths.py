"""Paths through the input's own objects: a key of the wire formats' vocabulary or a digest."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._eventstream import encode_message
from chatcodec._paths import key_step
from chatcodec._vocabulary import NAMES

# The key of the issue: content, then a newline and a backtick that would forge a log line.
FORGED = "zz_SECRET_8c1f\n- at `$.forged`"
FORGED_STEP = "[key 228fc628]"
DIGEST = re.compile(r"\[key [0-9a-f]{8}\]")


def one_line(text: str) -> None:
    """``text`` is one line whose only backticks are the two around its path, and no secret."""
    assert text.isprintable(), text
    assert text.count("`") == 2, text
    assert text.endswith("`"), text
    assert "SECRET" not in text, text


class TestKeyStep:
    """A name of the wire formats as ``.name``; any other key as a digest that shows none of it."""

    @pytest.mark.parametrize(
        ("key", "step"),
        [
            ("logprobs", ".logprobs"),
            ("thoughtSignature", ".thoughtSignature"),
            ("cachePoint", ".cachePoint"),
            ("reasoning_content", ".reasoning_content"),
            ("$defs", ".$defs"),
            ("additionalProperties", ".additionalProperties"),
            ("SECRET_8c1f", "[key 073b878d]"),  # a plain identifier, but no field name
            ("x-api-key", "[key e2222448]"),
            ("", "[key 1271cf25]"),
            (FORGED, FORGED_STEP),
            ("\ud800", "[key 38da57e7]"),  # a lone surrogate
            ("k" * 100, "[key d689f91a]"),
            (7, "[key 10220a3a]"),  # a msgpack map's key need not be a string
        ],
    )
    def test_steps(self, key: Any, step: str) -> None:
        assert key_step(key) == step

    def test_public(self) -> None:
        assert cc.key_step is key_step
        assert cc.key_step(FORGED) == FORGED_STEP

    def test_the_vocabulary_is_names(self) -> None:
        assert len(NAMES) > 3000
        assert all(re.fullmatch(r"\$?[A-Za-z_][A-Za-z0-9_]*", name) for name in NAMES)

    @given(st.text())
    @example("`")
    @example("\x85")
    @example("a" * 65)
    def test_any_key_is_a_name_or_a_digest(self, key: str) -> None:
        step = key_step(key)
        assert step == key_step(key)
        if key in NAMES:
            assert step == "." + key
        else:
            assert DIGEST.fullmatch(step), step


class TestVocabulary:
    """The committed vocabulary holds every name the pinned SDKs and service model give."""

    def test_up_to_date(self) -> None:
        pytest.importorskip("openai")
        pytest.importorskip("anthropic")
        pytest.importorskip("google.genai")
        pytest.importorskip("ollama")
        pytest.importorskip("botocore")
        from vocabulary import names

        missing = sorted(names() - NAMES)
        assert not missing, f"run python tests/vocabulary.py: {missing[:10]}"


class TestEverywhere:
    """Each place a path is built from an input key writes it with key_step."""

    def test_loss_report_and_loss_error(self) -> None:
        # The reproducer's body: an unknown key of an Anthropic text block.
        body = (
            b'{"model":"m","max_tokens":8,"messages":[{"role":"user","content":[{"type":"text",'
            b'"text":"hi","zz_SECRET_8c1f\\n- at `$.forged`":1}]}]}'
        )
        _, report = cc.convert(body, source="anthropic", target="gemini")
        expected = "$.messages[0].content[0].extras.anthropic" + FORGED_STEP
        assert report.paths == [expected]
        one_line(str(report.losses[0]))
        assert "\n" not in repr(report.losses[0])
        with pytest.raises(cc.LossError) as raised:
            cc.convert(body, source="anthropic", target="gemini", strict=True)
        one_line(str(raised.value))
        assert expected in str(raised.value)

    def test_an_unknown_top_level_extras_key(self) -> None:
        request = cc.Request((cc.user("hi"),), model="m", extras={FORGED: 1})
        losses: list[cc.Loss] = []
        providers.get("openai").encode_request(request, losses=losses)
        assert [loss.path for loss in losses] == ["$.extras" + FORGED_STEP]

    def test_a_kept_key_of_a_joined_assistant_message(self) -> None:
        call = cc.ToolCall("c1", "f", msgspec.Raw(b"{}"))
        first = msgspec.structs.replace(
            cc.assistant("a"), tool_calls=(call,), extras={"openai": {FORGED: 1}}
        )
        second = msgspec.structs.replace(cc.assistant("b"), extras={"openai": {FORGED: 2}})
        request = cc.Request((cc.user("hi"), first, second, cc.tool_result("c1", "ok")), model="m")
        losses: list[cc.Loss] = []
        providers.get("openai").encode_request(request, losses=losses)
        assert "$.messages[2].extras.openai" + FORGED_STEP in [loss.path for loss in losses]

    def test_an_inner_setting_of_a_group(self) -> None:
        body = json.dumps(
            {
                "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "generationConfig": {"temperature": 0.5, FORGED: 1},
            }
        ).encode()
        _, report = cc.convert(body, source="gemini", target="openai", model="m")
        assert "$.extras.gemini.generationConfig" + FORGED_STEP in report.paths
        for loss in report.losses:
            one_line(str(loss))

    def test_schema_keywords_and_property_names(self) -> None:
        schema = {
            "type": "object",
            "properties": {FORGED: {"type": "string", "zz_SECRET_kw\n`": 1}},
        }
        request = cc.Request(
            (cc.user("hi"),),
            model="m",
            tools=(cc.ToolDefinition("f", "F.", schema),),
        )
        problems = providers.get("gemini").check_request(request)
        paths = [problem.path for problem in problems]
        step = key_step("zz_SECRET_kw\n`")
        assert f"$.tools[0].parameters.properties{FORGED_STEP}{step}" in paths
        for problem in problems:
            assert str(problem).isprintable()

    def test_a_property_of_no_json_schema_shape(self) -> None:
        # Refused where the tool is built (the schema's structure is checked
        # there, before Ollama's property checks could see it): no key forged.
        schema = {"type": "object", "properties": {FORGED: {"type": 3, "description": 4}}}
        with pytest.raises(cc.ValidationError) as raised:
            cc.ToolDefinition("f", "F.", schema)
        assert "\n" not in str(raised.value)
        assert FORGED not in str(raised.value)

    def test_openai_strict_optional_properties(self) -> None:
        inner = {"type": "object", "properties": {"a": {"type": "string"}}}
        schema = {
            "type": "object",
            "properties": {FORGED: inner},
            "required": [FORGED],
            "additionalProperties": False,
            "$defs": {"d\n": inner},
        }
        tool = cc.ToolDefinition("f", "F.", schema, strict=True)
        request = cc.Request((cc.user("hi"),), model="m", tools=(tool,))
        paths = [problem.path for problem in providers.get("openai").check_request(request)]
        assert f"$.tools[0].parameters.properties{FORGED_STEP}.required" in paths
        assert "$.tools[0].parameters.$defs[key 91aa9caa].required" in paths

    def test_lenient_envelope_keys(self) -> None:
        data = json.dumps(
            {"v": 2, "policy": "lenient", "records": [], FORGED: 1, "extras": {FORGED: 2}}
        )
        _, problems = cc.decode_lenient(data, type=cc.Conversation)
        assert [problem.path for problem in problems] == ["$" + FORGED_STEP]
        one_line(str(problems[0]).split(": ", 1)[1])

    @pytest.mark.parametrize(
        ("kind", "payload", "path"),
        [
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {FORGED: 1}}, "$.delta"),
        ],
    )
    def test_bedrock_stream_keys(self, kind: str, payload: dict[str, Any], path: str) -> None:
        headers = {":event-type": kind, ":message-type": "event"}
        frame = encode_message(headers, json.dumps(payload).encode())
        decoder = providers.get("bedrock").stream()
        with pytest.raises(cc.StreamError) as raised:
            decoder.feed(frame)
        assert str(raised.value).endswith(f"`{path}{FORGED_STEP}`")
        one_line(str(raised.value))
