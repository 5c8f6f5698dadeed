"""The benchmark scenarios compute the same answers everywhere; nothing here is timed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import msgspec
import orjson
import pydantic
import pytest

import chatcodec as cc

PERF = Path(__file__).resolve().parents[1] / "perf"
if str(PERF) not in sys.path:
    sys.path.insert(0, str(PERF))  # the bench scripts import their modules by name

# After the path change above, hence E402.
import bench_construct  # noqa: E402
import bench_decode  # noqa: E402
import bench_encode  # noqa: E402
import bench_memory  # noqa: E402
import bench_streams  # noqa: E402
import convert_scenarios  # noqa: E402
import peers  # noqa: E402
import scenarios  # noqa: E402
import stream_encode_scenarios  # noqa: E402
import stream_scenarios  # noqa: E402

TRANSCRIPT = scenarios.TRANSCRIPT


def compact(data: bytes) -> bytes:
    return b"".join(data.splitlines())


class TestTranscript:
    """The sample transcript is what perf/data/README.md says it is."""

    def test_decodes_to_20_messages_in_strict_order(self) -> None:
        messages = cc.decode(TRANSCRIPT, type=list[cc.Message])
        assert len(messages) == 20
        assert cc.validate(messages, policy="strict") == []

    def test_is_about_4_6_kb_compact(self) -> None:
        assert 4300 <= len(compact(TRANSCRIPT)) <= 4900

    def test_has_the_turns_the_scenarios_rely_on(self) -> None:
        messages = cc.decode(TRANSCRIPT, type=list[cc.Message])
        assert [type(m) for m in messages].count(cc.SystemMessage) == 1
        calls = [len(m.tool_calls) for m in messages if isinstance(m, cc.AssistantMessage)]
        assert sum(1 for n in calls if n) >= 3
        assert 2 in calls
        assert len(messages[6].tool_calls) == 2  # type: ignore[union-attr]
        last = messages[-1]
        assert isinstance(last, cc.AssistantMessage)
        assert last.content
        assert not last.tool_calls

    def test_encodes_back_byte_for_byte(self) -> None:
        messages = cc.decode(TRANSCRIPT, type=list[cc.Message])
        assert cc.encode(messages) == compact(TRANSCRIPT)


class TestSameAnswer:
    """Every implementation in every scenario computes what chatcodec computes."""

    @pytest.mark.parametrize("check", scenarios.CHECKS.values(), ids=list(scenarios.CHECKS))
    def test_scenario_check_passes(self, check: Callable[[], None]) -> None:
        check()

    @pytest.mark.parametrize("name", scenarios.BUILD_USER)
    def test_user_message(self, name: str) -> None:
        built = scenarios.BUILD_USER[name](scenarios.USER_TEXT)
        assert peers.json_values(built) == {"role": "user", "content": scenarios.USER_TEXT}

    @pytest.mark.parametrize("name", scenarios.BUILD_ASSISTANT)
    def test_assistant_message_with_two_calls(self, name: str) -> None:
        built = scenarios.BUILD_ASSISTANT[name](*scenarios.CALLS[name])
        message = orjson.loads(TRANSCRIPT)[6]
        del message["content"]
        assert peers.json_values(built) == message

    @pytest.mark.parametrize("name", scenarios.DECODERS)
    def test_decode(self, name: str) -> None:
        decoded = scenarios.DECODERS[name](TRANSCRIPT)
        assert peers.json_values(decoded) == orjson.loads(TRANSCRIPT)

    @pytest.mark.parametrize("name", scenarios.ENCODERS)
    def test_encode(self, name: str) -> None:
        encode, messages = scenarios.ENCODERS[name]
        assert orjson.loads(encode(messages)) == orjson.loads(TRANSCRIPT)

    def test_a_different_answer_fails_the_check(self) -> None:
        answers = {"chatcodec": cc.UserMessage("Hi"), "dict": {"role": "user", "content": "Hi!"}}
        with pytest.raises(scenarios.CheckFailed, match="dict"):
            scenarios.same_answer(answers)

    def test_every_construct_case_is_timed(self) -> None:
        expected = {f"construct/user/{name}" for name in scenarios.BUILD_USER}
        expected |= {f"construct/assistant/{name}" for name in scenarios.BUILD_ASSISTANT}
        expected |= {"construct/user-factory/chatcodec", "construct/user-factory/UserMessage"}
        assert set(bench_construct.TIMERS) == expected

    def test_bench_scripts_start_nothing_on_import(self) -> None:
        for module in (bench_construct, bench_decode, bench_encode, bench_memory):
            assert callable(module.main)
        assert bench_construct.built == {}


class TestRefusals:
    """The pydantic peers refuse every invalid input chatcodec refuses."""

    @pytest.mark.parametrize("case", scenarios.REFUSED_BUILDS)
    def test_built_in_code(self, case: str) -> None:
        build, build_pydantic = scenarios.REFUSED_BUILDS[case]
        with pytest.raises(cc.ValidationError):
            build()
        with pytest.raises(pydantic.ValidationError):
            build_pydantic()

    @pytest.mark.parametrize("case", scenarios.REFUSED_DOCUMENTS)
    def test_decoded(self, case: str) -> None:
        data = scenarios.REFUSED_DOCUMENTS[case]
        with pytest.raises(cc.ValidationError):
            cc.decode(data, type=list[cc.Message])
        with pytest.raises(pydantic.ValidationError):
            peers.PYDANTIC_MESSAGES.validate_json(data)

    @pytest.mark.parametrize("case", scenarios.REFUSED_DOCUMENTS)
    def test_the_plain_structs_check_nothing(self, case: str) -> None:
        assert len(peers.PLAIN_DECODER.decode(scenarios.REFUSED_DOCUMENTS[case])) == 20


class TestMemoryCounting:
    """The memory script counts objects, not their text."""

    def test_text_is_not_counted(self) -> None:
        short, long = cc.UserMessage("Hi"), cc.UserMessage("Hi" * 1000)
        assert bench_memory.tree_size(short) == bench_memory.tree_size(long) == 48

    def test_raw_arguments_count_as_their_header(self) -> None:
        raw = msgspec.Raw(b'{"city": "Paris"}')
        assert bench_memory.object_size(raw) == msgspec.Raw.__basicsize__

    def test_every_message_class_is_measured(self) -> None:
        sizes = bench_memory.sizes(cc.decode(TRANSCRIPT, type=list[cc.Message]))
        names = {name.split(" ")[0] for name in sizes}
        assert names == {
            "SystemMessage",
            "UserMessage",
            "AssistantMessage",
            "ToolMessage",
            "ToolCall",
        }


def test_floor_timers_time_what_they_say() -> None:
    import bench_floor

    hooked = bench_floor.WithEmptyPostInit(scenarios.USER_TEXT)
    assert hooked.content == peers.PlainUserMessage(scenarios.USER_TEXT).content
    assert isinstance(hooked, peers.PlainUserMessage)
    assert "__post_init__" not in vars(peers.PlainUserMessage)
    for timer in (bench_floor.plain, bench_floor.empty_post_init, bench_floor.raw_bytes):
        assert isinstance(timer(3), float)  # it runs; what it measures is for perf/


def test_accumulate_peers_rebuild_the_same_arguments() -> None:
    import bench_accumulate

    bench_accumulate.check()  # raises SystemExit if a feeder is wrong
    assert len(bench_accumulate.STREAMS["64kb"]) > 60 * len(bench_accumulate.STREAMS["1kb"])


class TestStreams:
    """The stream benchmarks: every peer ends with the calls the stream holds."""

    def test_encode_check_passes(self) -> None:
        stream_encode_scenarios.check_encode()

    def test_translate_check_passes(self) -> None:
        stream_encode_scenarios.check_translate()

    def test_encode_check_fails_on_another_answer(self, monkeypatch: pytest.MonkeyPatch) -> None:
        other = stream_encode_scenarios.RESPONSE.choices[0]
        changed = cc.Response((other, other), id="x")
        monkeypatch.setattr(stream_encode_scenarios, "RESPONSE", changed)
        with pytest.raises(stream_scenarios.CheckFailed, match="encode"):
            stream_encode_scenarios.check_encode()

    @pytest.mark.parametrize(
        "check", stream_scenarios.CHECKS.values(), ids=list(stream_scenarios.CHECKS)
    )
    def test_scenario_check_passes(self, check: Callable[[], None]) -> None:
        check()

    def test_the_synthetic_stream_is_what_its_generator_makes(self) -> None:
        sys.path.insert(0, str(stream_scenarios.DATA))
        try:
            import make_openai_200
        finally:
            sys.path.remove(str(stream_scenarios.DATA))
        assert make_openai_200.build() == stream_scenarios.STREAMS["openai-200"].data

    def test_the_synthetic_stream_has_200_chunks_and_2_calls_in_small_fragments(self) -> None:
        stream = stream_scenarios.STREAMS["openai-200"]
        assert len(stream.payloads) == 200
        assert stream.data.endswith(b"data: [DONE]\n\n")
        chunks = [orjson.loads(payload) for payload in stream.payloads]
        assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
        assert chunks[-1]["choices"] == []
        assert chunks[-1]["usage"]["total_tokens"] > 0
        assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
        deltas = [chunk["choices"][0]["delta"] for chunk in chunks[:-1]]
        fragments = [
            (call["index"], call["function"]["arguments"])
            for delta in deltas
            for call in delta.get("tool_calls", [])
            if "id" not in call
        ]
        assert {index for index, _ in fragments} == {0, 1}
        assert all(3 <= len(text) <= 10 for _, text in fragments)
        assert len(fragments) == 200 - 5

    @pytest.mark.parametrize("case", stream_scenarios.STREAMS)
    def test_pieces_are_cut_mid_frame(self, case: str) -> None:
        stream = stream_scenarios.STREAMS[case]
        assert b"".join(stream.pieces) == stream.data
        for piece in stream.pieces[:-1]:
            assert not piece.endswith(stream.separator)
        assert len(stream.pieces) >= min(2, len(stream.payloads))

    def test_a_different_answer_fails_the_check(self, monkeypatch: pytest.MonkeyPatch) -> None:
        stream = stream_scenarios.STREAMS["openai-corpus"]
        payloads = [
            payload.replace(b"get_stock_price", b"get_stock_quote") for payload in stream.payloads
        ]
        monkeypatch.setitem(
            stream_scenarios.STREAMS, "openai-corpus", stream._replace(payloads=payloads)
        )
        with pytest.raises(stream_scenarios.CheckFailed, match="chatcodec"):
            stream_scenarios.check_stream("openai-corpus")

    def test_a_floor_missing_a_chunk_fails_the_check(self, monkeypatch: pytest.MonkeyPatch) -> None:
        stream = stream_scenarios.STREAMS["anthropic-corpus"]
        payloads = [*stream.payloads, stream.payloads[-1]]
        monkeypatch.setitem(
            stream_scenarios.STREAMS, "anthropic-corpus", stream._replace(payloads=payloads)
        )
        with pytest.raises(stream_scenarios.CheckFailed, match="msgspec-floor"):
            stream_scenarios.check_stream("anthropic-corpus")

    def test_every_case_is_timed(self) -> None:
        names = set(bench_streams.timers())
        for family in ("openai", "anthropic", "gemini", "ollama"):
            assert f"stream/{family}-corpus/chatcodec" in names
            assert f"stream/{family}-corpus/msgspec-floor" in names
        for peer in ("chatcodec", "msgspec-floor", "openai-sdk", "langchain-core"):
            assert f"stream/openai-200/{peer}" in names
        assert "stream/anthropic-corpus/anthropic-sdk" in names
        assert {
            "stream/preview-every-fragment/chatcodec",
            "stream/preview-every-fragment/jiter",
            "stream/preview-4kb/chatcodec",
            "stream/preview-4kb/jiter",
        } < names
        for timer, _ in bench_streams.timers().values():
            assert isinstance(timer(1), float)


class TestConvert:
    """The conversion peers give chatcodec's conversation before they are timed."""

    @pytest.mark.parametrize(("target", "size"), convert_scenarios.CASES)
    def test_peers_kept(self, target: str, size: str) -> None:
        kept, left_out = convert_scenarios.checked(target, size)
        assert {"chatcodec", "orjson-floor"} <= kept.keys()
        if target == "anthropic":
            assert kept.keys() == {"chatcodec", "linguafranca", "llm-babel", "orjson-floor"}
        else:  # llm-babel wraps a text result in an object: another conversation
            assert left_out == {"llm-babel": "its output holds another conversation"}

    def test_a_changed_conversation_is_left_out(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def drops_the_last_message(body: bytes) -> bytes:
            data = orjson.loads(body)
            data["messages"] = data["messages"][:-1]
            return orjson.dumps(data)

        real = convert_scenarios.converters

        def with_a_wrong_peer(target: str) -> dict[str, convert_scenarios.Converter]:
            return {
                **real(target),
                "wrong": lambda body: real(target)["chatcodec"](drops_the_last_message(body)),
            }

        monkeypatch.setattr(convert_scenarios, "converters", with_a_wrong_peer)
        kept, left_out = convert_scenarios.checked("anthropic", "medium")
        assert "wrong" not in kept
        assert left_out["wrong"] == "its output holds another conversation"

    def test_record_goals_name_measured_cases(self) -> None:
        import report

        cases = {goal.case for goal in report.GOALS}
        convert_cases = {f"convert/openai-to-{t}-{s}" for t, s in convert_scenarios.CASES}
        assert {case for case in cases if case.startswith("convert/")} <= convert_cases

    def test_stream_goals_name_timed_benchmarks(self) -> None:
        import report

        names = set(bench_streams.timers())
        for goal in report.GOALS:
            if goal.case.startswith(("stream/", "translate/")):
                assert {f"{goal.case}/chatcodec", f"{goal.case}/{goal.peer}"} <= names
        pieces = stream_scenarios.STREAMS[stream_encode_scenarios.TRANSLATED].pieces
        whole = stream_encode_scenarios.decode_alone(pieces)
        assert whole == stream_encode_scenarios.decode_alone([b"".join(pieces)])
        assert whole.tool_calls


class _Timing:
    def __init__(self, mean: float, stdev: float) -> None:
        self._mean, self._stdev = mean, stdev

    def mean(self) -> float:
        return self._mean

    def stdev(self) -> float:
        return self._stdev


class TestReport:
    """A goal is met or missed only when the ratio's whole spread says so."""

    @pytest.mark.parametrize(
        ("ours", "peer", "said"),
        [
            ((1.0, 0.05), (1.0, 0.05), "yes"),  # 0.86x to 1.17x, all under 1.25x
            ((1.2, 0.1), (1.0, 0.05), "within noise"),  # 1.05x to 1.37x
            ((2.0, 0.1), (1.0, 0.05), "**no**"),  # 1.81x to 2.21x
        ],
    )
    def test_at_most(self, ours: tuple[float, float], peer: tuple[float, float], said: str) -> None:
        import report

        goal = report.Goal("case", "floor", "at most", 1.25)
        benches = {"chatcodec": _Timing(*ours), "floor": _Timing(*peer)}
        assert report.verdict(goal, benches)[1] == said

    @pytest.mark.parametrize(
        ("peer", "said"),
        [((12.0, 0.5), "yes"), ((10.0, 1.5), "within noise"), ((5.0, 0.5), "**no**")],
    )
    def test_at_least(self, peer: tuple[float, float], said: str) -> None:
        import report

        goal = report.Goal("case", "sdk", "at least", 10.0)
        benches = {"chatcodec": _Timing(1.0, 0.02), "sdk": _Timing(*peer)}
        assert report.verdict(goal, benches)[1] == said

    def test_spread_is_written_beside_the_ratio(self) -> None:
        import report

        ratio = report.Ratio.of(_Timing(2.0, 0.1), _Timing(1.0, 0.05))
        assert ratio.text() == "2.00x (1.81x to 2.21x)"


class TestProviderDecodeScenarios:
    """Every family's decode benchmark: the check passes and every decoder runs on its body."""

    @pytest.mark.parametrize(
        "name", ["openai", "anthropic", "gemini", "ollama", "openai-responses", "bedrock", "cohere"]
    )
    def test_every_decoder_reads_the_body(self, name: str) -> None:
        import provider_scenarios

        provider_scenarios.check_decode(name)
        body = provider_scenarios.RESPONSES[name]
        decoders = provider_scenarios.decoders(name)
        assert {"chatcodec", "orjson", "typed-wire"} <= set(decoders)
        for decode in decoders.values():
            assert decode(body) is not None


class TestProviderConvertScenarios:
    """Every conversion the provider benchmark times holds the conversation and loses nothing."""

    @pytest.mark.parametrize(
        "target", ["anthropic", "gemini", "openai-responses", "bedrock", "cohere"]
    )
    def test_conversion_loses_nothing(self, target: str) -> None:
        import bench_providers
        import provider_scenarios

        assert target in bench_providers.TARGETS
        provider_scenarios.check_convert(target)


class TestBedrockProviderScenario:
    """The Bedrock decode and conversion benchmarks compute what their peers compute."""

    def test_decode_peers_find_the_same_calls(self) -> None:
        import provider_scenarios

        provider_scenarios.check_decode("bedrock")
        peers = {"chatcodec", "botocore", "orjson", "typed-wire"}
        assert set(provider_scenarios.decoders("bedrock")) == peers

    def test_conversion_loses_nothing(self) -> None:
        import provider_scenarios

        provider_scenarios.check_convert("bedrock")


class TestDistribution:
    """The distribution benchmark's counts and ratios, on constructed requests (no corpus)."""

    BODIES: ClassVar[list[tuple[str, bytes]]] = [
        ("a", b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'),
        (
            "b",
            b'{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text",'
            b'"text":"Hi"}]},{"role":"assistant","content":"Hello"}],"seed":3}',
        ),
        ("refused", b'{"messages":[{"role":"user","content":""}]}'),
    ]

    def test_pair_with_the_peer(self) -> None:
        import bench_distribution

        pair = bench_distribution.measure_pair("openai", "anthropic", self.BODIES, 1, 0.0)
        s = bench_distribution.summary(pair)
        assert (s["count"], s["refused"]) == (2, 1)
        assert [row["path"] for row in pair["rows"]] == ["a", "b"]
        assert s["direct"] == 1  # the seed sends the second the general way
        assert s["peer_count"] + s["peer_raised"] == 2
        assert 0 <= s["faster"] <= s["peer_count"]
        for row in pair["rows"]:
            assert row["chatcodec"] > 0
            assert row["floor"] > 0
        lines = bench_distribution.table([s], "header")
        assert lines[-1].startswith("| OpenAI Chat -> Anthropic | 2 (1 refused) | 1 |")

    def test_pair_without_the_peer(self) -> None:
        import bench_distribution

        pair = bench_distribution.measure_pair("openai", "gemini", self.BODIES[:1], 1, 0.0)
        s = bench_distribution.summary(pair)
        assert s["count"] == 1
        assert "linguafranca" not in s
        assert "peer_raised" not in s
        assert s["floor"]["median"] == s["floor"]["p90"] == s["floor"]["total"]

    def test_a_family_without_recordings_is_a_source_by_its_curated_bodies(
        self, tmp_path: Path
    ) -> None:
        import bench_distribution

        (tmp_path / "MANIFEST.tsv").write_text("path\tkind\tapi\n")
        bodies = bench_distribution.recorded_requests(tmp_path)
        paths = [path for path, _ in bodies["cohere"]]
        assert paths
        assert all(p.startswith("tests/data/providers/cohere/request/") for p in paths)
        pair = bench_distribution.measure_pair("cohere", "openai", bodies["cohere"][:2], 1, 0.0)
        s = bench_distribution.summary(pair)
        assert (s["count"], s["curated"]) == (2, True)
        row = bench_distribution.table([s], "header")[-1]
        assert row.startswith("| Cohere (curated bodies) -> OpenAI Chat | 2 |")

    def test_without_the_corpus(self, tmp_path: Path) -> None:
        import subprocess

        done = subprocess.run(
            [sys.executable, str(PERF / "bench_distribution.py"), "--quick"],
            env={"CHATCODEC_CORPUS": str(tmp_path), "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        )
        assert "not measured" in done.stdout
        assert not (tmp_path / "distribution.json").exists()
