"""The OpenAI-family stream decoder: recorded streams, the SDK's own accumulation, and rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import corpus, needs_corpus, random_sizes, run_stream
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

import chatcodec as cc
from chatcodec import FinishReason, StreamError, ToolCallArgumentsDelta, ToolCallStarted
from chatcodec._content import OpaquePart, RefusalPart
from chatcodec._events import (
    Finished,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._exchange import Response
from chatcodec._framing import Deframer
from chatcodec._tools import InvalidToolCall, ToolCall
from chatcodec.providers import get, openai

CURATED = Path(__file__).parent.parent / "data" / "streams"
FAMILY = ("openai__", "groq__", "mistral__", "other__")

# Streams openai-python cannot read: chunk fields its types refuse, or lists it cannot merge.
SDK_REJECTS = {
    # Mistral's content lists (thinking parts): ChatCompletionChunk wants a string.
    "pydantic-ai__models__test_mistral__test_mistral_model_thinking_part_iter__00",
    # Perplexity sends "object": "chat.completion" in its chunks.
    "langchaingo__tools__perplexity__TestPerplexityTool__00",
    "langchaingo__tools__perplexity__TestTool_Integration__00",
    # OpenRouter's annotations have no "index": accumulate_delta raises.
    "pydantic-ai__models__test_openrouter__test_openrouter_web_search_annotations_stream__00",
    # Snowflake's service_tier value is not one the SDK's Literal allows.
    "pydantic-ai__models__test_snowflake__test_snowflake_model_streaming__00",
    "pydantic-ai__models__test_snowflake__test_snowflake_thinking_streaming__00",
}


def curated_streams() -> list[Any]:
    return [
        pytest.param(path, id=path.stem[:80])
        for path in sorted(CURATED.glob("*.json"))
        if path.name.startswith(FAMILY)
    ]


def curated_file(name: str) -> Path:
    """The curated stream whose name ends with ``name``."""
    (path,) = CURATED.glob(f"*__{name}.json")
    return path


def raw_of(path: Path) -> bytes:
    text: str = json.loads(path.read_bytes())["raw"]
    return text.encode()


def run(raw: bytes, sizes: list[int] | None = None) -> tuple[list[Any], Response]:
    """Feed ``raw`` in pieces of ``sizes`` (whole if None); the events and the response."""
    events, response = run_stream(openai.stream, raw, sizes)
    return events, response


def run_error(raw: bytes, sizes: list[int] | None = None) -> tuple[str, Response | None]:
    """Feed a stream that must break; its message and partial response."""
    with pytest.raises(StreamError) as info:
        run(raw, sizes)
    return str(info.value), info.value.partial


def splits(raw: bytes) -> list[list[int]]:
    return [[1] * len(raw), random_sizes(len(raw), 7), random_sizes(len(raw), 11)]


def carries_error(path: Path) -> bool:
    data = json.loads(path.read_bytes())
    names = data.get("event_names") or []
    return "error" in names or any(
        type(event) is dict and event.get("error") is not None for event in data["events"]
    )


def sse(*chunks: Any, done: bool = True, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    out = "".join(f"data: {json.dumps(c, ensure_ascii=False)}{end}{end}" for c in chunks)
    return (out + (f"data: [DONE]{end}{end}" if done else "")).encode()


def chunk(*choices: Any, **top: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": list(choices),
        **top,
    }


def choice(index: int = 0, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}


def body(*choices: Any, **top: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": list(choices),
        **top,
    }


def same_as_body(response: Response, plain: dict[str, Any]) -> None:
    """The streamed response is the one decode_response gives for the plain body."""
    assert response == openai.decode_response(json.dumps(plain).encode())


def arguments(call: ToolCall | InvalidToolCall) -> str:
    return call.arguments if isinstance(call, InvalidToolCall) else bytes(call.arguments).decode()


def refusal(message: Any) -> str:
    if not isinstance(message.content, tuple):
        return ""
    return "".join(p.text for p in message.content if isinstance(p, RefusalPart))


def check_events(events: list[Any], response: Response) -> None:
    for number, answer in enumerate(response.choices):
        key = answer.index if answer.index is not None else number
        message = answer.message
        texts = "".join(e.text for e in events if type(e) is TextDelta and e.choice == key)
        thoughts = "".join(e.text for e in events if type(e) is ReasoningDelta and e.choice == key)
        refusals = "".join(e.text for e in events if type(e) is RefusalDelta and e.choice == key)
        assert (message.text if message else "") == texts
        assert (message.reasoning if message else "") == thoughts
        assert (refusal(message) if message else "") == refusals
        calls = (message.tool_calls + message.invalid_tool_calls) if message else ()
        completed = [e for e in events if type(e) is ToolCallCompleted and e.choice == key]
        assert sorted(str(e.call.id) for e in completed) == sorted(str(c.id) for c in calls)
        assert all(e.call in calls for e in completed)
        for event in completed:
            fragments = "".join(
                e.delta
                for e in events
                if type(e) is ToolCallArgumentsDelta and e.slot == event.slot and e.choice == key
            )
            assert fragments == arguments(event.call)
        finished = [e for e in events if type(e) is Finished and e.choice == key]
        if answer.finish_reason is not None:
            assert finished[-1].finish_reason == answer.finish_reason
            assert finished[-1].raw_finish_reason == answer.raw_finish_reason
    usage = [e.usage for e in events if type(e) is UsageReported]
    assert (usage[-1] if usage else None) == response.usage


def check_stream(path: Path) -> None:
    raw = raw_of(path)
    if carries_error(path):
        message, partial = run_error(raw)
        assert partial is not None
        assert message.startswith("openai stream error")
        for sizes in splits(raw):
            assert run_error(raw, sizes) == (message, partial)
        return
    events, response = run(raw)
    for sizes in splits(raw):
        assert run(raw, sizes) == (events, response)
    check_events(events, response)


def sdk_state(raw: bytes) -> Any:
    """What openai-python's ChatCompletionStreamState makes of the same chunks."""
    state = ChatCompletionStreamState()
    deframer = Deframer()
    for frame in deframer.feed(raw) + deframer.finish():
        if frame.data.strip() == b"[DONE]" or frame.event == "error":
            continue
        state.handle_chunk(ChatCompletionChunk.model_validate_json(frame.data))
    return state.current_completion_snapshot


class TestRecordedStreams:
    """Every recorded stream decodes the same whole, byte by byte and at random splits."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "stream")))
    def test_corpus(self, path: Path) -> None:
        check_stream(path)

    @pytest.mark.parametrize("path", curated_streams())
    def test_curated(self, path: Path) -> None:
        check_stream(path)

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "stream")))
    def test_finish_is_decode_of_merged_body(self, path: Path) -> None:
        decoder = openai.stream()
        try:
            decoder.feed(raw_of(path))
            response = decoder.finish()
        except StreamError as error:
            response = error.partial
        assert openai.decode_response(msgspec.json.encode(decoder._body())) == response

    def test_registry(self) -> None:
        assert type(get("openai").stream()) is openai.OpenAIStreamDecoder

    def test_curated_covers_the_family(self) -> None:
        assert len(curated_streams()) >= 10


class TestAgainstOpenAIPython:
    """The result equals what openai-python's ChatCompletionStreamState accumulates."""

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "stream")))
    def test_same_as_sdk(self, path: Path) -> None:
        if path.stem in SDK_REJECTS:
            with pytest.raises((ValueError, RuntimeError, TypeError)):
                sdk_state(raw_of(path))
            return
        raw = raw_of(path)
        snapshot = sdk_state(raw)
        try:
            response = run(raw)[1]
        except StreamError as error:
            response = error.partial
        assert len(response.choices) == len(snapshot.choices)
        for answer, theirs in zip(response.choices, snapshot.choices, strict=True):
            message = answer.message
            assert message is not None
            assert message.text == (theirs.message.content or "")
            assert refusal(message) == (theirs.message.refusal or "")
            calls = message.tool_calls + message.invalid_tool_calls
            their_calls = theirs.message.tool_calls or []
            assert len(calls) == len(their_calls)
            for ours, call in zip(calls, their_calls, strict=True):
                assert ours.id == call.id
                assert ours.name == call.function.name
                assert arguments(ours) == call.function.arguments
            assert answer.raw_finish_reason == theirs.finish_reason
        usage = snapshot.usage
        if usage is None:
            # Where openai-python has no usage: Groq's x_groq.usage, or a chunk
            # after the usage chunk (OpenAI's moderation) replacing it with null.
            assert response.usage is None or "groq" in str(path) or "moderation" in str(path)
        else:
            assert response.usage is not None
            assert response.usage.prompt_tokens == usage.prompt_tokens
            assert response.usage.completion_tokens == usage.completion_tokens
            assert response.usage.total_tokens == usage.total_tokens

    def test_rejected_list_is_exact(self) -> None:
        names = {Path(p.values[0]).stem for p in corpus("openai", "stream")}
        if not names:
            pytest.skip("the recorded corpus is not there")
        assert names >= SDK_REJECTS


class TestRecordedSemantics:
    """Specific values from real streams."""

    def test_parallel_tool_calls(self) -> None:
        path = curated_file("test_parse_multiple_pydantic_tools")
        events, response = run(raw_of(path))
        message = response.message
        assert message is not None
        assert [c.name for c in message.tool_calls] == ["GetWeatherArgs", "get_stock_price"]
        assert message.tool_calls[0].arguments_dict()["city"] == "Edinburgh"
        started = [e for e in events if type(e) is ToolCallStarted]
        assert [e.slot for e in started] == [0, 1]
        assert response.finish_reason is FinishReason.TOOL_CALLS
        assert response.usage is not None

    def test_refusal(self) -> None:
        path = curated_file("test_parse_pydantic_model_refusal")
        events, response = run(raw_of(path))
        assert response.message is not None
        assert refusal(response.message) == "I'm sorry, I can't assist with that request."
        assert any(type(e) is RefusalDelta for e in events)

    def test_three_choices(self) -> None:
        path = curated_file("test_parse_pydantic_model_multiple_choices")
        events, response = run(raw_of(path))
        assert [c.index for c in response.choices] == [0, 1, 2]
        assert {e.choice for e in events if type(e) is Finished} == {0, 1, 2}

    def test_mistral_thinking_parts(self) -> None:
        path = curated_file("test_mistral_model_thinking_part_iter__00")
        events, response = run(raw_of(path))
        message = response.message
        assert message is not None
        assert message.reasoning.startswith("Okay, the user")
        assert message.text.endswith("safe crossing.")
        assert any(type(e) is ReasoningDelta for e in events)

    def test_logprobs_concatenated(self) -> None:
        raw = raw_of(curated_file("test_content_logprobs_events"))
        _, response = run(raw)
        kept = response.choices[0].extras
        assert kept is not None
        tokens = [entry["token"] for entry in kept["openai"]["logprobs"]["content"]]
        assert "".join(tokens) == response.message.text  # type: ignore[union-attr]

    def test_openrouter_reasoning_details(self) -> None:
        path = curated_file("test_openrouter_streaming_reasoning__00")
        events, response = run(raw_of(path))
        assert response.message is not None
        assert response.message.reasoning
        assert "".join(e.text for e in events if type(e) is ReasoningDelta) == (
            response.message.reasoning
        )


class TestRules:
    """One hand-written stream per rule of the OpenAI family."""

    def test_text_role_first_and_usage_chunk(self) -> None:
        raw = sse(
            chunk(choice(role="assistant", content="", refusal=None)),
            chunk(choice(content="Hel")),
            chunk(choice(content="lo")),
            chunk(choice(finish="stop")),
            chunk(usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}),
        )
        events, response = run(raw)
        assert [type(e) for e in events] == [TextDelta, TextDelta, Finished, UsageReported]
        same_as_body(
            response,
            body(
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hello", "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                },
                usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
            ),
        )

    def test_without_done_sentinel(self) -> None:
        """A dialect without [DONE] (Perplexity) ends with the finish reasons and the usage."""
        usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
        raw = sse(chunk(choice(content="Hi", finish="stop"), usage=usage), done=False)
        _, response = run(raw)
        assert response.message is not None
        assert response.message.text == "Hi"
        assert response.usage is not None
        assert response.usage.total_tokens == 4

    @pytest.mark.parametrize("announced", [False, True])
    def test_cut_before_the_usage_chunk_and_done(self, announced: bool) -> None:
        """Finish reasons without the usage or [DONE] are a cut stream: no usage lost silently.

        With ``stream_options.include_usage`` OpenAI sends ``"usage": null`` in each chunk and
        the usage in a chunk of its own before ``[DONE]``; a stream cut between the last finish
        reason and that chunk must not pass for a whole answer without usage.
        """
        usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
        top: dict[str, Any] = {"usage": None} if announced else {}
        head = sse(
            chunk(choice(role="assistant", content="Hel"), **top),
            chunk(choice(content="lo", finish="stop"), **top),
            done=False,
        )
        tail = sse({**chunk(), "usage": usage})
        decoder = openai.stream()
        decoder.feed(head)
        with pytest.raises(StreamError, match="ended before \\[DONE\\]") as caught:
            decoder.finish()
        assert not decoder.complete
        partial = caught.value.partial
        assert partial is not None
        assert partial.message is not None
        assert (partial.message.text, partial.usage) == ("Hello", None)
        assert decoder.finish(allow_incomplete=True) == partial
        # The usage chunk alone (no [DONE]) completes it; so does [DONE] alone.
        for rest in (tail.split(b"data: [DONE]")[0], b"data: [DONE]\n\n", tail):
            decoder = openai.stream()
            decoder.feed(head + rest)
            response = decoder.finish()
            assert decoder.complete
            assert response.message is not None
            assert response.message.text == "Hello"

    def test_obfuscation_dropped_unknown_kept(self) -> None:
        raw = sse(
            chunk(choice(role="assistant", content="a"), obfuscation="xyz", service_tier="default"),
            chunk(choice(content="b", finish="stop"), obfuscation="q", provider="Acme"),
        )
        _, response = run(raw)
        kept = response.extras
        assert kept is not None
        assert "obfuscation" not in kept["openai"]
        assert kept["openai"]["provider"] == "Acme"
        assert kept["openai"]["service_tier"] == "default"

    def test_azure_prompt_filter_and_content_filter(self) -> None:
        filters = {"hate": {"filtered": False, "severity": "safe"}}
        first = {
            "id": "",
            "object": "",
            "created": 0,
            "model": "",
            "choices": [],
            "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": filters}],
        }
        raw = sse(
            first,
            chunk({**choice(role="assistant", content="Hi"), "content_filter_results": {}}),
            chunk({**choice(finish="stop"), "content_filter_results": filters}),
        )
        _, response = run(raw)
        assert response.id == "chatcmpl-1"
        assert response.model == "gpt-4o"
        assert response.extras is not None
        assert "prompt_filter_results" in response.extras["openai"]
        answer = response.choices[0]
        assert answer.extras is not None
        assert answer.extras["openai"]["content_filter_results"] == filters

    def test_groq_error_event_and_x_groq(self) -> None:
        raw = (
            sse(chunk(choice(role="assistant", content="Hi"), x_groq={"id": "req_1"}), done=False)
            + b'event: error\ndata: {"error":{"message":"secret text",'
            b'"type":"invalid_request_error","code":"tool_use_failed"}}\n\n'
        )
        message, partial = run_error(raw)
        assert message == "openai stream error: invalid_request_error (code tool_use_failed)"
        assert "secret" not in message
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Hi"
        assert partial.extras is not None
        assert partial.extras["openai"]["x_groq"] == {"id": "req_1"}

    def test_groq_usage_in_x_groq(self) -> None:
        usage = {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5}
        raw = sse(
            chunk(choice(role="assistant", content="Hi"), x_groq={"id": "req_1"}),
            chunk(choice(finish="stop"), x_groq={"id": "req_1", "usage": usage}),
        )
        events, response = run(raw)
        assert response.usage is not None
        assert response.usage.total_tokens == 5
        assert [e for e in events if type(e) is UsageReported][-1].usage == response.usage

    def test_openrouter_keepalive_and_error_chunk(self) -> None:
        raw = (
            b": OPENROUTER PROCESSING\n\n"
            + sse(chunk(choice(role="assistant", content="Hel")), done=False)
            + b": OPENROUTER PROCESSING\n\n"
            + sse(
                chunk(choice(content="lo"), error={"code": 502, "message": "upstream died"}),
                done=False,
            )
        )
        message, partial = run_error(raw)
        assert message == "openai stream error: error (code 502)"
        assert partial is not None
        assert partial.message is not None
        assert partial.message.text == "Hello"

    def test_several_choices_each_with_calls(self) -> None:
        def call(i: int, name: str, args: str) -> dict[str, Any]:
            function = {"name": name, "arguments": args}
            return {"index": 0, "id": f"call_{i}", "type": "function", "function": function}

        raw = sse(
            chunk(choice(0, role="assistant", tool_calls=[call(0, "a", '{"x"')])),
            chunk(choice(1, role="assistant", tool_calls=[call(1, "b", '{"y"')])),
            chunk(choice(0, tool_calls=[{"index": 0, "function": {"arguments": ": 1}"}}])),
            chunk(choice(1, tool_calls=[{"index": 0, "function": {"arguments": ": 2}"}}])),
            chunk(choice(0, finish="tool_calls"), choice(1, finish="tool_calls")),
        )
        events, response = run(raw)
        completed = [e for e in events if type(e) is ToolCallCompleted]
        assert [(e.choice, e.slot, e.call.id) for e in completed] == [
            (0, 0, "call_0"),
            (1, 0, "call_1"),
        ]
        first, second = response.choices
        assert first.message is not None
        assert second.message is not None
        assert bytes(first.message.tool_calls[0].arguments) == b'{"x": 1}'
        assert bytes(second.message.tool_calls[0].arguments) == b'{"y": 2}'
        check_events(events, response)

    def test_mistral_whole_calls_without_index(self) -> None:
        calls = [
            {"id": "abc123", "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"id": "def456", "function": {"name": "g", "arguments": '{"b": 2}'}},
        ]
        raw = sse(
            chunk(choice(role="assistant", content="")),
            chunk(choice(tool_calls=calls)),
            chunk(choice(finish="tool_calls")),
        )
        events, response = run(raw)
        assert response.message is not None
        assert [c.id for c in response.message.tool_calls] == ["abc123", "def456"]
        assert [e.slot for e in events if type(e) is ToolCallStarted] == [0, 1]
        same_as_body(
            response,
            body(
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "", "tool_calls": calls},
                    "logprobs": None,
                    "finish_reason": "tool_calls",
                }
            ),
        )

    def test_gemini_empty_ids_without_index(self) -> None:
        calls = [
            {"id": "", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}},
            {"id": "", "type": "function", "function": {"name": "g", "arguments": '{"b":2}'}},
        ]
        raw = sse(chunk(choice(role="assistant", tool_calls=calls, finish="tool_calls")))
        events, response = run(raw)
        message = response.message
        assert message is not None
        assert [c.name for c in message.tool_calls] == ["f", "g"]
        assert message.tool_calls[0].id != message.tool_calls[1].id
        completed = [e.call for e in events if type(e) is ToolCallCompleted]
        assert completed == list(message.tool_calls)
        same_as_body(
            response,
            body(
                {
                    "index": 0,
                    "message": {"role": "assistant", "tool_calls": calls},
                    "logprobs": None,
                    "finish_reason": "tool_calls",
                }
            ),
        )

    def test_vllm_same_index_twice_in_one_chunk(self) -> None:
        raw = sse(
            chunk(
                choice(
                    role="assistant",
                    tool_calls=[
                        {"index": 0, "id": "c1", "type": "function",
                         "function": {"name": "f", "arguments": ""}},
                        {"index": 0, "function": {"arguments": '{"a": '}},
                    ],
                )
            ),
            chunk(choice(tool_calls=[{"index": 0, "function": {"arguments": "1}"}}])),
            chunk(choice(finish="tool_calls")),
        )  # fmt: skip
        events, response = run(raw)
        assert response.message is not None
        (call,) = response.message.tool_calls
        assert (call.id, bytes(call.arguments)) == ("c1", b'{"a": 1}')
        check_events(events, response)

    def test_reused_index_with_new_id(self) -> None:
        def start(call_id: str, name: str) -> dict[str, Any]:
            function = {"name": name, "arguments": ""}
            return {"index": 0, "id": call_id, "type": "function", "function": function}

        def more(text: str) -> dict[str, Any]:
            return {"index": 0, "function": {"arguments": text}}

        raw = sse(
            chunk(choice(role="assistant", tool_calls=[start("c1", "f")])),
            chunk(choice(tool_calls=[more("{}")])),
            chunk(choice(tool_calls=[start("c2", "g")])),
            chunk(choice(tool_calls=[more('{"b": 2}')])),
            chunk(choice(finish="tool_calls")),
        )
        events, response = run(raw)
        assert response.message is not None
        assert [(c.id, c.name) for c in response.message.tool_calls] == [("c1", "f"), ("c2", "g")]
        assert bytes(response.message.tool_calls[1].arguments) == b'{"b": 2}'
        check_events(events, response)

    def test_call_fragment_after_the_finish_reason_is_refused(self) -> None:
        # The finish reason completes the choice's calls in the events: a fragment
        # for one of them after it would make the response say another call.
        first = [{"index": 0, "function": {"arguments": "{}"}}]
        raw = sse(
            chunk(choice(role="assistant", tool_calls=first)),
            chunk(choice(finish="tool_calls")),
            chunk(choice(tool_calls=[{"index": 0, "id": "c1", "function": {"name": "f"}}])),
        )
        for sizes in (None, [1] * len(raw)):
            message, _ = run_error(raw, sizes)
            assert "$.choices[0].delta.tool_calls" in message
        # A new call after it is not refused: it completes at the end.
        raw = sse(
            chunk(choice(role="assistant", tool_calls=first)),
            chunk(choice(finish="tool_calls")),
            chunk(choice(tool_calls=[{"index": 1, "id": "c2", "function": {"name": "g"}}])),
            chunk(choice(tool_calls=[{"index": 1, "function": {"arguments": "{}"}}])),
        )
        events, response = run(raw)
        assert [c.name for c in response.tool_calls] == ["g"]
        check_events(events, response)

    def test_reasoning_content(self) -> None:
        raw = sse(
            chunk(choice(role="assistant", reasoning_content="Think", content=None)),
            chunk(choice(reasoning_content="ing.", content=None)),
            chunk(choice(reasoning_content=None, content="Answer", finish="stop")),
        )
        events, response = run(raw)
        assert [type(e) for e in events] == [ReasoningDelta, ReasoningDelta, TextDelta, Finished]
        assert response.message is not None
        assert response.message.reasoning == "Thinking."
        assert response.message.text == "Answer"

    def test_logprobs_lists_concatenate(self) -> None:
        def lp(token: str) -> dict[str, Any]:
            return {"content": [{"token": token, "logprob": -0.1, "top_logprobs": []}]}

        raw = sse(
            chunk({**choice(role="assistant", content="A"), "logprobs": lp("A")}),
            chunk({**choice(content="B", finish="stop"), "logprobs": lp("B")}),
        )
        _, response = run(raw)
        kept = response.choices[0].extras
        assert kept is not None
        assert [e["token"] for e in kept["openai"]["logprobs"]["content"]] == ["A", "B"]

    def test_content_list_parts_kept_in_position(self) -> None:
        hm = {"type": "text", "text": "Hm"}
        raw = sse(
            chunk(choice(role="assistant", content="")),
            chunk(choice(content=[{"type": "thinking", "thinking": [hm]}])),
            chunk(choice(content=[{"type": "reference", "reference_ids": [1]}])),
            chunk(choice(content="Yes", finish="stop")),
        )  # fmt: skip
        events, response = run(raw)
        message = response.message
        assert message is not None
        assert isinstance(message.content, tuple)
        assert [type(p).__name__ for p in message.content] == [
            "ReasoningPart",
            "OpaquePart",
            "TextPart",
        ]
        assert isinstance(message.content[1], OpaquePart)
        check_events(events, response)


class TestCutBeforeUsage:
    """An answer of the codec's own writing, cut before its usage chunk, is no whole answer."""

    def test_own_stream_cut_before_the_usage_chunk(self) -> None:
        response = Response(
            choices=(cc.Choice(cc.assistant("Hello"), finish_reason=cc.FinishReason.STOP),),
            id="r1",
            model="m",
            usage=cc.Usage(prompt_tokens=3, completion_tokens=7, total_tokens=10),
        )
        body = openai.encode_stream(response)
        cut = body[
            : body.index(
                b'data: {"id":"r1","created":0,"model":"m","object":"chat.'
                b'completion.chunk","choices":[],"usage"'
            )
        ]
        decoder = openai.stream()
        decoder.feed(cut)
        with pytest.raises(StreamError, match="ended before") as caught:
            decoder.finish()
        assert caught.value.partial is not None
        assert caught.value.partial.usage is None
        whole = openai.stream()
        whole.feed(body)
        assert whole.finish().usage == response.usage


class TestStreamMechanics:
    """Feeding after finish, cut-off streams, CRLF and split characters."""

    def test_feed_after_finish(self) -> None:
        decoder = openai.stream()
        decoder.feed(sse(chunk(choice(content="Hi", finish="stop"))))
        decoder.finish()
        with pytest.raises(StreamError):
            decoder.feed(b"data: {}\n\n")

    def test_cut_off_mid_arguments(self) -> None:
        start = {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "f", "arguments": '{"city": "Par'},
        }
        raw = sse(chunk(choice(role="assistant", tool_calls=[start])), done=False)
        decoder = openai.stream()
        events = decoder.feed(raw) + decoder.flush()
        with pytest.raises(StreamError, match="ended before") as info:
            decoder.finish()
        response = decoder.finish(allow_incomplete=True)
        assert info.value.partial == response
        message = response.message
        assert message is not None
        (call,) = message.invalid_tool_calls
        assert call.arguments == '{"city": "Par'
        assert call.error == "arguments are truncated"
        assert [e.call for e in events if type(e) is ToolCallCompleted] == [call]
        assert response.finish_reason is None

    def test_crlf(self) -> None:
        raw = sse(chunk(choice(content="a\r\nb", finish="stop")), crlf=True)
        _, response = run(raw)
        assert response.message is not None
        assert response.message.text == "a\r\nb"

    def test_split_inside_multibyte_character(self) -> None:
        raw = sse(chunk(choice(content="caf\u00e9 \U0001f600", finish="stop")))
        at = raw.index("\U0001f600".encode()) + 2
        decoder = openai.stream()
        decoder.feed(raw[:at])
        decoder.feed(raw[at:])
        response = decoder.finish()
        assert response.message is not None
        assert response.message.text == "caf\u00e9 \U0001f600"

    def test_not_json(self) -> None:
        message, partial = run_error(sse(chunk(choice(content="a"))) + b"data: {oops\n\n")
        assert message == "a payload is not JSON"
        assert partial is not None

    def test_wrong_type_names_path(self) -> None:
        bad = chunk(choice(content=5))
        message, _ = run_error(sse(bad))
        assert "$.choices[0].delta.content" in message
