"""Cache points across families: read from each wire, written where each family puts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import corpus, needs_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._exchange import Request
from chatcodec._tools import ToolDefinition
from chatcodec.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses
from chatcodec.providers._cache import AUTOMATIC_CACHE, cache_points, carry_automatic_cache

ANY = {"type": "object", "properties": {}}


def recorded(codec: str, marker: bytes) -> list[Any]:
    """The corpus requests of ``codec``'s wire whose body holds ``marker``."""
    return [p for p in corpus(codec, "request") if marker in Path(p.values[0]).read_bytes()]


def ttls(request: Request) -> list[str | None]:
    """The lifetime of each cache point, in the prompt's order."""
    out = []
    for path in cache_points(request):
        record: Any = request
        for step in path[2:].removesuffix(".cache").split("."):
            name, _, index = step.partition("[")
            record = getattr(record, name)
            if index:
                record = record[int(index[:-1])]
        out.append(record.cache.ttl)
    return out


def cache_losses(report: cc.LossReport) -> list[str]:
    """The losses that name a cache point (canonical or kept in extras)."""
    return [
        loss.path
        for loss in report.losses
        if loss.path.endswith((".cache", ".cache_control", "cachePoint"))
    ]


def blocks_with(value: Any, key: str) -> list[Any]:
    """Every object under ``value`` that has ``key``."""
    found = []
    if isinstance(value, dict):
        if key in value:
            found.append(value)
        for item in value.values():
            found += blocks_with(item, key)
    elif isinstance(value, list):
        for item in value:
            found += blocks_with(item, key)
    return found


class TestRecordedBodies:
    """Recorded requests with cache points keep each one across families, and back."""

    @pytest.mark.parametrize("path", needs_corpus(recorded("anthropic", b'"cache_control"')))
    def test_anthropic_to_bedrock_and_back(self, path: Path) -> None:
        body = path.read_bytes()
        source = anthropic.decode_request(body)
        # Automatic caching (a top-level cache_control) goes on the last block.
        automatic = json.loads(body).get("cache_control")
        placed = carry_automatic_cache(source, "bedrock", [])
        if automatic is None:
            assert placed is source
        else:
            assert len(cache_points(placed)) == len(cache_points(source)) + 1
            assert placed.extras is None or "cache_control" not in placed.extras["anthropic"]
        out, report = cc.convert(body, source="anthropic", target="bedrock")
        sent = bedrock.decode_request(out)
        assert ttls(sent) == ttls(placed)
        assert len(blocks_with(json.loads(out), "cachePoint")) == len(ttls(placed))
        assert cache_losses(report) == []
        back, _ = cc.convert(out, source="bedrock", target="anthropic")
        assert ttls(anthropic.decode_request(back)) == ttls(placed)

    @pytest.mark.parametrize("path", needs_corpus(recorded("bedrock", b'"cachePoint"')))
    def test_bedrock_to_anthropic_and_back(self, path: Path) -> None:
        body = path.read_bytes()
        source = bedrock.decode_request(body)
        kept = len(blocks_with(json.loads(body), "cachePoint")) - len(ttls(source))
        out, report = cc.convert(body, source="bedrock", target="anthropic", max_tokens=64)
        assert ttls(anthropic.decode_request(out)) == ttls(source)
        assert len(blocks_with(json.loads(out), "cache_control")) == len(ttls(source))
        # A cachePoint after what takes none (a video kept whole) goes with it, reported.
        assert len([p for p in report.losses if "cachePoint" in p.reason]) <= kept
        back, _ = cc.convert(out, source="anthropic", target="bedrock")
        assert ttls(bedrock.decode_request(back)) == ttls(source)

    def test_every_bedrock_cache_point_after_content_is_read(self) -> None:
        bodies = [p.values[0] for p in recorded("bedrock", b'"cachePoint"')]
        if not bodies:
            pytest.skip("the recorded corpus is not there")
        read = sum(len(ttls(bedrock.decode_request(Path(p).read_bytes()))) for p in bodies)
        assert read >= 20  # all but the one after a video block

    @pytest.mark.parametrize("path", needs_corpus(recorded("openai", b'"cache_control"')))
    def test_gateway_bodies_to_anthropic_and_bedrock(self, path: Path) -> None:
        body = path.read_bytes()
        source = openai.decode_request(body)
        assert ttls(source)  # each gateway cache_control is read as a cache point
        for target in ("anthropic", "bedrock"):
            out, report = cc.convert(body, source="openai", target=target, max_tokens=64)
            sent = providers.get(target).decode_request(out)
            assert ttls(sent) == ttls(source)[:4]
            assert cache_losses(report) == []
            back, _ = cc.convert(out, source=target, target="openai", model=source.model)
            assert ttls(openai.decode_request(back)) == ttls(source)[:4]


class TestDocumentedBodies:
    """Requests built as each provider's documentation shows them."""

    def test_anthropic_prompt_caching_example(self) -> None:
        # docs.anthropic.com, prompt caching: a system block with cache_control,
        # an hour-long one on the tools, and one on the last user block.
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "tools": [
                {"name": "get_weather", "description": "Weather.", "input_schema": ANY},
                {
                    "name": "get_time",
                    "description": "Time.",
                    "input_schema": ANY,
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                },
            ],
            "system": [
                {"type": "text", "text": "You are an AI assistant tasked with analyzing texts."},
                {
                    "type": "text",
                    "text": "<the entire contents of Pride and Prejudice>",
                    "cache_control": {"type": "ephemeral"},
                },
            ],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "Analyze the major themes.",
                            "cache_control": {"type": "ephemeral", "ttl": "5m"},
                        }
                    ],
                }
            ],
        }
        request = anthropic.decode_request(json.dumps(body))
        assert ttls(request) == ["1h", None, "5m"]
        assert [getattr(m, "cache", None) for m in request.messages] == [
            None,
            cc.CachePoint(),
            None,
        ]
        out, report = cc.convert(json.dumps(body), source="anthropic", target="bedrock")
        assert not report.losses
        wire = json.loads(out)
        assert wire["system"] == [
            {"text": "You are an AI assistant tasked with analyzing texts."},
            {"text": "<the entire contents of Pride and Prejudice>"},
            {"cachePoint": {"type": "default"}},
        ]
        assert wire["toolConfig"]["tools"][2] == {"cachePoint": {"type": "default", "ttl": "1h"}}
        assert wire["messages"][0]["content"] == [
            {"text": "Analyze the major themes."},
            {"cachePoint": {"type": "default", "ttl": "5m"}},
        ]

    def test_bedrock_converse_cache_point_example(self) -> None:
        # docs.aws.amazon.com, prompt caching with Converse: a cachePoint
        # (CachePointBlock: type "default", optional ttl) after the system
        # prompt, after the tools and after the content of a message.
        body = {
            "system": [{"text": "You are an app that creates playlists."}, CACHE_POINT],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"text": "Create a playlist of the top 10 songs."},
                        {"cachePoint": {"type": "default", "ttl": "1h"}},
                    ],
                }
            ],
            "toolConfig": {
                "tools": [
                    {"toolSpec": {"name": "top_song", "inputSchema": {"json": ANY}}},
                    CACHE_POINT,
                ]
            },
        }
        request = bedrock.decode_request(json.dumps(body))
        assert ttls(request) == [None, None, "1h"]
        assert bedrock.encode_request(request) == json.dumps(body, separators=(",", ":")).encode()
        out, report = cc.convert(
            json.dumps(body), source="bedrock", target="anthropic", max_tokens=64
        )
        assert not report.losses
        wire = json.loads(out)
        assert wire["system"] == [
            {
                "type": "text",
                "text": "You are an app that creates playlists.",
                "cache_control": {"type": "ephemeral"},
            }
        ]
        assert wire["tools"][0]["cache_control"] == {"type": "ephemeral"}
        assert wire["messages"][0]["content"][0]["cache_control"] == {
            "type": "ephemeral",
            "ttl": "1h",
        }

    def test_cache_points_after_tool_calls_and_results(self) -> None:
        body = {
            "messages": [
                {"role": "user", "content": [{"text": "Weather?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}},
                        CACHE_POINT,
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"toolResult": {"toolUseId": "t1", "content": [{"text": "Sunny"}]}},
                        CACHE_POINT,
                    ],
                },
            ],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": ANY}}}]},
        }
        request = bedrock.decode_request(json.dumps(body))
        assert cache_points(request) == ["$.messages[1].tool_calls[0].cache", "$.messages[2].cache"]
        assert bedrock.encode_request(request) == json.dumps(body, separators=(",", ":")).encode()
        out, _ = cc.convert(json.dumps(body), source="bedrock", target="anthropic", max_tokens=9)
        wire = json.loads(out)["messages"]
        assert wire[1]["content"][0]["cache_control"] == {"type": "ephemeral"}
        assert wire[2]["content"][0]["cache_control"] == {"type": "ephemeral"}

    def test_a_cache_point_that_closes_nothing_is_kept_whole(self) -> None:
        # First in a turn, or a second one in a row: kept in place, as sent.
        body = {
            "messages": [
                {"role": "user", "content": [CACHE_POINT, {"text": "Hi"}, CACHE_POINT, CACHE_POINT]}
            ]
        }
        request = bedrock.decode_request(json.dumps(body))
        content: Any = request.messages[0].content
        assert [type(part) for part in content] == [cc.OpaquePart, cc.TextPart, cc.OpaquePart]
        assert bedrock.encode_request(request) == json.dumps(body, separators=(",", ":")).encode()

    def test_openrouter_cache_control_on_parts(self) -> None:
        # openrouter.ai, prompt caching: cache_control on a text part, passed on to Claude.
        body = {
            "model": "anthropic/claude-sonnet-4.5",
            "messages": [
                {
                    "role": "system",
                    "content": [
                        {"type": "text", "text": "You are a historian."},
                        {
                            "type": "text",
                            "text": "HUGE TEXT BODY",
                            "cache_control": {"type": "ephemeral"},
                        },
                    ],
                },
                {"role": "user", "content": "What triggered the collapse?"},
            ],
        }
        request = openai.decode_request(json.dumps(body))
        assert request.messages[0].cache == cc.CachePoint()  # type: ignore[union-attr]
        for target in ("anthropic", "bedrock"):
            _, report = cc.convert(json.dumps(body), source="openai", target=target, max_tokens=9)
            assert cache_losses(report) == []
        same = openai.encode_request(request)
        assert json.loads(same) == body

    def test_openai_without_a_gateway_reports(self) -> None:
        request = Request(
            (cc.SystemMessage("Be brief.", cache=cc.CachePoint()), cc.user("Hi")), model="gpt-4o"
        )
        losses: list[cc.Loss] = []
        out = openai.encode_request(request, losses=losses)
        assert b"cache_control" not in out
        assert [loss.path for loss in losses] == ["$.messages[0].cache"]
        routed = msgspec.structs.replace(request, model="anthropic/claude-sonnet-4.5")
        more: list[cc.Loss] = []
        wire = json.loads(openai.encode_request(routed, losses=more))
        assert more == []
        assert wire["messages"][0]["content"] == [
            {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
        ]

    @pytest.mark.parametrize("codec", [gemini, ollama, openai_responses])
    def test_families_without_cache_points_report_each(self, codec: Any) -> None:
        tool = ToolDefinition("f", parameters=ANY, strict=False, cache=cc.CachePoint())
        request = Request(
            (cc.user([cc.TextPart("Hi", cache=cc.CachePoint(ttl="1h"))]),),
            model="m",
            tools=(tool,),
        )
        losses: list[cc.Loss] = []
        codec.encode_request(request, losses=losses)
        assert [loss.path for loss in losses] == [
            "$.tools[0].cache",
            "$.messages[0].content[0].cache",
        ]

    def test_gemini_cached_content_is_reported_not_invented(self) -> None:
        body = {
            "contents": [{"role": "user", "parts": [{"text": "Summarize the document."}]}],
            "cachedContent": "cachedContents/abc123",
        }
        out, report = cc.convert(
            json.dumps(body), source="gemini", target="anthropic", max_tokens=9
        )
        assert b"cache_control" not in out
        assert [loss.path for loss in report.losses] == ["$.extras.gemini.cachedContent"]


CACHE_POINT = {"cachePoint": {"type": "default"}}


def _marked(count: int) -> Request:
    parts = [cc.TextPart(f"Part {n}.", cache=cc.CachePoint()) for n in range(count - 1)]
    return Request(
        (cc.SystemMessage("Be brief.", cache=cc.CachePoint()), cc.user(parts or ["Hi"])),
        model="claude-sonnet-4-5",
        max_tokens=64,
    )


AUTOMATIC = {"anthropic": {"cache_control": {"type": "ephemeral", "ttl": "1h"}}}


def automatic(*messages: Any, **extras: Any) -> Request:
    """A request with Anthropic's automatic cache point (and ``extras`` of its own)."""
    own = {**AUTOMATIC["anthropic"], **extras}
    return Request(messages, model="claude-sonnet-4-5", max_tokens=64, extras={"anthropic": own})


class TestAutomaticCache:
    """Anthropic's top-level cache_control goes on the last block that takes a cache point."""

    HOUR = cc.CachePoint(ttl="1h")

    def test_text_of_a_string_becomes_a_part_with_it(self) -> None:
        losses: list[cc.Loss] = []
        placed = carry_automatic_cache(automatic(cc.user("hi")), "bedrock", losses)
        assert placed.messages == (cc.UserMessage((cc.TextPart("hi", cache=self.HOUR),)),)
        assert placed.extras is None
        assert losses == []

    def test_last_tool_call(self) -> None:
        calls = (
            cc.ToolCall("c1", "f", msgspec.Raw(b"{}")),
            cc.ToolCall("c2", "g", msgspec.Raw(b"{}")),
        )
        placed = carry_automatic_cache(
            automatic(cc.user("hi"), cc.AssistantMessage("x", tool_calls=calls)), "bedrock", []
        )
        answer = placed.messages[1]
        assert isinstance(answer, cc.AssistantMessage)
        assert [c.cache for c in answer.tool_calls] == [None, self.HOUR]
        assert answer.content == "x"

    def test_tool_message(self) -> None:
        call = cc.ToolCall("c1", "f", msgspec.Raw(b"{}"))
        request = automatic(
            cc.user("hi"), cc.AssistantMessage(tool_calls=(call,)), cc.ToolMessage("c1", "42")
        )
        result = carry_automatic_cache(request, "bedrock", []).messages[2]
        assert isinstance(result, cc.ToolMessage)
        assert result.cache == self.HOUR

    def test_reasoning_and_opaque_parts_take_none(self) -> None:
        kept = cc.OpaquePart("anthropic", msgspec.Raw(b'{"type":"container_upload"}'))
        request = automatic(cc.user([cc.TextPart("a"), cc.TextPart("b"), kept]))
        content = carry_automatic_cache(request, "bedrock", []).messages[0].content
        assert isinstance(content, tuple)
        assert [getattr(p, "cache", None) for p in content] == [
            None,
            self.HOUR,
            None,
        ]

    def test_a_point_already_there_is_the_same_point(self) -> None:
        five = cc.CachePoint(ttl="5m")
        request = automatic(cc.user([cc.TextPart("a", cache=five)]))
        placed = carry_automatic_cache(request, "bedrock", [])
        assert placed.messages == request.messages
        assert placed.extras is None

    def test_no_block_takes_it_reported(self) -> None:
        thought = cc.AssistantMessage((cc.ReasoningPart("hmm", provider="anthropic"),))
        losses: list[cc.Loss] = []
        placed = carry_automatic_cache(automatic(thought), "bedrock", losses)
        assert placed.messages == (thought,)
        assert losses == [cc.Loss("$.extras.anthropic.cache_control", AUTOMATIC_CACHE)]

    def test_other_keys_stay(self) -> None:
        request = automatic(cc.user("hi"), container="c_1")
        placed = carry_automatic_cache(request, "bedrock", [])
        assert placed.extras == {"anthropic": {"container": "c_1"}}
        assert request.extras is not None
        assert "cache_control" in request.extras["anthropic"]  # the caller's, untouched

    def test_anthropic_and_other_forms_are_left(self) -> None:
        request = automatic(cc.user("hi"))
        assert carry_automatic_cache(request, "anthropic", []) is request
        other = msgspec.structs.replace(
            request, extras={"anthropic": {"cache_control": {"type": "persistent"}}}
        )
        assert carry_automatic_cache(other, "bedrock", []) is other

    @pytest.mark.parametrize(
        ("target", "key"), [("bedrock", "cachePoint"), ("openrouter", "cache_control")]
    )
    def test_convert_writes_it_where_the_target_puts_it(self, target: str, key: str) -> None:
        body = anthropic.encode_request(automatic(cc.user("hi"), cc.assistant("yo"), cc.user("go")))
        assert b'"cache_control"' in body
        out, report = cc.convert(body, source="anthropic", target=target)
        assert report.losses == ()
        written = json.loads(out)
        last = written["messages"][-1]["content"]
        assert len(blocks_with(written, key)) == 1
        assert blocks_with(last, key)
        same, report = cc.convert(body, source="anthropic", target="anthropic")
        assert same == body

    def test_gemini_reports_it_as_a_cache_point(self) -> None:
        body = anthropic.encode_request(automatic(cc.user("hi")))
        _, report = cc.convert(body, source="anthropic", target="gemini")
        assert [loss.path for loss in report.losses] == ["$.messages[0].content[0].cache"]
        assert "cachedContent" in report.losses[0].reason


class TestLimits:
    """At most four cache points for Anthropic and Bedrock: more is refused, or left out."""

    @pytest.mark.parametrize("codec", [anthropic, bedrock])
    def test_four_pass(self, codec: Any) -> None:
        assert codec.check_request(_marked(4)) == []

    @pytest.mark.parametrize("codec", [anthropic, bedrock])
    def test_five_are_refused(self, codec: Any) -> None:
        found = codec.check_request(_marked(5))
        assert [(p.path, p.severity) for p in found] == [
            ("$.messages[1].content[3].cache", "error")
        ]
        assert "at most 4 cache points" in found[0].rule

    def test_anthropic_automatic_caching_takes_one_of_the_four(self) -> None:
        request = msgspec.structs.replace(
            _marked(4), extras={"anthropic": {"cache_control": {"type": "ephemeral"}}}
        )
        assert [p.path for p in anthropic.check_request(request)] == [
            "$.messages[1].content[2].cache"
        ]

    def test_bedrock_counts_the_points_it_keeps_whole(self) -> None:
        kept = cc.OpaquePart("bedrock", msgspec.Raw(b'{"cachePoint":{"type":"default"}}'))
        request = msgspec.structs.replace(
            _marked(4), messages=(*_marked(4).messages, cc.user([cc.TextPart("x"), kept]))
        )
        assert [p.path for p in bedrock.check_request(request)] == ["$.messages[2].content[1]"]

    @pytest.mark.parametrize(
        ("source", "target"), [("anthropic", "bedrock"), ("bedrock", "anthropic")]
    )
    def test_convert_leaves_out_the_fifth(self, source: str, target: str) -> None:
        body = providers.get(source).encode_request(_marked(6))
        out, report = cc.convert(
            body, source=source, target=target, model="claude-sonnet-4-5", max_tokens=64
        )
        assert report.problems == ()
        assert [loss.reason for loss in report.losses] == [
            f"{target} takes at most 4 cache points: left out"
        ] * 2
        assert len(ttls(providers.get(target).decode_request(out))) == 4

    def test_same_family_writes_what_it_read(self) -> None:
        body = anthropic.encode_request(_marked(5))
        out, report = cc.convert(body, source="anthropic", target="anthropic")
        assert out == body
        assert [p.path for p in report.problems] == ["$.messages[1].content[3].cache"]


class TestGatewayLimits:
    """A gateway passes a Claude model's cache points on: Anthropic's limit of four holds."""

    def _for(self, model: str, count: int) -> Request:
        return msgspec.structs.replace(_marked(count), model=model)

    @pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"])
    def test_the_fifth_is_refused(self, model: str) -> None:
        found = openai.check_request(self._for(model, 5))
        assert [(p.path, p.severity) for p in found] == [
            ("$.messages[1].content[3].cache", "error")
        ]
        assert "at most 4 cache points" in found[0].rule
        assert openai.check_request(self._for(model, 4)) == []

    def test_no_limit_is_assumed_for_another_model(self) -> None:
        assert openai.check_request(self._for("google/gemini-2.5-pro", 6)) == []

    @pytest.mark.parametrize("target", ["openrouter", "openai"])
    def test_convert_leaves_out_the_fifth(self, target: str) -> None:
        body = anthropic.encode_request(_marked(6))
        out, report = cc.convert(
            body, source="anthropic", target=target, model="anthropic/claude-sonnet-4.5"
        )
        assert report.problems == ()
        assert [loss.path for loss in report.losses] == [
            "$.messages[1].content[3].cache",
            "$.messages[1].content[4].cache",
        ]
        assert all("claude takes at most 4" in loss.reason for loss in report.losses)
        assert out.count(b"cache_control") == 4

    def test_a_model_routed_elsewhere_keeps_them_all(self) -> None:
        body = anthropic.encode_request(_marked(6))
        out, report = cc.convert(
            body, source="anthropic", target="openrouter", model="google/gemini-2.5-pro"
        )
        assert out.count(b"cache_control") == 6
        assert not report.losses


class TestCachePoint:
    """The record: a lifetime of five minutes or an hour, on what may close a cache."""

    def test_ttl(self) -> None:
        assert cc.CachePoint(ttl="1h").ttl == "1h"
        with pytest.raises(cc.ValidationError, match=r"must be one of 1h, 5m - at `\$.ttl`"):
            cc.CachePoint(ttl="2h")  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        "build",
        [
            lambda c: cc.TextPart("x", cache=c),
            lambda c: cc.ImagePart(url="https://example.com/a.png", cache=c),
            lambda c: cc.FilePart(file_id="file_1", cache=c),
            lambda c: cc.SystemMessage("x", cache=c),
            lambda c: cc.DeveloperMessage("x", cache=c),
            lambda c: cc.ToolMessage("c1", "x", cache=c),
            lambda c: cc.tool_call("c1", "f", {}).__class__("c1", "f", msgspec.Raw(b"{}"), cache=c),
            lambda c: ToolDefinition("f", cache=c),
        ],
    )
    def test_only_a_cache_point(self, build: Any) -> None:
        assert build(cc.CachePoint()).cache == cc.CachePoint()
        with pytest.raises(cc.ValidationError, match=r"must be a CachePoint - at `\$.cache`"):
            build({"ttl": "5m"})

    def test_canonical_json(self) -> None:
        message = cc.user([cc.TextPart("x", cache=cc.CachePoint(ttl="1h"))])
        data = cc.encode(message)
        assert b'"cache":{"ttl":"1h"}' in data
        assert cc.decode(data) == message


@st.composite
def cached_requests(draw: st.DrawFn) -> Request:
    """A request with cache points (at most four) on what both families can close."""
    point = st.one_of(
        st.none(),
        st.sampled_from([cc.CachePoint(), cc.CachePoint(ttl="5m"), cc.CachePoint(ttl="1h")]),
    )
    slots = draw(st.lists(point, min_size=6, max_size=6))
    if sum(slot is not None for slot in slots) > 4:
        slots = [None, None, *slots[2:]]
    tool, system, text, call, result, image = slots
    return Request(
        (
            cc.SystemMessage(draw(st.text("ab ", min_size=1)).strip() or "a", cache=system),
            cc.user(
                [
                    cc.TextPart("Look:", cache=text),
                    cc.ImagePart(data="iVBORw0KGgo=", media_type="image/png", cache=image),
                ]
            ),
            cc.AssistantMessage(
                tool_calls=(cc.ToolCall("toolu_1", "f", msgspec.Raw(b"{}"), cache=call),)
            ),
            cc.ToolMessage("toolu_1", "Sunny", cache=result),
            cc.user("Thanks"),
        ),
        tools=(ToolDefinition("f", parameters=ANY, strict=False, cache=tool),),
        model="claude-sonnet-4-5",
        max_tokens=64,
    )


class TestProperty:
    """A cache point survives Anthropic -> Bedrock -> Anthropic, in its place, with its ttl."""

    @settings(max_examples=60, deadline=None)
    @given(cached_requests())
    def test_anthropic_bedrock_anthropic(self, request: Request) -> None:
        body = anthropic.encode_request(request)
        there, report = cc.convert(body, source="anthropic", target="bedrock")
        assert cache_losses(report) == []
        back, report = cc.convert(there, source="bedrock", target="anthropic")
        assert cache_losses(report) == []
        again = anthropic.decode_request(back)
        assert cache_points(again) == cache_points(request)
        assert ttls(again) == ttls(request)
        assert blocks_with(json.loads(back), "cache_control") == blocks_with(
            json.loads(body), "cache_control"
        )


def every_cache_point(model: str) -> Request:
    """A cache point on each kind that may close one."""
    point, hour = cc.CachePoint(), cc.CachePoint(ttl="1h")
    call = cc.ToolCall("toolu_1", "f", msgspec.Raw(b'{"a":1}'), cache=point)
    return Request(
        (
            cc.SystemMessage("Be brief.", cache=hour),
            cc.user(
                [
                    cc.TextPart("Look:", cache=point),
                    cc.ImagePart(data="iVBORw0KGgo=", media_type="image/png", cache=point),
                    cc.FilePart(data="JVBERi0=", media_type="application/pdf", cache=point),
                ]
            ),
            cc.AssistantMessage(tool_calls=(call,)),
            cc.ToolMessage("toolu_1", "Sunny", cache=point),
        ),
        tools=(ToolDefinition("f", parameters=ANY, strict=False, cache=point),),
        model=model,
        max_tokens=64,
    )


class TestNothingDroppedSilently:
    """Every family writes each cache point or reports it, one by one."""

    @pytest.mark.parametrize("model", ["m", "anthropic/claude-sonnet-4.5"])
    @pytest.mark.parametrize("codec", providers.NAMES)
    def test_written_or_reported(self, codec: str, model: str) -> None:
        request = every_cache_point(model)
        losses: list[cc.Loss] = []
        out = json.loads(providers.get(codec).encode_request(request, losses=losses))
        written = len(blocks_with(out, "cache_control")) + len(blocks_with(out, "cachePoint"))
        lost = [loss.path for loss in losses if loss.path.endswith(".cache")]
        assert written + len(lost) == len(cache_points(request)) == 7
        assert set(lost) <= set(cache_points(request))
