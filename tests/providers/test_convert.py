"""Conversion between providers: real requests with tool calls, to every other family."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar, Literal

import msgspec
import pytest
from corpus import API, DATA, corpus, curated, needs_corpus, rejected, same_json

import chatcodec as cc
from chatcodec import providers

NAMES = providers.NAMES


def recorded() -> list[Any]:
    """Every recorded request of every family, or one skipped pair without the corpus."""
    params = [
        pytest.param(codec, param.values[0], id=f"{codec}:{param.id}")
        for codec in NAMES
        for param in corpus(codec, "request")
    ]
    return needs_corpus(params, width=2)


def curated_with_calls() -> list[Any]:
    out = []
    for codec in NAMES:
        for param in curated(codec, "request"):
            if b"tool" in param.values[0].read_bytes():
                out.append(pytest.param(codec, param.values[0], id=f"{codec}:{param.id}"))
    return out


def neutral(request: cc.Request) -> list[tuple[Any, ...]]:
    """What every family can say: the texts by role, the calls and the results, in order.

    How messages are grouped into turns, ids, and where system text sits may
    change on the way; none of it is information a conversion may lose.
    """
    out: list[tuple[Any, ...]] = []
    for message in request.messages:
        if isinstance(message, cc.SystemMessage | cc.DeveloperMessage):
            out.append(("system", message.content))
        elif isinstance(message, cc.UserMessage):
            out.extend(("user", part) for part in _user_parts(message.content))
        elif isinstance(message, cc.AssistantMessage):
            if message.text:
                out.append(("assistant", message.text))
            for call in message.tool_calls:
                out.append(("call", call.name, json.loads(bytes(call.arguments))))
            for bad in message.invalid_tool_calls:
                out.append(("call", bad.name, bad.arguments))
        else:
            out.append(("result", _result(message.text), message.is_error))
    return out


def _result(text: str) -> Any:
    """A result's text; a JSON object by value (Gemini sends results as objects)."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _user_parts(content: str | tuple[cc.ContentPart, ...]) -> list[Any]:
    if isinstance(content, str):
        return [content]
    return [part.text if isinstance(part, cc.TextPart) else type(part).__name__ for part in content]


def check(source: str, path: Path, target: str) -> None:
    body = path.read_bytes()
    original = providers.get(source).decode_request(body)
    # Gemini puts the model in the URL and Anthropic needs max_tokens: say them.
    fill: dict[str, Any] = {} if source == target else {"model": "m", "max_tokens": 1024}
    out, report = cc.convert(body, source=source, target=target, **fill)
    codec = providers.get(target)
    back = codec.decode_request(out)
    if source != target:
        back = msgspec.structs.replace(back, model="m")  # Gemini's goes in the URL
    found = codec.check_request(back)
    # What the target would refuse is never silent: the report carries it.
    assert list(report.problems) == found, [str(p) for p in found]
    if source == target:
        assert not report.losses, [str(loss) for loss in report]
        if not rejected(path):  # the provider accepted it: so does its preflight
            assert [p for p in found if p.severity == "error"] == [], [str(p) for p in found]
        same_json(json.loads(out), json.loads(body))
    elif all(".extras." in loss.path for loss in report):
        # Only fields with no canonical meaning were lost: the content is all there.
        assert neutral(back) == neutral(original)
    for loss in report:
        assert loss.path.startswith("$"), loss
        assert loss.reason, loss
        assert not re.search(r"\ba (?!u[sn])[aeiouAEIOU]", loss.reason), loss  # "an openai field"


@pytest.mark.parametrize("target", NAMES)
@pytest.mark.parametrize(("source", "path"), curated_with_calls())
def test_curated_requests_convert(source: str, path: Path, target: str) -> None:
    check(source, path, target)


@pytest.mark.parametrize("target", NAMES)
@pytest.mark.parametrize(("source", "path"), recorded())
def test_corpus_requests_convert(source: str, path: Path, target: str) -> None:
    check(source, path, target)


class TestConvert:
    """The conversion function itself."""

    BODY = json.dumps(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
            ],
            "seed": 7,
        }
    ).encode()

    @pytest.mark.parametrize(
        ("target", "lost"), [("anthropic", ["$.seed"]), ("gemini", []), ("ollama", [])]
    )
    def test_reports_what_the_target_cannot_carry(self, target: str, lost: list[str]) -> None:
        out, report = cc.convert(self.BODY, source="openai", target=target)
        assert report.paths == lost  # Gemini and Ollama take a seed
        back = providers.get(target).decode_request(out)
        assert back.seed == (None if lost else 7)
        calls = next(m for m in back.messages if isinstance(m, cc.AssistantMessage)).tool_calls
        assert calls[0].arguments_dict() == {"city": "Paris"}

    @pytest.mark.parametrize("target", ["anthropic", "gemini", "ollama", "bedrock"])
    @pytest.mark.parametrize(
        ("extra", "lost"),
        [
            ({"web_search_options": {}}, True),  # empty, yet it turns web search on
            ({"web_search_options": {"search_context_size": "low"}}, True),
            ({"stream_options": {}}, False),  # empty: it says nothing
            ({"metadata": {}}, False),
        ],
        ids=("search-empty", "search", "stream-options-empty", "metadata-empty"),
    )
    def test_an_empty_field_is_lost_only_when_it_says_something(
        self, target: str, extra: dict[str, Any], lost: bool
    ) -> None:
        body = {"model": "m", "messages": [{"role": "user", "content": "News?"}], **extra}
        _, report = cc.convert(
            json.dumps(body).encode(), source="openai", target=target, max_tokens=64
        )
        (key,) = extra
        assert report.paths == ([f"$.extras.openai.{key}"] if lost else [])

    @pytest.mark.parametrize("target", ["anthropic", "gemini", "ollama", "openai-responses"])
    def test_unknown_keys_of_inner_objects_are_reported(self, target: str) -> None:
        """Keys OpenAI keeps for the way back inside an object still count as lost elsewhere."""
        function = {"name": "f", "arguments": "{}", "thought": "Because."}
        call = {"id": "c1", "type": "function", "function": function}
        image = {"url": "data:image/png;base64,iVBORw0KGgo=", "extra": 1}
        body = {
            "model": "m",
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": image}],
                },
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                {
                    "role": "system",
                    "content": [
                        {
                            "type": "text",
                            "text": "Be brief.",
                            "cache_control": {"type": "ephemeral"},
                        },
                        {"type": "text", "text": " Really."},
                    ],
                },
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "f",
                        "description": "",  # layout: absent canonically, kept for OpenAI
                        "parameters": {"type": "object"},
                        "strict": False,
                        "examples": [{"a": 1}],
                        "~x": 2,  # a wire key, though it begins like a hint
                    },
                }
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "C", "schema": {"type": "object"}, "strict": None}
                | {"description": "A city."},
            },
        }
        data = json.dumps(body).encode()
        _, report = cc.convert(data, source="openai", target=target, max_tokens=64)
        assert {
            "$.messages[0].content[0].extras.openai.inner.extra",
            "$.messages[1].tool_calls[0].extras.openai.function.thought",
            "$.tools[0].extras.openai.function.examples",
            "$.tools[0].extras.openai.function" + cc.key_step("~x"),
            "$.response_format.extras.openai.json_schema.description",
            "$.messages[3].extras.openai.parts[0].cache_control",
        } <= set(report.paths)
        assert not any("parts[1]" in p for p in report.paths)
        assert not any(".description" in p and "tools" in p for p in report.paths)
        assert not any(p.endswith((".strict", ".function.description")) for p in report.paths)
        same, report = cc.convert(data, source="openai", target="openai")
        assert not report
        assert json.loads(same) == body

    def test_strict_raises(self) -> None:
        with pytest.raises(cc.LossError) as info:
            cc.convert(self.BODY, source="openai", target="anthropic", strict=True)
        assert [loss.path for loss in info.value.losses] == ["$.seed"]

    def test_same_provider_is_lossless(self) -> None:
        out, report = cc.convert(self.BODY, source="openai", target="openai", strict=True)
        assert not report
        assert json.loads(out) == json.loads(self.BODY)

    def test_aliases(self) -> None:
        out, _ = cc.convert(self.BODY, source="groq", target="claude")
        assert json.loads(out)["messages"][0]["role"] == "user"
        with pytest.raises(KeyError):
            providers.get("nope")

    def test_model_is_the_targets_and_max_tokens_fills_a_gap(self) -> None:
        out, _ = cc.convert(
            self.BODY, source="openai", target="anthropic", model="claude-x", max_tokens=99
        )
        assert (json.loads(out)["model"], json.loads(out)["max_tokens"]) == ("claude-x", 99)
        limited = {**json.loads(self.BODY), "max_tokens": 5}
        out, _ = cc.convert(limited, source="openai", target="anthropic", max_tokens=99)
        assert (json.loads(out)["model"], json.loads(out)["max_tokens"]) == ("gpt-4o", 5)

    def test_a_parsed_body_converts_as_its_bytes(self) -> None:
        parsed = json.loads(self.BODY)
        for target in NAMES:
            assert cc.convert(parsed, source="openai", target=target, max_tokens=9) == cc.convert(
                self.BODY, source="openai", target=target, max_tokens=9
            )

    def test_what_the_target_refuses_is_reported(self) -> None:
        history = [
            {"role": "assistant", "content": "Where to?"},
            {"role": "user", "content": "Paris"},
        ]
        body = {"model": "m", "messages": history}
        _, report = cc.convert(body, source="openai", target="gemini")
        assert not report.losses
        assert report
        assert [(p.path, p.rule) for p in report.problems] == [
            ("$.messages[0]", "the first turn must be a user turn")
        ]
        _, unchecked = cc.convert(body, source="openai", target="gemini", check=False)
        assert not unchecked

    def test_bad_kind(self) -> None:
        with pytest.raises(ValueError, match="kind"):
            cc.convert(self.BODY, source="openai", target="openai", kind="chunk")  # type: ignore[arg-type]

    def test_api_names_cover_every_codec(self) -> None:
        assert set(API) == set(NAMES)


def _call(id: str = "c1", name: str = "f") -> cc.AssistantMessage:
    return cc.assistant(None, [cc.tool_call(id, name, {"a": 1})])


def _encode(target: str, request: cc.Request) -> tuple[Any, list[tuple[str, str]]]:
    losses: list[cc.Loss] = []
    body = providers.get(target).encode_request(request, losses=losses)
    return json.loads(body), [(loss.path, loss.reason) for loss in losses]


IMAGE = cc.ImagePart(data="aGk=", media_type="image/png")
SERVER_TOOL = cc.ProviderTool(
    "anthropic", msgspec.Raw(b'{"type":"web_search_20250305","name":"web_search"}')
)


class TestToolsLeftOut:
    """Another provider's built-in tools are left out, and a choice that needs them too."""

    # Each source's own tool, which no other family runs.
    OWN: ClassVar[dict[str, tuple[dict[str, Any], dict[str, Any]]]] = {
        "openai-responses": (
            {"model": "m", "input": "The news?", "tools": [{"type": "web_search"}]},
            {"auto": "auto", "required": "required", "none": "none"},
        ),
        "anthropic": (
            {
                "model": "m",
                "max_tokens": 64,
                "messages": [{"role": "user", "content": "The news?"}],
                "tools": [{"type": "web_search_20250305", "name": "web_search"}],
            },
            {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}},
        ),
    }

    @pytest.mark.parametrize("target", ["openai", "openai-responses", "anthropic", "gemini"])
    @pytest.mark.parametrize("mode", ["auto", "required"])
    def test_a_choice_that_needs_them(self, target: str, mode: str) -> None:
        source = "anthropic" if target != "anthropic" else "openai-responses"
        body, modes = self.OWN[source]
        out, report = cc.convert(
            {**body, "tool_choice": modes[mode]}, source=source, target=target, max_tokens=64
        )
        sent = json.loads(out)
        assert not {"tools", "tool_choice", "toolConfig"} & sent.keys()
        assert [(loss.path, loss.reason) for loss in report.losses] == [
            ("$.tools[0]", f"an {source} tool {target} cannot run"),
            ("$.tool_choice", f"a tool choice for tools {target} cannot run"),
        ]
        assert report.problems == ()

    @pytest.mark.parametrize("choice", [None, "auto"])
    def test_a_parallel_switch_with_no_tools_left_is_left_out(self, choice: str | None) -> None:
        body: dict[str, Any] = {**self.OWN["openai-responses"][0], "parallel_tool_calls": False}
        if choice is not None:
            body["tool_choice"] = choice
        out, report = cc.convert(
            body,
            source="openai-responses",
            target="anthropic",
            model="claude-sonnet-4-5",
            max_tokens=64,
        )
        assert not {"tools", "tool_choice"} & json.loads(out).keys()
        assert report.paths == [
            "$.tools[0]",
            *(["$.tool_choice"] if choice else []),
            "$.parallel_tool_calls",
        ]
        assert report.problems == ()

    @pytest.mark.parametrize("target", ["openai", "openai-responses", "anthropic", "gemini"])
    def test_a_choice_of_none_is_sent(self, target: str) -> None:
        source = "anthropic" if target != "anthropic" else "openai-responses"
        body, modes = self.OWN[source]
        out, report = cc.convert(
            {**body, "tool_choice": modes["none"]}, source=source, target=target, max_tokens=64
        )
        assert b"NONE" in out if target == "gemini" else b"none" in out
        assert report.paths == ["$.tools[0]"]


class TestFitToOpenAI:
    """Another provider's conversation, fitted to OpenAI's rules."""

    def test_results_move_before_user_text(self) -> None:
        request = cc.Request(
            (cc.user("q"), _call(), cc.user("and?"), cc.tool_result("c1", "r")), model="m"
        )
        body, losses = _encode("openai", request)
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "user"]
        assert losses == []

    def test_consecutive_assistant_calls_are_joined(self) -> None:
        request = cc.Request(
            (
                cc.user("q"),
                _call("c1"),
                _call("c2"),
                cc.tool_result("c1", "1"),
                cc.tool_result("c2", "2"),
            ),
            model="m",
        )
        body, losses = _encode("openai", request)
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "tool"]
        assert [c["id"] for c in body["messages"][1]["tool_calls"]] == ["c1", "c2"]
        assert losses == []

    def test_result_images_follow_in_a_user_message(self) -> None:
        result = cc.ToolMessage("c1", (cc.TextPart("see"), IMAGE))
        request = cc.Request((cc.user("q"), _call(), result, cc.user("ok")), model="m")
        body, losses = _encode("openai", request)
        tool, moved = body["messages"][2:4]
        assert tool["content"] == [{"type": "text", "text": "see"}]
        assert moved["role"] == "user"
        assert moved["content"][0]["type"] == "image_url"
        assert body["messages"][4]["content"] == "ok"
        assert [path for path, _ in losses] == ["$.messages[2].content[1]"]

    def test_a_message_with_nothing_left_is_left_out(self) -> None:
        lost = cc.user([cc.OpaquePart("gemini", msgspec.Raw(b'{"videoMetadata":{}}'))])
        body, losses = _encode("openai", cc.Request((cc.user("q"), lost), model="m"))
        assert len(body["messages"]) == 1
        assert [path for path, _ in losses] == ["$.messages[1].content[0]", "$.messages[1]"]

    def test_tool_choice_goes_with_its_tools(self) -> None:
        request = cc.Request(
            (cc.user("q"),),
            model="m",
            tools=(SERVER_TOOL,),
            tool_choice=cc.ToolChoice("required"),
            parallel_tool_calls=False,
        )
        body, losses = _encode("openai", request)
        assert not {"tools", "tool_choice", "parallel_tool_calls"} & body.keys()
        assert [path for path, _ in losses] == [
            "$.tools[0]",
            "$.tool_choice",
            "$.parallel_tool_calls",
        ]

    def test_a_document_by_url_is_reported_not_sent_as_mistrals(self) -> None:
        path = DATA / "anthropic" / "request"
        path /= "pydantic-ai__models__test_anthropic__test_document_url_input__00.json"
        out, report = cc.convert(path.read_bytes(), source="anthropic", target="openai")
        assert "document_url" not in out.decode()
        assert [(loss.path, loss.reason) for loss in report] == [
            ("$.messages[0].content[1]", "a file by URL: openai takes a file as data or a file id")
        ]
        # Mistral's own document_url goes back as it came.
        mistral = (
            DATA.parent
            / "corpus"
            / (
                "mistral__pydantic-ai__models__test_multimodal_tool_returns__"
                "test_multimodal_tool_return_matrix_direct-url-document-mistral__01.json"
            )
        )
        out, report = cc.convert(mistral.read_bytes(), source="mistral", target="mistral")
        assert '"document_url":"https://pdfobject.com/pdf/sample.pdf"' in out.decode()
        assert not report.losses

    def test_a_nameless_schema_gets_a_name(self) -> None:
        rf = cc.ResponseFormat("json_schema", schema={"type": "object"})
        body, losses = _encode("openai", cc.Request((cc.user("q"),), model="m", response_format=rf))
        assert body["response_format"]["json_schema"]["name"] == "response"
        assert losses == []


class TestFitToGemini:
    """Another provider's conversation, fitted to Gemini's rules."""

    @pytest.mark.parametrize(
        ("text", "error"),
        [("Mexico", False), ("boom", True), ('{"result": "x"}', False), ("[1, 2]", False)],
    )
    def test_text_results_read_back_unchanged(self, text: str, error: bool) -> None:
        result = cc.tool_result("c1", text, is_error=error)
        body, losses = _encode("gemini", cc.Request((cc.user("q"), _call(), result)))
        back = providers.get("gemini").decode_request(json.dumps(body))
        answer = back.messages[2]
        assert isinstance(answer, cc.ToolMessage)
        assert (answer.text, answer.is_error, losses) == (text, error, [])

    def test_object_results_are_sent_as_objects(self) -> None:
        result = cc.tool_result("c1", '{"temp": 21}')
        body, _ = _encode("gemini", cc.Request((cc.user("q"), _call(), result)))
        response = body["contents"][2]["parts"][0]["functionResponse"]["response"]
        assert response == {"temp": 21}

    @pytest.mark.parametrize(
        "response", [{"result": "x"}, {"error": "x"}, {"result": '{"a":1}'}, {"result": 1}]
    )
    def test_wrapped_results_round_trip(self, response: dict[str, Any]) -> None:
        wire = {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "f", "response": response}}],
                },
            ]
        }
        codec = providers.get("gemini")
        same_json(json.loads(codec.encode_request(codec.decode_request(json.dumps(wire)))), wire)

    def test_file_urls_get_a_media_type(self) -> None:
        parts: list[cc.ContentPart] = [
            cc.ImagePart(url="https://x/cat.PNG?size=2"),
            cc.FilePart(url="gs://b/doc.pdf"),
            cc.FilePart(url="https://x/blob"),
        ]
        body, losses = _encode("gemini", cc.Request((cc.user(parts),)))
        sent = body["contents"][0]["parts"]
        assert [p["fileData"]["mimeType"] for p in sent] == ["image/png", "application/pdf"]
        assert [path for path, _ in losses] == ["$.messages[0].content[2]"]

    def test_a_model_turn_with_nothing_left_is_left_out(self) -> None:
        opaque = cc.OpaquePart("anthropic", msgspec.Raw(b'{"type":"server_tool_use"}'))
        lost = cc.AssistantMessage((opaque,))
        body, losses = _encode("gemini", cc.Request((cc.user("q"), lost, cc.user("r"))))
        assert [c["role"] for c in body["contents"]] == ["user", "user"]
        assert [path for path, _ in losses] == ["$.messages[1].content[0]", "$.messages[1]"]


class TestFitToAnthropic:
    """Another provider's conversation, fitted to Anthropic's rules."""

    def test_tool_choice_goes_with_its_tools(self) -> None:
        tool = cc.ProviderTool("gemini", msgspec.Raw(b'{"googleSearch":{}}'))
        request = cc.Request(
            (cc.user("q"),), model="m", tools=(tool,), tool_choice=cc.ToolChoice("required")
        )
        body, losses = _encode("anthropic", request)
        assert not {"tools", "tool_choice"} & body.keys()
        assert [path for path, _ in losses] == ["$.tools[0]", "$.tool_choice"]

    @pytest.mark.parametrize(
        ("cache", "carried"),
        [
            ({"type": "ephemeral"}, True),
            ({"type": "ephemeral", "ttl": "1h"}, True),
            ({"type": "persistent"}, False),  # not Anthropic's: reported
            ({"type": "ephemeral", "scope": "x"}, False),
        ],
    )
    def test_a_gateways_cache_control_is_anthropics(
        self, cache: dict[str, Any], carried: bool
    ) -> None:
        """OpenRouter and LiteLLM pass Anthropic's cache_control on OpenAI parts."""
        text = {"type": "text", "text": "A long document.", "cache_control": cache}
        answer = {
            "role": "assistant",
            "content": [{"type": "text", "text": "Read."} | {"cache_control": cache}],
        }
        body = {"model": "m", "messages": [{"role": "user", "content": [text]}, answer]}
        out, report = cc.convert(
            json.dumps(body).encode(), source="openai", target="anthropic", max_tokens=64
        )
        written = json.loads(out)["messages"]
        blocks = [written[0]["content"][0], written[1]["content"][0]]
        if carried:
            assert [b["cache_control"] for b in blocks] == [cache, cache]
            assert not report
        else:
            assert not any("cache_control" in b for b in blocks)
            assert report.paths == [
                "$.messages[0].content[0].extras.openai.cache_control",
                "$.messages[1].content[0].extras.openai.cache_control",
            ]
        again, _ = cc.convert(out, source="anthropic", target="anthropic")
        assert again == out

    @pytest.mark.parametrize("count", [4, 5])
    def test_at_most_four_cache_points(self, count: int) -> None:
        cache = {"type": "ephemeral"}
        parts = [
            {"type": "text", "text": f"Part {n}.", "cache_control": cache} for n in range(count)
        ]
        body = {"model": "m", "messages": [{"role": "user", "content": parts}]}
        out, report = cc.convert(
            json.dumps(body).encode(), source="openai", target="anthropic", max_tokens=64
        )
        # The fifth is left out and reported: the target would refuse the request.
        assert report.problems == ()
        assert [(loss.path, loss.reason) for loss in report.losses] == (
            [("$.messages[0].content[4].cache", "anthropic takes at most 4 cache points: left out")]
            if count > 4
            else []
        )
        sent = json.loads(out)["messages"][0]["content"]
        assert ["cache_control" in block for block in sent] == [True] * 4 + [False] * (count - 4)
        request = providers.get("anthropic").decode_request(out)
        assert providers.get("anthropic").check_request(request) == []
        # The preflight refuses a fifth in a request built so.
        request = msgspec.structs.replace(
            request,
            messages=(cc.user([cc.TextPart(f"{n}", cache=cc.CachePoint()) for n in range(count)]),),
        )
        assert [p.path for p in providers.get("anthropic").check_request(request)] == (
            ["$.messages[0].content[4].cache"] if count > 4 else []
        )

    def test_an_empty_answer_before_the_end_is_left_out(self) -> None:
        request = cc.Request((cc.user("q"), cc.assistant(""), cc.user("r")), model="m")
        body, losses = _encode("anthropic", request)
        assert [m["role"] for m in body["messages"]] == ["user"]
        assert [path for path, _ in losses] == ["$.messages[1]"]


class TestFitToOllama:
    """What Ollama's one text per message changes is reported."""

    def test_joined_texts_and_moved_images_are_reported(self) -> None:
        content: list[cc.ContentPart] = [cc.TextPart("a"), IMAGE, cc.TextPart("b")]
        body, losses = _encode("ollama", cc.Request((cc.user(content),)))
        assert body["messages"][0]["content"] == "a\nb"
        assert [path for path, _ in losses] == ["$.messages[0].content[2]"]


class TestEmptyAnswers:
    """An assistant message with nothing in it never becomes a turn a target refuses."""

    BODIES = (
        b'{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant"},'
        b'{"role":"user","content":"r"}]}',
        b'{"model":"m","messages":[{"role":"user","content":"q"},'
        b'{"role":"assistant","content":[]},{"role":"user","content":"r"}]}',
    )

    @pytest.mark.parametrize("body", BODIES)
    @pytest.mark.parametrize("target", ["anthropic", "gemini"])
    def test_left_out_and_reported(self, body: bytes, target: str) -> None:
        out, report = cc.convert(body, source="openai", target=target, max_tokens=9)
        assert report.paths == ["$.messages[1]"]
        assert "empty assistant message" in report.losses[0].reason
        assert not [p for p in report.problems if p.severity == "error"]
        turns = json.loads(out).get("contents") or json.loads(out)["messages"]
        assert all(turn.get("parts", turn.get("content")) for turn in turns)

    @pytest.mark.parametrize("content", [(), ""])
    def test_canonical_empty_content_is_one_rule(self, content: str | tuple[()]) -> None:
        message = cc.AssistantMessage(content)
        assert cc.decode(cc.encode(message)) == message
        _, losses = _encode("gemini", cc.Request((cc.user("q"), message, cc.user("r"))))
        # Empty text is a part Gemini takes; no parts at all is a turn it refuses.
        assert [path for path, _ in losses] == ([] if content == "" else ["$.messages[1]"])
        with pytest.raises(cc.ValidationError, match="content or tool calls"):
            cc.decode(b'{"role":"assistant"}')


class TestGemini3Signatures:
    """Calls Gemini 3 did not make carry the placeholder signature Google documents."""

    def test_calls_from_another_provider(self) -> None:
        out, report = cc.convert(
            TestConvert.BODY, source="openai", target="gemini", model="gemini-3-pro-preview"
        )
        turn = json.loads(out)["contents"][1]
        assert turn["parts"][0]["thoughtSignature"] == "skip_thought_signature_validator"
        assert not report.problems

    def test_only_the_first_call_of_a_turn_and_only_for_gemini_3(self) -> None:
        calls = [cc.tool_call("a", "f", {}), cc.tool_call("b", "g", {})]
        messages = (cc.user("q"), cc.assistant(tool_calls=calls))
        for model, signed in (("gemini-3-flash", [True, False]), ("gemini-2.5-pro", [False] * 2)):
            body, _ = _encode("gemini", cc.Request(messages, model=model))
            parts = body["contents"][1]["parts"]
            assert ["thoughtSignature" in part for part in parts] == signed

    def test_a_real_signature_is_kept(self) -> None:
        signed = msgspec.structs.replace(
            cc.tool_call("a", "f", {}), extras={"gemini": {"thoughtSignature": "c2ln"}}
        )
        request = cc.Request(
            (cc.user("q"), cc.assistant(tool_calls=[signed])), model="gemini-3-pro"
        )
        body, _ = _encode("gemini", request)
        assert body["contents"][1]["parts"][0]["thoughtSignature"] == "c2ln"


def responses() -> list[Any]:
    """Every successful response, curated and recorded, of every family."""
    return [
        pytest.param(codec, param.values[0], id=f"{codec}:{param.id}")
        for codec in NAMES
        for param in curated(codec, "response") + corpus(codec, "response")
    ]


class TestUsage:
    """Usage means the same for every family, and each family gets its own numbers back."""

    # Two recorded OpenAI-compatible servers report a total that is not their sum.
    OWN_TOTALS = ("test_compatible_api_with_tool_calls_witho",)

    @pytest.mark.parametrize(("codec", "path"), responses())
    def test_prompt_and_completion_make_the_total(self, codec: str, path: Path) -> None:
        usage = providers.get(codec).decode_response(path.read_bytes()).usage
        if usage is None or usage.total_tokens is None:
            return
        if any(name in path.name for name in self.OWN_TOTALS):
            return
        assert usage.prompt_tokens + usage.completion_tokens == usage.total_tokens
        assert (usage.reasoning_tokens or 0) <= usage.completion_tokens
        assert (usage.cached_tokens or 0) <= usage.prompt_tokens
        assert (usage.cache_write_tokens or 0) <= usage.prompt_tokens

    GEMINI = (
        b'{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},'
        b'"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,'
        b'"candidatesTokenCount":5,"totalTokenCount":27,"cachedContentTokenCount":4,'
        b'"thoughtsTokenCount":7,"toolUsePromptTokenCount":5}}'
    )
    ANTHROPIC = (
        b'{"id":"m","type":"message","role":"assistant","model":"c","content":'
        b'[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,'
        b'"output_tokens":9,"cache_read_input_tokens":20,"cache_creation_input_tokens":30}}'
    )

    def test_gemini(self) -> None:
        usage = providers.get("gemini").decode_response(self.GEMINI).usage
        assert usage is not None
        assert usage == cc.Usage(15, 12, 27, 4, 7, extras=usage.extras)
        out, report = cc.convert(self.GEMINI, source="gemini", target="openai", kind="response")
        assert json.loads(out)["usage"] == {
            "prompt_tokens": 15,
            "completion_tokens": 12,
            "total_tokens": 27,
            "prompt_tokens_details": {"cached_tokens": 4},
            "completion_tokens_details": {"reasoning_tokens": 7},
        }
        back, _ = cc.convert(out, source="openai", target="gemini", kind="response")
        assert json.loads(back)["usageMetadata"] == {
            "promptTokenCount": 15,  # the tool-use prompt is part of the prompt now
            "candidatesTokenCount": 5,
            "totalTokenCount": 27,
            "cachedContentTokenCount": 4,
            "thoughtsTokenCount": 7,
        }
        assert report.paths == ["$.usage.extras.gemini.toolUsePromptTokenCount"]

    def test_anthropic(self) -> None:
        usage = providers.get("anthropic").decode_response(self.ANTHROPIC).usage
        assert usage == cc.Usage(53, 9, None, 20, None, 30)
        out, _ = cc.convert(self.ANTHROPIC, source="anthropic", target="openai", kind="response")
        details = json.loads(out)["usage"]["prompt_tokens_details"]
        assert details == {"cached_tokens": 20, "cache_write_tokens": 30}
        back, report = cc.convert(out, source="openai", target="anthropic", kind="response")
        assert json.loads(back)["usage"] == json.loads(self.ANTHROPIC)["usage"]
        assert not [path for path in report.paths if path.startswith("$.usage")]

    @pytest.mark.parametrize(("codec", "body"), [("gemini", GEMINI), ("anthropic", ANTHROPIC)])
    def test_same_provider_numbers_come_back(self, codec: str, body: bytes) -> None:
        out, report = cc.convert(body, source=codec, target=codec, kind="response")
        assert not report
        same_json(json.loads(out), json.loads(body))

    def test_where_a_target_has_no_count(self) -> None:
        usage = cc.Usage(10, 2, cache_write_tokens=3)
        response = cc.Response((cc.Choice(cc.assistant("x"), cc.FinishReason.STOP),), usage=usage)
        for target in ("gemini", "ollama"):
            losses: list[cc.Loss] = []
            providers.get(target).encode_response(response, losses=losses)
            assert [loss.path for loss in losses] == ["$.usage.cache_write_tokens"]


class TestSettings:
    """Generation settings cross providers; what a target lacks is reported by name."""

    SETTINGS: ClassVar[dict[str, Any]] = {
        "max_tokens": 2000,
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "seed": 7,
        "stop": ("END",),
        "presence_penalty": 0.5,
        "frequency_penalty": 0.25,
        "n": 2,
        "user": "u-1",
        "reasoning": cc.Reasoning("high"),
    }
    LOST: ClassVar[dict[str, list[str]]] = {
        "openai": ["$.top_k"],
        "anthropic": [  # the effort goes as adaptive thinking's
            "$.seed",
            "$.presence_penalty",
            "$.frequency_penalty",
            "$.n",
        ],
        "gemini": ["$.user", "$.reasoning.effort"],  # "m" is no Gemini 3: a budget
        "ollama": ["$.n", "$.user"],
        "cohere": ["$.reasoning.effort", "$.n", "$.user"],
        "bedrock": [
            "$.top_k",
            "$.seed",
            "$.presence_penalty",
            "$.frequency_penalty",
            "$.user",
            "$.reasoning",
            "$.n",
        ],
        "openai-responses": [
            "$.stop",
            "$.top_k",
            "$.seed",
            "$.presence_penalty",
            "$.frequency_penalty",
            "$.n",
        ],
    }

    @pytest.mark.parametrize("target", NAMES)
    def test_every_setting_is_carried_or_reported(self, target: str) -> None:
        request = cc.Request((cc.user("q"),), model="m", **self.SETTINGS)
        losses: list[cc.Loss] = []
        codec = providers.get(target)
        back = codec.decode_request(codec.encode_request(request, losses=losses))
        assert [loss.path for loss in losses] == self.LOST[target]
        for name, value in self.SETTINGS.items():
            path = f"$.{name}"
            if any(lost.startswith(path) for lost in self.LOST[target]):
                continue
            assert getattr(back, name) == value, name
        for loss in losses:
            word = loss.path.removeprefix("$.").split(".")[0].replace("_", " ")
            assert word.split()[0] in loss.reason or "answer" in loss.reason, loss

    def test_seed_and_presence_penalty_reach_gemini(self) -> None:
        body = {"model": "m", "messages": [{"role": "user", "content": "q"}]}
        out, report = cc.convert(
            {**body, "seed": 7, "presence_penalty": 0.5}, source="openai", target="gemini"
        )
        assert json.loads(out)["generationConfig"] == {"seed": 7, "presencePenalty": 0.5}
        assert not report

    def test_gemini_generation_config_is_not_one_lump(self) -> None:
        body = {
            "contents": [{"role": "user", "parts": [{"text": "q"}]}],
            "generationConfig": {
                "temperature": 0.2,
                "topK": 20,
                "seed": 3,
                "candidateCount": 1,
                "frequencyPenalty": 0.1,
                "thinkingConfig": {"thinkingBudget": 0},
            },
        }
        out, report = cc.convert(body, source="gemini", target="openai", model="m")
        sent = json.loads(out)
        assert (sent["seed"], sent["n"], sent["frequency_penalty"]) == (3, 1, 0.1)
        assert sent["reasoning_effort"] == "none"
        assert report.paths == ["$.top_k", "$.reasoning.budget_tokens"]

    @pytest.mark.parametrize(
        ("target", "wire"),
        [
            ("openai", {"reasoning_effort": "low"}),
            ("anthropic", {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}}),
            ("gemini", {"generationConfig": {"thinkingConfig": {"thinkingLevel": "low"}}}),
            ("ollama", {"think": "low"}),
        ],
    )
    def test_reasoning(self, target: str, wire: dict[str, Any]) -> None:
        request = cc.Request((cc.user("q"),), reasoning=cc.Reasoning("low"))
        body, _ = _encode(target, request)
        assert {key: body[key] for key in wire} == wire
        off, _ = _encode(target, cc.Request((cc.user("q"),), reasoning=cc.Reasoning("none")))
        assert providers.get(target).decode_request(json.dumps(off)).reasoning in (
            cc.Reasoning("none"),
            cc.Reasoning(budget_tokens=0),
        )

    def test_user_id_is_anthropic_metadata(self) -> None:
        body = {"model": "m", "user": "u-1", "messages": [{"role": "user", "content": "q"}]}
        out, report = cc.convert(body, source="openai", target="anthropic", max_tokens=9)
        assert json.loads(out)["metadata"] == {"user_id": "u-1"}
        assert not report

    @pytest.mark.parametrize(("limit", "budget"), [(30000, 24576), (4096, 4095), (1000, None)])
    def test_an_effort_fits_anthropics_max_tokens(self, limit: int, budget: int | None) -> None:
        # A model that takes thinking with a budget only (no adaptive thinking).
        request = cc.Request(
            (cc.user("q"),),
            model="claude-sonnet-4-5",
            max_tokens=limit,
            reasoning=cc.Reasoning("high"),
        )
        body, losses = _encode("anthropic", request)
        sent = body.get("thinking")
        assert (sent or {}).get("budget_tokens") == budget
        assert [path for path, _ in losses] == ["$.reasoning.effort"]
        assert providers.get("anthropic").check_request(request) == []

    def test_what_is_left_of_a_settings_object_is_reported_key_by_key(self) -> None:
        body = {
            "contents": [{"role": "user", "parts": [{"text": "q"}]}],
            "generationConfig": {"seed": 1, "responseModalities": ["TEXT"], "mediaResolution": 1},
        }
        _, report = cc.convert(body, source="gemini", target="anthropic", max_tokens=9)
        assert report.paths == [
            "$.extras.gemini.generationConfig.responseModalities",
            "$.extras.gemini.generationConfig.mediaResolution",
            "$.seed",
        ]
        assert report.losses[0].reason == "a gemini setting anthropic has no place for"

    def test_mistrals_random_seed_is_the_seed(self) -> None:
        body = {"model": "m", "random_seed": 5, "messages": [{"role": "user", "content": "q"}]}
        request = providers.get("mistral").decode_request(json.dumps(body))
        assert request.seed == 5
        assert json.loads(providers.get("mistral").encode_request(request)) == body
        out, report = cc.convert(body, source="mistral", target="gemini")
        assert json.loads(out)["generationConfig"] == {"seed": 5}
        assert not report


def _with_tilde_keys(body: bytes) -> tuple[bytes, int]:
    """``body`` with a key beginning with ``~`` at the top and in each message."""
    obj = json.loads(body)
    obj["~top"] = 1
    placed = 1
    for key in ("messages", "contents", "input"):
        items = obj.get(key)
        if type(items) is list:
            for item in items:
                if type(item) is dict:
                    item["~note"] = {"kept": True}
                    placed += 1
    return json.dumps(obj).encode(), placed


@pytest.mark.parametrize(
    ("family", "kind", "path"),
    [
        pytest.param(family, kind, *param.values, id=f"{family}-{kind}-{param.id}"[:90])
        for family in providers.NAMES
        for kind in ("request", "response")
        for param in curated(family, kind)[:6]
    ],
)
def test_wire_keys_that_begin_like_a_hint_are_kept(
    family: str, kind: Literal["request", "response"], path: Path
) -> None:
    """A key the wire sends beginning with ``~`` is data: kept by its family, reported by others."""
    if type(json.loads(path.read_bytes())) is not dict:
        pytest.skip("not a JSON object")
    body, placed = _with_tilde_keys(path.read_bytes())
    codec = providers.get(family)
    decode, encode = getattr(codec, f"decode_{kind}"), getattr(codec, f"encode_{kind}")
    try:
        record = decode(body)
    except cc.ChatCodecError:
        pytest.skip("a body its family refuses")
    again = encode(record).decode()
    assert again.count('"~top":1') == 1
    assert again.count('"~note":{"kept":true}') == placed - 1
    assert '"~~' not in again
    other = "anthropic" if family != "anthropic" else "openai"
    _, report = cc.convert(body, source=family, target=other, kind=kind, max_tokens=64, model="m")
    assert any(loss.path.endswith(cc.key_step("~top")) for loss in report.losses)


class TestToolCallContent:
    """An assistant message that only calls tools gets the content asked for, in OpenAI Chat."""

    # Anthropic's: a turn of calls alone; OpenAI's: a message without content.
    SOURCES = (
        (
            "anthropic",
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
            },
        ),
        (
            "openai",
            {
                "messages": [
                    {"role": "user", "content": "Weather?"},
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "t1",
                                "type": "function",
                                "function": {"name": "w", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "t1", "content": "9"},
                ]
            },
        ),
    )

    @pytest.mark.parametrize(("source", "body"), SOURCES, ids=[s for s, _ in SOURCES])
    @pytest.mark.parametrize(("option", "wire"), [("empty", ""), ("null", None), ("omit", ...)])
    def test_written(self, source: str, body: dict[str, Any], option: Any, wire: Any) -> None:
        out, _ = cc.convert(body, source=source, target="openai", tool_call_content=option)
        message = json.loads(out)["messages"][1]
        assert message["tool_calls"]
        assert message.get("content", ...) == wire

    def test_refused(self) -> None:
        body = self.SOURCES[1][1]
        with pytest.raises(cc.ValidationError, match="only an openai target"):
            cc.convert(body, source="openai", target="anthropic", tool_call_content="empty")
        with pytest.raises(cc.ValidationError, match="'omit', 'null' or 'empty'"):
            cc.convert(body, source="openai", target="openai", tool_call_content="blank")  # type: ignore[arg-type]
        # An alias of OpenAI Chat takes it.
        out, _ = cc.convert(body, source="openai", target="groq", tool_call_content="empty")
        assert json.loads(out)["messages"][1]["content"] == ""
