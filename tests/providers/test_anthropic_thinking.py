"""Anthropic's three forms of thinking, each written for the model that takes it.

A budget (``enabled``), adaptive thinking with ``output_config.effort``, and
``disabled``: the model profiles say which a model takes; the encoder writes a
canonical setting in a form the model takes (reporting any change), the
decoder reads a form as canonical only where it is written back the same, and
the preflight names a form kept as sent that the model refuses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import chatcodec as cc
from chatcodec.providers import anthropic, get
from chatcodec.providers._profiles import ADAPTIVE_ONLY, ALWAYS_THINKS, BUDGET_ONLY, profile
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS


def body(model: str | None, **keys: Any) -> bytes:
    data: dict[str, Any] = {"max_tokens": 8192, "messages": [{"role": "user", "content": "Why?"}]}
    if model is not None:
        data["model"] = model
    return json.dumps({**data, **keys}).encode()


def written(reasoning: cc.Reasoning, model: str | None) -> tuple[dict[str, Any], list[cc.Loss]]:
    sent = cc.Request((cc.user("Why?"),), model=model, max_tokens=8192, reasoning=reasoning)
    losses: list[cc.Loss] = []
    out = json.loads(anthropic.encode_request(sent, losses=losses))
    return out, losses


def problems(sent: cc.Request) -> list[tuple[str, str]]:
    return [(p.path, p.rule) for p in anthropic.check_request(sent)]


class TestRows:
    @pytest.mark.parametrize(
        ("model", "budget", "adaptive", "off"),
        [
            ("claude-3-7-sonnet-latest", True, False, None),
            ("claude-sonnet-4-20250514", True, False, None),
            ("claude-opus-4-1", True, False, None),
            ("claude-sonnet-4-5", True, False, None),
            ("claude-haiku-4-5-20251001", True, False, None),
            ("claude-opus-4-6", True, True, None),
            ("claude-sonnet-4-6", True, True, None),
            ("claude-opus-4-7", False, True, False),
            ("anthropic.claude-opus-4-7", False, True, False),
            ("claude-opus-4-8-20260601", False, True, None),
            ("claude-sonnet-5", False, True, None),
            ("claude-fable-5", False, True, False),
            ("claude-mythos-5", False, True, False),
            ("global.anthropic.claude-mythos-preview", False, True, False),
        ],
    )
    def test_columns(self, model: str, budget: bool, adaptive: bool, off: bool | None) -> None:
        found = profile("anthropic", model)
        assert found is not None
        assert (found.thinking_budget, found.adaptive, found.thinking_off) == (
            budget,
            adaptive,
            off,
        )

    def test_an_unknown_name_has_no_row(self) -> None:
        assert profile("anthropic", "claude-sonnet-4") is not None
        assert profile("anthropic", "my-claude") is None


class TestWritten:
    """A canonical setting, written in the form the model takes."""

    @pytest.mark.parametrize("model", ["claude-opus-4-7", "claude-opus-4-6", "my-claude", None])
    @pytest.mark.parametrize("effort", ["low", "medium", "high"])
    def test_an_effort_is_adaptive(self, model: str | None, effort: Any) -> None:
        out, losses = written(cc.Reasoning(effort), model)
        assert out["thinking"] == {"type": "adaptive"}
        assert out["output_config"] == {"effort": effort}
        assert losses == []

    def test_thinking_at_the_default_is_adaptive_without_an_effort(self) -> None:
        out, losses = written(cc.Reasoning(), "claude-opus-4-7")
        assert out["thinking"] == {"type": "adaptive"}
        assert "output_config" not in out
        assert losses == []

    def test_minimal_is_low_and_reported(self) -> None:
        out, losses = written(cc.Reasoning("minimal"), "claude-sonnet-5")
        assert out["output_config"] == {"effort": "low"}
        assert [(loss.path, loss.reason) for loss in losses] == [
            (
                "$.reasoning.effort",
                "a reasoning effort: anthropic has no effort 'minimal' (sent as 'low')",
            )
        ]

    @pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-3-7-sonnet-latest"])
    def test_an_effort_is_a_budget_where_adaptive_is_refused(self, model: str) -> None:
        out, losses = written(cc.Reasoning("low"), model)
        assert out["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        assert "output_config" not in out
        assert [loss.path for loss in losses] == ["$.reasoning.effort"]
        assert "sent as 1024" in losses[0].reason

    @pytest.mark.parametrize(
        ("budget", "effort"),
        [(1024, "low"), (4096, "medium"), (8191, "medium"), (30000, "high"), (100, "low")],
    )
    def test_a_budget_is_its_nearest_effort_where_refused(self, budget: int, effort: str) -> None:
        out, losses = written(cc.Reasoning(budget_tokens=budget), "claude-opus-4-7")
        assert out["thinking"] == {"type": "adaptive"}
        assert out["output_config"] == {"effort": effort}
        assert [loss.path for loss in losses] == ["$.reasoning.budget_tokens"]
        assert f"sent as effort {effort!r}" in losses[0].reason

    @pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-5", "my-claude", None])
    def test_a_budget_stays_a_budget_where_taken(self, model: str | None) -> None:
        out, losses = written(cc.Reasoning(budget_tokens=2048), model)
        assert out["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert losses == []

    @pytest.mark.parametrize("model", ["claude-opus-4-7", "claude-fable-5", "claude-mythos-5"])
    def test_off_is_left_out_for_a_model_that_always_thinks(self, model: str) -> None:
        for off in (cc.Reasoning("none"), cc.Reasoning(budget_tokens=0)):
            out, losses = written(off, model)
            assert "thinking" not in out
            assert [loss.path for loss in losses] == ["$.reasoning"]
            assert "always thinks" in losses[0].reason

    @pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-opus-4-6", "my-claude"])
    def test_off_is_disabled_elsewhere(self, model: str) -> None:
        out, losses = written(cc.Reasoning("none"), model)
        assert out["thinking"] == {"type": "disabled"}
        assert losses == []

    def test_the_effort_joins_a_format(self) -> None:
        sent = cc.Request(
            (cc.user("Why?"),),
            model="claude-opus-4-7",
            max_tokens=8192,
            reasoning=cc.Reasoning("medium"),
            response_format=cc.ResponseFormat("json_schema", schema={"type": "object"}),
        )
        out = json.loads(anthropic.encode_request(sent))
        assert out["output_config"] == {
            "format": {"type": "json_schema", "schema": {"type": "object"}},
            "effort": "medium",
        }


class TestRead:
    """Each form is canonical where it is written back the same, else kept as sent."""

    @pytest.mark.parametrize(
        ("model", "keys", "reasoning"),
        [
            ("claude-opus-4-6", {"thinking": {"type": "adaptive"}}, cc.Reasoning()),
            (
                "claude-opus-4-7",
                {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}},
                cc.Reasoning("low"),
            ),
            (
                None,
                {"thinking": {"type": "adaptive"}, "output_config": {"effort": "high"}},
                cc.Reasoning("high"),
            ),
            (
                "claude-sonnet-4-5",
                {"thinking": {"type": "enabled", "budget_tokens": 2048}},
                cc.Reasoning(budget_tokens=2048),
            ),
            ("claude-opus-4-8", {"thinking": {"type": "disabled"}}, cc.Reasoning("none")),
        ],
    )
    def test_canonical(self, model: str | None, keys: dict[str, Any], reasoning: Any) -> None:
        sent = body(model, **keys)
        got = anthropic.decode_request(sent)
        assert got.reasoning == reasoning
        assert got.extras is None
        assert json.loads(anthropic.encode_request(got)) == json.loads(sent)

    @pytest.mark.parametrize(
        ("model", "keys"),
        [
            # Forms the model refuses.
            ("claude-opus-4-7", {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
            ("claude-fable-5", {"thinking": {"type": "disabled"}}),
            ("claude-sonnet-4-5", {"thinking": {"type": "adaptive"}}),
            # Efforts with no canonical name.
            (
                "claude-opus-4-7",
                {"thinking": {"type": "adaptive"}, "output_config": {"effort": "xhigh"}},
            ),
            (
                "claude-opus-4-6",
                {"thinking": {"type": "adaptive"}, "output_config": {"effort": "max"}},
            ),
            ("claude-opus-4-6", {"thinking": {"type": "adaptive"}, "output_config": {"effort": 3}}),
            # Keys a form does not have.
            ("claude-opus-4-6", {"thinking": {"type": "adaptive", "budget_tokens": 2048}}),
            ("claude-opus-4-6", {"thinking": {"type": "disabled", "display": "omitted"}}),
        ],
    )
    def test_kept_as_sent(self, model: str, keys: dict[str, Any]) -> None:
        sent = body(model, **keys)
        got = anthropic.decode_request(sent)
        assert got.reasoning is None
        assert got.extras is not None
        assert got.extras["anthropic"]["thinking"] == keys["thinking"]
        assert json.loads(anthropic.encode_request(got)) == json.loads(sent)

    def test_an_effort_without_thinking_is_kept(self) -> None:
        # output_config.effort says how many tokens the whole answer spends, thinking or not.
        sent = body("claude-opus-4-6", output_config={"effort": "low"})
        got = anthropic.decode_request(sent)
        assert got.reasoning is None
        assert got.extras == {"anthropic": {"output_config": {"effort": "low"}}}
        assert json.loads(anthropic.encode_request(got)) == json.loads(sent)

    @pytest.mark.parametrize("kind", ["adaptive", "enabled"])
    def test_display_is_kept_beside_the_setting(self, kind: str) -> None:
        thinking: dict[str, Any] = {"type": kind, "display": "summarized"}
        if kind == "enabled":
            thinking["budget_tokens"] = 2048
        sent = body(
            "claude-opus-4-6",
            thinking=thinking,
            output_config={"effort": "medium", "task_budget": {"total": 9}},
        )
        got = anthropic.decode_request(sent)
        assert got.reasoning is not None
        assert got.extras is not None
        assert got.extras["anthropic"]["thinking"] == {"display": "summarized"}
        assert json.loads(anthropic.encode_request(got)) == json.loads(sent)
        # Another family has no place for it: reported.
        _, report = cc.convert(sent, source="anthropic", target="openai")
        assert "$.extras.anthropic.thinking" in [loss.path for loss in report.losses]

    def test_the_fast_reader_reads_the_same(self) -> None:
        from chatcodec.providers.anthropic._fastreq import fast_request

        for sent in (
            body("claude-opus-4-7", thinking={"type": "adaptive"}, output_config={"effort": "low"}),
            body("claude-opus-4-7", thinking={"type": "enabled", "budget_tokens": 2048}),
            body("claude-fable-5", thinking={"type": "disabled"}),
            body(None, thinking={"type": "adaptive", "display": "omitted"}),
        ):
            fast = fast_request(sent)
            assert fast is None or fast == anthropic.decode_request(sent)


class TestDisplayWithoutThinking:
    """How thinking is shown goes with a thinking setting, never alone."""

    def test_left_out_and_reported_when_no_thinking_is_sent(self) -> None:
        # Claude Sonnet 4.5 takes a budget; max_tokens leaves no room for one.
        source = body(
            "claude-opus-4-6",
            max_tokens=1000,
            thinking={"type": "adaptive", "display": "summarized"},
            output_config={"effort": "low"},
        )
        out, report = cc.convert(source, source="anthropic", target="anthropic",
                                 model="claude-sonnet-4-5")  # fmt: skip
        assert "thinking" not in json.loads(out)
        assert "$.extras.anthropic.thinking" in report.paths
        assert "$.reasoning.effort" in report.paths

    def test_named_by_the_preflight_when_left_alone(self) -> None:
        # A model that does not think: the setting is left out, and what shows it is
        # no thinking setting Anthropic takes.
        source = body("claude-opus-4-6", thinking={"type": "adaptive", "display": "summarized"})
        _, report = cc.convert(source, source="anthropic", target="anthropic",
                               model="claude-3-5-sonnet-20241022")  # fmt: skip
        assert "$.extras.anthropic.thinking" in [p.path for p in report.problems]

    @pytest.mark.parametrize("kind", [["enabled"], {"a": 1}, 3])
    def test_a_type_of_another_kind_is_no_problem(self, kind: Any) -> None:
        sent = anthropic.decode_request(body("claude-opus-4-7", thinking={"type": kind}))
        assert problems(sent) == []


class TestCheck:
    """The preflight names a form kept as sent that the model refuses."""

    @pytest.mark.parametrize(
        ("model", "thinking", "rule"),
        [
            ("claude-opus-4-7", {"type": "enabled", "budget_tokens": 2048}, ADAPTIVE_ONLY),
            (
                "claude-sonnet-5",
                {"type": "enabled", "budget_tokens": 2048, "display": "omitted"},
                ADAPTIVE_ONLY,
            ),
            ("claude-fable-5", {"type": "disabled"}, ALWAYS_THINKS),
            ("claude-opus-4-7", {"type": "disabled"}, ALWAYS_THINKS),
            ("claude-sonnet-4-5", {"type": "adaptive"}, BUDGET_ONLY),
        ],
    )
    def test_refused(self, model: str, thinking: dict[str, Any], rule: str) -> None:
        sent = anthropic.decode_request(body(model, thinking=thinking))
        assert ("$.extras.anthropic.thinking", rule) in problems(sent)

    @pytest.mark.parametrize(
        ("model", "thinking"),
        [
            ("claude-opus-4-6", {"type": "enabled", "budget_tokens": 2048}),
            ("claude-opus-4-6", {"type": "adaptive"}),
            ("claude-opus-4-8", {"type": "disabled"}),
            ("my-claude", {"type": "adaptive"}),
        ],
    )
    def test_taken(self, model: str, thinking: dict[str, Any]) -> None:
        assert problems(anthropic.decode_request(body(model, thinking=thinking))) == []

    def test_a_canonical_setting_is_never_refused_for_its_form(self) -> None:
        # The encoder writes the form the model takes (and reports the change).
        for model in ("claude-opus-4-7", "claude-fable-5", "claude-sonnet-4-5", "claude-opus-4-6"):
            for setting in (
                cc.Reasoning("high"),
                cc.Reasoning(budget_tokens=2048),
                cc.Reasoning("none"),
            ):
                sent = cc.Request((cc.user("Hi"),), model=model, max_tokens=8192, reasoning=setting)
                assert problems(sent) == [], (model, setting)

    def test_the_budget_rules_are_the_budget_forms(self) -> None:
        # Thinking with a budget takes no forced tool and sampling held; adaptive
        # thinking may answer without thinking (a recorded request forced a tool).
        for setting, refused in (
            (cc.Reasoning(budget_tokens=2048), True),
            (cc.Reasoning("low"), False),
        ):
            sent = cc.Request(
                (cc.user("Hi"),),
                model="claude-opus-4-6",
                max_tokens=8192,
                tool_choice=cc.ToolChoice("required"),
                temperature=0.2,
                tools=(cc.ToolDefinition("f"),),
                reasoning=setting,
            )
            found = problems(sent)
            assert (
                ("$.tool_choice.mode", 'must be "auto" or "none" when thinking is enabled') in found
            ) is refused
            assert (
                ("$.temperature", "must be 1 or unset when thinking is enabled") in found
            ) is refused

    def test_a_budget_keeps_its_rules(self) -> None:
        sent = cc.Request(
            (cc.user("Hi"),),
            model="claude-sonnet-4-5",
            max_tokens=2048,
            reasoning=cc.Reasoning(budget_tokens=4096),
        )
        assert ("$.reasoning.budget_tokens", "must be less than max_tokens") in problems(sent)


class TestConvert:
    """Across families: the effort goes over; a refused form is converted, and reported."""

    def test_openai_effort_to_an_adaptive_only_claude(self) -> None:
        source = {
            "model": "o3",
            "reasoning_effort": "high",
            "messages": [{"role": "user", "content": "Why?"}],
        }
        out, report = cc.convert(
            source, source="openai", target="anthropic", model="claude-opus-4-7", max_tokens=8192
        )
        sent = json.loads(out)
        assert sent["thinking"] == {"type": "adaptive"}
        assert sent["output_config"] == {"effort": "high"}
        assert report.problems == ()
        assert [loss.path for loss in report.losses if "reasoning" in loss.path] == []

    def test_a_budget_to_an_adaptive_only_claude(self) -> None:
        source = body("claude-sonnet-4-5", thinking={"type": "enabled", "budget_tokens": 2048})
        out, report = cc.convert(
            source, source="anthropic", target="anthropic", model="claude-opus-4-7"
        )
        sent = json.loads(out)
        assert (sent["thinking"], sent["output_config"]) == (
            {"type": "adaptive"},
            {"effort": "medium"},
        )
        assert [loss.path for loss in report.losses] == ["$.reasoning.budget_tokens"]
        assert report.problems == ()

    @pytest.mark.parametrize("target", ["openai", "openai-responses", "gemini", "ollama", "cohere"])
    def test_adaptive_effort_goes_to_every_family(self, target: str) -> None:
        source = body(
            "claude-opus-4-7", thinking={"type": "adaptive"}, output_config={"effort": "low"}
        )
        out, report = cc.convert(source, source="anthropic", target=target, model="m")
        back = get(target).decode_request(out)
        assert back.reasoning is not None
        assert back.reasoning.effort == "low" or back.reasoning.budget_tokens == 1024
        assert "$.extras.anthropic.thinking" not in [loss.path for loss in report.losses]
        assert "$.extras.anthropic.output_config" not in [loss.path for loss in report.losses]

    @pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
    def test_recorded_adaptive_requests(self) -> None:
        # Every recorded Anthropic request with adaptive thinking: exact back, and the
        # canonical setting where its effort has a canonical name.
        found = 0
        for path in sorted((CORPUS / "anthropic" / "request").glob("*.json")):
            data = json.loads(path.read_bytes())
            thinking = data.get("thinking")
            if not isinstance(thinking, dict) or thinking.get("type") != "adaptive":
                continue
            found += 1
            got = anthropic.decode_request(path.read_bytes())
            assert json.loads(anthropic.encode_request(got)) == data
            effort = (data.get("output_config") or {}).get("effort")
            assert (got.reasoning is not None) == (effort in (None, "low", "medium", "high"))
        assert found >= 5


class TestDirectPath:
    """The direct path reads each form as the general path does, to every family."""

    BODIES = (
        body("claude-opus-4-7", thinking={"type": "enabled", "budget_tokens": 2048}),
        body("claude-opus-4-6", thinking={"type": "enabled", "budget_tokens": 2048}),
        body("claude-fable-5", thinking={"type": "disabled"}),
        body("claude-opus-4-8", thinking={"type": "disabled"}),
        body("claude-opus-4-7", thinking={"type": "adaptive"}, output_config={"effort": "low"}),
        body("claude-sonnet-4-5", thinking={"type": "adaptive"}),
    )

    @pytest.mark.parametrize(
        "target", ["openai", "openai-responses", "gemini", "ollama", "cohere", "bedrock"]
    )
    @pytest.mark.parametrize("sent", BODIES, ids=range(len(BODIES)))
    def test_same_as_the_general_path(self, sent: bytes, target: str) -> None:
        from either_path import same

        for model, limit in ((None, None), ("m", 1024)):
            same("anthropic", sent, target, model, limit)

    def test_it_takes_a_budget_the_model_takes(self) -> None:
        from either_path import same

        assert same("anthropic", self.BODIES[1], "openai", None, None)
