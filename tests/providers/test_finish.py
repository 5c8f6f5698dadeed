"""Finish reasons across the families: one table for convert, stream encoders, translation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from msgspec import Raw
from readers import FAMILIES

from chatcodec import (
    Choice,
    FinishReason,
    Loss,
    Response,
    ToolCall,
    ValidationError,
    assistant,
    convert,
)
from chatcodec import translate_stream as translate
from chatcodec.providers import get
from chatcodec.providers._finish import READ, WRITE, write

F = FinishReason
BLOCKED_OR_FAILED = (F.CONTENT_FILTER, F.ERROR, F.OTHER)


def response_for(reason: FinishReason, raw: str | None) -> Response:
    message = assistant("ok")
    if reason is F.TOOL_CALLS:
        message = assistant(tool_calls=(ToolCall("call_1", "f", Raw(b'{"a":5}')),))
    return Response((Choice(message, reason, raw),), id="r1", model="m")


def every_reason() -> list[object]:
    """Every name of every family, with what it means, and each bare reason."""
    params: list[object] = []
    for family, names in READ.items():
        for raw, reason in names.items():
            if reason is not None:
                params.append(pytest.param(family, raw, reason, id=f"{family}-{raw}"))
    params += [pytest.param("any", None, r, id=f"bare-{r.value}") for r in F]
    return params


def decoded_reason(target: str, body: bytes, *, stream: bool) -> FinishReason | None:
    module = get(target)
    if not stream:
        return module.decode_response(body).finish_reason
    decoder = module.stream()
    decoder.feed(body)
    decoder.flush()
    return decoder.finish().finish_reason


def expected(target: str, reason: FinishReason, raw: str | None) -> FinishReason | None:
    """What ``target`` reads back: the reason itself, but where it has no name for it
    (Anthropic's null for a failure; the plain stop for ``other``)."""
    if target == "openai" and reason is F.ERROR:
        return F.CONTENT_FILTER  # the nearest of the five names OpenAI's clients take
    if raw is not None and raw in READ[target] and READ[target][raw] is reason:
        return reason
    if target == "cohere" and reason is F.CONTENT_FILTER:
        return F.ERROR  # the nearest of Cohere v2's names: a block is no plain stop
    if reason is F.ERROR and target == "anthropic":
        return None
    if reason is F.OTHER and WRITE[target][reason] is None and target != "openai-responses":
        return F.STOP
    return reason


class TestEveryPair:
    """Every name of every family into every other family keeps its meaning, or says so."""

    @pytest.mark.parametrize("target", FAMILIES)
    @pytest.mark.parametrize(("source", "raw", "reason"), every_reason())
    @pytest.mark.parametrize("stream", [False, True], ids=["response", "stream"])
    def test_meaning_kept(
        self, source: str, raw: str | None, reason: FinishReason, target: str, stream: bool
    ) -> None:
        response = response_for(reason, raw)
        losses: list[Loss] = []
        module = get(target)
        if stream:
            body = module.encode_stream(response, losses=losses)
        else:
            body = module.encode_response(response, losses=losses)
        got = decoded_reason(target, body, stream=stream)
        assert got is expected(target, reason, raw)
        lost = [loss for loss in losses if loss.path.endswith("finish_reason")]
        if WRITE[target][reason] is None and source != target and raw not in READ[target]:
            # No equal in the target: written under another name, and said so.
            equal = {("MALFORMED_FUNCTION_CALL", "bedrock"), ("malformed_tool_use", "gemini")}
            assert lost or (raw, target) in equal
        if not lost and raw is not None and source == target:
            assert raw.encode() in body  # a family's own name comes back as sent

    @pytest.mark.parametrize("target", FAMILIES)
    @pytest.mark.parametrize("source", [f for f in FAMILIES if f != "openai-responses"])
    @pytest.mark.parametrize("reason", BLOCKED_OR_FAILED)
    def test_translated_streams(self, source: str, target: str, reason: FinishReason) -> None:
        """A blocked or failed stop, sent live through translate_stream, is not a plain stop."""
        raw = next((name for name, r in READ[source].items() if r is reason), None)
        if expected(source, reason, raw) is not reason:
            pytest.skip("the source family has no name for the reason")
        body = get(source).encode_stream(response_for(reason, raw))
        translator = translate(source, target)
        out = translator.feed(body)
        tail, report = translator.finish()
        got = decoded_reason(target, out + tail, stream=True)
        assert got is expected(target, reason, raw)
        equal = {
            ("MALFORMED_FUNCTION_CALL", "bedrock"),
            ("malformed_tool_use", "gemini"),
        }
        # A dialect's "error" in a stream has no body to say it was OpenAI's: one of the five.
        own = source == target and (source, raw) != ("openai", "error")
        if WRITE[target][reason] is None and not own and (raw, target) not in equal:
            assert any(path.endswith("finish_reason") for path in report.paths)

    def test_the_issue_examples(self) -> None:
        """Gemini SAFETY and MALFORMED_FUNCTION_CALL, OpenAI content_filter, Anthropic refusal."""
        cases = [
            ("gemini", "SAFETY", F.CONTENT_FILTER, "ollama", "content_filter"),
            ("gemini", "MALFORMED_FUNCTION_CALL", F.ERROR, "bedrock", "malformed_tool_use"),
            ("gemini", "MALFORMED_FUNCTION_CALL", F.ERROR, "openai", "content_filter"),
            ("gemini", "NO_IMAGE", F.ERROR, "anthropic", '"stop_reason":null'),
            ("openai", "content_filter", F.CONTENT_FILTER, "ollama", "content_filter"),
            ("anthropic", "refusal", F.CONTENT_FILTER, "bedrock", "content_filtered"),
            ("openai", "error", F.ERROR, "bedrock", "malformed_model_output"),
        ]
        for _, raw, reason, target, wire in cases:
            losses: list[Loss] = []
            body = get(target).encode_response(response_for(reason, raw), losses=losses)
            assert wire.encode() in body
            assert b'"stop"' not in body
            assert b"end_turn" not in body


OPENAI_NAMES = frozenset(("stop", "length", "tool_calls", "content_filter", "function_call"))


def openai_reasons(body: bytes, *, stream: bool) -> list[object]:
    """Every finish_reason an OpenAI body or stream of chunks says."""
    if not stream:
        return [c.get("finish_reason") for c in json.loads(body)["choices"]]
    found = []
    for line in body.decode().splitlines():
        if line.startswith("data: {"):
            found += [c.get("finish_reason") for c in json.loads(line[6:]).get("choices", ())]
    return [name for name in found if name is not None]


class TestOpenAIClosedSet:
    """Into OpenAI Chat, a stop is one of the five names openai-python takes, the loss said."""

    @pytest.mark.parametrize(("source", "raw", "reason"), every_reason()[: -len(F)])
    def test_convert(self, source: str, raw: str, reason: FinishReason) -> None:
        # A record built with "error" is no OpenAI body's: even OpenAI's encoder
        # writes one of the five (a dialect's body: test_a_dialects_error_reads).
        losses: list[Loss] = []
        body = get(source).encode_response(response_for(reason, raw), losses=losses)
        out, report = convert(body, source=source, target="openai", kind="response")
        names = openai_reasons(out, stream=False)
        assert names
        assert set(names) <= OPENAI_NAMES
        if reason is F.ERROR:
            assert names == ["content_filter"]
            paths = [*report.paths, *(loss.path for loss in losses)]
            assert "$.choices[0].finish_reason" in paths

    @pytest.mark.parametrize(("source", "raw", "reason"), every_reason()[: -len(F)])
    def test_translated_stream(self, source: str, raw: str, reason: FinishReason) -> None:
        losses: list[Loss] = []
        body = get(source).encode_stream(response_for(reason, raw), losses=losses)
        translator = translate(source, "openai")
        out = translator.feed(body)
        tail, report = translator.finish()
        names = openai_reasons(out + tail, stream=True)
        assert names
        assert set(names) <= OPENAI_NAMES
        if reason is F.ERROR:
            assert names == ["content_filter"]
            paths = [*report.paths, *(loss.path for loss in losses)]
            assert any(path.endswith("finish_reason") for path in paths)

    def test_a_dialects_error_reads(self) -> None:
        body = (
            b'{"id":"g","object":"chat.completion","created":1,"model":"m","choices":'
            b'[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"error"}]}'
        )
        module = get("openai")
        assert module.decode_response(body).finish_reason is F.ERROR
        assert b'"finish_reason":"error"' in module.encode_response(module.decode_response(body))
        out, report = convert(body, source="openai", target="anthropic", kind="response")
        assert b'"stop_reason":null' in out
        assert "$.choices[0].finish_reason" in report.paths
        # A dialect's stream saying "error", translated: one of the five, reported.
        chunks = (
            b'data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m",'
            b'"choices":[{"index":0,"delta":{"role":"assistant","content":"x"},'
            b'"finish_reason":"error"}]}\n\ndata: [DONE]\n\n'
        )
        translator = translate("openai", "openai")
        out = translator.feed(chunks)
        tail, report = translator.finish()
        assert openai_reasons(out + tail, stream=True) == ["content_filter"]
        assert any(path.endswith("finish_reason") for path in report.paths)


class TestPlainStrings:
    """A finish reason given as its plain string value is the enum's (it is a StrEnum)."""

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("value", ["content_filter", "error", "stop", "other"])
    def test_encoders_take_it(self, family: str, value: str) -> None:
        plain = Response((Choice(assistant("ok"), value),), id="r", model="m")  # type: ignore[arg-type]
        typed = Response((Choice(assistant("ok"), F(value)),), id="r", model="m")
        module = get(family)
        assert module.encode_response(plain, losses=[]) == module.encode_response(typed, losses=[])
        assert module.encode_stream(plain, losses=[]) == module.encode_stream(typed, losses=[])

    @pytest.mark.parametrize("family", FAMILIES)
    def test_a_string_that_is_no_reason(self, family: str) -> None:
        bad = Response((Choice(assistant("ok"), "blocked"),), id="r", model="m")  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="finish_reason"):
            get(family).encode_response(bad, losses=[])


def test_readme_table_is_the_write_table() -> None:
    """The finish-reason table of docs/providers.md names, first in each cell, what WRITE writes."""
    readme = (Path(__file__).parent.parent.parent / "docs" / "providers.md").read_text()
    columns = ("openai", "anthropic", "gemini", "ollama", "bedrock", "openai-responses", "cohere")
    rows = {}
    for line in readme.splitlines():
        found = re.match(r"\| `(\w+)` \| (.*) \|$", line)
        if found and found.group(1) in {r.value for r in F}:
            rows[F(found.group(1))] = [cell.strip() for cell in found.group(2).split(" | ")]
            if set(rows) == set(F):
                break  # the table is whole; later tables (error kinds) are others
    assert set(rows) == set(F)
    for reason, cells in rows.items():
        for family, cell in zip(columns, cells, strict=True):
            wire, lost = write(family, reason, None, None)
            if (family, wire) == ("openai-responses", "other"):
                wire = "incomplete"  # no reason of its two: an incomplete response without one
            written = (f"*`{wire}`*" if wire else "*null*") if lost else f"`{wire}`"
            assert written in cell, (reason, family, cell)
            assert cell.startswith((written, "`incomplete`, ")) or lost
