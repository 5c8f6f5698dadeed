"""What every provider stream decoder keeps: a broken stream never looks finished.

- Bytes that are not the family's framing raise ``StreamError``.
- A stream cut off before its family's last event raises ``StreamError`` at
  ``finish()`` (``partial`` holds the response so far; ``allow_incomplete``
  returns it), and a call cut off is an invalid call saying it was truncated.
- An error event exposes the provider's type and code as attributes.
- Whatever bytes arrive: events, or chatcodec's ``StreamError``, never another
  exception; past a limit, a ``StreamError`` naming it.
"""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from corpus import STREAMS
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import InvalidToolCall, StreamError, providers
from chatcodec._events import ToolCallCompleted

# The families whose streams are text (SSE, NDJSON, JSON arrays): Bedrock's are
# binary event-stream frames, tested in test_eventstream and test_bedrock_stream.
FAMILIES = tuple(name for name in providers.NAMES if name != "bedrock")


def stream(family: str, **limits: int) -> Any:
    return providers.get(family).stream(None, **limits)


def feed_all(decoder: Any, raw: bytes) -> list[Any]:
    return list(decoder.feed(raw)) + list(decoder.flush())


def to_the_end(decoder: Any, pieces: list[bytes], *, allow_incomplete: bool = False) -> Any:
    """Feed every piece, then finish."""
    for piece in pieces:
        decoder.feed(piece)
    decoder.flush()
    return decoder.finish(allow_incomplete=allow_incomplete)


# -- the recorded streams, cut at every event boundary ---------------------------------


def recorded() -> list[Any]:
    out = []
    for path in sorted(STREAMS.glob("*.json")):
        family = path.name.split("__")[0]
        family = {"groq": "openai", "mistral": "openai", "other": "openai"}.get(family, family)
        framing = json.loads(path.read_bytes())["framing"]
        if framing in ("sse", "ndjson", "json-array"):
            out.append(pytest.param(family, path, id=path.stem[:70]))
    return out


def boundaries(raw: bytes, framing: str) -> list[int]:
    """Where each event (SSE), line (NDJSON) or element (JSON array) of ``raw`` ends."""
    if framing == "sse":
        return [m.end() for m in re.finditer(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)", raw)]
    if framing == "ndjson":
        return [m.end() for m in re.finditer(rb"\n", raw)]
    ends, depth, string, escaped = [], 0, False, False
    for i, byte in enumerate(raw):
        if string:
            string = escaped or byte != 0x22
            escaped = not escaped and byte == 0x5C
        elif byte == 0x22:
            string = True
        elif byte in b"[{":
            depth += 1
        elif byte in b"]}":
            depth -= 1
            if depth == 1:
                ends.append(i + 1)
    return ends


def payloads(raw: bytes, framing: str) -> list[Any]:
    """The JSON payloads of ``raw`` (``[DONE]`` as the string), read with plain code."""
    if framing == "ndjson":
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    if framing == "json-array":
        text = raw.decode().strip()
        if not text.endswith("]"):
            text = text.rstrip().rstrip(",") + "]"
        return list(json.loads(text))
    out: list[Any] = []
    for line in raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
        if line.startswith(b"data:"):
            data = line[5:].strip()
            out.append("[DONE]" if data == b"[DONE]" else json.loads(data))
    return out


def ended(family: str, events: list[Any]) -> bool:
    """Whether the family's last event is among ``events``, by each family's documented end."""
    objects = [e for e in events if type(e) is dict]
    if family == "openai":
        finished: dict[int, bool] = {}
        for e in objects:
            for c in e.get("choices") or []:
                index = c.get("index", 0)
                finished[index] = finished.get(index, False) or bool(c.get("finish_reason"))
        # Without [DONE] (dialects that send none), the usage must have come too:
        # OpenAI cut between its last finish reason and its usage chunk looks the same.
        usage = any(
            type(e.get("usage")) is dict or type((e.get("x_groq") or {}).get("usage")) is dict
            for e in objects
        )
        return "[DONE]" in events or (usage and bool(finished) and all(finished.values()))
    if family == "anthropic":
        return any(e.get("type") == "message_stop" for e in objects)
    if family == "cohere":
        return any(e.get("type") == "message-end" for e in objects)
    if family == "gemini":
        reasons: dict[int, bool] = {}
        for e in objects:
            if (e.get("promptFeedback") or {}).get("blockReason"):
                return True
            for place, c in enumerate(e.get("candidates") or []):
                index = c.get("index", place)
                reasons[index] = reasons.get(index, False) or "finishReason" in c
        return bool(reasons) and all(reasons.values())
    return any(e.get("done") is True for e in objects)


class TestCutOff:
    """A recorded stream cut at any event boundary finishes only if its last event came."""

    @pytest.mark.parametrize(("family", "path"), recorded())
    def test_every_cut(self, family: str, path: Path) -> None:
        record = json.loads(path.read_bytes())
        raw, framing = record["raw"].encode(), record["framing"]
        if any(type(e) is dict and "error" in e for e in payloads(raw, framing)):
            pytest.skip("a stream that reports an error raises at its error event")
        for cut in [*boundaries(raw, framing)[:-1], len(raw)]:
            decoder = stream(family)
            head = payloads(raw[:cut], framing)
            if cut == len(raw) or ended(family, head):
                feed_all(decoder, raw[:cut])
                decoder.finish()
                continue
            with pytest.raises(StreamError, match="ended before") as caught:
                to_the_end(decoder, [raw[:cut]])
            if head:  # a payload came: the response so far, on request
                assert caught.value.partial is not None
                assert decoder.finish(allow_incomplete=True) == caught.value.partial


class TestTruncatedCalls:
    """A call the stream ended in is invalid and says it was truncated, in every family."""

    def test_anthropic_tool_use_without_its_stop(self) -> None:
        # The issue's case: a call an agent would have run, were it not marked.
        raw = (
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
            b'"type":"message","role":"assistant","model":"claude","content":[],'
            b'"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
            b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            b'"content_block":{"type":"tool_use","id":"toolu_1","name":"delete_files","input":{}}}'
            b"\n\n"
        )
        truncated = InvalidToolCall("toolu_1", "delete_files", "", "arguments are truncated")
        decoder = stream("anthropic")
        events = feed_all(decoder, raw)
        assert events[-1] == ToolCallCompleted(0, truncated)
        with pytest.raises(StreamError, match="ended before message_stop") as caught:
            decoder.finish()
        partial = caught.value.partial
        assert partial is not None
        assert partial.message is not None
        assert partial.message.tool_calls == ()
        assert partial.message.invalid_tool_calls == (truncated,)
        assert decoder.finish(allow_incomplete=True) == partial
        # Complete arguments do not make a block without its stop a call.
        more = (
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
            b'"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"/\\"}"}}\n\n'
            b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
        )
        decoder = stream("anthropic")
        feed_all(decoder, raw + more)
        message = decoder.finish().message
        assert message is not None
        assert message.tool_calls == ()
        assert message.invalid_tool_calls[0].error == "arguments are truncated"

    def test_openai_call_with_no_arguments_yet(self) -> None:
        raw = (
            b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":'
            b'[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
            b'"function":{"name":"delete_files","arguments":""}}]},"finish_reason":null}]}\n\n'
        )
        decoder = stream("openai")
        events = feed_all(decoder, raw)
        truncated = InvalidToolCall("call_1", "delete_files", "", "arguments are truncated")
        assert events[-1] == ToolCallCompleted(0, truncated)
        message = decoder.finish(allow_incomplete=True).message
        assert message is not None
        assert message.invalid_tool_calls == (truncated,)

    def test_gemini_streamed_call_never_closed(self) -> None:
        raw = (
            b'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":'
            b'{"name":"delete_files","willContinue":true}}]}}]}\n\n'
        )
        decoder = stream("gemini")
        events = feed_all(decoder, raw)
        assert type(events[-1]) is ToolCallCompleted
        call = events[-1].call
        assert isinstance(call, InvalidToolCall)
        assert call.error == "arguments are truncated"
        with pytest.raises(StreamError, match="finishReason"):
            decoder.finish()


NOT_FRAMING = [
    pytest.param(b"", id="empty"),
    pytest.param(b"\r\n\r\n", id="blank"),
    pytest.param(b": keep-alive\n\n", id="comment-only"),
    pytest.param(b"<html>502 Bad Gateway</html>", id="html-one-line"),
    pytest.param(
        b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n\r\n<body>nginx</body>\r\n"
        b"</html>\r\n",
        id="html-page",
    ),
    pytest.param(b"Internal Server Error", id="plain-text"),
    pytest.param(b"upstream request timeout\n", id="plain-line"),
]


class TestNotTheFraming:
    """Bytes that are not a stream of the family raise, at once or at the end."""

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("raw", NOT_FRAMING)
    def test_raises(self, family: str, raw: bytes) -> None:
        decoder = stream(family)
        with pytest.raises(StreamError):
            to_the_end(decoder, [raw], allow_incomplete=True)

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("raw", NOT_FRAMING)
    def test_raises_byte_by_byte(self, family: str, raw: bytes) -> None:
        decoder = stream(family)
        with pytest.raises(StreamError):
            to_the_end(decoder, [raw[i : i + 1] for i in range(len(raw))], allow_incomplete=True)


class TestErrorEvents:
    """A provider's error inside a stream: its type and code as attributes, not only text."""

    @pytest.mark.parametrize(
        ("family", "raw", "kind", "code"),
        [
            (
                "openai",
                b'data: {"error":{"message":"x","type":"server_error","code":"overloaded"}}\n\n',
                "server_error",
                "overloaded",
            ),
            (
                "openai",
                b'event: error\ndata: {"error":{"message":"x","type":"invalid_request_error",'
                b'"code":400}}\n\n',
                "invalid_request_error",
                400,
            ),
            (
                "anthropic",
                b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
                b'"message":"Overloaded"}}\n\n',
                "overloaded_error",
                None,
            ),
            (
                "gemini",
                b'data: {"error":{"code":503,"message":"x","status":"UNAVAILABLE"}}\n\n',
                "UNAVAILABLE",
                503,
            ),
            (
                "ollama",
                b'{"error":{"type":"server_error","code":500,"message":"x"}}\n',
                "server_error",
                500,
            ),
            ("ollama", b'{"error":"model not found"}\n', None, None),
        ],
    )
    def test_attributes(self, family: str, raw: bytes, kind: str | None, code: Any) -> None:
        decoder = stream(family)
        with pytest.raises(StreamError) as caught:
            decoder.feed(raw)
        error = caught.value
        assert (error.provider, error.type, error.code, error.limit) == (family, kind, code, None)
        assert "message" not in str(error)
        assert " x" not in str(error)
        with pytest.raises(StreamError) as again:
            decoder.finish()
        assert again.value is error
        copy = __import__("pickle").loads(__import__("pickle").dumps(error))
        assert (copy.provider, copy.type, copy.code, str(copy)) == (family, kind, code, str(error))

    @pytest.mark.parametrize(
        ("name", "kind", "code"),
        [
            (
                "groq__pydantic-ai__models__test_groq__test_tool_use_failed_error_streaming__00",
                "invalid_request_error",
                "tool_use_failed",
            ),
            (
                "other__pydantic-ai__models__test_openrouter__test_openrouter_stream_error__00",
                None,
                400,
            ),
        ],
    )
    def test_recorded(self, name: str, kind: str | None, code: Any) -> None:
        raw = json.loads((STREAMS / f"{name}.json").read_bytes())["raw"].encode()
        with pytest.raises(StreamError) as caught:
            to_the_end(stream("openai"), [raw])
        error = caught.value
        assert (error.provider, error.type, error.code) == ("openai", kind, code)
        assert error.partial is not None


class TestIssueInputs:
    """Inputs that raised other exceptions: now a StreamError, or a value."""

    @pytest.mark.parametrize(
        ("family", "raw"),
        [
            ("openai", b"data: " + b"[" * 1000 + b"\n\n"),
            ("anthropic", b"data: " + b"[" * 1000 + b"\n\n"),
            ("gemini", b"data: " + b"[" * 1000 + b"\n\n"),
            ("gemini", b'data: {"usageMetadata":' + b'{"a":' * 1000 + b"\n\n"),
            ("gemini", b'data: {"usageMetadata":' + b'{"a":' * 1000 + b"1" + b"}" * 1001 + b"\n\n"),
            ("ollama", b'{"model":' + b'{"a":' * 1000 + b"\n"),
            ("ollama", b'{"model":' + b'{"a":' * 1000 + b"1" + b"}" * 1001 + b"\n"),
            ("openai", b'data: {"choices":[{"index":0,"delta":{"content":' + b"[" * 1000 + b"\n\n"),
        ],
    )
    def test_deep_nesting(self, family: str, raw: bytes) -> None:
        with pytest.raises(StreamError, match=r"nested too deeply|not JSON|must be"):
            stream(family).feed(raw)

    def test_superscript_index_is_no_index(self) -> None:
        raw = (
            b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":"\\u00b2",'
            b'"id":"call_1","function":{"name":"f","arguments":"{}"}}]},'
            b'"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
        )
        decoder = stream("openai")
        feed_all(decoder, raw)
        message = decoder.finish().message
        assert message is not None
        assert [(c.id, c.name, bytes(c.arguments)) for c in message.tool_calls] == [
            ("call_1", "f", b"{}")
        ]


class TestLimits:
    """Each decoder takes the limits as keywords; past one, a StreamError naming it."""

    @pytest.mark.parametrize("family", FAMILIES)
    def test_max_line(self, family: str) -> None:
        head = b'{"model":"' if family == "ollama" else b'data: {"x":"'
        decoder = stream(family, max_line=1000)
        assert decoder.feed(head + b"x" * 900) == []
        with pytest.raises(StreamError, match="max_line=1000") as caught:
            decoder.feed(b"x" * 200)
        assert (caught.value.limit, caught.value.partial) == ("max_line", None)
        with pytest.raises(StreamError) as again:
            decoder.feed(b"\n\n")
        assert again.value is caught.value

    @pytest.mark.parametrize("family", ["openai", "anthropic", "gemini"])
    def test_max_event(self, family: str) -> None:
        decoder = stream(family, max_line=100, max_event=1000)
        with pytest.raises(StreamError, match="max_event=1000") as caught:
            decoder.feed(b"".join(b": " + b"x" * 90 + b"\n" for _ in range(20)))
        assert caught.value.limit == "max_event"

    def test_max_arguments(self) -> None:
        def chunk(call: str) -> bytes:
            return (
                b'data: {"choices":[{"index":0,"delta":{"tool_calls":['
                + call.encode()
                + b"]}}]}\n\n"
            )

        start = chunk('{"index":0,"id":"c","function":{"name":"f","arguments":"{\\"a\\":\\""}}')
        more = chunk('{"index":0,"function":{"arguments":"' + "x" * 50 + '"}}')
        decoder = stream("openai", max_arguments=500)
        decoder.feed(start + more * 9)
        with pytest.raises(StreamError, match="max_arguments=500") as caught:
            decoder.feed(more * 2)
        assert caught.value.limit == "max_arguments"

    def test_max_arguments_anthropic(self) -> None:
        start = (
            b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            b'"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n'
        )
        more = (
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
            b'"delta":{"type":"input_json_delta","partial_json":"' + b"x" * 50 + b'"}}\n\n'
        )
        decoder = stream("anthropic", max_arguments=120)
        with pytest.raises(StreamError, match="max_arguments=120"):
            decoder.feed(start + more * 3)

    @pytest.mark.parametrize("family", FAMILIES)
    def test_max_tool_calls(self, family: str) -> None:
        def call(i: int) -> bytes:
            name = f'"name":"f{i}"'
            if family == "openai":
                return (
                    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,'
                    b'"id":"c%d","function":{%s,"arguments":"{}"}}]}}]}\n\n' % (i, i, name.encode())
                )
            if family == "anthropic":
                return (
                    b'event: content_block_start\ndata: {"type":"content_block_start","index":%d,'
                    b'"content_block":{"type":"tool_use","id":"t%d",%s,"input":{}}}\n\n'
                    % (i, i, name.encode())
                )
            if family == "gemini":
                return (
                    b'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":'
                    b'{%s,"args":{}}}]}}]}\n\n' % name.encode()
                )
            if family == "openai-responses":
                return (
                    b'data: {"type":"response.output_item.added","output_index":%d,"item":'
                    b'{"type":"function_call","call_id":"c%d",%s,"arguments":""}}\n\n'
                    % (i, i, name.encode())
                )
            if family == "cohere":
                return (
                    b'event: tool-call-start\ndata: {"type":"tool-call-start","index":%d,"delta":'
                    b'{"message":{"tool_calls":{"id":"c%d","type":"function","function":{%s,'
                    b'"arguments":""}}}}}\n\n' % (i, i, name.encode())
                )
            return (
                b'{"model":"m","message":{"role":"assistant","content":"","tool_calls":'
                b'[{"function":{%s,"arguments":{}}}]},"done":false}\n' % name.encode()
            )

        decoder = stream(family, max_tool_calls=5)
        decoder.feed(b"".join(call(i) for i in range(5)))
        with pytest.raises(StreamError, match="max_tool_calls=5") as caught:
            decoder.feed(call(5))
        assert caught.value.limit == "max_tool_calls"

    @pytest.mark.parametrize("family", ["openai", "anthropic"])
    def test_memory_is_freed(self, family: str) -> None:
        piece = "x" * 100_000
        if family == "openai":
            start = (
                b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c",'
                b'"function":{"name":"f","arguments":"{\\"a\\":\\""}}]}}]}\n\n'
            )
            more = (
                b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
                b'"function":{"arguments":"' + piece.encode() + b'"}}]}}]}\n\n'
            )
        else:
            start = (
                b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
                b'"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n'
            )
            more = (
                b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                b'"delta":{"type":"input_json_delta","partial_json":"' + piece.encode() + b'"}}\n\n'
            )
        decoder = stream(family, max_arguments=3_000_000)
        tracemalloc.start()
        try:
            decoder.feed(start)
            for _ in range(29):
                decoder.feed(more)
            held = tracemalloc.get_traced_memory()[0]
            with pytest.raises(StreamError, match="max_arguments") as caught:
                decoder.feed(more * 2)
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert caught.value.partial is None
        assert held > 2_900_000  # the arguments were held
        # and are no longer: what is left is the last read, which the error's
        # traceback (the frame of that feed) still holds.
        assert after < held - 2_000_000

    @pytest.mark.parametrize("family", FAMILIES)
    def test_defaults_take_the_recorded_streams(self, family: str) -> None:
        for path in sorted(STREAMS.glob(f"{family}__*.json")):
            record = json.loads(path.read_bytes())
            if record["framing"] not in ("sse", "ndjson", "json-array"):
                continue
            raw = record["raw"].encode()
            default = stream(family)
            tight = stream(family, max_line=len(raw), max_event=len(raw))
            assert feed_all(default, raw) == feed_all(tight, raw)
            assert default.finish() == tight.finish()


@settings(max_examples=200, deadline=None)
@given(
    family=st.sampled_from(FAMILIES),
    data=st.binary(max_size=300),
    cut=st.integers(0, 300),
)
def test_any_bytes_give_events_or_a_stream_error(family: str, data: bytes, cut: int) -> None:
    for head in (b"", b"data: ", b'data: {"', b"{", b"["):
        decoder = stream(family)
        raw = head + data
        try:
            decoder.feed(raw[:cut])
            decoder.feed(raw[cut:])
            decoder.finish()
        except StreamError:
            pass


def test_all_stream_errors_are_chatcodec_errors() -> None:
    assert issubclass(StreamError, cc.ChatCodecError)
    assert issubclass(StreamError, ValueError)


# An error the stream reports, as each family sends it: the first payload of the stream.
_REPORTED = {
    "anthropic": (
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        b'"message":"secret text"}}\n\n'
    ),
    "gemini": (
        b'data: {"error":{"code":503,"message":"secret text","status":"UNAVAILABLE"}}\r\n\r\n'
    ),
    "openai": b'data: {"error":{"message":"secret text","type":"server_error","code":500}}\n\n',
}


def _fed_in_two(decoder: Any, raw: bytes, cut: int) -> None:
    decoder.feed(raw[:cut])
    decoder.feed(raw[cut:])


@pytest.mark.parametrize(
    ("family", "message", "kind", "code"),
    [
        ("anthropic", "anthropic stream error: overloaded_error", "overloaded_error", None),
        ("gemini", "gemini stream error: UNAVAILABLE (code 503)", "UNAVAILABLE", 503),
        ("openai", "openai stream error: server_error (code 500)", "server_error", 500),
    ],
)
def test_a_reported_error_names_its_type_and_code_alike(
    family: str, message: str, kind: str, code: int | None
) -> None:
    raw = _REPORTED[family]
    for cut in range(len(raw) + 1):
        with pytest.raises(StreamError) as caught:
            _fed_in_two(stream(family), raw, cut)
        error = caught.value
        assert str(error) == message
        assert "secret" not in str(error)
        assert "secret" not in repr(error)
        assert (error.provider, error.type, error.code) == (family, kind, code)
