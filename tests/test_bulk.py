"""convert_lines: the pure function under every bulk engine, on real payloads."""

from __future__ import annotations

import io
import itertools
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec.bulk import _core, _pool
from chatcodec.bulk._detect import detect
from chatcodec.bulk._result import LineProblem, Stage
from chatcodec.providers._direct import direct
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

DATA = Path(__file__).parent / "data"
BULK = DATA / "bulk"
PROVIDERS = DATA / "providers"
ENVELOPES = ("openai", "anthropic", "gemini", "bedrock", "chatcodec")
ID_KEY = {
    "openai": "custom_id",
    "anthropic": "custom_id",
    "gemini": "key",
    "bedrock": "recordId",
    "chatcodec": "id",
}
OPTIONS: dict[str, Any] = {"model": "some-model", "max_tokens": 256}
# For tests of envelopes, ids and order: the records a target would refuse
# (line 199 of the shipped files opens with an assistant message) are kept.
KEEP: dict[str, Any] = {**OPTIONS, "keep_refused": True}


def lines(name: str) -> list[bytes]:
    return (BULK / name).read_bytes().splitlines()


def ids(records: list[bytes], family: str) -> list[str]:
    return [json.loads(r)[ID_KEY[family]] for r in records]


def accounted(result: cc.BulkResult) -> None:
    parts = (
        result.blank + result.converted + result.lossy + result.failed + result.refused
    ) + result.unread
    assert result.lines == parts
    assert len(result.records) == result.converted + result.lossy + result.kept


def batch_in(family: str) -> list[bytes]:
    """The 300 shipped OpenAI batch requests, in ``family``'s batch envelope."""
    source = lines("openai-batch-input.jsonl")
    if family == "openai":
        return source
    result = cc.convert_lines(source, source="openai", target=family, kind="batch", **KEEP)
    assert result.failed == 0
    return result.records


NOT_A_RESPONSE = "test_invalid_response"  # a recorded body that is no chat completion


def responses(codec: str) -> list[bytes]:
    paths = sorted((PROVIDERS / codec / "response").glob("*.json"))
    return [p.read_bytes() for p in paths if NOT_A_RESPONSE not in p.name]


def results_file(family: str) -> list[bytes]:
    """Real responses wrapped as each provider documents its batch results, and failures."""
    codec = "anthropic" if family == "bedrock" else family
    out: list[bytes] = []
    for i, body in enumerate(responses(codec)):
        raw = msgspec.Raw(body)
        wrapped: Any = {
            "openai": {
                "id": f"batch_req_{i}",
                "custom_id": f"r-{i}",
                "response": {"status_code": 200, "request_id": f"req_{i}", "body": raw},
                "error": None,
            },
            "anthropic": {"custom_id": f"r-{i}", "result": {"type": "succeeded", "message": raw}},
            "gemini": {"key": f"r-{i}", "response": raw},
            "bedrock": {"recordId": f"r-{i}", "modelInput": {}, "modelOutput": raw},
        }[family]
        out.append(msgspec.json.encode(wrapped))
    failures: dict[str, list[Any]] = {
        "openai": [
            {
                "id": "b1",
                "custom_id": "bad-1",
                "response": None,
                "error": {"code": "batch_expired", "message": "private text"},
            },
            {
                "id": "b2",
                "custom_id": "bad-2",
                "response": {
                    "status_code": 400,
                    "body": {"error": {"type": "invalid_request_error", "message": "private text"}},
                },
            },
        ],
        "anthropic": [
            {
                "custom_id": "bad-1",
                "result": {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": "private text"},
                    },
                },
            },
            {"custom_id": "bad-2", "result": {"type": "canceled"}},
            {"custom_id": "bad-3", "result": {"type": "expired"}},
        ],
        "gemini": [
            {
                "key": "bad-1",
                "error": {"code": 400, "message": "private text", "status": "INVALID_ARGUMENT"},
            },
        ],
        "bedrock": [
            {
                "recordId": "bad-1",
                "modelInput": {},
                "error": {"errorCode": 400, "errorMessage": "private text"},
            },
        ],
    }
    return out + [msgspec.json.encode(f) for f in failures[family]]


class TestConvertLines:
    """Records in, records and problems out, every line accounted for."""

    def test_fine_tuning_file_to_every_family(self) -> None:
        source = lines("openai-finetune.jsonl")
        for target in ("anthropic", "gemini", "ollama", "openai", "chatcodec", "sharegpt"):
            result = cc.convert_lines(source, source="openai", target=target, **KEEP)
            accounted(result)
            assert result.kind == "request"
            assert result.lines == 300
            assert result.failed == 0, (target, result.problems[:3])

    @pytest.mark.parametrize(
        "target", ["anthropic", "gemini", "ollama", "openai-responses", "bedrock"]
    )
    def test_each_line_as_convert_gives_it(self, target: str) -> None:
        # Lines the direct path takes and lines it leaves: the same bytes, the
        # same losses as convert() on each line, and refused where convert's
        # preflight or the providers' ordering rules find an error.
        source = lines("openai-finetune.jsonl")
        result = cc.convert_lines(source, source="openai", target=target, **KEEP)
        assert result.failed == 0
        expected: list[LineProblem] = []
        records = []
        refused = set()
        for number, line in enumerate(source, 1):
            out, report = cc.convert(line, source="openai", target=target, **OPTIONS)
            records.append(out)
            messages = cc.providers.get("openai").decode_request(line).messages
            order = cc.validate(messages, policy="provider", collect=True)
            if order or any(p.severity == "error" for p in report.problems):
                refused.add(number)
            stage: Stage = "loss"
            for loss in report.losses:
                expected.append(LineProblem(number, loss.path, loss.reason, "warning", stage))
        assert result.records == records
        assert [p for p in result.problems if p.stage == "loss"] == expected
        assert {p.line for p in result.problems if p.severity == "error"} == refused
        assert result.refused == result.kept == len(refused)
        assert result.lossy == len({p.line for p in expected} - refused)

    @pytest.mark.parametrize(
        "target", ["anthropic", "gemini", "ollama", "openai-responses", "bedrock"]
    )
    def test_the_direct_path_gives_the_general_records(
        self, target: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        source = lines("openai-finetune.jsonl")
        convert = direct("openai", target, OPTIONS["model"], OPTIONS["max_tokens"])
        assert convert is not None
        assert sum(convert(line) is not None for line in source) * 2 > len(source)
        fast = cc.convert_lines(source, source="openai", target=target, **KEEP)
        monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
        general = cc.convert_lines(source, source="openai", target=target, **KEEP)
        assert fast.records == general.records
        assert fast.problems == general.problems
        assert fast.counts() == general.counts()

    def test_blank_lines_and_text_lines(self) -> None:
        body = '{"messages":[{"role":"user","content":"Hi"}]}\n'
        result = cc.convert_lines(
            ["", body, "  \n", body.encode()], source="openai", target="gemini"
        )
        accounted(result)
        assert (result.lines, result.blank, result.converted) == (4, 2, 2)
        assert json.loads(result.records[0]) == {
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}]
        }

    def test_a_bad_line_is_reported_and_the_run_goes_on(self) -> None:
        good = lines("openai-finetune.jsonl")[:3]
        bad = b'{"messages":[{"role":"wizard","content":"secret words"}]}'
        result = cc.convert_lines(
            [good[0], bad, b"{not json", *good[1:]],
            source="openai",
            target="anthropic",
            model="claude-sonnet-4-5",
            max_tokens=64,
        )
        accounted(result)
        assert result.failed == 2
        assert len(result.records) == 3
        failures = [p for p in result.problems if p.severity == "error"]
        assert [p.line for p in failures] == [2, 3]
        assert all(p.stage == "convert" and p.rule for p in failures)
        assert "secret" not in msgspec.json.encode(result.problems).decode()
        assert all(p.content is None for p in result.problems)

    def test_include_content(self) -> None:
        bad = '{"messages":[{"role":"wizard","content":"secret words"}]}'
        result = cc.convert_lines([bad], source="openai", target="anthropic", include_content=True)
        assert result.problems[0].content == bad

    def test_strict_stops_at_the_first_failure(self) -> None:
        good = lines("openai-finetune.jsonl")[:4]
        result = cc.convert_lines(
            [good[0], b"[1", good[1], good[2]],
            source="openai",
            target="gemini",
            kind="request",
            strict=True,
        )
        accounted(result)
        assert (result.converted + result.lossy, result.failed, result.unread) == (1, 1, 2)

    def test_losses_are_counted_by_reason(self) -> None:
        result = cc.convert_lines(
            lines("openai-finetune.jsonl"), source="openai", target="sharegpt"
        )
        assert result.lossy > 0
        losses = [p for p in result.problems if p.stage == "loss"]
        assert sum(result.losses.values()) == len(losses)
        assert result.losses["sharegpt has no tool-call ids"] > 0

    def test_line_numbers_continue_from_first_line(self) -> None:
        result = cc.convert_lines(
            [b"{bad"], source="openai", target="gemini", kind="request", first_line=41
        )
        assert result.problems[0].line == 41

    def test_a_record_the_target_refuses_is_counted_not_returned(self) -> None:
        body = b'{"messages":[{"role":"user","content":"Hi"}]}'
        result = cc.convert_lines([body], source="openai", target="anthropic", max_tokens=64)
        accounted(result)
        assert (result.refused, result.converted, result.records) == (1, 0, [])
        assert [(p.path, p.stage, p.severity) for p in result.problems] == [
            ("$.model", "preflight", "error")
        ]
        assert result.refusals == {"must be set: Anthropic requires it (at $.model)": 1}
        kept = cc.convert_lines(
            [body], source="openai", target="anthropic", max_tokens=64, keep_refused=True
        )
        accounted(kept)
        assert (kept.refused, kept.kept, len(kept.records)) == (1, 1, 1)


class TestToolCallContent:
    """convert_lines writes OpenAI assistant messages of calls alone with the content asked."""

    LINE = json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "messages": [
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "9"}],
                },
            ],
        }
    )

    @pytest.mark.parametrize(("option", "wire"), [("empty", ""), ("null", None), ("omit", ...)])
    @pytest.mark.parametrize("kind", [None, "request"])
    def test_written(self, option: Any, wire: Any, kind: Any) -> None:
        result = cc.convert_lines(
            [self.LINE], source="anthropic", target="openai", kind=kind, tool_call_content=option
        )
        assert result.converted == 1, result.problems
        assert json.loads(result.records[0])["messages"][1].get("content", ...) == wire

    @pytest.mark.parametrize(
        ("target", "kind", "option", "rule"),
        [
            ("anthropic", "request", "empty", "only an openai target"),
            ("chatcodec", None, "null", "only an openai target"),
            ("openai", "request", "blank", "'omit', 'null' or 'empty'"),
            ("openai", "response", "empty", "requests, not responses"),
        ],
    )
    def test_refused(self, target: str, kind: Any, option: Any, rule: str) -> None:
        with pytest.raises(cc.ValidationError, match=rule):
            cc.convert_lines(
                [self.LINE], source="anthropic", target=target, kind=kind, tool_call_content=option
            )


class TestKinds:
    """The kind is told from the first record's keys, and explained when it cannot be."""

    @pytest.mark.parametrize(
        ("record", "kind"),
        [
            (b'{"messages":[]}', "request"),
            (b'{"contents":[]}', "request"),
            (b'{"choices":[]}', "response"),
            (b'{"candidates":[]}', "response"),
            (b'{"type":"message","role":"assistant","content":[]}', "response"),
            (b'{"model":"m","message":{},"done":true}', "response"),
            (b'{"v":2,"records":[]}', "transcript"),
            (b'[{"role":"user","content":"x"}]', "transcript"),
            (b'{"custom_id":"a","params":{}}', "batch"),
            (b'{"key":"a","request":{}}', "batch"),
            (b'{"recordId":"a","modelInput":{}}', "batch"),
            (b'{"conversations":[]}', "sharegpt"),
        ],
    )
    def test_detect(self, record: bytes, kind: str) -> None:
        assert detect(record)[0] == kind

    def test_unknown_shape_names_keys_never_values(self) -> None:
        with pytest.raises(cc.ValidationError) as caught:
            cc.convert_lines([b'{"prompt":"my secret","n":1}'], source="openai", target="gemini")
        text = str(caught.value)
        assert "line 1" in text
        assert "prompt, n" in text.replace("keys n, prompt", "prompt, n")
        assert "secret" not in text

    def test_kind_and_family_must_fit(self) -> None:
        with pytest.raises(cc.ValidationError, match="--from chatcodec"):
            cc.convert_lines([b'{"v":2,"records":[]}'], source="openai", target="gemini")
        with pytest.raises(cc.ValidationError, match="no family named"):
            cc.convert_lines([], source="watsonx", target="gemini")

    def test_bedrock_batch_bodies_are_claude_bodies(self) -> None:
        bad = b'{"recordId":"a","modelInput":{"inputText":"hi"}}'
        result = cc.convert_lines([bad], source="bedrock", target="openai", kind="batch")
        assert result.failed == 1
        assert "modelInput is a Claude (Anthropic Messages) body" in result.problems[0].rule

    def test_bedrock_converse_requests(self) -> None:
        converse = (
            b'{"messages":[{"role":"user","content":[{"text":"Hi"}]}],'
            b'"inferenceConfig":{"maxTokens":64}}'
        )
        result = cc.convert_lines(
            [converse], source="bedrock", target="openai", kind="request", model="gpt-4o"
        )
        assert (result.converted, result.failed) == (1, 0)
        assert json.loads(result.records[0])["messages"] == [{"role": "user", "content": "Hi"}]
        back = cc.convert_lines(result.records, source="openai", target="bedrock")
        assert json.loads(back.records[0])["messages"] == [
            {"role": "user", "content": [{"text": "Hi"}]}
        ]


class TestCanonical:
    """chatcodec's own JSON: transcripts in, canonical requests and responses both ways."""

    def test_transcripts_to_a_provider(self) -> None:
        conv = cc.Conversation(
            [cc.system("Be brief."), cc.mode_change("plan", "act"), cc.user("Hi")]
        )
        lines = [cc.encode(conv), cc.encode(list(conv.messages))]
        result = cc.convert_lines(
            lines, source="chatcodec", target="anthropic", model="claude-sonnet-4-5", max_tokens=64
        )
        assert result.kind == "transcript"
        assert (result.converted, result.lossy) == (1, 1)
        assert result.losses == {"a control record is never sent to a model": 1}
        bodies = [json.loads(r) for r in result.records]
        assert (
            bodies[0]
            == bodies[1]
            == {
                "model": "claude-sonnet-4-5",
                "max_tokens": 64,
                "system": "Be brief.",
                "messages": [{"role": "user", "content": "Hi"}],
            }
        )

    def test_requests_there_and_back(self) -> None:
        source = lines("openai-finetune.jsonl")
        there = cc.convert_lines(source, source="openai", target="chatcodec")
        assert there.failed == 0
        assert all(isinstance(cc.decode(r, type=cc.Request), cc.Request) for r in there.records)
        back = cc.convert_lines(there.records, source="chatcodec", target="openai", kind="request")
        direct = cc.convert_lines(source, source="openai", target="openai")
        assert back.records == direct.records

    @pytest.mark.parametrize("target", ["openai", "openai-responses"])
    def test_an_unknown_record_beside_an_image_for_a_model_without_images(
        self, target: str
    ) -> None:
        # A record of an unknown role has no content: the check for images a model
        # refuses read it, and the run raised AttributeError (a fuzz find of bulk).
        image = {"type": "image", "url": "https://example.com/cat.png"}
        messages = [
            {"role": "user", "content": [image, {"type": "text", "text": "What is it?"}]},
            {"role": "wizard", "content": "x"},
        ]
        line = json.dumps({"model": "gpt-3.5-turbo", "messages": messages}).encode()
        result = cc.convert_lines(
            [line], source="chatcodec", target=target, kind="request", model="gpt-3.5-turbo"
        )
        accounted(result)
        assert result.lossy == 1
        assert b"example.com" not in result.records[0]  # the model takes no images


class TestBatch:
    """Batch files convert between every pair of providers with every id kept."""

    @pytest.mark.parametrize(("source", "target"), list(itertools.permutations(ENVELOPES, 2)))
    def test_requests(self, source: str, target: str) -> None:
        records = batch_in(source)
        result = cc.convert_lines(records, source=source, target=target, **KEEP)
        accounted(result)
        assert result.kind == "batch"
        assert result.failed == 0, result.problems[:3]
        assert ids(result.records, target) == ids(records, source)
        back = cc.convert_lines(result.records, source=target, target=source, **KEEP)
        assert back.failed == 0
        assert ids(back.records, source) == ids(records, source)

    def test_documented_envelopes(self) -> None:
        body = b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'
        line = (
            b'{"custom_id":"request-1","method":"POST","url":"/v1/chat/completions","body":'
            + body
            + b"}"
        )
        want = {
            "anthropic": {
                "custom_id": "request-1",
                "params": {
                    "model": "claude-sonnet-4-5",
                    "max_tokens": 256,
                    "messages": [{"role": "user", "content": "Hi"}],
                },
            },
            "gemini": {
                "key": "request-1",
                "request": {
                    "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                    "generationConfig": {"maxOutputTokens": 256},
                },
            },
            "bedrock": {
                "recordId": "request-1",
                "modelInput": {
                    "anthropic_version": "bedrock-2023-05-31",
                    "max_tokens": 256,
                    "messages": [{"role": "user", "content": "Hi"}],
                },
            },
        }
        for target, expected in want.items():
            model = "claude-sonnet-4-5" if target == "anthropic" else None
            result = cc.convert_lines(
                [line], source="openai", target=target, model=model, max_tokens=256
            )
            assert json.loads(result.records[0]) == expected, target

    @pytest.mark.parametrize(
        ("source", "target"),
        list(itertools.product(("openai", "anthropic", "gemini", "bedrock"), ENVELOPES)),
    )
    def test_results(self, source: str, target: str) -> None:
        records = results_file(source)
        result = cc.convert_lines(
            records, source=source, target=target, kind="batch", keep_refused=True
        )
        accounted(result)
        assert result.failed == 0, result.problems[:3]
        assert ids(result.records, target) == ids(records, source)
        assert "private text" not in msgspec.json.encode(result.problems).decode()

    @pytest.mark.parametrize("source", ["openai", "anthropic", "gemini", "bedrock"])
    def test_results_read_back_as_canonical_responses(self, source: str) -> None:
        records = results_file(source)
        result = cc.convert_lines(records, source=source, target="chatcodec", kind="batch")
        joined = [json.loads(r) for r in result.records]
        succeeded = [r for r in joined if r["status"] == "succeeded"]
        assert len(succeeded) == len(responses("anthropic" if source == "bedrock" else source))
        for record in succeeded:
            response = cc.decode(msgspec.json.encode(record["response"]), type=cc.Response)
            assert isinstance(response, cc.Response)
            assert record["id"].startswith("r-")
        failed = {r["id"]: r for r in joined if r["status"] != "succeeded"}
        assert failed
        assert all(k.startswith("bad-") for k in failed)
        if source == "anthropic":
            assert failed["bad-2"]["status"] == "canceled"
            assert failed["bad-3"]["status"] == "expired"
            assert failed["bad-1"]["error"]["type"] == "invalid_request_error"

    def test_bedrock_records_name_no_model(self) -> None:
        said = b'{"role":"user","content":"Say \\"model\\"."}'
        named = b'{"custom_id":"a","body":{"model":"gpt-4o","messages":[' + said + b"]}}"
        unnamed = b'{"custom_id":"b","body":{"messages":[' + said + b"]}}"
        result = cc.convert_lines(
            [named, unnamed], source="openai", target="bedrock", max_tokens=64
        )
        assert result.losses == {"a Bedrock batch record carries no model: the job names it": 1}
        assert [p.line for p in result.problems] == [1]
        assert all("model" not in json.loads(r)["modelInput"] for r in result.records)

    def test_an_id_anthropic_refuses_is_reported(self) -> None:
        body = b'"body":{"messages":[{"role":"user","content":"Hi"}]}}'
        good = b'{"custom_id":"request-1",' + body
        bad = b'{"custom_id":"request.2",' + body
        claude: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 9}
        result = cc.convert_lines([good, bad], source="openai", target="anthropic", **claude)
        assert (result.converted, result.refused, len(result.records)) == (1, 1, 1)
        assert [(p.line, p.path, p.stage) for p in result.problems] == [
            (2, "$.custom_id", "preflight")
        ]
        kept = cc.convert_lines(
            [good, bad], source="openai", target="anthropic", keep_refused=True, **claude
        )
        assert json.loads(kept.records[1])["custom_id"] == "request.2"  # kept as it was

    def test_canceled_goes_to_openai_as_an_error_with_a_loss(self) -> None:
        line = b'{"custom_id":"x","result":{"type":"canceled"}}'
        result = cc.convert_lines([line], source="anthropic", target="openai")
        assert json.loads(result.records[0]) == {"custom_id": "x", "error": {"code": "canceled"}}
        assert result.losses == {
            "openai batch results have no canceled kind: written as an error": 1
        }


class TestShareGpt:
    """ShareGPT both ways, as axolotl and LLaMA-Factory read it."""

    LLAMA_FACTORY: ClassVar[dict[str, Any]] = {
        "conversations": [
            {"from": "human", "value": "What is the weather in Paris and Oslo?"},
            {
                "from": "function_call",
                "value": json.dumps(
                    [
                        {"name": "get_weather", "arguments": {"city": "Paris"}},
                        {"name": "get_weather", "arguments": {"city": "Oslo"}},
                    ]
                ),
            },
            {"from": "observation", "value": json.dumps(["18C", "4C"])},
            {"from": "gpt", "value": "Paris 18C, Oslo 4C."},
        ],
        "system": "You are terse.",
        "tools": json.dumps(
            [
                {
                    "name": "get_weather",
                    "description": "Weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                }
            ]
        ),
    }

    def test_llama_factory_record_to_openai(self) -> None:
        line = json.dumps(self.LLAMA_FACTORY)
        result = cc.convert_lines([line], source="sharegpt", target="openai", model="gpt-4o")
        assert result.kind == "sharegpt"
        assert result.converted == 1
        body = json.loads(result.records[0])
        roles = [m["role"] for m in body["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
        calls = body["messages"][2]["tool_calls"]
        assert [json.loads(c["function"]["arguments"]) for c in calls] == [
            {"city": "Paris"},
            {"city": "Oslo"},
        ]
        assert [m["tool_call_id"] for m in body["messages"][3:5]] == [c["id"] for c in calls]
        assert body["tools"][0]["function"]["name"] == "get_weather"

    def test_round_trip_through_openai(self) -> None:
        line = json.dumps(self.LLAMA_FACTORY)
        there = cc.convert_lines([line], source="sharegpt", target="openai", model="gpt-4o")
        back = cc.convert_lines(there.records, source="openai", target="sharegpt")
        record = json.loads(back.records[0])
        assert record["conversations"][0] == {"from": "system", "value": "You are terse."}
        assert record["conversations"][1:] == self.LLAMA_FACTORY["conversations"]
        assert json.loads(record["tools"]) == json.loads(self.LLAMA_FACTORY["tools"])

    def test_axolotl_record(self) -> None:
        line = json.dumps(
            {
                "conversations": [
                    {"from": "system", "value": "Be kind."},
                    {"from": "human", "value": "Hi"},
                    {"from": "gpt", "value": "Hello!"},
                ]
            }
        )
        result = cc.convert_lines(
            [line], source="sharegpt", target="anthropic", model="claude-sonnet-4-5", max_tokens=64
        )
        body = json.loads(result.records[0])
        assert body["system"] == "Be kind."
        assert [m["role"] for m in body["messages"]] == ["user", "assistant"]

    def test_real_requests_keep_their_text(self) -> None:
        source = lines("openai-finetune.jsonl")
        there = cc.convert_lines(source, source="openai", target="sharegpt", keep_refused=True)
        back = cc.convert_lines(
            there.records, source="sharegpt", target="openai", model="gpt-4o", keep_refused=True
        )
        assert there.failed == back.failed == 0
        for before, after in zip(source, back.records, strict=True):
            users = [
                m
                for m in json.loads(before)["messages"]
                if m["role"] == "user" and isinstance(m["content"], str)
            ]
            again = [m for m in json.loads(after)["messages"] if m["role"] == "user"]
            assert [m["content"] for m in users] == [m["content"] for m in again][: len(users)]

    def test_bad_turn(self) -> None:
        line = b'{"conversations":[{"from":"wizard","value":"secret"}]}'
        result = cc.convert_lines([line], source="sharegpt", target="openai")
        assert result.failed == 1
        assert result.problems[0].path == "$.conversations[0].from"


SAMPLE = lines("openai-finetune.jsonl")[:40]
ODD = [b"", b"   ", b"{oops", b'{"messages":[{"role":"wizard","content":"x"}]}', b"[1,2"]


class TestAnySplit:
    """Chunks at any split give what one call gives; every line is accounted for."""

    @settings(max_examples=40, deadline=None)
    @given(
        st.lists(st.sampled_from(SAMPLE + ODD), min_size=1, max_size=30),
        st.lists(st.integers(1, 30), max_size=6),
    )
    def test_chunks_add_up(self, picked: list[bytes], cuts: list[int]) -> None:
        claude: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 64}
        whole = cc.convert_lines(
            picked, source="openai", target="anthropic", kind="request", **claude
        )
        accounted(whole)
        total = cc.BulkResult(kind="request")
        start = 0
        for cut in [*sorted(set(cuts)), len(picked)]:
            if cut <= start or cut > len(picked):
                continue
            part = cc.convert_lines(
                picked[start:cut],
                source="openai",
                target="anthropic",
                kind="request",
                first_line=start + 1,
                **claude,
            )
            total.add(part, keep_records=True)
            start = cut
        assert total.records == whole.records
        assert total.problems == whole.problems
        assert total.counts() == whole.counts()
        good = [line for line in picked if line in SAMPLE]
        assert len(whole.records) == len(good)


class TestRanges:
    """The byte ranges workers read: whole lines, every line once, in order."""

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(
            st.sampled_from([b"", b"  ", b"\r", b"x", b"{}", b"y" * 40, b"\xc3\xa9z"]),
            max_size=40,
        ),
        st.booleans(),
        st.integers(1, 64),
        st.none() | st.integers(1, 9),
    )
    def test_ranges_cover_the_lines(
        self, pieces: list[bytes], newline_at_end: bool, size: int, lines: int | None
    ) -> None:
        data = b"\n".join(pieces) + (b"\n" if newline_at_end and pieces else b"")
        path = Path(self.folder) / "in.jsonl"
        path.write_bytes(data)
        expected = [line.removesuffix(b"\n") for line in io.BytesIO(data)]
        seen: list[bytes] = []
        end = 0
        for chunk in _pool.ranges(path, size, lines):
            assert chunk.start == end < chunk.end
            part = _pool._lines_of(data[chunk.start : chunk.end])
            assert part
            if lines is not None:
                assert len(part) <= lines
            # It ends with the line of its size-th byte, or sooner after `lines` lines.
            last_line_start = data.rfind(b"\n", 0, chunk.end - 1) + 1
            assert last_line_start < chunk.start + size or (lines and len(part) == lines)
            if lines is None or len(part) < lines:
                assert chunk.end >= min(chunk.start + size, len(data))
            assert data[chunk.end - 1 : chunk.end] == b"\n" or chunk.end == len(data)
            seen.extend(part)
            end = chunk.end
        assert end == len(data)
        assert seen == expected

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.folder = tmp_path_factory.mktemp("ranges")


class TestRunRanges:
    """The workers' engine gives what one process gives, forked or spawned."""

    @staticmethod
    def converted(path: Path, jobs: int) -> tuple[bytes, list[LineProblem]]:
        options = msgspec.structs.asdict(_core.Plan.make("openai", "gemini", "request"))
        out: list[bytes] = []
        problems: list[LineProblem] = []
        chunks = _pool.ranges(path, 1 << 14)
        for done in _pool.run_ranges(str(path), chunks, options, jobs, path.parent):
            if done.part is None:
                out.extend(record + b"\n" for record in done.result.records)
            else:
                out.append(done.part.read_bytes())
            problems.extend(done.result.problems)
        assert list(path.parent.iterdir()) == [path]  # no part file left
        return b"".join(out), problems

    def test_with_another_thread_running(self, tmp_path: Path) -> None:
        path = tmp_path / "in.jsonl"
        lines = (BULK / "openai-finetune.jsonl").read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(lines[:150]) + b"{oops\n" + b"".join(lines[150:200]))
        here = self.converted(path, 1)
        assert [p.line for p in here[1] if p.stage == "convert"] == [151]
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()  # workers are spawned, not forked, beside a thread
        try:
            assert self.converted(path, 2) == here
        finally:
            stop.set()
            other.join()
        assert self.converted(path, 2) == here  # forked


class TestBatchDirectPath:
    """Batch bodies the direct path takes convert as the general path converts them."""

    @pytest.mark.parametrize("target", ["anthropic", "gemini", "bedrock", "openai-responses"])
    def test_same_records_and_problems(self, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
        lines = lines_with_streams()
        options: dict[str, Any] = {"max_tokens": 256, "keep_refused": True}
        if target == "anthropic":
            options["model"] = "claude-sonnet-4-5"
        if target != "bedrock":  # a Claude body for Bedrock names no model: Anthropic needs one
            convert = direct("openai", target, options.get("model"), 256, batch=True)
            assert convert is not None
            bodies = [msgspec.json.encode(json.loads(line)["body"]) for line in lines]
            assert sum(convert(body) is not None for body in bodies) * 2 > len(bodies)
        fast = cc.convert_lines(lines, source="openai", target=target, **options)
        monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
        general = cc.convert_lines(lines, source="openai", target=target, **options)
        assert fast.records == general.records
        assert fast.problems == general.problems
        assert fast.counts() == general.counts()
        streamed = [p for p in fast.problems if p.path == "$.stream"]
        assert len(streamed) == sum(b'"stream": true' in line for line in lines) > 0


def lines_with_streams() -> list[bytes]:
    """The shipped batch file, every third body asking to be streamed."""
    out = []
    for k, line in enumerate(lines("openai-batch-input.jsonl")):
        record = json.loads(line)
        if k % 3 == 0:
            record["body"]["stream"] = True
        out.append(json.dumps(record).encode())
    return out


class TestPreflight:
    """A record's problems are found as convert finds them: from the request as sent."""

    TARGETS: ClassVar[tuple[str, ...]] = (*cc.providers.NAMES, "deepseek")

    @staticmethod
    def read_back(
        codec: cc.providers.Codec, request: cc.Request, out: bytes, losses: Any
    ) -> cc.Request:
        sent = codec.decode_request(out)
        if sent.model is None and request.model is not None:
            sent = msgspec.structs.replace(sent, model=request.model)
        return sent

    def same(self, monkeypatch: pytest.MonkeyPatch, records: list[bytes], source: str) -> None:
        """The same result as reading each record back, into every target."""
        for target in self.TARGETS:
            for options in (OPTIONS, {}):
                new = cc.convert_lines(records, source=source, target=target, **options)
                with monkeypatch.context() as patch:
                    patch.setattr(_core, "sent_request", self.read_back)
                    old = cc.convert_lines(records, source=source, target=target, **options)
                assert new == old, (target, options)

    @pytest.mark.parametrize("source", cc.providers.NAMES)
    def test_curated_requests(self, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
        folder = PROVIDERS / source / "request"
        records = [
            msgspec.json.encode(msgspec.json.decode(path.read_bytes()))
            for path in sorted(folder.glob("*.json"))
        ]
        self.same(monkeypatch, records, source)

    @pytest.mark.parametrize("source", cc.providers.NAMES)
    def test_recorded_requests(self, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
        if not HAVE_CORPUS:
            pytest.skip(NO_CORPUS)
        api = {
            "openai": "openai-chat",
            "ollama": "ollama-chat",
            "anthropic": "anthropic-messages",
            "gemini": "gemini-generateContent",
            "openai-responses": "openai-responses",
            "bedrock": "bedrock-converse",
            "cohere": "cohere-chat",
        }[source]
        with (CORPUS / "MANIFEST.tsv").open() as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        head = rows[0]
        records = [
            msgspec.json.encode(msgspec.json.decode((CORPUS / row[0]).read_bytes()))
            for row in rows[1:]
            if dict(zip(head, row, strict=False)).get("api") == api
            and dict(zip(head, row, strict=False)).get("kind") == "request"
        ]
        if not records:
            pytest.skip("no recorded request of this family")
        self.same(monkeypatch, records, source)


class TestFitsAsConvertDoes:
    """A record into another family is changed as convert changes it: cache points, schemas."""

    AUTOMATIC: ClassVar[bytes] = msgspec.json.encode(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "cache_control": {"type": "ephemeral"},
            "messages": [{"role": "user", "content": "hi"}],
        }
    )
    SCHEMA: ClassVar[bytes] = msgspec.json.encode(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "pick",
                        "parameters": {
                            "type": "object",
                            "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}},
                            "not": {"required": ["n"]},
                        },
                    },
                }
            ],
        }
    )

    @pytest.mark.parametrize(
        ("record", "source", "target"),
        [
            (AUTOMATIC, "anthropic", "bedrock"),
            (AUTOMATIC, "anthropic", "openrouter"),
            (SCHEMA, "openai", "gemini"),
        ],
    )
    def test_same_record_and_losses(self, record: bytes, source: str, target: str) -> None:
        out, report = cc.convert(record, source=source, target=target)
        result = cc.convert_lines([record], source=source, target=target)
        accounted(result)
        assert result.records == [out]
        lost: dict[str, int] = {}
        for loss in report.losses:
            lost[loss.reason] = lost.get(loss.reason, 0) + 1
        assert result.losses == lost

    def test_the_automatic_cache_point_is_written(self) -> None:
        result = cc.convert_lines([self.AUTOMATIC], source="anthropic", target="bedrock")
        assert b'"cachePoint"' in result.records[0]
        assert result.losses == {}
