"""The direct conversions give what the general path gives: the same bytes, losses and problems."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import either_path
import msgspec
import pytest
from corpus import NO_CORPUS, corpus
from either_path import FILLS, OWN_MODEL
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._convert import general_request
from chatcodec.bulk import _core
from chatcodec.providers._direct import BATCH_STREAM, direct, direct_request
from chatcodec.providers._model_fit import REASONING_LEFT_OUT

TARGETS = ("anthropic", "gemini", "openai-responses", "bedrock", "ollama", "cohere")
PERF = Path(__file__).parents[2] / "perf" / "data" / "convert"


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from openai; it gives the general path's answer."""
    return either_path.same("openai", body, target, model, max_tokens)


@pytest.mark.parametrize("fill", FILLS, ids=("as-sent", "filled"))
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_benchmark_requests_take_the_direct_path(
    size: str, target: str, fill: tuple[str | None, int | None]
) -> None:
    # The benchmark's requests, as it converts them (with max_tokens) and with a model.
    assert same((PERF / f"{size}.json").read_bytes(), target, fill[0], 1024)


BULK = Path(__file__).parents[1] / "data" / "bulk"


def bulk_bodies() -> list[bytes]:
    """The requests ``make run`` converts: the fine-tuning lines and the batch file's bodies."""
    lines = (BULK / "openai-finetune.jsonl").read_bytes().splitlines()
    batch = (BULK / "openai-batch-input.jsonl").read_bytes().splitlines()
    return lines + [json.dumps(json.loads(line)["body"]).encode() for line in batch]


@pytest.mark.parametrize("fill", FILLS, ids=("as-sent", "filled"))
@pytest.mark.parametrize("target", TARGETS)
def test_the_bulk_requests_convert_the_same_and_most_take_the_direct_path(
    target: str, fill: tuple[str | None, int | None]
) -> None:
    bodies = bulk_bodies()
    taken = sum(same(body, target, fill[0], 1024 if fill[1] else None) for body in bodies)
    if fill[1] or target == "gemini":  # Anthropic needs max_tokens: without it, none is taken
        assert taken * 10 > len(bodies) * 8, (taken, len(bodies))


@pytest.mark.parametrize("target", TARGETS)
def test_most_recorded_requests_take_the_direct_path(target: str) -> None:
    paths = [param.values[0] for param in corpus("openai", "request")]
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    assert len(taken) * 2 > len(paths), (len(taken), len(paths))


@pytest.mark.parametrize("model", [None, "m"], ids=("as-sent", "named"))
@pytest.mark.parametrize("target", TARGETS)
def test_a_bulk_run_of_the_recorded_requests_gives_the_general_records(
    target: str, model: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each recorded request as one line: the records, problems and counts the bulk
    # general path gives (its preflight and the providers' ordering rules).
    paths = [param.values[0] for param in corpus("openai", "request")]
    if not paths:
        pytest.skip(NO_CORPUS)
    lines = [msgspec.json.encode(msgspec.json.decode(path.read_bytes())) for path in paths]
    options: dict[str, Any] = {"model": model, "max_tokens": 1024, "keep_refused": True}
    fast = cc.convert_lines(lines, source="openai", target=target, **options)
    monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
    general = cc.convert_lines(lines, source="openai", target=target, **options)
    assert fast.records == general.records
    assert fast.problems == general.problems
    assert fast.counts() == general.counts()


class TestReasoning:
    """A reasoning setting goes straight across, as the general path writes it for the model."""

    BODY: ClassVar[dict[str, Any]] = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Why is the sky blue?"}],
    }
    # Each target's model that thinks, and one that does not (None: the family has no row).
    MODELS: ClassVar[dict[str, tuple[str, str | None]]] = {
        "openai-responses": ("o3", "gpt-4o"),
        "gemini": ("gemini-2.5-flash", "gemini-2.0-flash"),
        "bedrock": ("anthropic.claude-sonnet-4-5-20250929-v1:0", None),
        "ollama": ("qwen3", "llama3.1"),
        "cohere": ("command-a-reasoning-08-2025", None),
        "anthropic": ("claude-sonnet-4-5", "claude-3-5-haiku-20241022"),
    }

    @pytest.mark.parametrize("effort", ["none", "minimal", "low", "medium", "high"])
    @pytest.mark.parametrize("target", TARGETS)
    def test_an_effort(self, target: str, effort: str) -> None:
        body = json.dumps({**self.BODY, "reasoning_effort": effort}).encode()
        thinks, plain = self.MODELS[target]
        # Anthropic's thinking has rules of its own (a budget under max_tokens...):
        # the general path writes it. For a model that does not think it is left
        # out before it is written, whatever the target.
        assert same(body, target, thinks, 4096) is (target != "anthropic")
        if plain is not None:
            assert same(body, target, plain, 4096) is True

    @pytest.mark.parametrize("target", ["openai-responses", "gemini", "ollama", "anthropic"])
    def test_left_out_for_a_model_that_does_not_think(self, target: str) -> None:
        plain = self.MODELS[target][1]
        assert plain is not None
        body = json.dumps({**self.BODY, "reasoning_effort": "high"}).encode()
        taken = direct_request("openai", target, body, plain, 4096)
        assert taken is not None
        assert taken[1][0] == cc.Loss("$.reasoning", REASONING_LEFT_OUT)
        assert b"high" not in taken[0]

    @pytest.mark.parametrize("target", ["openai-responses", "gemini", "ollama", "cohere"])
    def test_written_for_a_model_that_thinks(self, target: str) -> None:
        body = json.dumps({**self.BODY, "reasoning_effort": "high"}).encode()
        taken = direct_request("openai", target, body, self.MODELS[target][0], 4096)
        assert taken is not None
        assert taken[0] == cc.convert(body, source="openai", target=target,
                                      model=self.MODELS[target][0], max_tokens=4096)[0]  # fmt: skip
        assert not [loss for loss in taken[1] if loss.path == "$.reasoning"]

    def test_bedrock_reports_it(self) -> None:
        body = json.dumps({**self.BODY, "reasoning_effort": "high"}).encode()
        taken = direct_request("openai", "bedrock", body, self.MODELS["bedrock"][0], 4096)
        assert taken is not None
        assert [loss.path for loss in taken[1]] == ["$.reasoning"]

    @pytest.mark.parametrize("effort", ["xhigh", 3, None])
    def test_a_value_kept_as_sent_goes_the_general_way(self, effort: Any) -> None:
        body = json.dumps({**self.BODY, "reasoning_effort": effort}).encode()
        assert direct_request("openai", "gemini", body, "gemini-2.5-flash", 4096) is None
        assert same(body, "gemini", "gemini-2.5-flash", 4096) is False


class TestDeclines:
    """What is outside the usual shape goes the general way, with its losses and problems."""

    BASE: ClassVar[dict[str, Any]] = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": '{"sky": "clear"}'},
            {"role": "assistant", "content": "Clear."},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "description": "The weather in a city.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
    }

    def body(self, **changes: Any) -> bytes:
        body = json.loads(json.dumps(self.BASE))
        for key, value in changes.items():
            if value is None:
                del body[key]
            else:
                body[key] = value
        return json.dumps(body).encode()

    @pytest.mark.parametrize("target", TARGETS)
    def test_the_usual_request_is_taken(self, target: str) -> None:
        assert same(self.body(), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "changes",
        [
            {"seed": 1},  # a setting the direct path does not write
            {"n": 2},  # reported by Anthropic
            {"stream_options": {}},  # empty: not reported
            {"temperature": 1.5},  # Anthropic refuses it, Gemini takes it
            {"tool_choice": "required", "tools": None},  # nothing to choose from
            {"max_tokens": 0},
        ],
        ids=repr,
    )
    def test_outside_the_shape(self, target: str, changes: dict[str, Any]) -> None:
        assert not same(self.body(**changes), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("extra", "taken"),
        [
            ({"moderation": True}, True),  # kept for OpenAI alone: reported as lost
            ({"service_tier": "auto", "store": True, "prompt_cache_key": "k"}, True),
            ({"metadata": {}}, True),  # empty: nothing lost
            ({"web_search_options": {}}, True),  # empty, yet it says something
            ({"logprobs": None}, True),
            ({"stream_options": {"include_usage": True}, "moderation": False}, True),
            ({"reasoning": {"effort": "low"}, "thinking": {"type": "enabled"}}, True),
            ({"nested": {"deep": [1, {"a": None}]}}, True),
            ({"~note": 1}, True),  # a wire key, though it begins like a hint: reported
            ({"store": True, "metadata": {"a": "b"}}, False),  # the two decoders' orders differ
            ({"store": True, "moderation": True, "metadata": {"a": "b"}}, True),  # the body's
            ({"seed": 3}, False),  # a setting the general path reads
            ({"parallel_tool_calls": False}, False),
            ({"functions": []}, False),
            ({"user": "u-1"}, False),
        ],
        ids=repr,
    )
    def test_keys_openai_alone_keeps(self, target: str, extra: dict[str, Any], taken: bool) -> None:
        body = json.loads(self.body())
        body = {"model": body.pop("model"), **extra, **body}  # among the others, in order
        assert same(json.dumps(body).encode(), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("choice", "tools", "taken"),
        [
            ("auto", True, True),
            ("none", True, True),
            ("required", True, True),
            ("any", True, True),  # Mistral's "required"
            ("any", False, False),  # nothing to choose from
            ("auto", False, True),  # Bedrock reports it, as the general path does
            ("none", False, True),
            ({"type": "function", "function": {"name": "weather"}}, True, True),
            ({"type": "function", "function": {"name": "other"}}, True, False),  # not sent
            ({"type": "function", "function": {"name": "weather"}}, False, False),
            ({"function": {"name": "weather"}}, True, False),  # untyped: kept for OpenAI
            ({"type": "auto"}, True, False),  # not a choice OpenAI Chat has
            ({"type": "function", "function": {"name": "weather", "x": 1}}, True, False),
        ],
        ids=(
            "auto",
            "none",
            "required",
            "any",
            "any-without-tools",
            "auto-without-tools",
            "none-without-tools",
            "named",
            "named-not-sent",
            "named-without-tools",
            "untyped",
            "object-mode",
            "named-extra-key",
        ),
    )
    def test_tool_choices(self, target: str, choice: Any, tools: bool, taken: bool) -> None:
        messages = [{"role": "user", "content": "Weather?"}]
        body = self.body(
            messages=messages, tool_choice=choice, **({} if tools else {"tools": None})
        )
        assert same(body, target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "messages",
        [
            [{"role": "user", "content": ""}],  # an empty text
            [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Hi"}],
            [{"role": "user", "content": "Hi"}, {"role": "system", "content": "Late"}],
            [{"role": "user", "content": "Hi", "name": "ann"}],
            [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}],
                }
            ],
            [{"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {}}]}],
        ],
        ids=("empty-text", "answer-first", "late-system", "name", "image-by-http-url", "part-key"),
    )
    def test_outside_the_conversation_shape(
        self, target: str, messages: list[dict[str, Any]]
    ) -> None:
        assert not same(self.body(messages=messages, tools=None), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("url", "taken"),
        [
            ("https://example.com/cat.png", True),
            ("https://example.com/cat.JPG?size=2", True),
            ("https://example.com/cat", True),  # Gemini: no media type to tell, left out
            ("https://example.com/a cat.png", False),
            ("https://example.com/" + "a" * 3000 + ".png", False),
        ],
        ids=("usual", "query", "no-extension", "space", "long"),
    )
    def test_an_image_by_url(self, target: str, url: str, taken: bool) -> None:
        part = {"type": "image_url", "image_url": {"url": url}}
        messages = [{"role": "user", "content": [{"type": "text", "text": "What?"}, part]}]
        # Gemini gets the media type the URL's extension names, as the general path.
        assert same(self.body(messages=messages, tools=None), target, None, 64) is taken

    @pytest.mark.parametrize(
        ("target", "model", "taken"),
        [
            ("openai-responses", "o3-mini", False),  # takes no images: left out, reported
            ("openai-responses", "o3", True),
            ("openai-responses", "my-model", True),  # not known: nothing assumed
            ("gemini", "gemini-2.0-flash", True),  # no thinking: nothing here to leave out
            ("gemini", "gemini-1.5-pro", False),  # no JSON Schema fields
        ],
    )
    def test_an_image_to_a_model_by_its_profile(self, target: str, model: str, taken: bool) -> None:
        part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        messages = [{"role": "user", "content": [{"type": "text", "text": "What?"}, part]}]
        body = self.body(messages=messages, tools=None)
        assert same(body, target, model, 64) is taken
        if not taken and target == "openai-responses":
            report = cc.convert(body, source="openai", target=target, model=model)[1]
            assert [loss.path for loss in report.losses] == ["$.messages[0].content[1]"]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("file", "taken"),
        [
            ({"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}, True),
            ({"file_data": "data:application/pdf;base64,JVBERi0="}, True),
            ({"file_id": "file-1"}, True),
            ({"file_id": "file-1", "filename": "a.pdf"}, True),
            ({"file_data": "data:text/plain;base64,aGk="}, False),  # a text file: its own rule
            ({"file_data": "data:application/pdf;base64,JVBERi0=", "file_id": "f"}, False),
            ({"file_id": ""}, False),
            ({"filename": "a.pdf"}, False),
            ({"file_data": "data:application/pdf;base64,JVBERi0=", "filename": None}, False),
        ],
        ids=("pdf", "pdf-unnamed", "id", "id-named", "text", "both", "empty-id", "none", "null"),
    )
    def test_a_file(self, target: str, file: dict[str, Any], taken: bool) -> None:
        part = {"type": "file", "file": file}
        messages = [{"role": "user", "content": [{"type": "text", "text": "Read"}, part]}]
        # The file name is a loss for both targets, a file id for Gemini (left out):
        # reported the same by both paths.
        assert same(self.body(messages=messages, tools=None), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_a_turn_of_a_file_id_alone(self, target: str) -> None:
        part = {"type": "file", "file": {"file_id": "file-1"}}
        messages = [{"role": "user", "content": [part]}]
        # Gemini and Bedrock would be left an empty turn: their rule is the general path's.
        taken = target not in ("gemini", "bedrock")
        assert same(self.body(messages=messages, tools=None), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("part", "taken"),
        [
            ({"document_url": "data:application/pdf;base64,JVBERi0="}, (True,) * 6),
            ({"document_url": "https://pdfobject.com/pdf/sample.pdf"}, (True,) * 6),
            ({"document_url": "https://e.com/a.pdf", "document_name": "a.pdf"}, (False,) * 6),
            ({"document_url": "http://e.com/a.pdf"}, (False,) * 6),  # not https
            ({"document_url": "https://e.com/a b.pdf"}, (False,) * 6),
            ({"document_url": ""}, (False,) * 6),
            ({"document_url": "data:text/plain;base64,aGk="}, (False,) * 6),  # its own rule
            ({"document_url": "data:application/pdf;base64,JVBE\\/i0="}, (False,) * 6),
            ({"document_url": None}, (False,) * 6),
            ({"document_url": "https://e.com/a.pdf", "text": "a"}, (False,) * 6),
            ({"document_url": "https://e.com/a.pdf", "image_url": {"url": "x"}}, (False,) * 6),
        ],
        ids=(
            "pdf",
            "https",
            "named",
            "http",
            "space",
            "empty",
            "text-file",
            "escape",
            "null",
            "with-text",
            "with-image",
        ),
    )
    def test_a_document_by_url(
        self, target: str, part: dict[str, Any], taken: tuple[bool, bool]
    ) -> None:
        # Gemini needs the media type of a file by URL, which the general path guesses.
        part = {"type": "document_url", **part}
        messages = [{"role": "user", "content": [{"type": "text", "text": "Read"}, part]}]
        expected = taken[TARGETS.index(target)]
        assert same(self.body(messages=messages, tools=None), target, None, 64) is expected

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({}, True),  # Anthropic drops the empty text and reports it; Gemini keeps it
            ({"reasoning_content": "Thinking."}, False),
            ({"tool_calls": None}, False),  # nothing to send
            ({"tool_calls": []}, False),
        ],
        ids=("calls", "reasoning", "no-calls", "empty-calls"),
    )
    def test_an_empty_text_beside_calls(
        self, target: str, changes: dict[str, Any], taken: bool
    ) -> None:
        messages = json.loads(json.dumps(self.BASE["messages"]))
        answer = messages[2]
        answer["content"] = ""
        for key, value in changes.items():
            if value is None:
                del answer[key]
            else:
                answer[key] = value
        if "tool_calls" not in answer or not answer["tool_calls"]:
            del messages[3]
        assert same(self.body(messages=messages), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("content", "taken"),
        [("Done.", True), ([{"type": "text", "text": "Done."}], True), (None, False), ("", False)],
        ids=("text", "parts", "none", "empty"),
    )
    def test_an_empty_list_of_calls_is_no_call(
        self, target: str, content: Any, taken: bool
    ) -> None:
        answer = {"role": "assistant", "content": content, "tool_calls": [], "prefix": False}
        messages = [{"role": "user", "content": "Go"}, answer, {"role": "user", "content": "On"}]
        assert same(self.body(messages=messages, tools=None), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("arguments", "taken"),
        [
            (["nope"], True),
            ([""], True),
            (["{bad", '{"a": 1}', "x y", "{}"], True),  # the invalid ones written last
            (["[1]"], False),  # JSON, not an object: the preflight's problem
            (["\ud800"], False),
        ],
        ids=("word", "empty", "mixed", "array", "surrogate"),
    )
    def test_arguments_that_are_not_json(
        self, target: str, arguments: list[str], taken: bool
    ) -> None:
        calls = [
            {"id": f"call_{n}", "type": "function", "function": {"name": "f", "arguments": a}}
            for n, a in enumerate(arguments)
        ]
        messages = [
            {"role": "user", "content": "Go"},
            {"role": "assistant", "content": "", "tool_calls": calls},
            *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls),
        ]
        assert same(self.body(messages=messages, tools=None), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    def test_an_unanswered_call_before_the_next_turn(self, target: str) -> None:
        messages = [*self.BASE["messages"][:3], {"role": "user", "content": "Well?"}]
        assert not same(self.body(messages=messages), target, None, 64)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("url", "taken"),
        [
            (b'"data:image/png;base64,iVBORw0KGgo="', True),  # copied as sent
            (b'"data:image/png;base64,iVBO\\/w0KGgo="', True),  # an escape: read as text
            (b'"data:image\\/png;base64,iVBORw0KGgo="', True),
            (b'"data:image/png;base64,iVBORw0KGgo"', True),  # unpadded: Ollama's is padded
            (b'"data:image/png;base64,iVBORw0K-_o="', True),  # URL-safe: Ollama's is not
            (b'"data:image/png;base64,iVBOR\\u00e9="', "not base64"),  # sent as it is
            (b'"data:image/png;base64,iVBOR\xc3\xa9="', "not base64"),
            (b'"data:image/png;base64,iVBOR\xff="', False),  # not UTF-8: refused
            (b'"data:image/bmp;base64,Qk0="', False),  # a type Anthropic refuses
            (b'"data:;base64,Qk0="', False),
            (b"12", False),
        ],
    )
    def test_image_urls(self, target: str, url: bytes, taken: bool | str) -> None:
        part = b'{"type":"image_url","image_url":{"url":%b}}' % url
        body = b'{"model":"gpt-4o","messages":[{"role":"user","content":[%b]}]}' % part
        # Data that is not base64 is sent as it is, except to Ollama, whose preflight refuses it.
        expected = taken is True or (taken == "not base64" and target != "ollama")
        assert same(body, target, None, 64) is expected

    @pytest.mark.parametrize("target", ["openai-responses", "ollama"])
    @pytest.mark.parametrize("model", [None, ""], ids=("none", "empty"))
    def test_without_a_model_the_general_path_says_so(self, target: str, model: str | None) -> None:
        # The Responses API and Ollama need a model: their preflights say so, the
        # direct path leaves it to them. Bedrock takes it in the URL.
        body = self.body(model=model)  # None: left out
        report = cc.convert(body, source="openai", target=target, max_tokens=64)[1]
        assert [p.path for p in report.problems] == ["$.model"]
        assert not same(body, target, None, 64)
        assert same(self.body(model=None), "bedrock", None, 64)

    def test_a_token_limit_the_responses_api_refuses(self) -> None:
        assert not same(self.body(), "openai-responses", None, 15)
        assert same(self.body(), "openai-responses", None, 16)
        assert not same(self.body(max_completion_tokens=8), "openai-responses", None, None)

    @pytest.mark.parametrize(("count", "taken"), [(128, True), (129, False)])
    def test_the_most_tools_the_responses_api_takes(self, count: int, taken: bool) -> None:
        tool = self.BASE["tools"][0]
        tools = [{**tool, "function": {**tool["function"], "name": f"f{n}"}} for n in range(count)]
        messages = [{"role": "user", "content": "Weather?"}]
        assert (
            same(self.body(messages=messages, tools=tools), "openai-responses", None, 64) is taken
        )

    def test_without_max_tokens_anthropic_goes_the_general_way(self) -> None:
        model = "claude-sonnet-4-5"
        report = cc.convert(self.body(), source="openai", target="anthropic", model=model)[1]
        assert [p.path for p in report.problems] == ["$.max_tokens"]
        assert not same(self.body(), "anthropic", None, None)

    @pytest.mark.parametrize(
        ("top_p", "taken"), [(0.5, True), (0.99, True), (1, False), (0, False), (0.005, False)]
    )
    def test_cohere_takes_a_top_p_in_its_range_only(self, top_p: float, taken: bool) -> None:
        # Cohere's p runs from 0.01 to 0.99: its preflight names any other.
        assert same(self.body(top_p=top_p), "cohere", None, 64) is taken

    def test_cohere_refuses_another_familys_model_by_the_general_path(self) -> None:
        assert not same(self.body(), "cohere", "gpt-4o", 64)
        assert same(self.body(), "cohere", "command-a-03-2025", 64)

    @pytest.mark.parametrize("strict", [(True, True), (True, False), (False, False)])
    def test_cohere_has_one_strict_switch(self, strict: tuple[bool, bool]) -> None:
        tool = self.BASE["tools"][0]
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        }
        tools = [
            {
                "type": "function",
                "function": {**tool["function"], "name": f"f{n}", "strict": s},
            }
            for n, s in enumerate(strict)
        ]
        for t in tools:
            t["function"]["parameters"] = schema  # type: ignore[index]
        messages = [{"role": "user", "content": "Weather?"}]
        assert same(self.body(messages=messages, tools=tools), "cohere", None, 64)
        out, report = cc.convert(
            self.body(messages=messages, tools=tools),
            source="openai",
            target="cohere",
            model="command-a-03-2025",
        )
        every = all(strict)
        assert ("strict_tools" in json.loads(out)) is every
        mixed = any(strict) and not every
        assert [loss.path for loss in report.losses] == (["$.tools[0].strict"] if mixed else [])

    @pytest.mark.parametrize(
        ("target", "model"),
        [
            ("bedrock", "anthropic.claude-sonnet-4-5"),  # temperature or top_p, not both
            ("openai-responses", "o3"),  # the default values only
            ("openai-responses", "gpt-5"),
            ("anthropic", "claude-sonnet-4-5"),
        ],
    )
    def test_a_sampling_value_the_model_refuses(self, target: str, model: str) -> None:
        # The preflight names it: the direct path leaves the request to the general one.
        body = self.body(model=model, temperature=0.5, top_p=0.9)
        report = cc.convert(body, source="openai", target=target, max_tokens=64)[1]
        assert report.problems
        assert not same(body, target, model, 64)

    def test_a_gemini_3_model_gets_signatures_from_the_general_path(self) -> None:
        assert not same(self.body(), "gemini", "gemini-3-pro-preview", None)
        assert same(self.body(), "gemini", "gemini-2.5-flash", None)


# --- generated requests -------------------------------------------------------

_IDS = st.sampled_from(["call_1", "call_2", "toolu_3", "call 4", ""])
_ARGUMENTS = st.sampled_from(
    ['{"a": 1}', "{}", ' {"b":[1,2]}', "[1]", "nope", '{"a":"\u00e9"}', "", "{bad", "\ud800"]
)
_RESULTS = st.sampled_from(["ok", '{"r": 1}', " {}", "", "[1, 2]", "{bad", '{"n": 1e999}'])
_TEXTS = st.sampled_from(["Hi", "", "  ", "Ünïcode ✓", "line\nbreak"])
_USUAL_IMAGES = ["data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;base64,/9j/4AAQ"]
_IMAGES = st.sampled_from(
    [
        *_USUAL_IMAGES,
        "data:image/bmp;base64,Qk0=",
        "https://example.com/a.png",
        "data:image/png;base64,iVBORw0K-_o",  # URL-safe and unpadded: Ollama's is neither
        "data:image/png;base64,iVB*",  # not base64
    ]
)
_PDF = "data:application/pdf;base64,JVBERi0="
_DOCUMENTS = st.sampled_from([_PDF, "https://example.com/a.pdf", "http://e.com/a", ""])
_PARTS = st.lists(
    st.one_of(
        _TEXTS.map(lambda text: {"type": "text", "text": text}),
        _IMAGES.map(lambda url: {"type": "image_url", "image_url": {"url": url}}),
        _DOCUMENTS.map(lambda url: {"type": "document_url", "document_url": url}),
    ),
    min_size=0,
    max_size=3,
)


@st.composite
def _assistant(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant"}
    content = draw(st.sampled_from(["absent", "null", "text"]))
    if content == "null":
        message["content"] = None
    elif content == "text":
        message["content"] = draw(_TEXTS)
    for key in draw(st.sets(st.sampled_from(["reasoning_content", "reasoning"]))):
        message[key] = draw(_TEXTS)
    prefix = draw(st.sampled_from([None, False, True]))
    if prefix is not None:
        message["prefix"] = prefix
    calls = draw(st.lists(st.tuples(_IDS, _ARGUMENTS), max_size=3))
    empty: bool = draw(st.booleans())  # an empty list of calls
    if calls or empty:
        message["tool_calls"] = [
            {"id": id_, "type": "function", "function": {"name": "f", "arguments": arguments}}
            for id_, arguments in calls
        ]
    return message


@st.composite
def _conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": draw(st.sampled_from(["system", "developer"])), "content": draw(_TEXTS)}
        for _ in range(draw(st.integers(0, 2)))
    ]
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["user", "parts", "assistant", "system"]))
        if kind == "user":
            messages.append({"role": "user", "content": draw(_TEXTS)})
        elif kind == "parts":
            messages.append({"role": "user", "content": draw(_PARTS)})
        elif kind == "system":
            messages.append({"role": "system", "content": draw(_TEXTS)})
        else:
            answer = draw(_assistant())
            messages.append(answer)
            ids = [call["id"] for call in answer.get("tool_calls", [])]
            # Usually every call answered, in order; sometimes some, shuffled.
            if draw(st.booleans()):
                ids = draw(st.permutations(ids))[: draw(st.integers(0, len(ids)))]
            for id_ in ids:
                messages.append({"role": "tool", "tool_call_id": id_, "content": draw(_RESULTS)})
    return messages


_SCHEMAS = st.sampled_from(
    [
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}},
        {"type": "object", "additionalProperties": True},
        {"type": "object", "properties": {"a": {"type": 1}}},  # a type Ollama cannot read
        {"type": "object", "required": "a"},
        {},
    ]
)


@st.composite
def _tool(draw: st.DrawFn) -> dict[str, Any]:
    function: dict[str, Any] = {"name": draw(st.sampled_from(["f", "g", "1f"]))}
    description = draw(st.sampled_from([None, "", "Does f."]))
    if description is not None:
        function["description"] = description
    function["parameters"] = draw(_SCHEMAS)
    strict = draw(st.sampled_from([None, True, False]))
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


_OPTIONAL: dict[str, st.SearchStrategy[Any]] = {
    "model": st.sampled_from(["gpt-4o", "gemini-3-pro", ""]),
    "tools": st.lists(_tool(), max_size=2),
    "tool_choice": st.sampled_from(
        ["auto", "none", "required", "any"]
        + [{"type": "function", "function": {"name": name}} for name in ("f", "g")]
    ),
    "max_tokens": st.sampled_from([0, 10, 100]),  # the Responses API takes at least 16
    "max_completion_tokens": st.just(50),
    "temperature": st.sampled_from([0, 0.5, 1, 1.5]),
    "top_p": st.sampled_from([0.9, 1]),
    "stream": st.booleans(),
    "stream_options": st.sampled_from([{}, {"include_usage": True}]),
    "n": st.sampled_from([1, 2]),
    "response_format": st.sampled_from([{"type": "text"}, {"type": "json_object"}]),
    "seed": st.just(7),
    "stop": st.sampled_from(["x", " ", [], ["a", "b"], ["\n"], ["a"] * 6, None]),
    # Keys the general path keeps for OpenAI alone (reported), or reads.
    "metadata": st.sampled_from([{}, {"run": "7"}, None]),
    "store": st.booleans(),
    "web_search_options": st.sampled_from([{}, {"search_context_size": "low"}]),
    "reasoning_format": st.just("parsed"),
    "~hint": st.just(1),
    "user": st.just("u-1"),
    "parallel_tool_calls": st.booleans(),
}


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    body: dict[str, Any] = {"messages": draw(_conversation())}
    for key in draw(st.sets(st.sampled_from(sorted(_OPTIONAL)), max_size=5)):
        body[key] = draw(_OPTIONAL[key])
    return json.dumps(body).encode()


@settings(max_examples=300, deadline=None)
@example(  # a schema ToolDefinition refuses: the general path keeps the tool opaque
    body=b'{"messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": "function", '
    b'"function": {"name": "f", "parameters": {"type": "object", "properties": '
    b'{"a": {"type": 1}}}}}], "max_completion_tokens": 50}',
    target="anthropic",
    model=None,
    max_tokens=None,
)
@example(  # Bedrock's direct writer left a tool choice without tools out, unreported
    body=b'{"messages": [{"role": "user", "content": "Hi"}], "tool_choice": "auto"}',
    target="bedrock",
    model=None,
    max_tokens=None,
)
@given(
    body=requests(),
    target=st.sampled_from(TARGETS),
    # Names the profiles know: a model that takes no images, a Gemini 2.0 (no thinking).
    model=st.sampled_from(
        [None, "claude-x", "gemini-3-pro", "", "o3-mini", "gemini-2.0-flash", "gemini-1.5-pro"]
    ),
    max_tokens=st.sampled_from([None, 1024]),
)
def test_generated_requests_convert_the_same(
    body: bytes, target: str, model: str | None, max_tokens: int | None
) -> None:
    same(body, target, model, max_tokens)


@st.composite
def usual_requests(draw: st.DrawFn) -> bytes:
    """Requests of the usual shape only: every one takes the direct path."""
    texts = st.sampled_from(["Hi", "Ünïcode ✓", "line\nbreak", '{"json": "text"}'])
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": draw(texts)} for _ in range(draw(st.integers(0, 2)))
    ]
    messages.append({"role": "user", "content": draw(texts)})
    calls = 0
    for _ in range(draw(st.integers(0, 4))):
        answer: dict[str, Any] = {"role": "assistant"}
        if draw(st.booleans()):
            key = draw(st.sampled_from(["reasoning_content", "reasoning"]))
            answer[key] = draw(st.sampled_from(["", "Thinking."]))
        if draw(st.booleans()):
            answer["prefix"] = False
        ids = [f"call_{calls + k}" for k in range(draw(st.integers(0, 2)))]
        calls += len(ids)
        if not ids or draw(st.booleans()):
            answer["content"] = draw(texts)
        elif len(answer) > 1:  # reasoning or a prefix beside the calls
            answer["content"] = None
        else:  # an empty text beside calls alone: a loss for Anthropic, by either path
            answer["content"] = draw(st.sampled_from([None, ""]))
        if ids:
            answer["tool_calls"] = [
                {
                    "id": id_,
                    "type": "function",
                    "function": {
                        "name": "f",
                        # not JSON: written as {} after the other calls, and reported
                        "arguments": draw(st.sampled_from(['{"a": 1}', "{}", "nope", ""])),
                    },
                }
                for id_ in ids
            ]
        messages.append(answer)
        for id_ in draw(st.permutations(ids)):
            messages.append({"role": "tool", "tool_call_id": id_, "content": draw(_RESULTS)})
        if not ids or draw(st.booleans()):  # answers are not joined: a user turn between
            parts = draw(
                st.lists(
                    st.one_of(
                        texts.map(lambda text: {"type": "text", "text": text}),
                        st.sampled_from(_USUAL_IMAGES).map(
                            lambda url: {"type": "image_url", "image_url": {"url": url}}
                        ),
                        st.just({"type": "document_url", "document_url": _PDF}),
                    ),
                    min_size=1,
                    max_size=2,
                )
            )
            messages.append({"role": "user", "content": draw(st.sampled_from([parts, "Go on."]))})
    body: dict[str, Any] = {"messages": messages, "model": "gpt-4o"}
    if draw(st.booleans()):
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "description": draw(st.sampled_from(["", "Does f."])),
                    "parameters": {
                        "type": "object",
                        "properties": {},
                        "additionalProperties": False,
                    },
                    "strict": draw(st.booleans()),
                },
            }
        ]
        choices = [
            "auto",
            "none",
            "required",
            "any",
            {"type": "function", "function": {"name": "f"}},
        ]
        body["tool_choice"] = draw(st.sampled_from(choices))
    usual = {key: _OPTIONAL[key] for key in ("stream", "stream_options", "response_format")}
    usual["temperature"] = st.sampled_from([0, 0.5, 1])
    usual["n"] = st.just(1)
    usual["stop"] = st.sampled_from(["x", ["a", "b"], []])
    for key in draw(st.sets(st.sampled_from(sorted(usual)), max_size=3)):
        value = draw(usual[key])
        if value != {}:
            body[key] = value
    return json.dumps(body).encode()


@settings(max_examples=200, deadline=None)
@given(body=usual_requests(), target=st.sampled_from(TARGETS))
def test_usual_requests_take_the_direct_path(body: bytes, target: str) -> None:
    assert same(body, target, None, 1024)


@settings(max_examples=100, deadline=None)
@given(
    body=usual_requests(),
    target=st.sampled_from(TARGETS),
    stream=st.sampled_from([None, True, False]),
)
def test_the_batch_form_leaves_a_stream_out(body: bytes, target: str, stream: bool | None) -> None:
    # What the general path gives for the body without "stream": true, and that reported first.
    values = json.loads(body)
    values.pop("stream", None)
    if stream is not None:
        values["stream"] = stream
    model = OWN_MODEL.get(target)
    convert = direct("openai", target, model, 1024, batch=True)
    assert convert is not None
    done = convert(json.dumps(values).encode())
    if stream is True:
        del values["stream"]
    losses: list[cc.Loss] = []
    reader, writer = providers.get("openai"), providers.get(target)
    body = json.dumps(values).encode()
    out, problems = general_request(reader, writer, body, model, 1024, True, losses)
    assert problems == []
    if stream is True:
        losses.insert(0, cc.Loss("$.stream", BATCH_STREAM))
    assert done == (out, losses)


class TestModel:
    """Anthropic needs a model of its own: without one the general path says so."""

    BODY = b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'

    @pytest.mark.parametrize("model", [None, "gpt-4o", "gemini-2.5-flash"])
    def test_no_claude_model_goes_the_general_way(self, model: str | None) -> None:
        body = self.BODY if model is not None else b'{"messages":[{"role":"user","content":"Hi"}]}'
        assert direct_request("openai", "anthropic", body, model, 64) is None
        _, report = cc.convert(
            body, source="openai", target="anthropic", model=model, max_tokens=64
        )
        assert [p.path for p in report.problems] == ["$.model"]

    def test_a_claude_model_is_taken(self) -> None:
        done = direct_request("openai", "anthropic", self.BODY, "claude-sonnet-4-5", 64)
        assert done is not None
        assert json.loads(done[0])["model"] == "claude-sonnet-4-5"


# One array of tools that two families read as different function tools: each
# reads the other's as a tool only its own provider runs.
_BOTH = [
    {"name": "f", "input_schema": {"type": "object"}},
    {"type": "function", "name": "g", "parameters": {"type": "object"}},
]
_GEMINI_AND_RESPONSES = [
    {"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]},
    {"type": "function", "name": "g", "parameters": {"type": "object"}},
]
_SOURCES = {
    "anthropic": {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": _BOTH,
    },
    "openai-responses": {"model": "m", "input": "Hi", "tools": _BOTH},
}


@pytest.mark.parametrize("target", ["openai", "gemini", "bedrock", "ollama", "cohere"])
def test_an_array_two_families_read_apart_is_written_for_each(target: str) -> None:
    # Both orders, twice: the tools written for one source are not the other's.
    pairs = [(source, json.dumps(body).encode()) for source, body in _SOURCES.items()]
    for source, body in [*pairs, *reversed(pairs)] * 2:
        assert either_path.same(source, body, target, "m", 64)
    gemini = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    pair = [
        ("gemini", {**gemini, "tools": _GEMINI_AND_RESPONSES}),
        ("openai-responses", {"model": "m", "input": "Hi", "tools": _GEMINI_AND_RESPONSES}),
    ]
    for source, values in [*pair, *reversed(pair)] * 2:
        if target != source:
            assert either_path.same(source, json.dumps(values).encode(), target, "m", 64)


@pytest.mark.parametrize("name", ["f]", "a.b", "x" * 65, "get_weather"])
@pytest.mark.parametrize("source", ["openai", "anthropic"])
def test_bedrock_declares_only_tools_it_reads_back(source: str, name: str) -> None:
    # A history of calls without tools: Bedrock needs them declared, and reads
    # back a declaration whose name no tool may have as no tool (the preflight's
    # error). Such a request goes the general way (the fuzz target direct's find).
    bodies = {
        "openai": {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": name, "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            ],
        },
        "anthropic": {
            "max_tokens": 100,
            "messages": [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
                },
            ],
        },
    }
    body = json.dumps(bodies[source]).encode()
    assert either_path.same(source, body, "bedrock", "claude-sonnet-4-5", None) is (
        name == "get_weather"
    )
