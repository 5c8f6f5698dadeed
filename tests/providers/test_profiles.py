"""The table of model profiles, and the preflight rules that read it."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

import chatcodec as cc
from chatcodec.providers import anthropic, bedrock, openai, openai_responses
from chatcodec.providers._profiles import SAMPLING_RULES, profile

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
        ],
    )
    def test_known(self, family: str, model: str, sampling: str) -> None:
        found = profile(family, model)
        assert found is not None
        assert found.sampling == sampling

    @pytest.mark.parametrize(
        ("family", "model"),
        [
            ("anthropic", "claude-3-7-sonnet-20250219"),  # takes both
            ("anthropic", "claude-sonnet-4-20250514"),
            ("anthropic", "my-claude-deployment"),
            ("openai", "gpt-5-chat-latest"),  # not a reasoning model
            ("openai", "gpt-4o"),
            ("openai", "ft:gpt-4o-mini:acme::abc"),
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
