"""The direct conversions from Anthropic give what the general path gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import either_path
import msgspec
import pytest
from corpus import NO_CORPUS, corpus
from either_path import OWN_MODEL
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._convert import general_request
from chatcodec.bulk import _core
from chatcodec.providers._direct import BATCH_STREAM, direct

TARGETS = ("openai", "openai-responses", "gemini", "bedrock", "ollama", "cohere")

# A tool search's reference to a tool, in a result: kept as an opaque part by the general path.
_REFERENCE = {"type": "tool_reference", "tool_name": "lookup"}


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from anthropic; it gives the general path's answer."""
    return either_path.same("anthropic", body, target, model, max_tokens)


def recorded() -> list[Path]:
    return [param.values[0] for param in corpus("anthropic", "request")]


@pytest.mark.parametrize("target", TARGETS)
def test_the_usual_recorded_requests_take_the_direct_path(target: str) -> None:
    # A floor, not a goal: signed thinking, cache points, images in results and
    # server tools' calls still go the general way (see _source_anthropic).
    paths = recorded()
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    assert len(taken) * 2 > len(paths), (len(taken), len(paths))


@pytest.mark.parametrize("model", [None, "m"], ids=("as-sent", "named"))
@pytest.mark.parametrize("target", TARGETS)
def test_a_bulk_run_of_the_recorded_requests_gives_the_general_records(
    target: str, model: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = recorded()
    if not paths:
        pytest.skip(NO_CORPUS)
    lines = [msgspec.json.encode(msgspec.json.decode(path.read_bytes())) for path in paths]
    options: dict[str, Any] = {"model": model, "max_tokens": 1024, "keep_refused": True}
    fast = cc.convert_lines(lines, source="anthropic", target=target, **options)
    monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
    general = cc.convert_lines(lines, source="anthropic", target=target, **options)
    assert fast.records == general.records
    assert fast.problems == general.problems
    assert fast.counts() == general.counts()


class TestShapes:
    """What the direct path takes, and what it leaves to the general path."""

    BASE: ClassVar[dict[str, Any]] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"c": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "clear"},
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
        "tools": [
            {
                "name": "weather",
                "description": "The weather in a city.",
                "input_schema": {"type": "object", "properties": {"c": {"type": "integer"}}},
            }
        ],
        "tool_choice": {"type": "auto"},
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
        assert same(self.body(), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "changes",
        [
            {"system": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]},
            {"system": None},
            {"tool_choice": {"type": "any"}},
            {"tool_choice": {"type": "tool", "name": "weather"}},
            {"tool_choice": {"type": "none"}},
            {"stop_sequences": ["END"], "temperature": 0.5, "stream": True},
            {"top_p": 0.9, "stream": False},
            # Keys the general path keeps as sent, reported by either path
            {"container": "container_1"},
            {"mcp_servers": [{"type": "url", "url": "https://e.com/mcp", "name": "docs"}]},
            {"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}},
            {"~hint": 1, "service_tier": "auto"},  # a key like a hint: escaped
            {"inference_geo": "us"},
        ],
        ids=repr,
    )
    def test_usual_variants_are_taken(self, target: str, changes: dict[str, Any]) -> None:
        assert same(self.body(**changes), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    def test_keys_kept_as_sent_are_reported_in_the_bodys_order(self, target: str) -> None:
        body = json.loads(self.body())
        body = {"container": "c_1", **body, "context_management": {"edits": []}}
        losses = cc.convert(json.dumps(body), source="anthropic", target=target)[1].losses
        assert [loss.path for loss in losses if loss.path.startswith("$.extras")] == [
            "$.extras.anthropic.container",
            "$.extras.anthropic.context_management",
        ]
        assert same(json.dumps(body).encode(), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "changes",
        [
            {"system": ""},  # kept in extras by the general path
            {"system": [{"type": "text", "text": "A", "cache_control": {"type": "ephemeral"}}]},
            {"thinking": {"type": "enabled"}},  # kept as sent by the general path
            {"thinking": {"type": "adaptive"}},
            {"thinking": {"type": "disabled", "budget_tokens": 0}},
            {"thinking": {"type": "enabled", "budget_tokens": 2**64}},  # the general path refuses
            {"metadata": {"user_id": "u-1"}},
            {"top_k": 5},
            {"output_config": {"effort": "low"}},
            {"cache_control": {"type": "ephemeral"}},  # the automatic cache point: placed
            {"tool_choice": {"type": "tool", "name": "other"}},  # not among the tools
            {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
            {"temperature": 1.5},
            {"max_tokens": 0},
            {"stop_sequences": [" "]},
        ],
        ids=repr,
    )
    def test_outside_the_shape(self, target: str, changes: dict[str, Any]) -> None:
        assert not same(self.body(**changes), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "thinking",
        [{"type": "enabled", "budget_tokens": 1024}, {"type": "disabled"}],
        ids=("enabled", "disabled"),
    )
    @pytest.mark.parametrize("model", [None, "m"])
    def test_thinking_is_taken(
        self, target: str, thinking: dict[str, Any], model: str | None
    ) -> None:
        # Written as each target writes a reasoning setting, or left out for a model
        # that does not think (each target's in OWN_MODEL when none is given).
        assert same(self.body(thinking=thinking), target, model, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "result",
        [
            {
                "content": [
                    {"type": "text", "text": '{"sky":'},
                    {"type": "text", "text": '"clear"}'},
                ]
            },
            {"content": [{"type": "text", "text": "clear"}]},
            {"content": "clear", "is_error": False},
            {
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "is_error": False,
            },
            {"content": [{"type": "tool_reference", "tool_name": "lookup"}]},
            {"content": [_REFERENCE, {"type": "tool_reference", "tool_name": 7}]},
        ],
        ids=(
            "json-in-two",
            "one-block",
            "no-error",
            "blocks-no-error",
            "tool-reference",
            "tool-references",
        ),
    )
    def test_a_result_is_taken(self, target: str, result: dict[str, Any]) -> None:
        # Text blocks: one text for Gemini (an object as itself), joined and reported by
        # Ollama, blocks for the others; an is_error false says nothing. A tool reference
        # (kept as an opaque part by the general path): left out and reported.
        messages = json.loads(json.dumps(self.BASE["messages"]))
        messages[2]["content"][0].update(result)
        assert same(self.body(messages=messages), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "result",
        [
            {"content": [{"type": "text", "text": ""}]},
            {"content": []},
            {
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}
                ]
            },
            {"content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]},
            {"content": "no", "is_error": True},
            {"content": [{"type": "text", "text": "a"}, _REFERENCE]},
            {"content": [_REFERENCE, {"type": "text", "text": "a"}]},
            {"content": [{**_REFERENCE, "cache_control": {"type": "ephemeral"}}]},
            {"content": [{"type": "text", "text": "a", "tool_name": "lookup"}]},
        ],
        ids=(
            "empty-text",
            "no-blocks",
            "image",
            "cache-point",
            "error",
            "text-and-reference",
            "reference-and-text",
            "reference-cache-point",
            "text-with-a-tool-name",
        ),
    )
    def test_a_result_left_to_the_general_path(self, target: str, result: dict[str, Any]) -> None:
        messages = json.loads(json.dumps(self.BASE["messages"]))
        messages[2]["content"][0].update(result)
        assert not same(self.body(messages=messages), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    def test_temperature_and_top_p(self, target: str) -> None:
        # A Claude model takes one of them: Bedrock's preflight says so, by the general path.
        body = self.body(temperature=0.5, top_p=0.9)
        assert same(body, target, None, None) is (target != "bedrock")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("tool", "taken"),
        [
            ({"description": ""}, True),  # kept in the tool's extras: reported by either path
            ({"type": "custom"}, True),
            ({"strict": False}, False),
            ({"strict": True}, False),  # an open schema: the targets' strict rules differ
            (
                {
                    "strict": True,
                    "input_schema": {
                        "type": "object",
                        "properties": {"c": {"type": "integer"}},
                        "required": ["c"],
                        "additionalProperties": False,
                    },
                },
                True,
            ),
            ({"cache_control": {"type": "ephemeral"}}, False),
            ({"type": "web_search_20250305"}, True),  # a server tool: left out, reported
            ({"type": 7}, False),  # the general path's error
            ({"type": None}, False),  # read as a custom tool by the general path
            ({"defer_loading": True}, True),  # kept in the tool's extras: reported
            ({"defer_loading": "yes"}, True),  # kept as sent, whatever it is
            ({"description": "", "defer_loading": True}, True),  # both kept: reported
            ({"defer_loading": True, "description": ""}, True),  # in the general path's order
        ],
        ids=repr,
    )
    def test_a_tool(self, target: str, tool: dict[str, Any], taken: bool) -> None:
        tools = [{**self.BASE["tools"][0], **tool}, {**self.BASE["tools"][0], "name": "other"}]
        tools[1]["input_schema"] = tools[0]["input_schema"]
        assert same(self.body(tools=tools), target, None, None) is taken

    SERVER_TOOLS: ClassVar[list[dict[str, Any]]] = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    ]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("at", [0, 1, 2], ids=("first", "between", "last"))
    def test_server_tools_are_left_out_where_the_general_path_reports_them(
        self, target: str, at: int
    ) -> None:
        # Among strict and loose tools with extras, so that each loss's index is
        # the tool's in the array as sent (Cohere reports the strict ones apart).
        closed = {
            "type": "object",
            "properties": {"c": {"type": "integer"}},
            "required": ["c"],
            "additionalProperties": False,
        }
        weather = {**self.BASE["tools"][0], "description": "", "defer_loading": True}
        strict = {"name": "exact", "input_schema": closed, "strict": True}
        tools: list[dict[str, Any]] = [weather, strict]
        tools[at:at] = self.SERVER_TOOLS
        body = self.body(tools=tools)
        assert same(body, target, None, None)
        losses = cc.convert(body, source="anthropic", target=target)[1].losses
        lost = [loss for loss in losses if loss.reason.endswith("cannot run")]
        expected = [f"$.tools[{at}]", f"$.tools[{at + 1}]"]
        assert [loss.path for loss in lost] == expected
        assert {loss.reason for loss in lost} == {f"an anthropic tool {target} cannot run"}

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({"tool_choice": None}, True),
            ({}, True),  # "auto": left out as well, as the general path leaves it
            ({"tool_choice": {"type": "none"}}, False),  # each target has its own way
            ({"tool_choice": {"type": "any"}}, False),
        ],
        ids=("no-choice", "auto", "none", "any"),
    )
    def test_only_server_tools(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        messages = [{"role": "user", "content": "Search the news."}]
        body = self.body(messages=messages, tools=self.SERVER_TOOLS, **changes)
        assert same(body, target, None, None) is taken
        if taken:
            out, report = cc.convert(body, source="anthropic", target=target)
            assert b"tools" not in out
            assert b"web_search" not in out
            # "auto", reported by the targets that take a choice only with tools
            chosen = changes.get("tool_choice", self.BASE["tool_choice"]) is not None
            choice = ["$.tool_choice"] if chosen and target not in ("ollama", "cohere") else []
            assert [loss.path for loss in report.losses] == ["$.tools[0]", "$.tools[1]", *choice]

    @pytest.mark.parametrize("target", TARGETS)
    def test_only_server_tools_beside_calls_go_the_general_way(self, target: str) -> None:
        assert not same(self.body(tools=self.SERVER_TOOLS, tool_choice=None), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    def test_an_empty_description_is_reported_where_the_general_path_reports_it(
        self, target: str
    ) -> None:
        # After the messages' losses, before the settings' (here an image by URL
        # without an extension, a "stream" and a tool choice "none" for some targets).
        blocks = [
            {"type": "text", "text": "What?"},
            {"type": "text", "text": "And?"},
            {"type": "image", "source": {"type": "url", "url": "https://e.com/cat"}},
        ]
        tools = [{**self.BASE["tools"][0], "description": ""}]
        body = self.body(
            messages=[{"role": "user", "content": blocks}],
            tools=tools,
            tool_choice={"type": "none"},
            stream=True,
            stop_sequences=["END"],
        )
        assert same(body, target, None, None)
        losses = cc.convert(body, source="anthropic", target=target)[1].losses
        assert "$.tools[0].extras.anthropic.description" in [loss.path for loss in losses]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        "messages",
        [
            [{"role": "user", "content": ""}],
            [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Hi"}],
            [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Again"}],
            [{"role": "user", "content": [{"type": "text", "text": "Hi", "citations": []}]}],
            [{"role": "user", "content": [{"type": "text", "text": ""}]}],
            [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "Hm"}]},
            ],
            [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}},
                        {"type": "text", "text": "After the call"},
                    ],
                },
            ],
            [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "First"},
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "late"},
                    ],
                },
            ],
            [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": "no",
                            "is_error": True,
                        }
                    ],
                },
            ],
        ],
        ids=(
            "empty-text",
            "answer-first",
            "two-user-turns",
            "citations",
            "empty-block",
            "thinking",
            "text-after-call",
            "result-after-text",
            "error-result",
        ),
    )
    def test_outside_the_conversation_shape(
        self, target: str, messages: list[dict[str, Any]]
    ) -> None:
        assert not same(self.body(messages=messages), target, None, None)

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("source", "taken"),
        [
            ({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}, True),
            ({"type": "base64", "media_type": "image/jpeg", "data": "\\/9j\\/4AAQ"}, True),
            ({"type": "url", "url": "https://example.com/cat.png"}, True),
            ({"type": "url", "url": "http://example.com/cat.png"}, False),
            ({"type": "base64", "media_type": "image/bmp", "data": "Qk0="}, False),
            ({"type": "file", "file_id": "file_1"}, False),
        ],
        ids=("base64", "escaped", "https", "http", "bmp", "file"),
    )
    def test_an_image(self, target: str, source: dict[str, Any], taken: bool) -> None:
        blocks = [{"type": "text", "text": "What?"}, {"type": "image", "source": source}]
        body = self.body(messages=[{"role": "user", "content": blocks}]).replace(b"\\\\/", b"\\/")
        assert same(body, target, None, None) is taken


class TestOpenAIDialects:
    """A dialect of OpenAI Chat and the tool_call_content option keep the general path."""

    BODY = TestShapes().body()

    @pytest.mark.parametrize("target", ["mistral", "deepseek", "groq"])
    def test_a_dialect_is_written_by_its_codec(self, target: str) -> None:
        losses: list[cc.Loss] = []
        reader, writer = providers.get("anthropic"), providers.get(target)
        out, problems = general_request(reader, writer, self.BODY, None, None, True, losses)
        got = cc.convert(self.BODY, source="anthropic", target=target)
        assert got == (out, cc.LossReport(tuple(losses), tuple(problems)))

    @pytest.mark.parametrize("option", ["null", "empty"])
    def test_tool_call_content(self, option: str) -> None:
        body = json.loads(self.BODY)
        body["messages"][1]["content"] = body["messages"][1]["content"][1:]  # calls alone
        out, _ = cc.convert(
            json.dumps(body).encode(),
            source="anthropic",
            target="openai",
            tool_call_content=option,  # type: ignore[arg-type]
        )
        assert json.loads(out)["messages"][2]["content"] == {"null": None, "empty": ""}[option]

    @pytest.mark.parametrize("dialect", ["mistral", "deepseek"])
    def test_a_bulk_run_to_a_dialect(self, dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
        lines = [msgspec.json.encode(msgspec.json.decode(self.BODY))]
        fast = cc.convert_lines(lines, source="anthropic", target=dialect)
        monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
        general = cc.convert_lines(lines, source="anthropic", target=dialect)
        assert fast.records == general.records


# --- generated requests -------------------------------------------------------

_TEXTS = st.sampled_from(["Hi", "", "  ", "Ünïcode ✓", "line\nbreak", '{"json": 1}'])
_IDS = st.sampled_from(["toolu_1", "toolu_2", "call 3", ""])
_INPUTS = st.sampled_from([{}, {"a": 1}, {"b": [1, "é"]}, {"n": None}])
_RESULTS = st.one_of(
    st.sampled_from(["ok", '{"r": 1}', "", "[1, 2]"]),
    st.lists(
        st.sampled_from(["block", "", "  ", '{"r": 1}', '{"r":', " 2}", _REFERENCE]).map(
            lambda text: text if type(text) is dict else {"type": "text", "text": text}
        ),
        max_size=3,
    ),
)
_IMAGES = st.sampled_from(
    [
        {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        {"type": "base64", "media_type": "image/gif", "data": "R0lGOD-_"},
        {"type": "base64", "media_type": "image/bmp", "data": "Qk0="},
        {"type": "url", "url": "https://example.com/a.png"},
        {"type": "url", "url": "https://example.com/a"},
        {"type": "url", "url": "data:image/png;base64,iVBORw0KGgo="},
    ]
)
_BLOCKS = st.lists(
    st.one_of(
        _TEXTS.map(lambda text: {"type": "text", "text": text}),
        _IMAGES.map(lambda source: {"type": "image", "source": source}),
    ),
    min_size=0,
    max_size=3,
)


@st.composite
def _conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    pending: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        role = draw(st.sampled_from(["user", "assistant"]))
        if role == "user":
            results: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": id_, "content": draw(_RESULTS)}
                for id_ in draw(st.permutations(pending))[: draw(st.integers(0, len(pending)))]
            ]
            for result in results:
                error = draw(st.sampled_from([None, False, True]))
                if error is not None:
                    result["is_error"] = error
            if draw(st.booleans()) and not results:
                content: Any = draw(_TEXTS)
            else:
                content = results + draw(_BLOCKS)
        else:
            blocks = draw(_BLOCKS.map(lambda b: [x for x in b if x["type"] == "text"]))
            calls: list[dict[str, Any]] = [
                {"type": "tool_use", "id": draw(_IDS), "name": "f", "input": draw(_INPUTS)}
                for _ in range(draw(st.integers(0, 2)))
            ]
            content = blocks + calls
            if not calls and draw(st.booleans()):
                content = draw(_TEXTS)
            pending = [call["id"] for call in calls]
        turns.append({"role": role, "content": content})
    return turns


_OPTIONAL: dict[str, st.SearchStrategy[Any]] = {
    "model": st.sampled_from(["claude-sonnet-4-5", "gpt-4o", "o3", ""]),
    "max_tokens": st.sampled_from([0, 10, 100]),
    "system": st.one_of(
        _TEXTS, st.lists(_TEXTS.map(lambda text: {"type": "text", "text": text}), max_size=2)
    ),
    "tools": st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "name": st.sampled_from(["f", "g", "1f"]),
                    "input_schema": st.sampled_from(
                        [
                            {"type": "object", "properties": {"a": {"type": "integer"}}},
                            {"type": "object", "properties": {}, "additionalProperties": False},
                            {"type": "object", "properties": {"d": {"type": "string"}}},
                            {},
                        ]
                    ),
                },
                optional={
                    "description": st.sampled_from(["", "Does f."]),
                    "strict": st.booleans(),
                    "defer_loading": st.booleans(),
                },
            ),
            st.sampled_from(  # server tools: every target leaves them out
                [
                    {"type": "web_search_20250305", "name": "web_search"},
                    {"type": "code_execution_20250825", "name": "code_execution"},
                    {"type": "tool_search_tool_bm25_20251119", "name": "f"},
                ]
            ),
        ),
        max_size=3,
    ),
    "tool_choice": st.sampled_from(
        [
            {"type": "auto"},
            {"type": "any"},
            {"type": "none"},
            {"type": "tool", "name": "f"},
            {"type": "tool", "name": "web_search"},
        ]
    ),
    "temperature": st.sampled_from([0, 0.5, 1, 1.5]),
    "top_p": st.sampled_from([0.9, 1]),
    "stop_sequences": st.sampled_from([[], ["a", "b"], [" "], ["a"] * 6]),
    "stream": st.booleans(),
    "metadata": st.just({"user_id": "u"}),
    "container": st.sampled_from(["c_1", None, {"id": "c_1"}]),  # kept as sent
    "context_management": st.just({"edits": []}),
    "cache_control": st.just({"type": "ephemeral"}),
}


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    body: dict[str, Any] = {"messages": draw(_conversation())}
    for key in draw(st.sets(st.sampled_from(sorted(_OPTIONAL)), max_size=5)):
        body[key] = draw(_OPTIONAL[key])
    return json.dumps(body).encode()


@settings(max_examples=400, deadline=None)
@given(
    body=requests(),
    target=st.sampled_from(TARGETS),
    model=st.sampled_from([None, "gpt-4o", "gemini-2.5-flash", ""]),
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
    text_blocks = texts.map(lambda text: {"type": "text", "text": text})
    results = st.one_of(texts, st.lists(text_blocks, min_size=1, max_size=3))
    turns: list[dict[str, Any]] = [{"role": "user", "content": draw(texts)}]
    calls = 0
    for _ in range(draw(st.integers(0, 3))):
        ids = [f"toolu_{calls + k}" for k in range(draw(st.integers(0, 2)))]
        calls += len(ids)
        blocks: list[Any] = [{"type": "text", "text": draw(texts)}] if draw(st.booleans()) else []
        blocks += [
            {"type": "tool_use", "id": id_, "name": "f", "input": draw(_INPUTS)} for id_ in ids
        ]
        answer: Any = blocks if blocks else draw(texts)
        turns.append({"role": "assistant", "content": answer})
        user: list[Any] = [
            {"type": "tool_result", "tool_use_id": id_, "content": draw(results)}
            for id_ in draw(st.permutations(ids))
        ]
        for result in user:
            if draw(st.booleans()):
                result["is_error"] = False  # the default
        if not ids or draw(st.booleans()):
            user.append({"type": "text", "text": draw(texts)})
            if draw(st.booleans()):
                source = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
                user.append({"type": "image", "source": source})
        turns.append({"role": "user", "content": user})
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": turns}
    if draw(st.booleans()):
        body["system"] = draw(
            st.one_of(texts, st.lists(texts.map(lambda t: {"type": "text", "text": t}), min_size=1))
        )
    if draw(st.booleans()):
        body["tools"] = [
            {
                "name": "f",
                "description": "Does f.",
                "input_schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
            }
        ]
        server = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
        at = draw(st.integers(0, 1))  # before the function tool or after it
        body["tools"][at:at] = draw(st.lists(st.just(server), max_size=2))
        body["tool_choice"] = draw(
            st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "tool", "name": "f"}])
        )
    for key, values in (("temperature", [0, 0.5, 1]), ("stream", [True, False])):
        if draw(st.booleans()):
            body[key] = draw(st.sampled_from(values))
    return json.dumps(body).encode()


@settings(max_examples=200, deadline=None)
@given(body=usual_requests(), target=st.sampled_from(TARGETS))
def test_usual_requests_take_the_direct_path(body: bytes, target: str) -> None:
    assert same(body, target, None, None)


@settings(max_examples=60, deadline=None)
@given(
    body=usual_requests(), target=st.sampled_from(TARGETS), stream=st.sampled_from([True, False])
)
def test_the_batch_form_leaves_a_stream_out(body: bytes, target: str, stream: bool) -> None:
    values = json.loads(body)
    values["stream"] = stream
    model = OWN_MODEL.get(target)  # Cohere's: it refuses another family's model
    convert = direct("anthropic", target, model, None, batch=True)
    assert convert is not None
    done = convert(json.dumps(values).encode())
    if stream:
        del values["stream"]
    losses: list[cc.Loss] = []
    reader, writer = providers.get("anthropic"), providers.get(target)
    out, problems = general_request(
        reader, writer, json.dumps(values).encode(), model, None, True, losses
    )
    assert problems == []
    if stream:
        losses.insert(0, cc.Loss("$.stream", BATCH_STREAM))
    assert done == (out, losses)
