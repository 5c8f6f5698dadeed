"""The table of model profiles, and the preflight rules that read it."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses
from chatcodec.providers._model_fit import IMAGE_LEFT_OUT
from chatcodec.providers._profiles import (
    _ROWS,
    NO_IMAGES,
    NO_REASONING,
    NO_STRUCTURED_OUTPUT,
    SAMPLING_RULES,
    Profile,
    profile,
)
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

ONE = SAMPLING_RULES["one"]
NONE = SAMPLING_RULES["none"]
DEFAULT = SAMPLING_RULES["default"]


def request(model: str, **sampling: Any) -> cc.Request:
    return cc.Request((cc.user("Hi"),), model=model, max_tokens=64, **sampling)


def rules(problems: list[cc.Problem]) -> list[tuple[str, str]]:
    return [(p.path, p.rule) for p in problems if p.rule in (ONE, NONE, DEFAULT)]


class TestTable:
    """Model names to profiles; a name the table does not know has none."""

    @pytest.mark.parametrize(
        ("family", "model", "sampling"),
        [
            ("anthropic", "claude-opus-4-1", "one"),
            ("anthropic", "claude-opus-4-1-20250805", "one"),
            ("anthropic", "claude-sonnet-4-5-20250929", "one"),
            ("anthropic", "claude-haiku-4-5", "one"),
            ("anthropic", "claude-opus-4-6", "one"),
            ("anthropic", "claude-opus-4-7", "none"),
            ("anthropic", "claude-opus-5", "none"),
            ("bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", "one"),
            ("bedrock", "us.anthropic.claude-opus-4-7-v1:0", "none"),
            ("openai", "o1", "default"),
            ("openai", "o3-mini", "default"),
            ("openai", "o4-mini-2025-04-16", "default"),
            ("openai", "gpt-5", "default"),
            ("openai-responses", "gpt-5-nano", "default"),
            ("gemini", "gemini-1.5-pro", "any"),
            ("anthropic", "claude-3-7-sonnet-20250219", "any"),  # takes both
            ("anthropic", "claude-sonnet-4-20250514", "any"),
            ("openai", "gpt-5-chat-latest", "any"),  # not a reasoning model
            ("openai", "gpt-4o", "any"),
            ("gemini", "gemini-2.0-flash", "any"),
        ],
    )
    def test_known(self, family: str, model: str, sampling: str) -> None:
        found = profile(family, model)
        assert found is not None
        assert found.sampling == sampling

    @pytest.mark.parametrize(
        ("family", "model"),
        [
            ("anthropic", "my-claude-deployment"),
            ("openai", "ft:gpt-4o-mini:acme::abc"),
            ("openai", "gpt-4o-realtime-preview"),
            ("openai", "gpt-4-vision-preview"),
            ("gemini", "gemini-2.0-flash-thinking-exp"),  # thinks
            ("openai-responses", "deepseek-chat"),  # DeepSeek serves Chat Completions only
            ("anthropic", "gpt-5"),  # another family's name
            ("gemini", "gemini-2.5-flash"),
            ("openai", None),
        ],
    )
    def test_unknown_names_pass(self, family: str, model: str | None) -> None:
        assert profile(family, model) is None

    def test_gemini_1_has_no_json_schema_fields(self) -> None:
        found = profile("gemini", "models/gemini-1.5-flash-002")
        assert found is not None
        assert not found.json_schema

    def test_the_rules_are_read_only(self) -> None:
        with pytest.raises(TypeError):
            SAMPLING_RULES["one"] = "x"  # type: ignore[index]


class TestAnthropicSampling:
    """Claude 4.1 to 4.6 take temperature or top_p; 4.7 and later neither."""

    def test_both_refused(self) -> None:
        found = anthropic.check_request(request("claude-sonnet-4-5", temperature=0.5, top_p=0.9))
        assert rules(found) == [("$.top_p", ONE)]

    @pytest.mark.parametrize("sampling", [{"temperature": 0.5}, {"top_p": 0.9}])
    def test_one_passes(self, sampling: dict[str, float]) -> None:
        assert rules(anthropic.check_request(request("claude-haiku-4-5", **sampling))) == []

    def test_older_models_take_both(self) -> None:
        found = anthropic.check_request(request("claude-3-7-sonnet-latest", temperature=0.5,
                                                top_p=0.9))  # fmt: skip
        assert rules(found) == []

    def test_none_refused(self) -> None:
        found = anthropic.check_request(request("claude-opus-4-7", temperature=0.5, top_k=5))
        assert rules(found) == [("$.temperature", NONE), ("$.top_k", NONE)]

    def test_none_passes_without_them(self) -> None:
        assert rules(anthropic.check_request(request("claude-opus-4-7"))) == []

    def test_bedrock(self) -> None:
        model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        assert rules(bedrock.check_request(request(model, temperature=0.5, top_p=0.9))) == [
            ("$.top_p", ONE)
        ]
        assert rules(bedrock.check_request(request(model, temperature=0.5))) == []


class TestOpenAISampling:
    """OpenAI's reasoning models take only the default temperature and top_p."""

    @pytest.mark.parametrize("codec", [openai, openai_responses])
    def test_other_values_refused(self, codec: Any) -> None:
        found = codec.check_request(request("o3", temperature=0.2, top_p=0.5))
        assert rules(found) == [("$.temperature", DEFAULT), ("$.top_p", DEFAULT)]

    @pytest.mark.parametrize("codec", [openai, openai_responses])
    def test_the_default_passes(self, codec: Any) -> None:
        assert rules(codec.check_request(request("gpt-5", temperature=1, top_p=1))) == []

    def test_other_models_pass(self) -> None:
        assert rules(openai.check_request(request("gpt-4o", temperature=0.2))) == []


class TestConvert:
    """convert() reports what the target model refuses, on the direct path and the general one."""

    BODY: ClassVar[dict[str, Any]] = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Hi"}],
        "temperature": 0.5,
        "top_p": 0.9,
    }

    def test_to_a_one_sampler(self) -> None:
        out, report = cc.convert(self.BODY, source="openai", target="anthropic",
                                 model="claude-sonnet-4-5", max_tokens=64)  # fmt: skip
        assert [(p.path, p.rule) for p in report.problems] == [("$.top_p", ONE)]
        assert json.loads(out)["temperature"] == 0.5  # sent as asked, the problem said

    def test_to_a_model_that_takes_both(self) -> None:
        _, report = cc.convert(self.BODY, source="openai", target="anthropic",
                               model="claude-3-7-sonnet-latest", max_tokens=64)  # fmt: skip
        assert not report

    def test_to_a_reasoning_model(self) -> None:
        _, report = cc.convert(self.BODY, source="openai", target="openai", model="o4-mini")
        assert [(p.path, p.rule) for p in report.problems] == [
            ("$.temperature", DEFAULT),
            ("$.top_p", DEFAULT),
        ]


PROFILE_RULES = (NO_REASONING, NO_STRUCTURED_OUTPUT, NO_IMAGES)
CITY = cc.ResponseFormat("json_schema", "city", {"type": "object"})
IMAGE = cc.ImagePart(url="data:image/png;base64,iVBORw0KGgo=")


def profiled(problems: list[cc.Problem]) -> list[tuple[str, str]]:
    return [(p.path, p.rule) for p in problems if p.rule in PROFILE_RULES]


def recorded(family: str, name: str) -> bytes:
    return (CORPUS / family / "request" / name).read_bytes()


needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)


class TestColumns:
    """The reasoning, structured-output and image columns of the table."""

    @pytest.mark.parametrize(
        ("family", "model", "reasoning", "structured", "images"),
        [
            ("openai", "gpt-4o", False, True, True),
            ("openai", "gpt-4o-2024-05-13", False, False, True),
            ("openai", "gpt-4o-mini-2024-07-18", False, True, True),
            ("openai", "gpt-4.1-nano", False, True, True),
            ("openai", "gpt-4-turbo", False, False, True),
            ("openai", "gpt-4", False, False, False),
            ("openai", "gpt-3.5-turbo-0125", False, False, False),
            ("openai", "o1-mini", True, False, False),
            ("openai", "o3-mini-2025-01-31", True, True, False),
            ("openai-responses", "o3", True, True, True),
            ("openai", "deepseek-chat", None, False, False),
            ("anthropic", "claude-3-5-sonnet-20241022", False, False, None),
            ("anthropic", "claude-3-haiku-20240307", False, False, None),
            ("bedrock", "us.anthropic.claude-3-5-haiku-20241022-v1:0", False, False, None),
            ("anthropic", "claude-3-7-sonnet-latest", True, False, None),
            ("anthropic", "claude-opus-4-20250514", True, False, None),
            ("anthropic", "claude-opus-4-1", True, True, None),
            ("bedrock", "us.anthropic.claude-opus-4-1-20250805-v1:0", True, False, None),
            ("bedrock", "global.anthropic.claude-sonnet-4-5-20250929-v1:0", True, True, None),
            ("anthropic", "claude-sonnet-4-5", True, True, None),
            ("anthropic", "claude-opus-4-7", True, True, None),
            ("gemini", "gemini-2.0-flash-001", False, None, None),
            ("gemini", "models/gemini-2.0-flash-lite", False, None, None),
            ("gemini", "gemini-1.5-flash", False, None, None),
            ("ollama", "llama3.1:8b", False, None, None),
            ("ollama", "llama3.2", False, None, None),
        ],
    )
    def test_rows(
        self,
        family: str,
        model: str,
        reasoning: bool | None,
        structured: bool | None,
        images: bool | None,
    ) -> None:
        found = profile(family, model)
        assert found is not None
        assert (found.reasoning, found.structured_output, found.images) == (
            reasoning,
            structured,
            images,
        )

    def test_the_table_is_frozen(self) -> None:
        found = profile("openai", "gpt-4o")
        assert found is not None
        with pytest.raises(AttributeError):
            found.images = False  # type: ignore[misc]


class TestReasoningCheck:
    """A model that does not think refuses a reasoning setting, in every family that sends one."""

    @pytest.mark.parametrize(
        ("codec", "model"),
        [
            (openai, "gpt-4o"),
            (openai, "gpt-3.5-turbo"),
            (openai_responses, "gpt-4.1"),
            (anthropic, "claude-3-5-sonnet-20241022"),
            (gemini, "gemini-2.0-flash"),
            (ollama, "llama3.1:8b"),
        ],
    )
    @pytest.mark.parametrize("setting", [cc.Reasoning("high"), cc.Reasoning(budget_tokens=2048)])
    def test_refused(self, codec: Any, model: str, setting: cc.Reasoning) -> None:
        found = codec.check_request(request(model, reasoning=setting))
        assert profiled(found) == [("$.reasoning", NO_REASONING)]

    @pytest.mark.parametrize(
        ("codec", "model"),
        [
            (openai, "o3"),
            (openai_responses, "gpt-5"),
            (anthropic, "claude-3-7-sonnet-20250219"),
            (gemini, "gemini-2.5-flash"),
            (ollama, "llama3.2-vision"),
            (ollama, "qwen3"),
            (openai, "my-fine-tune"),  # not known: nothing assumed
            (anthropic, "my-claude-deployment"),
        ],
    )
    def test_taken(self, codec: Any, model: str) -> None:
        found = codec.check_request(request(model, reasoning=cc.Reasoning("high")))
        assert profiled(found) == []

    def test_without_a_setting(self) -> None:
        assert profiled(openai.check_request(request("gpt-4o"))) == []

    @pytest.mark.parametrize("setting", [cc.Reasoning("high"), cc.Reasoning()])
    def test_bedrock_sends_none(self, setting: cc.Reasoning) -> None:
        # Converse has no field for it: the encoder leaves it out and reports it.
        model = "anthropic.claude-3-5-sonnet-20241022-v2:0"
        assert profiled(bedrock.check_request(request(model, reasoning=setting))) == []
        losses: list[cc.Loss] = []
        bedrock.encode_request(request(model, reasoning=setting), losses=losses)
        assert [loss.path for loss in losses] == ["$.reasoning"]

    @pytest.mark.parametrize(
        ("codec", "refused"), [(anthropic, True), (ollama, True), (openai, False), (gemini, False)]
    )
    def test_thinking_at_the_default(self, codec: Any, refused: bool) -> None:
        # Anthropic sends thinking enabled, Ollama think: true; OpenAI and Gemini send nothing.
        model = {anthropic: "claude-3-haiku-20240307", ollama: "llama3", openai: "gpt-4o"}.get(
            codec, "gemini-2.0-flash"
        )
        found = profiled(codec.check_request(request(model, reasoning=cc.Reasoning())))
        assert found == ([("$.reasoning", NO_REASONING)] if refused else [])

    def test_ollama_takes_thinking_off(self) -> None:
        off = cc.Reasoning("none")
        assert profiled(ollama.check_request(request("llama3.2", reasoning=off))) == []
        found = anthropic.check_request(request("claude-3-5-haiku-latest", reasoning=off))
        assert profiled(found) == [("$.reasoning", NO_REASONING)]


class TestStructuredCheck:
    """A JSON schema format a model cannot take natively is refused, naming the way out."""

    @pytest.mark.parametrize(
        ("codec", "model"),
        [
            (openai, "gpt-3.5-turbo"),
            (openai, "gpt-4-turbo"),
            (openai, "o1-mini"),
            (openai, "deepseek-chat"),
            (openai_responses, "gpt-4o-2024-05-13"),
            (anthropic, "claude-3-5-sonnet-20241022"),
            (anthropic, "claude-sonnet-4-20250514"),
            (bedrock, "anthropic.claude-3-5-sonnet-20241022-v2:0"),
            (bedrock, "us.anthropic.claude-3-7-sonnet-20250219-v1:0"),
            (bedrock, "us.anthropic.claude-opus-4-1-20250805-v1:0"),
        ],
    )
    def test_refused(self, codec: Any, model: str) -> None:
        found = codec.check_request(request(model, response_format=CITY))
        assert profiled(found) == [("$.response_format", NO_STRUCTURED_OUTPUT)]
        assert 'structured_output="tool"' in NO_STRUCTURED_OUTPUT

    @pytest.mark.parametrize(
        ("codec", "model"),
        [
            (openai, "gpt-4o"),
            (openai, "gpt-4o-mini"),
            (openai_responses, "o3-mini"),
            (anthropic, "claude-sonnet-4-5"),
            (anthropic, "claude-opus-4-1-20250805"),
            (bedrock, "global.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            (bedrock, "us.anthropic.claude-opus-4-6-v1"),
            (openai, "my-fine-tune"),
            (anthropic, "my-claude-deployment"),
            (bedrock, "meta.llama3-70b-instruct-v1:0"),
        ],
    )
    def test_taken(self, codec: Any, model: str) -> None:
        assert profiled(codec.check_request(request(model, response_format=CITY))) == []

    def test_json_mode_is_not_a_schema(self) -> None:
        json_mode = cc.ResponseFormat("json_object")
        assert (
            profiled(openai.check_request(request("gpt-3.5-turbo", response_format=json_mode)))
            == []
        )


class TestImagesCheck:
    """A model that takes no images refuses each image part, at its path."""

    def with_image(self, model: str) -> cc.Request:
        parts = (cc.TextPart("What?"), IMAGE, cc.TextPart("And?"), IMAGE)
        return cc.Request((cc.user("Hi"), cc.user(parts)), model=model, max_tokens=64)

    @pytest.mark.parametrize(
        ("codec", "model"),
        [(openai, "gpt-3.5-turbo"), (openai, "deepseek-chat"), (openai_responses, "o3-mini")],
    )
    def test_refused(self, codec: Any, model: str) -> None:
        assert profiled(codec.check_request(self.with_image(model))) == [
            ("$.messages[1].content[1]", NO_IMAGES),
            ("$.messages[1].content[3]", NO_IMAGES),
        ]

    @pytest.mark.parametrize(
        ("codec", "model"),
        [(openai, "gpt-4o"), (openai_responses, "o3"), (openai, "my-fine-tune")],
    )
    def test_taken(self, codec: Any, model: str) -> None:
        assert profiled(codec.check_request(self.with_image(model))) == []


class TestConvertReasoning:
    """convert() into a model that does not think leaves the setting out, and says so."""

    BODY: ClassVar[dict[str, Any]] = {
        "model": "o3",
        "reasoning_effort": "high",
        "messages": [{"role": "user", "content": "Hi"}],
    }

    @pytest.mark.parametrize(
        ("target", "model", "key"),
        [
            ("anthropic", "claude-3-5-sonnet-20241022", "thinking"),
            ("gemini", "gemini-2.0-flash", "thinkingConfig"),
            ("openai", "gpt-4o", "reasoning_effort"),
            ("openai-responses", "gpt-4.1", "reasoning"),
            ("ollama", "llama3.1:8b", "think"),
        ],
    )
    def test_left_out(self, target: str, model: str, key: str) -> None:
        out, report = cc.convert(self.BODY, source="openai", target=target, model=model,
                                 max_tokens=4096)  # fmt: skip
        assert f'"{key}"'.encode() not in out
        assert [(loss.path, loss.reason) for loss in report.losses] == [
            ("$.reasoning", "the target model does not think: its reasoning setting is left out")
        ]
        assert profiled(list(report.problems)) == []

    @pytest.mark.parametrize(
        ("target", "model", "key"),
        [
            ("anthropic", "claude-3-7-sonnet-20250219", "thinking"),
            ("anthropic", "my-claude-deployment", "thinking"),  # not known: sent
            ("openai-responses", "o4-mini", "reasoning"),
            ("openai", "my-fine-tune", "reasoning_effort"),
            ("ollama", "qwen3", "think"),
        ],
    )
    def test_kept(self, target: str, model: str, key: str) -> None:
        out, report = cc.convert(self.BODY, source="openai", target=target, model=model,
                                 max_tokens=4096)  # fmt: skip
        assert f'"{key}"'.encode() in out
        assert all(loss.path != "$.reasoning" for loss in report.losses)

    def test_the_same_family_and_model_is_left_as_sent(self) -> None:
        # Not written for another model: the preflight says what the model refuses.
        body = {**self.BODY, "model": "gpt-4o"}
        out, report = cc.convert(body, source="openai", target="openai")
        assert json.loads(out)["reasoning_effort"] == "high"
        assert report.losses == ()
        assert profiled(list(report.problems)) == [("$.reasoning", NO_REASONING)]

    @needs_corpus
    @pytest.mark.parametrize(
        ("model", "dropped"), [("gpt-4o", True), ("o3", False), ("my-fine-tune", False)]
    )
    def test_a_recorded_thinking_request(self, model: str, dropped: bool) -> None:
        body = recorded(
            "anthropic",
            "pydantic-ai__models__test_anthropic__test_anthropic_tool_with_thinking__00.json",
        )
        out, report = cc.convert(body, source="anthropic", target="openai", model=model)
        assert ("reasoning_effort" not in json.loads(out)) is dropped
        assert any(loss.path == "$.reasoning" for loss in report.losses) is dropped


class TestConvertStructured:
    """convert() with a JSON schema format: the preflight names a model without one."""

    NAME = "pydantic-ai__models__test_openai__test_openai_native_output_multiple__00.json"

    @needs_corpus
    @pytest.mark.parametrize(
        ("target", "model", "refused"),
        [
            ("openai", "gpt-3.5-turbo", True),
            ("openai", "gpt-4o-mini", False),
            ("openai", "my-fine-tune", False),
            ("anthropic", "claude-3-5-sonnet-20241022", True),
            ("anthropic", "claude-sonnet-4-5", False),
            ("bedrock", "anthropic.claude-3-5-sonnet-20241022-v2:0", True),
            ("bedrock", "us.anthropic.claude-opus-4-1-20250805-v1:0", True),
            ("bedrock", "global.anthropic.claude-haiku-4-5-20251001-v1:0", False),
        ],
    )
    def test_a_recorded_request(self, target: str, model: str, refused: bool) -> None:
        body = recorded("openai", self.NAME)
        _, report = cc.convert(body, source="openai", target=target, model=model, max_tokens=64)
        expected = [("$.response_format", NO_STRUCTURED_OUTPUT)] if refused else []
        assert profiled(list(report.problems)) == expected

    def test_the_tool_is_the_way_out(self) -> None:
        body = {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Where?"}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "city", "schema": {"type": "object"}},
            },
        }
        _, native = cc.convert(body, source="openai", target="openai", model="gpt-3.5-turbo")
        assert profiled(list(native.problems)) == [("$.response_format", NO_STRUCTURED_OUTPUT)]
        out, tool = cc.convert(body, source="openai", target="openai", model="gpt-3.5-turbo",
                               structured_output="tool")  # fmt: skip
        assert profiled(list(tool.problems)) == []
        assert "response_format" not in json.loads(out)


class TestConvertImages:
    """convert() into a model that takes no images leaves each out, reported at its own path."""

    BODY: ClassVar[dict[str, Any]] = {
        "model": "gpt-4o",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                    {"type": "text", "text": "And?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                ],
            }
        ],
    }

    @pytest.mark.parametrize(
        ("target", "model"),
        [("openai", "gpt-3.5-turbo"), ("openai-responses", "o3-mini"), ("openai", "o1-mini")],
    )
    def test_left_out(self, target: str, model: str) -> None:
        out, report = cc.convert(self.BODY, source="openai", target=target, model=model)
        assert b"image" not in out
        assert [loss.path for loss in report.losses] == [
            "$.messages[0].content[1]",
            "$.messages[0].content[3]",
        ]
        assert profiled(list(report.problems)) == []

    @pytest.mark.parametrize(
        ("target", "model"),
        [("openai", "gpt-4o"), ("openai-responses", "o3"), ("openai-responses", "my-fine-tune")],
    )
    def test_kept(self, target: str, model: str) -> None:
        out, report = cc.convert(self.BODY, source="openai", target=target, model=model)
        assert out.count(b"image") >= 2
        assert report.losses == ()

    def test_a_message_of_images_only_is_left_to_the_preflight(self) -> None:
        # A message needs content and none is made up: the problems name each image.
        image = self.BODY["messages"][0]["content"][1]
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [image]}]}
        out, report = cc.convert(body, source="openai", target="openai", model="gpt-3.5-turbo")
        assert b"image_url" in out
        assert report.losses == ()
        assert profiled(list(report.problems)) == [("$.messages[0].content[0]", NO_IMAGES)]

    def test_later_losses_keep_their_paths(self) -> None:
        # An audio part after the image: reported at its own index, as for a vision model.
        audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
        content = [*self.BODY["messages"][0]["content"][:2], audio]
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": content}]}
        _, vision = cc.convert(body, source="openai", target="openai-responses", model="o3")
        _, text = cc.convert(body, source="openai", target="openai-responses", model="o3-mini")
        assert [loss.path for loss in vision.losses] == ["$.messages[0].content[2]"]
        assert text.losses == (
            cc.Loss("$.messages[0].content[1]", IMAGE_LEFT_OUT),
            *vision.losses,
        )

    @needs_corpus
    @pytest.mark.parametrize(("model", "dropped"), [("o3-mini", 2), ("gpt-4o", 0), ("m", 0)])
    def test_a_recorded_request(self, model: str, dropped: int) -> None:
        name = (
            "pydantic-ai__models__test_multimodal_tool_returns__"
            "test_model_sees_multiple_images_openai_chat__01.json"
        )
        _, report = cc.convert(recorded("openai", name), source="openai",
                               target="openai-responses", model=model)  # fmt: skip
        left = [loss for loss in report.losses if loss.reason.startswith("the target model")]
        assert len(left) == dropped
        assert profiled(list(report.problems)) == []


def _row_by_row(family: str, model: str) -> Profile | None:
    """The table read as it is written: the first row of the family whose pattern matches."""
    for families, pattern, found in _ROWS:
        if family in families and pattern.match(model):
            return found
    return None


_FAMILIES = [*sorted({family for families, _, _ in _ROWS for family in families}), "cohere"]
_NAMES = [
    *(re.sub(r"[\\()?:|\[\]{}^$*+.]", "", pattern.pattern) for _, pattern, _ in _ROWS),
    "gpt-4o-2024-05-13",
    "o1-mini",
    "claude-sonnet-4-5-20250929",
    "anthropic.claude-opus-4-1-20250805-v1:0",
    "us.anthropic.claude-sonnet-4-6",
    "claude-fable-5",
    "gemini-2.0-flash",
    "llama3.1:8b",
]


class TestOneMatchPerLookup:
    """``profile`` matches each family's rows as one pattern: the first row still wins."""

    @pytest.mark.parametrize("family", _FAMILIES)
    @pytest.mark.parametrize("name", _NAMES)
    def test_the_rows_names(self, family: str, name: str) -> None:
        assert profile(family, name) is _row_by_row(family, name)

    @given(
        family=st.sampled_from(_FAMILIES),
        name=st.tuples(st.sampled_from(_NAMES), st.text("-.:@v0123456789abc", max_size=8)).flatmap(
            lambda pair: st.sampled_from([pair[0] + pair[1], pair[1] + pair[0], pair[0]])
        ),
    )
    def test_any_name(self, family: str, name: str) -> None:
        assert profile(family, name) is _row_by_row(family, name)

    def test_a_family_without_rows_has_no_profile(self) -> None:
        assert profile("cohere", "command-a-03-2025") is None
        assert profile("nowhere", "gpt-4o") is None
