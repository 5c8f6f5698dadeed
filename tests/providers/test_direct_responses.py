"""The direct conversions of the Responses API request give what the general path gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import either_path
import msgspec
import pytest
from corpus import NO_CORPUS, corpus
from either_path import OWN_MODEL, bulk_paths_agree
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._convert import general_request
from chatcodec.providers._direct import BATCH_STREAM, direct, direct_request

SOURCE = "openai-responses"
TARGETS = ("openai", "anthropic", "gemini", "bedrock", "ollama", "cohere")
# The targets every usual request goes to (OpenAI Chat's writer declines files).
USUAL = tuple(target for target in TARGETS if target != "openai")
# How many recorded requests each pair takes directly, at least (with a model and a limit).
FLOOR = 150


def same(body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body`` from SOURCE; it gives the general path's answer."""
    return either_path.same(SOURCE, body, target, model, max_tokens)


def recorded() -> list[Path]:
    return [param.values[0] for param in corpus(SOURCE, "request")]


@pytest.mark.parametrize("target", TARGETS)
def test_many_recorded_requests_take_the_direct_path(target: str) -> None:
    paths = recorded()
    if not paths:
        pytest.skip(NO_CORPUS)
    taken = [path for path in paths if same(path.read_bytes(), target, "m", 1024)]
    assert len(taken) >= FLOOR, (len(taken), len(paths))


@pytest.mark.parametrize("model", [None, "m"], ids=("as-sent", "named"))
@pytest.mark.parametrize("target", TARGETS)
def test_a_bulk_run_of_the_recorded_requests_gives_the_general_records(
    target: str, model: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = recorded()
    if not paths:
        pytest.skip(NO_CORPUS)
    lines = [msgspec.json.encode(msgspec.json.decode(path.read_bytes())) for path in paths]
    bulk_paths_agree(lines, SOURCE, target, model, monkeypatch)


class TestShape:
    """The usual request is taken; what is outside it goes the general way."""

    BASE: ClassVar[dict[str, Any]] = {
        "model": "gpt-4o",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "Weather?"},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "weather",
                "arguments": '{"city": "Paris"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": '{"sky": "clear"}'},
            {"role": "assistant", "content": "Clear."},
        ],
        "tools": [
            {
                "type": "function",
                "name": "weather",
                "description": "The weather in a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
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
    @pytest.mark.parametrize("effort", ["none", "low", "high"])
    def test_a_reasoning_effort_is_taken(self, target: str, effort: str) -> None:
        # Written as each target writes a reasoning setting (Anthropic's thinking, with
        # rules of its own, the general way), or left out for a model that does not
        # think (gpt-4o, the body's, for OpenAI Chat).
        body = self.body(reasoning={"effort": effort})
        for model in (None, "m"):
            assert same(body, target, model, 4096) is (target != "anthropic")

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("changes", "taken"),
        [
            ({"input": "Hi", "tools": None}, True),
            ({"instructions": ""}, True),  # kept as sent: reported
            ({"instructions": None}, True),
            ({"include": ["reasoning.encrypted_content"], "store": False}, True),  # reported
            ({"reasoning": {"summary": "auto"}}, True),  # kept as sent: reported
            ({"reasoning": {"effort": "max"}}, True),  # an effort it does not know: reported
            ({"text": {"format": {"type": "json_object"}}}, True),
            ({"text": {"format": {"type": "text"}, "verbosity": "low"}}, False),
            ({"max_output_tokens": 100, "temperature": 0.5, "stream": True}, True),
            ({"max_output_tokens": 0}, False),
            ({"temperature": 1.5}, False),  # the targets' ranges differ
            ({"parallel_tool_calls": False}, False),
            ({"user": "u-1"}, False),
            ({"moderation": True}, False),  # a key of no Struct
            ({"tool_choice": "required"}, True),
            ({"tool_choice": {"type": "function", "name": "weather"}}, True),
            ({"tool_choice": {"type": "function", "name": "other"}}, False),  # not sent
            ({"tool_choice": "required", "tools": None}, False),
            ({"tools": [{"type": "web_search"}]}, False),  # a built-in tool
        ],
        ids=repr,
    )
    def test_top_level(self, target: str, changes: dict[str, Any], taken: bool) -> None:
        if changes.get("tools", ...) is None:
            changes["input"] = changes.get("input", [{"role": "user", "content": "Hi"}])
        assert same(self.body(**changes), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("tool", "taken"),
        [
            ({"description": None}, True),  # null: no description, nothing lost
            ({"description": ""}, True),  # kept in the extras, reported as the general path does
            ({"strict": False}, True),
            ({"parameters": None}, False),
            ({"defer_loading": True}, True),  # kept in the tool's extras: reported
            ({"description": "", "defer_loading": 1}, True),  # both, in the general path's order
        ],
        ids=repr,
    )
    def test_tools(self, target: str, tool: dict[str, Any], taken: bool) -> None:
        tools = [{**self.BASE["tools"][0], **tool}]
        assert same(self.body(tools=tools), target, None, 64) is taken

    BUILT_IN: ClassVar[list[Any]] = [
        {"type": "web_search", "search_context_size": "low"},
        {"type": "mcp", "server_label": "docs", "server_url": "https://e.com/mcp"},
        {"name": "typeless"},  # kept as sent by the general path, as a built-in tool is
    ]

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize("at", [0, 1], ids=("first", "last"))
    def test_built_in_tools_are_left_out_where_the_general_path_reports_them(
        self, target: str, at: int
    ) -> None:
        tools: list[Any] = [{**self.BASE["tools"][0], "description": "", "strict": False}]
        tools[at:at] = self.BUILT_IN
        body = self.body(tools=tools, tool_choice="auto")
        assert same(body, target, None, 64)
        losses = cc.convert(body, source="openai-responses", target=target, max_tokens=64)[1]
        lost = [loss for loss in losses.losses if loss.reason.endswith("cannot run")]
        assert [loss.path for loss in lost] == [f"$.tools[{at + k}]" for k in range(3)]
        assert {loss.reason for loss in lost} == {f"an openai-responses tool {target} cannot run"}

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("tools", "taken"),
        [
            ([{"type": "web_search"}, "web_search"], False),  # not an object: an error
            ([{"type": "function", "name": "f"}], False),  # kept as sent, with no parameters
        ],
        ids=("not-an-object", "function-without-parameters"),
    )
    def test_tools_beside_built_in_ones(self, target: str, tools: list[Any], taken: bool) -> None:
        assert same(self.body(tools=[*self.BASE["tools"], *tools]), target, None, 64) is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("choice", "taken"),
        [(None, True), ("auto", True), ("none", False), ("required", False)],
        ids=repr,
    )
    def test_only_built_in_tools(self, target: str, choice: str | None, taken: bool) -> None:
        changes: dict[str, Any] = {"input": [{"role": "user", "content": "The news?"}]}
        if choice is not None:
            changes["tool_choice"] = choice
        body = self.body(tools=self.BUILT_IN, **changes)
        assert same(body, target, None, 64) is taken
        if taken:
            out, report = cc.convert(body, source="openai-responses", target=target, max_tokens=64)
            assert b"tools" not in out
            assert b"web_search" not in out
            # "auto", reported by the targets that take a choice only with tools
            reported = choice is not None and target not in ("ollama", "cohere")
            expected = ["$.tools[0]", "$.tools[1]", "$.tools[2]"] + ["$.tool_choice"] * reported
            assert [loss.path for loss in report.losses] == expected

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("items", "taken"),
        [
            ([{"type": "message", "role": "user", "content": "Hi"}], True),
            (
                [{"role": "developer", "content": "Be kind."}, {"role": "user", "content": "Hi"}],
                True,
            ),
            ([{"role": "user", "content": [{"type": "input_text", "text": "Hi"}]}], True),
            ([{"role": "user", "content": ""}], False),  # kept opaque by the general path
            ([{"role": "user", "content": []}], False),
            ([{"role": "system", "content": [{"type": "input_text", "text": "Hi"}]}], False),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello."},
                    {"role": "assistant", "content": "Again."},
                    {"role": "user", "content": "Bye"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": ""},
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {
                        "type": "message",
                        "role": "assistant",
                        "id": "msg_1",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
                    },
                    {"role": "user", "content": "Bye"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": [{"type": "output_text", "text": "A."}]},
                    {"role": "assistant", "content": "B."},
                    {"role": "user", "content": "Bye"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                    {"role": "assistant", "content": "A."},
                    {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "A.", "annotations": [{}]}],
                    },
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]},
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
                    {"role": "assistant", "content": "Hello."},
                    {"role": "user", "content": "Bye"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                    {"type": "reasoning", "summary": [], "encrypted_content": "gAAB"},
                    {"role": "assistant", "content": [{"type": "output_text", "text": "A."}]},
                    {"role": "user", "content": "Bye"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello."},
                    {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "reasoning", "summary": [], "encrypted_content": ""},
                    {"role": "assistant", "content": "Hello."},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Hm."}]},
                    {"role": "assistant", "content": "Hello."},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello.", "phase": "final_answer"},
                    {"role": "user", "content": "Bye"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {
                        "type": "function_call",
                        "id": "fc_1",
                        "status": "completed",
                        "call_id": "call_1",
                        "name": "weather",
                        "arguments": "not json",
                    },
                    {
                        "type": "function_call",
                        "call_id": "call_2",
                        "name": "weather",
                        "arguments": "{}",
                    },
                    {"type": "function_call_output", "call_id": "call_2", "output": "ok"},
                    {"type": "function_call_output", "call_id": "call_1", "output": "[1]"},
                ],
                True,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {
                        "type": "function_call",
                        "call_id": "call_1",
                        "name": "weather",
                        "arguments": "{}",
                        "namespace": "n",
                    },
                    {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
                ],
                False,
            ),
            (
                [
                    {"role": "user", "content": "Hi"},
                    {"type": "function_call_output", "call_id": "call_9", "output": "ok"},
                ],
                False,
            ),
        ],
        ids=(
            "typed",
            "developer",
            "text-parts",
            "empty-text",
            "no-parts",
            "system-parts",
            "answers-joined",
            "empty-answer",
            "answer-parts",
            "answer-parts-and-text",
            "text-after-a-call",
            "annotations",
            "refusal",
            "reasoning",
            "reasoning-twice",
            "reasoning-alone",
            "reasoning-after-text",
            "reasoning-unsigned",
            "reasoning-summary",
            "phase",
            "calls",
            "namespace",
            "unanswered-output",
        ),
    )
    def test_items(self, target: str, items: list[dict[str, Any]], taken: bool) -> None:
        went = same(self.body(input=items), target, None, 64)  # equal either way
        if target != "openai" or "reasoning" in str(items):  # its writer declines more
            assert went is taken

    @pytest.mark.parametrize("target", TARGETS)
    @pytest.mark.parametrize(
        ("part", "taken"),
        [
            ({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}, True),
            ({"type": "input_image", "image_url": "https://example.com/cat.png"}, True),
            (
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64,iVBORw0KGgo=",
                    "detail": "auto",
                },
                False,
            ),
            (
                {
                    "type": "input_file",
                    "file_data": "data:application/pdf;base64,JVBERi0=",
                    "filename": "a.pdf",
                },
                True,
            ),
            ({"type": "input_file", "file_id": "file-1"}, True),
            ({"type": "input_file", "file_url": "https://example.com/a.pdf"}, False),
            ({"type": "input_file", "file_data": "data:text/plain;base64,aGk="}, False),
            ({"type": "input_audio", "input_audio": {"data": "", "format": "mp3"}}, False),
        ],
        ids=("image", "image-url", "detail", "pdf", "file-id", "file-url", "text-file", "audio"),
    )
    def test_parts(self, target: str, part: dict[str, Any], taken: bool) -> None:
        items = [{"role": "user", "content": [{"type": "input_text", "text": "What?"}, part]}]
        if target == "openai" and part.get("type") == "input_file":
            taken = False  # a file's forms are an OpenAI Chat source's own: declined
        assert same(self.body(input=items, tools=None), target, None, 64) is taken

    def test_without_max_tokens_anthropic_goes_the_general_way(self) -> None:
        assert not same(self.body(), "anthropic", None, None)
        assert same(self.body(max_output_tokens=64), "anthropic", None, None)


# --- generated requests -------------------------------------------------------

_IDS = st.sampled_from(["call_1", "call_2", "toolu_3", "call 4", ""])
_ARGUMENTS = st.sampled_from(['{"a": 1}', "{}", ' {"b":[1,2]}', "[1]", "nope", "", "\ud800"])
_RESULTS = st.sampled_from(["ok", '{"r": 1}', " {}", "", "[1, 2]", "{bad"])
_TEXTS = st.sampled_from(["Hi", "", "  ", "Ünïcode ✓", "line\nbreak"])
_IMAGES = st.sampled_from(
    [
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/bmp;base64,Qk0=",
        "https://example.com/a.png",
        "data:image/png;base64,iVB*",
    ]
)
_PARTS = st.lists(
    st.one_of(
        _TEXTS.map(lambda text: {"type": "input_text", "text": text}),
        _IMAGES.map(lambda url: {"type": "input_image", "image_url": url}),
        st.sampled_from(
            [
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0="},
                {"type": "input_file", "file_id": "file-1", "filename": "a.pdf"},
                {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
            ]
        ),
    ),
    max_size=3,
)


_ANNOTATIONS: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [{}, {"annotations": []}, {"annotations": [{"type": "x"}]}]
)
_REASONING: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "reasoning", "summary": [], "encrypted_content": ""},
        {"type": "reasoning", "summary": [], "encrypted_content": None},
        {"type": "reasoning", "summary": []},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Hm."}]},
        {"type": "reasoning", "encrypted_content": "gAAA"},
    ]
)


@st.composite
def _items(draw: st.DrawFn) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 6))):
        kinds = ["user", "parts", "answer", "answer-parts", "calls", "system", "reasoning"]
        kind = draw(st.sampled_from(kinds))
        if kind == "user":
            item: dict[str, Any] = {"role": "user", "content": draw(_TEXTS)}
            if draw(st.booleans()):
                item = {"type": "message", **item}
            items.append(item)
        elif kind == "parts":
            items.append({"role": "user", "content": draw(_PARTS)})
        elif kind == "system":
            role = draw(st.sampled_from(["system", "developer"]))
            items.append({"role": role, "content": draw(_TEXTS)})
        elif kind == "answer":
            items.append({"role": "assistant", "content": draw(_TEXTS)})
        elif kind == "answer-parts":
            texts = draw(st.lists(_TEXTS, min_size=1, max_size=2))
            parts = [{"type": "output_text", "text": text} for text in texts]
            for part in parts:
                part.update(draw(_ANNOTATIONS))
            items.append({"type": "message", "role": "assistant", "id": "msg_1", "content": parts})
        elif kind == "reasoning":
            items.append(draw(_REASONING))
        else:
            calls = draw(st.lists(st.tuples(_IDS, _ARGUMENTS), min_size=1, max_size=3))
            for id_, arguments in calls:
                call = {"type": "function_call", "call_id": id_, "name": "f"}
                call["arguments"] = arguments
                if draw(st.booleans()):
                    call["id"] = "fc_1"
                items.append(call)
            ids = [id_ for id_, _ in calls]
            # Usually every call answered, in order; sometimes some, shuffled.
            if draw(st.booleans()):
                ids = draw(st.permutations(ids))[: draw(st.integers(0, len(ids)))]
            for id_ in ids:
                output = {"type": "function_call_output", "call_id": id_}
                items.append({**output, "output": draw(_RESULTS)})
    return items


_SCHEMAS = st.sampled_from(
    [
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}},
        {"type": "object", "properties": {"a": {"type": 1}}},  # a type Ollama cannot read
        {},
    ]
)


@st.composite
def _tool(draw: st.DrawFn) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "function", "name": draw(st.sampled_from(["f", "g", "1f"]))}
    description = draw(st.sampled_from([None, "", "Does f.", "absent"]))
    if description != "absent":
        tool["description"] = description
    tool["parameters"] = draw(_SCHEMAS)
    strict = draw(st.sampled_from([None, True, False]))
    if strict is not None:
        tool["strict"] = strict
    if draw(st.booleans()):
        tool["defer_loading"] = True
    keys = draw(st.permutations(list(tool)))  # the general path keeps extras in its own order
    return {key: tool[key] for key in keys}


_OPTIONAL: dict[str, st.SearchStrategy[Any]] = {
    "model": st.sampled_from(["gpt-4o", "gemini-3-pro", ""]),
    "instructions": _TEXTS,
    "tools": st.lists(
        st.one_of(
            _tool(),
            st.sampled_from(  # built-in tools: every target leaves them out
                [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]}]
            ),
        ),
        max_size=3,
    ),
    "tool_choice": st.sampled_from(
        [
            "auto",
            "none",
            "required",
            {"type": "function", "name": "f"},
            {"type": "auto"},
            {"type": "web_search"},
        ]
    ),
    "max_output_tokens": st.sampled_from([0, 10, 100]),
    "temperature": st.sampled_from([0, 0.5, 1, 1.5]),
    "top_p": st.sampled_from([0.9, 1]),
    "stream": st.booleans(),
    "text": st.sampled_from(
        [{"format": {"type": "text"}}, {"format": {"type": "json_object"}}, {"verbosity": "low"}]
    ),
    "reasoning": st.sampled_from([{"effort": "low"}, {"summary": "auto"}, None]),
    "include": st.just(["reasoning.encrypted_content"]),
    "store": st.sampled_from([True, False, None]),
    "metadata": st.sampled_from([{}, {"run": "7"}]),
    "previous_response_id": st.just("resp_1"),
    "background": st.just(True),
    "user": st.just("u-1"),
    "parallel_tool_calls": st.booleans(),
}


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    body: dict[str, Any] = {"input": draw(st.one_of(_TEXTS, _items()))}
    for key in draw(st.sets(st.sampled_from(sorted(_OPTIONAL)), max_size=5)):
        body[key] = draw(_OPTIONAL[key])
    keys = list(body)
    order = draw(st.permutations(keys))  # the general path reports kept keys in the body's order
    return json.dumps({key: body[key] for key in order}).encode()


@settings(max_examples=300, deadline=None)
@given(
    body=requests(),
    target=st.sampled_from(TARGETS),
    model=st.sampled_from([None, "claude-x", "gemini-3-pro", ""]),
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
    items: list[dict[str, Any]] = [{"role": "user", "content": draw(texts)}]
    calls = 0
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            items.append({"role": "assistant", "content": draw(texts)})
        ids = [f"call_{calls + k}" for k in range(draw(st.integers(0, 2)))]
        calls += len(ids)
        for id_ in ids:
            arguments = draw(st.sampled_from(['{"a": 1}', "{}", "nope"]))
            items.append(
                {"type": "function_call", "call_id": id_, "name": "f", "arguments": arguments}
            )
        for id_ in draw(st.permutations(ids)):
            items.append({"type": "function_call_output", "call_id": id_, "output": "ok"})
        parts = st.lists(
            st.one_of(
                texts.map(lambda text: {"type": "input_text", "text": text}),
                st.just({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0K"}),
            ),
            min_size=1,
            max_size=2,
        )
        items.append({"role": "user", "content": draw(st.one_of(parts, texts))})
    body: dict[str, Any] = {"model": "gpt-4o", "input": items}
    if draw(st.booleans()):
        body["instructions"] = draw(texts)
    if draw(st.booleans()):
        body["tools"] = [
            {
                "type": "function",
                "name": "f",
                "description": draw(st.sampled_from([None, "Does f."])),
                "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
                "strict": draw(st.booleans()),
            }
        ]
        built_in = {"type": "web_search", "search_context_size": "low"}
        at = draw(st.integers(0, 1))  # before the function tool or after it
        body["tools"][at:at] = draw(st.lists(st.just(built_in), max_size=2))
        choices = ["auto", "none", "required", {"type": "function", "name": "f"}]
        body["tool_choice"] = draw(st.sampled_from(choices))
    usual: dict[str, st.SearchStrategy[Any]] = {
        "stream": st.booleans(),
        "temperature": st.sampled_from([0, 0.5, 1]),
        "include": st.just(["reasoning.encrypted_content"]),
        "store": st.booleans(),
        "text": st.sampled_from(
            [{"format": {"type": "text"}}, {"format": {"type": "json_object"}}]
        ),
    }
    for key in draw(st.sets(st.sampled_from(sorted(usual)), max_size=3)):
        body[key] = draw(usual[key])
    return json.dumps(body).encode()


@settings(max_examples=200, deadline=None)
@given(body=usual_requests(), target=st.sampled_from(USUAL))
def test_usual_requests_take_the_direct_path(body: bytes, target: str) -> None:
    assert same(body, target, None, 1024)


@settings(max_examples=100, deadline=None)
@given(
    body=usual_requests(),
    target=st.sampled_from(USUAL),
    stream=st.sampled_from([None, True, False]),
)
def test_the_batch_form_leaves_a_stream_out(body: bytes, target: str, stream: bool | None) -> None:
    # What the general path gives for the body without "stream": true, and that reported first.
    values = json.loads(body)
    values.pop("stream", None)
    if stream is not None:
        values["stream"] = stream
    model = OWN_MODEL.get(target)
    convert = direct(SOURCE, target, model, 1024, batch=True)
    assert convert is not None
    done = convert(json.dumps(values).encode())
    if stream is True:
        del values["stream"]
    losses: list[cc.Loss] = []
    reader, writer = providers.get(SOURCE), providers.get(target)
    body = json.dumps(values).encode()
    out, problems = general_request(reader, writer, body, model, 1024, True, losses)
    assert problems == []
    if stream is True:
        losses.insert(0, cc.Loss("$.stream", BATCH_STREAM))
    assert done == (out, losses)


def test_no_direct_path_to_itself() -> None:
    body = b'{"model":"gpt-4o","input":"Hi"}'
    assert direct_request(SOURCE, SOURCE, body, None, 64) is None
