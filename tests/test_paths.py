"""Paths that name the input's own object keys: escaped alike in every error, loss and problem."""

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
from chatcodec._paths import MAX_KEY, key_path

# The key of the issue: content, then a newline and a backtick that would forge a log line.
FORGED = "zz_SECRET_8c1f\n- at `$.forged`"
FORGED_STEP = '["zz_SECRET_8c1f\\n- at \\u0060$.forged\\u0060"]'


def one_line(text: str) -> None:
    """``text`` is one line whose only backticks are the two around its path."""
    assert text.isprintable(), text
    assert text.count("`") == 2, text
    assert text.endswith("`"), text


def bracketed(step: str) -> tuple[str, bool]:
    """The key a bracketed step names (its kept part), and whether it was cut."""
    match = re.fullmatch(r'\[(".*")(\.\.\.)?\]', step)
    assert match is not None, step
    return json.loads(match.group(1)), match.group(2) is not None


class TestKeyPath:
    """Plain identifiers as ``.key``; anything else a JSON string in brackets, on one line."""

    @pytest.mark.parametrize(
        ("key", "step"),
        [
            ("logprobs", ".logprobs"),
            ("_x9", "._x9"),
            ("x-api-key", '["x-api-key"]'),
            ("~id", '["~id"]'),
            ("", '[""]'),
            ("9lives", '["9lives"]'),
            ("città", '["città"]'),
            ("a b", '["a b"]'),
            ('q"b\\', '["q\\"b\\\\"]'),
            (FORGED, FORGED_STEP),
            ("\r\t\b\f\x00\x7f", '["\\r\\t\\b\\f\\u0000\\u007f"]'),
            ("a\u2028b\u202ec", '["a\\u2028b\\u202ec"]'),  # line separator, bidi override
            ("\ud800", '["\\ud800"]'),  # a lone surrogate
            ("\U000e0001", '["\\udb40\\udc01"]'),  # a format character outside the BMP
            (7, '["7"]'),  # a msgpack map's key need not be a string
        ],
    )
    def test_steps(self, key: Any, step: str) -> None:
        assert key_path(key) == step

    def test_a_long_key_is_cut_and_says_so(self) -> None:
        assert key_path("k" * MAX_KEY) == "." + "k" * MAX_KEY
        assert key_path("k" * (MAX_KEY + 1)) == '["' + "k" * MAX_KEY + '"...]'
        assert key_path("\n" * 10_000) == '["' + "\\n" * MAX_KEY + '"...]'

    @given(st.text())
    @example("`")
    @example("\x85")
    @example("a" * 65)
    def test_any_key_is_one_line_that_names_it(self, key: str) -> None:
        step = key_path(key)
        assert step.isprintable()
        assert "`" not in step
        if step.startswith("."):
            assert step[1:] == key
            return
        named, cut = bracketed(step)
        assert cut == (len(key) > MAX_KEY)
        assert named == key[:MAX_KEY]


class TestEverywhere:
    """Each place a path is built from an input key writes it with key_path."""

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
        step = key_path("zz_SECRET_kw\n`")
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
        assert '$.tools[0].parameters.$defs["d\\n"].required' in paths

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
            ("contentBlockStart", {"contentBlockIndex": 0, "start": {FORGED: 1}}, "$.start"),
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
