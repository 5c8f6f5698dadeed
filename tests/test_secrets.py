"""Content is private: no repr, str or error text ever shows it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

import chatcodec as cc

SECRET = "s3cr3t-7f1c"
SECRET_MAP = {SECRET: SECRET, "k": [SECRET, {SECRET: 1}]}
ARGS = msgspec.Raw(json.dumps({SECRET: SECRET}).encode())


def everything() -> list[Any]:
    """A value of every type with the secret in every field that holds text."""
    call = cc.ToolCall(SECRET, SECRET, ARGS, extras=SECRET_MAP)
    invalid = cc.InvalidToolCall(SECRET + "x", SECRET, SECRET, SECRET)
    common: dict[str, Any] = {"id": SECRET, "metadata": SECRET_MAP, "extras": SECRET_MAP}
    parts = (
        cc.TextPart(SECRET, extras=SECRET_MAP),
        cc.ImagePart(url=SECRET),
        cc.ImagePart(data=SECRET, media_type=SECRET),
        cc.AudioPart(data=SECRET, media_type=SECRET),
        cc.FilePart(file_id=SECRET, media_type=SECRET, filename=SECRET),
    )
    messages: list[Any] = [
        cc.SystemMessage(SECRET, **common),
        cc.DeveloperMessage(SECRET, **common),
        cc.UserMessage(SECRET, **common),
        cc.UserMessage(parts, **common),
        cc.AssistantMessage(SECRET, (call,), (invalid,), **common),
        cc.ToolMessage(SECRET, SECRET, is_error=True, **common),
    ]
    others: list[Any] = [
        *parts,
        call,
        invalid,
        cc.ToolResult(SECRET, SECRET),
        cc.ToolDefinition("f", SECRET, {"type": "object", "properties": {SECRET: {}}}),
        cc.ToolCallDelta(0, SECRET, SECRET, SECRET),
        cc.Usage(extras=SECRET_MAP),
        cc.Conversation(messages[:1] + messages[2:3]),
        cc.Conversation(messages, policy="lenient"),
    ]
    return messages + others


def assert_hidden(text: str) -> None:
    assert SECRET not in text
    assert SECRET[:6] not in text


@pytest.mark.parametrize("value", everything(), ids=lambda v: type(v).__name__)
def test_repr_and_str_hide_content(value: Any) -> None:
    assert_hidden(repr(value))
    assert_hidden(str(value))


def test_the_values_really_hold_the_secret() -> None:
    # Guards the test above: a value without the secret would pass vacuously.
    for value in everything():
        assert SECRET.encode() in cc.encode(value)


def good_documents() -> list[dict[str, Any]]:
    return [json.loads(cc.encode(v)) for v in everything()[:6]]


def mutations() -> list[tuple[str, Callable[[dict[str, Any]], Any]]]:
    """Ways to break a document while leaving the secret in it."""

    def set_(key: str, value: Any) -> Callable[[dict[str, Any]], Any]:
        return lambda doc: {**doc, key: value}

    return [
        ("role", set_("role", [SECRET])),  # a role that is text is a newer kind, kept
        ("unknown-field-clash", lambda d: {**d, "extras": {SECRET: 1}, SECRET: 2}),
        ("content-type", set_("content", {SECRET: SECRET})),
        ("content-int", set_("content", 12345)),
        ("empty-content", set_("content", "")),
        ("part-type", set_("content", [{"type": SECRET, "text": SECRET}])),
        ("part-detail", set_("content", [{"type": "image", "url": SECRET, "detail": SECRET}])),
        ("part-no-source", set_("content", [{"type": "image", "media_type": SECRET}])),
        ("metadata-type", set_("metadata", [SECRET])),
        ("id-type", set_("id", {SECRET: SECRET})),
        ("tool-args", set_("tool_calls", [{"id": SECRET, "name": SECRET, "arguments": [SECRET]}])),
        (
            "tool-args-str",
            set_("tool_calls", [{"id": SECRET, "name": SECRET, "arguments": SECRET}]),
        ),
        ("tool-dup", set_("tool_calls", [{"id": SECRET, "name": "f", "arguments": {}}] * 2)),
        ("tool-call-id", set_("tool_call_id", "")),
        ("extras-type", set_("extras", SECRET)),
    ]


def error_texts(error: BaseException) -> list[str]:
    return [str(error), repr(error), *map(str, error.args)]


@pytest.mark.parametrize(("name", "mutate"), mutations(), ids=[m[0] for m in mutations()])
def test_decode_errors_hide_content(name: str, mutate: Callable[[dict[str, Any]], Any]) -> None:
    raised = 0
    for doc in good_documents():
        data = json.dumps(mutate(doc)).encode()
        formats: tuple[cc.Format, ...] = ("json", "msgpack")
        for format in formats:
            payload = data if format == "json" else msgspec.msgpack.encode(json.loads(data))
            try:
                cc.decode(payload, format=format)
            except cc.ChatCodecError as error:
                raised += 1
                for text in error_texts(error):
                    assert_hidden(text)
            problems = cc.decode_lenient(payload, type=cc.Message, format=format).problems
            for problem in problems:
                assert_hidden(str(problem))
                assert_hidden(repr(problem))
    assert raised, "the mutation must break at least one document"


@pytest.mark.parametrize(
    "data",
    [
        b'{"role":"user","content":"' + SECRET.encode() + b'"',
        b'{"role":"user","content":"' + SECRET.encode() + b'\xff"}',
        b'{"role":"user","content":"' + SECRET.encode() + b'"} trailing',
        b'[{"' + SECRET.encode() + b'": ]',
    ],
)
def test_malformed_input_hides_content(data: bytes) -> None:
    with pytest.raises(cc.ChatCodecError) as info:
        cc.decode(data)
    for text in error_texts(info.value):
        assert_hidden(text)
    with pytest.raises(cc.ChatCodecError) as info:
        list(cc.iter_jsonl([data]))
    for text in error_texts(info.value):
        assert_hidden(text)
    reader = cc.iter_jsonl([data], lenient=True)
    assert list(reader) == []
    for problem in reader.problems:
        assert_hidden(str(problem))


def construction_errors() -> list[Callable[[], Any]]:
    return [
        lambda: cc.Role.parse(SECRET),
        lambda: cc.tool_call(SECRET, SECRET, {}),
        lambda: cc.tool_call("c", "f", SECRET),
        lambda: cc.tool_call("c", "f", "[" + json.dumps(SECRET) + "]"),
        lambda: cc.ToolDefinition(SECRET),
        lambda: cc.ToolDefinition("f", SECRET, {"type": SECRET}),
        lambda: cc.ToolCall(SECRET, SECRET, msgspec.Raw(json.dumps([SECRET]).encode())),
        lambda: cc.ToolCall("c", "f", ARGS).get_argument(SECRET, int),
        lambda: cc.ToolCall("c", "f", ARGS).arguments_as(dict[str, int]),
        lambda: cc.ImagePart(url=SECRET, data=SECRET, media_type=SECRET),
        lambda: cc.AssistantMessage(None, (cc.ToolCall(SECRET, "f", ARGS),) * 2),
        lambda: cc.validate([cc.user(SECRET)]),
        lambda: cc.Conversation([cc.system(SECRET)]).add(cc.tool_result(SECRET, SECRET)),
        lambda: cc.validate_untrusted([{"role": SECRET, "content": SECRET}]),
        lambda: cc.validate_untrusted([{"role": "user", "content": SECRET, SECRET: SECRET}]),
        lambda: cc.validate_untrusted(json.dumps([{"role": SECRET, "content": SECRET}])),
        lambda: cc.validate_untrusted([cc.assistant(SECRET)]),
        lambda: cc.encode(cc.user(SECRET, metadata={SECRET: object()})),
    ]


@pytest.mark.parametrize("action", construction_errors())
def test_other_errors_hide_content(action: Callable[[], Any]) -> None:
    with pytest.raises(cc.ChatCodecError) as info:
        action()
    for text in error_texts(info.value):
        assert_hidden(text)


def planted_streams() -> list[tuple[str, bytes]]:
    """A stream of each family with the secret as text, reasoning, tool name and arguments."""
    args = json.dumps(json.dumps({SECRET: SECRET}))
    openai = (
        'data: {"choices":[{"index":0,"delta":{"content":"S","reasoning_content":"S",'
        '"refusal":"S","tool_calls":[{"index":0,"id":"S","function":{"name":"S",'
        '"arguments":A}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    anthropic = "".join(
        f"event: x\ndata: {line}\n\n"
        for line in (
            '{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}',
            '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"S"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"S"}}',
            '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"S"}}',
            '{"type":"content_block_start","index":2,"content_block":'
            '{"type":"tool_use","id":"S","name":"S","input":{}}}',
            '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":A}}',
            '{"type":"content_block_start","index":3,"content_block":{"type":"redacted_thinking","data":"S"}}',
            '{"type":"message_delta","delta":{"stop_reason":"S"}}',
            '{"type":"message_stop"}',
        )
    )
    gemini = (
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"S","thought":true},'
        '{"text":"S"},{"functionCall":{"name":"S","args":{"S":"S"}}},{"S":"S"}]},'
        '"finishReason":"S"}]}\n\n'
    )
    ollama = (
        '{"model":"m","message":{"role":"assistant","content":"S","thinking":"S",'
        '"tool_calls":[{"function":{"name":"S","arguments":{"S":"S"}}}]},"done":false}\n'
        '{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"S"}\n'
    )
    return [
        (family, raw.replace('"S"', json.dumps(SECRET)).replace("A", args).encode())
        for family, raw in (
            ("openai", openai),
            ("anthropic", anthropic),
            ("gemini", gemini),
            ("ollama", ollama),
        )
    ]


@pytest.mark.parametrize(("family", "raw"), planted_streams(), ids=lambda v: str(v)[:9])
def test_stream_events_hide_content(family: str, raw: bytes) -> None:
    from chatcodec import providers

    decoder = providers.get(family).stream()
    events = [event for i in range(0, len(raw), 7) for event in decoder.feed(raw[i : i + 7])]
    events += decoder.flush()
    response = decoder.finish()
    kinds = {type(event).__name__ for event in events}
    assert {"TextDelta", "ToolCallStarted", "ToolCallCompleted"} <= kinds
    assert SECRET in msgspec.json.encode(events).decode()  # the events do hold it
    for event in events:
        assert_hidden(repr(event))
        assert_hidden(str(event))
    assert_hidden(repr(response))


def test_every_stream_event_hides_content() -> None:
    from chatcodec._events import (
        Finished,
        PartReceived,
        ReasoningDelta,
        RefusalDelta,
        TextDelta,
        ToolCallCompleted,
        UsageReported,
    )

    call = cc.ToolCall(SECRET, SECRET, ARGS)
    events = [
        TextDelta(SECRET),
        ReasoningDelta(SECRET, signature=SECRET),
        RefusalDelta(SECRET),
        PartReceived(cc.TextPart(SECRET)),
        cc.ToolCallStarted(0, SECRET, SECRET),
        cc.ToolCallArgumentsDelta(0, SECRET),
        ToolCallCompleted(0, call),
        ToolCallCompleted(0, cc.InvalidToolCall(SECRET, SECRET, SECRET, SECRET)),
        UsageReported(cc.Usage(extras=SECRET_MAP)),
        Finished(None, SECRET),
    ]
    for event in events:
        assert SECRET in msgspec.json.encode(event).decode()
        assert_hidden(repr(event))
        assert_hidden(str(event))


def test_stream_errors_hide_content() -> None:
    from chatcodec import providers

    for family, raw in planted_streams():
        cut = raw[: raw.rindex(SECRET.encode()) + len(SECRET)]  # cut inside the last secret
        decoder = providers.get(family).stream()
        events = decoder.feed(cut)
        with pytest.raises(cc.StreamError) as info:
            events += decoder.feed(b"\n\n{" + SECRET.encode() + b"\n\n") + decoder.flush()
        for text in error_texts(info.value):
            assert_hidden(text)
