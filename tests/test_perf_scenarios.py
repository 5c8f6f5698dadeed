"""The benchmark scenarios compute the same answers everywhere; nothing here is timed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

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
import peers  # noqa: E402
import scenarios  # noqa: E402

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
