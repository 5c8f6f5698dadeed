"""The Bedrock Converse codec: real payloads, semantics, losses, preflight, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import DATA, corpus, curated, fast_coverage, load, needs_corpus, same_json

import chatcodec as cc
from chatcodec import (
    AssistantMessage,
    CachePoint,
    FilePart,
    FinishReason,
    ImagePart,
    Loss,
    OpaquePart,
    ProviderError,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
    ValidationError,
    assistant,
    convert,
    system,
    tool_call,
    tool_result,
    user,
)
from chatcodec._exchange import Choice, ProviderTool, Request, Response, ToolChoice
from chatcodec._tools import ToolDefinition
from chatcodec._usage import Usage
from chatcodec.providers import bedrock
from chatcodec.providers import get as get_codec
from chatcodec.providers.bedrock._decode import general_response
from chatcodec.providers.bedrock._fast import fast_response
from official import check_request

CURATED = DATA / "bedrock"


def tool_inputs(wire: list[dict[str, Any]]) -> list[bytes]:
    """The compact JSON of every client ``toolUse`` input, in order."""
    return [
        msgspec.json.encode(block["toolUse"]["input"])
        for turn in wire
        for block in turn["content"]
        if "toolUse" in block and block["toolUse"].get("type") != "server_tool_use"
    ]


def request_round_trip(path: Path) -> None:
    body, parsed = load(path)
    request = bedrock.decode_request(body)
    losses: list[Loss] = []
    same_json(json.loads(bedrock.encode_request(request, losses=losses)), parsed)
    assert losses == []
    calls = [
        bytes(call.arguments)
        for message in request.messages
        if type(message) is AssistantMessage
        for call in message.tool_calls
    ]
    assert calls == tool_inputs(parsed.get("messages", []))


def response_round_trip(path: Path) -> None:
    body, parsed = load(path)
    response = bedrock.decode_response(body)
    losses: list[Loss] = []
    same_json(json.loads(bedrock.encode_response(response, losses=losses)), parsed)
    assert losses == []
    calls = [bytes(call.arguments) for call in response.tool_calls]
    assert calls == tool_inputs([parsed["output"]["message"]])


class TestCorpus:
    """Every recorded request and 200 response decodes and round trips losslessly."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("bedrock", "request")))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("bedrock", "response")))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("bedrock", "response", "400")))
    def test_error(self, path: Path) -> None:
        body, parsed = load(path)
        with pytest.raises(ProviderError) as caught:
            bedrock.decode_response(body)
        assert caught.value.provider == "bedrock"
        assert caught.value.message == parsed["message"]


class TestCurated:
    """The curated copies in tests/data round trip without the corpus."""

    @pytest.mark.parametrize("path", curated("bedrock", "request"))
    def test_request(self, path: Path) -> None:
        request_round_trip(path)

    @pytest.mark.parametrize("path", curated("bedrock", "response"))
    def test_response(self, path: Path) -> None:
        response_round_trip(path)

    @pytest.mark.parametrize("path", curated("bedrock", "error"))
    def test_error(self, path: Path) -> None:
        with pytest.raises(ProviderError, match="bedrock answered with an error"):
            bedrock.decode_response(path.read_bytes())

    def test_sources_name_every_file(self) -> None:
        sources = (CURATED / "SOURCES.md").read_text()
        files = sorted(CURATED.glob("*/*.json"))
        assert len(files) >= 15
        for path in files:
            assert f"`{path.parent.name}/{path.name}`" in sources


def _request(path: str) -> Request:
    return bedrock.decode_request((CURATED / "request" / path).read_bytes())


class TestFastPath:
    """The typed fast path gives what the general path gives, on every recorded body."""

    def test_corpus(self) -> None:
        paths, taken = fast_coverage("bedrock", "response", fast_response)
        for path in taken:
            body = path.read_bytes()
            assert fast_response(body) == general_response(body), path.name
        assert len(taken) * 10 > len(paths) * 9  # the usual answer is the usual case

    @pytest.mark.parametrize("path", curated("bedrock", "response"))
    def test_curated(self, path: Path) -> None:
        body = path.read_bytes()
        fast = fast_response(body)
        assert fast is None or fast == general_response(body)

    @pytest.mark.parametrize(
        "body",
        [
            b'{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t",'
            b'"name":"f","input":{}}},{"text":"after"}]}},"stopReason":"tool_use",'
            b'"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}',
            b'{"output":{"message":{"role":"assistant","content":[{"text":""}]}},'
            b'"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}',
            b'{"output":{"message":{"role":"assistant","content":[{"text":"a"}]}},'
            b'"stopReason":"end_turn","usage":{"inputTokens":-1,"outputTokens":1,"totalTokens":2}}',
        ],
        ids=["call-before-text", "empty-text", "negative-count"],
    )
    def test_left_to_the_general_path(self, body: bytes) -> None:
        assert fast_response(body) is None

    def test_taken(self) -> None:
        body = (
            b'{"output":{"message":{"role":"assistant","content":[{"text":"a"},{"text":"b"},'
            b'{"toolUse":{"toolUseId":"t","name":"f","input":{"x":1.0}}}]}},"stopReason":"tool_use",'
            b'"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2,"serverToolUsage":{}},'
            b'"metrics":{"latencyMs":5}}'
        )
        fast = fast_response(body)
        assert fast is not None
        assert fast == general_response(body)
        assert bedrock.encode_response(fast) == body


class TestRequestSemantics:
    """What each Converse field becomes in the canonical request."""

    def test_tool_turns(self) -> None:
        request = _request(
            "pydantic-ai__models__test_bedrock__test_bedrock_anthropic_tool_with_thinking__01.json"
        )
        kinds = [type(m) for m in request.messages]
        assert kinds == [UserMessage, AssistantMessage, ToolMessage]
        answer = request.messages[1]
        assert isinstance(answer, AssistantMessage)
        assert isinstance(answer.content, tuple)
        reasoning = answer.content[0]
        assert isinstance(reasoning, ReasoningPart)
        assert reasoning.provider == "bedrock"
        assert reasoning.signature
        result = request.messages[2]
        assert isinstance(result, ToolMessage)
        assert result.tool_call_id == answer.tool_calls[0].id
        assert not result.is_error
        assert request.tools
        assert isinstance(request.tools[0], ToolDefinition)

    def test_server_tool_blocks_stay_whole(self) -> None:
        request = _request(
            "pydantic-ai__models__test_bedrock__test_bedrock_model_with_code_execution_tool__01.json"
        )
        answer = request.messages[2]
        assert isinstance(answer, AssistantMessage)
        assert isinstance(answer.content, tuple)
        assert [type(part) for part in answer.content] == [OpaquePart, OpaquePart]
        assert [call.name for call in answer.tool_calls] == ["final_result"]
        assert isinstance(request.tools[1], ProviderTool)
        assert request.tool_choice == ToolChoice("required")

    def test_document_and_cache_point(self) -> None:
        request = _request(
            "pydantic-ai__models__test_bedrock__test_bedrock_cache_write_and_read__00.json"
        )
        parts = [
            part
            for message in request.messages
            if isinstance(message, UserMessage) and isinstance(message.content, tuple)
            for part in message.content
        ]
        files = [part for part in parts if isinstance(part, FilePart)]
        assert files
        assert all(part.data and part.filename for part in files)
        # Each cachePoint block is the cache point of the text before it.
        assert not [part for part in parts if isinstance(part, OpaquePart)]
        closed = [part.text for part in parts if isinstance(part, TextPart) and part.cache]
        assert closed == ["\n", "What is 10 + 11?"]
        first = request.messages[0]
        assert isinstance(first, SystemMessage)
        assert first.cache == CachePoint()  # the cachePoint after the system text
        assert [getattr(tool, "cache", None) for tool in request.tools] == [None, CachePoint()]

    def test_inference_config_keeps_number_types(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"text":"Hi"}]}],'
            b'"inferenceConfig":{"maxTokens":5,"temperature":1,"topP":0.5,"stopSequences":["x"]}}'
        )
        request = bedrock.decode_request(body)
        assert (request.max_tokens, request.temperature, request.top_p) == (5, 1, 0.5)
        assert request.stop == ("x",)
        assert bedrock.encode_request(request) == body

    def test_model_is_in_the_url(self) -> None:
        request = Request((user("Hi"),), model="anthropic.claude-3-5-sonnet")
        assert b"claude" not in bedrock.encode_request(request)

    def test_null_is_not_absent(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"text":"Hi"}]}],'
            b'"inferenceConfig":{"temperature":null}}'
        )
        request = bedrock.decode_request(body)
        assert request.temperature is None
        assert bedrock.encode_request(request) == body

    def test_tool_result_status(self) -> None:
        call = tool_call("t1", "f", {})
        request = Request(
            (user("q"), assistant(tool_calls=[call]), tool_result("t1", "boom", is_error=True))
        )
        body = json.loads(bedrock.encode_request(request))
        assert body["messages"][2]["content"][0]["toolResult"]["status"] == "error"
        back = bedrock.decode_request(json.dumps(body))
        assert isinstance(back.messages[2], ToolMessage)
        assert back.messages[2].is_error

    def test_call_before_text_keeps_its_place(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"text":"q"}]},{"role":"assistant","content":'
            b'[{"toolUse":{"toolUseId":"t","name":"f","input":{}}},{"text":"after"}]}]}'
        )
        assert bedrock.encode_request(bedrock.decode_request(body)) == body

    def test_results_and_text_share_a_turn(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":'
            b'[{"json":{"a":1.0}}],"status":"success"}},{"text":"next"}]}]}'
        )
        request = bedrock.decode_request(body)
        assert [type(m) for m in request.messages] == [ToolMessage, UserMessage]
        assert bedrock.encode_request(request) == body

    def test_turn_keys_stay_on_the_turn(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t",'
            b'"content":[{"text":"r"}],"type":"x"}}],"cache":{"ttl":5}}]}'
        )
        assert json.loads(bedrock.encode_request(bedrock.decode_request(body))) == json.loads(body)

    def test_tool_of_any_kind_is_kept_whole(self) -> None:
        body = b'{"messages":[],"toolConfig":{"tools":[null,{"x":1}],"model":null}}'
        request = bedrock.decode_request(body)
        assert bedrock.encode_request(request) == body
        assert bedrock.decode_request(bedrock.encode_request(request)) == request

    def test_json_result_of_any_kind(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t",'
            b'"content":[{"json":[1,2.0]},{"text":"and"}]}}]}]}'
        )
        assert bedrock.encode_request(bedrock.decode_request(body)) == body

    def test_system_blocks_after_text(self) -> None:
        body = (
            b'{"system":[{"text":"Be brief."},{"guardContent":{"text":{"text":"x"}}}],'
            b'"messages":[{"role":"user","content":[{"text":"Hi"}]}]}'
        )
        request = bedrock.decode_request(body)
        assert isinstance(request.messages[0], SystemMessage)
        assert bedrock.encode_request(request) == body
        _, report = convert(body, source="bedrock", target="openai")
        assert report.paths == ["$.messages[0].extras.bedrock.systemBlocks"]

    def test_document_names_bedrock_takes(self) -> None:
        part = FilePart(data="JVBERi0=", media_type="application/pdf", filename="q3 report.pdf")
        body = json.loads(bedrock.encode_request(Request((user([part]),))))
        document = body["messages"][0]["content"][0]["document"]
        assert document == {
            "format": "pdf",
            "name": "q3 report-pdf",
            "source": {"bytes": "JVBERi0="},
        }


class TestResponseSemantics:
    """What a Converse response becomes."""

    BODY = (
        b'{"output":{"message":{"role":"assistant","content":[{"text":"Hi"},{"toolUse":'
        b'{"toolUseId":"t1","name":"f","input":{"x":1}}}]}},"stopReason":"tool_use",'
        b'"usage":{"inputTokens":10,"outputTokens":4,"totalTokens":24,'
        b'"cacheReadInputTokens":6,"cacheWriteInputTokens":4},"metrics":{"latencyMs":9}}'
    )

    def test_fields(self) -> None:
        response = bedrock.decode_response(self.BODY)
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.choices[0].raw_finish_reason == "tool_use"
        assert response.tool_calls[0].get_argument("x", int) == 1
        assert response.usage is not None
        assert (response.usage.prompt_tokens, response.usage.cached_tokens) == (20, 6)
        assert response.usage.total == 24
        assert response.extras == {"bedrock": {"metrics": {"latencyMs": 9}}}
        assert bedrock.encode_response(response) == self.BODY

    def test_cache_writes_are_the_canonical_count(self) -> None:
        for decode in (fast_response, general_response):
            response = decode(self.BODY)
            assert response is not None
            assert response.usage == Usage(20, 4, 24, 6, None, 4)
        out, report = convert(self.BODY, source="bedrock", target="anthropic", kind="response")
        assert json.loads(out)["usage"] == {
            "input_tokens": 10,
            "output_tokens": 4,
            "cache_read_input_tokens": 6,
            "cache_creation_input_tokens": 4,
        }
        assert not [path for path in report.paths if path.startswith("$.usage")]
        back, _ = convert(out, source="anthropic", target="bedrock", kind="response")
        assert json.loads(back)["usage"] == {
            "inputTokens": 10,
            "outputTokens": 4,
            "totalTokens": 24,
            "cacheReadInputTokens": 6,
            "cacheWriteInputTokens": 4,
        }

    def test_null_counts_stay_null(self) -> None:
        body = b'{"usage":{"inputTokens":null,"outputTokens":2,"cacheReadInputTokens":null}}'
        response = bedrock.decode_response(body)
        assert response.usage == Usage(
            0, 2, extras=response.usage.extras if response.usage else None
        )
        assert json.loads(bedrock.encode_response(response)) == json.loads(body)

    def test_to_other_families(self) -> None:
        for target in ("openai", "anthropic", "gemini", "ollama"):
            out, report = convert(self.BODY, source="bedrock", target=target, kind="response")
            back = get_codec(target).decode_response(out)
            assert back.tool_calls[0].name == "f"
            assert "$.extras.bedrock.metrics" in report.paths

    def test_from_another_family(self) -> None:
        response = Response(
            (Choice(assistant("Hi"), FinishReason.LENGTH),), id="r1", usage=Usage(3, 1)
        )
        losses: list[Loss] = []
        body = json.loads(bedrock.encode_response(response, losses=losses))
        assert body["stopReason"] == "max_tokens"
        assert [loss.path for loss in losses] == ["$.id"]


class TestLosses:
    """What Bedrock cannot carry is reported by path."""

    def test_other_family_blocks(self) -> None:
        opaque = OpaquePart("gemini", msgspec.Raw(b'{"videoMetadata":{}}'))
        request = Request((user([TextPart("look"), opaque]),))
        losses: list[Loss] = []
        body = json.loads(bedrock.encode_request(request, losses=losses))
        assert body["messages"][0]["content"] == [{"text": "look"}]
        assert [loss.path for loss in losses] == ["$.messages[0].content[1]"]

    def test_image_by_url(self) -> None:
        request = Request((user([ImagePart(url="https://example.com/a.png")]),))
        losses: list[Loss] = []
        bedrock.encode_request(request, losses=losses)
        assert [loss.path for loss in losses] == ["$.messages[0].content[0]"]
        assert bedrock.check_request(request)[0].rule.startswith("an image must be sent as bytes")

    def test_data_url_image_goes_as_bytes(self) -> None:
        request = Request((user([ImagePart(url="data:image/png;base64,iVBORw0K")]),))
        body = json.loads(bedrock.encode_request(request))
        image = body["messages"][0]["content"][0]["image"]
        assert image == {"format": "png", "source": {"bytes": "iVBORw0K"}}

    @pytest.mark.parametrize(
        ("filename", "written"),
        [
            ("Q3 report (final) [v2]", "Q3 report (final) [v2]"),
            ("report.pdf", "report-pdf"),
            ("a  b", "a- b"),  # one space at a time
            (None, "document"),  # a name is required: made, nothing lost
        ],
    )
    def test_a_document_name_bedrock_refuses_is_written_and_reported(
        self, filename: str | None, written: str
    ) -> None:
        part = FilePart(data="JVBERi0xLjQK", media_type="application/pdf", filename=filename)
        losses: list[Loss] = []
        body = json.loads(bedrock.encode_request(Request((user([part]),)), losses=losses))
        assert body["messages"][0]["content"][0]["document"]["name"] == written
        changed = filename is not None and written != filename
        assert [loss.path for loss in losses] == (
            ["$.messages[0].content[0].filename"] if changed else []
        )
        back = bedrock.decode_request(json.dumps(body))
        assert bedrock.encode_request(back) == bedrock.encode_request(Request((user([part]),)))

    def test_history_without_tools_declares_them(self) -> None:
        request = Request(
            (user("q"), assistant(tool_calls=[tool_call("t1", "f", {})]), tool_result("t1", "r"))
        )
        losses: list[Loss] = []
        body = json.loads(bedrock.encode_request(request, losses=losses))
        assert body["toolConfig"]["tools"][0]["toolSpec"]["name"] == "f"
        assert [loss.path for loss in losses] == ["$.tools"]
        assert bedrock.check_request(bedrock.decode_request(json.dumps(body))) == []


class TestCheck:
    """Preflight: what Converse refuses."""

    def test_valid(self) -> None:
        assert bedrock.check_request(Request((system("s"), user("q")))) == []

    def test_rules(self) -> None:
        call = tool_call("t1", "f", {})
        request = Request(
            (assistant("a"), user("q"), assistant(tool_calls=[call]), user("r")),
            temperature=1.5,
            tool_choice=ToolChoice("none"),
        )
        rules = {problem.path: problem.rule for problem in bedrock.check_request(request)}
        assert rules["$.messages[0]"] == "a conversation must start with a user message"
        assert rules["$.messages[2]"] in (
            "tool calls must be answered in the next turn",
            "tool calls and results need toolConfig tools",
        )
        assert rules["$.temperature"] == "must be between 0 and 1"
        assert rules["$.tool_choice"] == 'bedrock has no tool choice "none"'


class TestBadInput:
    """Malformed bodies raise chatcodec's errors with the JSON path."""

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            (b'{"messages":{}}', "$.messages"),
            (b'{"messages":[{"role":"system","content":[]}]}', "$.messages[0].role"),
            (b'{"messages":[{"role":"user","content":"hi"}]}', "$.messages[0].content"),
            (b'{"messages":[{"role":"user","content":[]}]}', "$.messages[0].content"),
        ],
    )
    def test_request(self, body: bytes, path: str) -> None:
        with pytest.raises(ValidationError) as caught:
            bedrock.decode_request(body)
        assert caught.value.path == path

    def test_usage(self) -> None:
        with pytest.raises(ValidationError) as caught:
            bedrock.decode_response(
                b'{"output":{},"stopReason":"end_turn","usage":{"inputTokens":"3"}}'
            )
        assert caught.value.path == "$.usage.inputTokens"


def _every_request() -> list[Any]:
    return [
        pytest.param(path, target, id=f"{target}:{path.stem[:70]}")
        for path in [param.values[0] for param in corpus("bedrock", "request")]
        for target in ("openai", "ollama", "anthropic", "gemini")
    ]


@pytest.mark.parametrize(("path", "target"), needs_corpus(_every_request(), width=2))
def test_every_recorded_request_converts(path: Path, target: str) -> None:
    """Each recorded request becomes a valid request of every family, or says what it lost."""
    out, report = convert(
        path.read_bytes(), source="bedrock", target=target, model="m", max_tokens=64
    )
    codec = get_codec(target)
    errors = {
        p.rule for p in codec.check_request(codec.decode_request(out)) if p.severity == "error"
    }
    # What the source request itself breaks (Bedrock took an answer first) is not the conversion's.
    errors -= {p.rule for p in codec.check_request(bedrock.decode_request(path.read_bytes()))}
    assert not errors or report, sorted(errors)
    assert all(loss.path.startswith("$") and loss.reason for loss in report)


class TestDocumentNameKept:
    """A document name read from Bedrock comes back as it came; another family's is renamed."""

    def test_round_trip(self) -> None:
        body = (
            b'{"messages":[{"role":"user","content":[{"document":{"format":"pdf",'
            b'"name":"sample_2","source":{"bytes":"JVBERi0="}}},{"text":"x"}]}]}'
        )
        losses: list[cc.Loss] = []
        assert bedrock.encode_request(bedrock.decode_request(body), losses=losses) == body
        assert losses == []

    def test_from_elsewhere(self) -> None:
        part = cc.FilePart(data="JVBERi0=", media_type="application/pdf", filename="sample_2")
        losses: list[cc.Loss] = []
        out = json.loads(bedrock.encode_request(cc.Request((cc.user([part]),)), losses=losses))
        assert out["messages"][0]["content"][0]["document"]["name"] == "sample-2"
        assert [loss.path for loss in losses] == ["$.messages[0].content[0].filename"]


def _with_output_config(params: list[Any]) -> list[Any]:
    return [p for p in params if b'"outputConfig"' in Path(p.values[0]).read_bytes()]


OUTPUT_CONFIG = _with_output_config(curated("bedrock", "request")) + _with_output_config(
    corpus("bedrock", "request")
)


class TestOutputConfig:
    """Converse's structured output (``outputConfig.textFormat``) is the response format."""

    @pytest.mark.parametrize("path", OUTPUT_CONFIG)
    def test_recorded_bodies(self, path: Path) -> None:
        body = path.read_bytes()
        request = bedrock.decode_request(body)
        form = request.response_format
        assert form is not None
        assert form.type == "json_schema"
        sent = json.loads(body)["outputConfig"]["textFormat"]["structure"]["jsonSchema"]
        assert form.schema == json.loads(sent["schema"])
        assert form.name == sent.get("name")
        same_json(json.loads(bedrock.encode_request(request)), json.loads(body))
        for target in ("openai", "gemini", "anthropic"):
            _, report = cc.convert(
                body, source="bedrock", target=target, model="claude-sonnet-4-5", max_tokens=64
            )
            # The schema is carried; a description only where the target has a place for it.
            assert not [p for p in report.paths if "outputConfig" in p], target

    def test_from_openai(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
        body = json.dumps(
            {
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": "x"}],
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "C", "schema": schema, "strict": True},
                },
            }
        ).encode()
        out, report = cc.convert(body, source="openai", target="bedrock")
        assert not report
        written = json.loads(out)["outputConfig"]
        assert written == {
            "textFormat": {
                "type": "json_schema",
                "structure": {
                    "jsonSchema": {"schema": json.dumps(schema, separators=(",", ":")), "name": "C"}
                },
            }
        }
        check_request("bedrock", out)
        assert bedrock.decode_request(out).response_format == cc.ResponseFormat(
            "json_schema", name="C", schema=schema
        )

    def test_json_object_has_no_form(self) -> None:
        request = Request((cc.user("x"),), response_format=cc.ResponseFormat("json_object"))
        losses: list[cc.Loss] = []
        out = json.loads(bedrock.encode_request(request, losses=losses))
        assert "outputConfig" not in out
        assert [loss.path for loss in losses] == ["$.response_format"]

    def test_other_settings_kept_and_reported(self) -> None:
        config = {
            "textFormat": {
                "type": "json_schema",
                "structure": {"jsonSchema": {"schema": '{"type": "object"}', "description": "D"}},
            },
            "effort": "high",
        }
        body = json.dumps(
            {"messages": [{"role": "user", "content": [{"text": "x"}]}], "outputConfig": config}
        )
        request = bedrock.decode_request(body)
        assert json.loads(bedrock.encode_request(request)) == json.loads(body)
        changed = msgspec.structs.replace(
            request,
            response_format=cc.ResponseFormat("json_schema", schema={"type": "string"}),
        )
        written = json.loads(bedrock.encode_request(changed))["outputConfig"]
        assert written["effort"] == "high"
        assert written["textFormat"]["structure"]["jsonSchema"] == {"schema": '{"type":"string"}'}
        _, report = cc.convert(body.encode(), source="bedrock", target="openai", model="m")
        assert set(report.paths) == {
            "$.extras.bedrock.outputConfig",
            "$.response_format.extras.bedrock.description",
        }

    @pytest.mark.parametrize(
        "text_format",
        [
            {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{not json"}}},
            {"type": "json_schema", "structure": {"jsonSchema": {"schema": "[1]"}}},
            {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{}", "other": 1}}},
            {"type": "text"},
            "json",
        ],
    )
    def test_a_form_chatcodec_does_not_read_is_kept(self, text_format: Any) -> None:
        body = json.dumps(
            {
                "messages": [{"role": "user", "content": [{"text": "x"}]}],
                "outputConfig": {"textFormat": text_format},
            }
        )
        request = bedrock.decode_request(body)
        assert request.response_format is None
        assert json.loads(bedrock.encode_request(request)) == json.loads(body)
        _, report = cc.convert(body.encode(), source="bedrock", target="openai", model="m")
        assert report.paths == ["$.extras.bedrock.outputConfig"]
