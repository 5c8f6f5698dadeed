"""examples/gateway.py end to end: the official SDKs as clients, recorded answers upstream.

Three uvicorn servers on 127.0.0.1 (ephemeral ports, in threads, stopped by the
fixture): the gateway, an Anthropic-shaped upstream and an OpenAI-shaped upstream, each
upstream replaying the recorded answers a test queues. The ``openai`` SDK talks to the
gateway's ``/v1/chat/completions`` (Anthropic upstream), the ``anthropic`` SDK to its
``/v1/messages`` (OpenAI upstream); SDK retries are off, so every request is sent once.
What each SDK reads is held to what chatcodec reads from the recorded answer.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import socket
import sys
import threading
import time
from base64 import b64decode
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatcodec as cc
from chatcodec import http, providers
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

for _name in ("starlette", "uvicorn", "httpx"):
    pytest.importorskip(_name, reason=f"{_name} (the examples dependency group) is not installed")
openai = pytest.importorskip("openai", reason="the openai SDK (the sdk group) is not installed")
anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK is not installed")
import uvicorn  # noqa: E402  (after the skips above)
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402

HERE = Path(__file__).parent
DATA = HERE / "data"
GATEWAY = HERE.parent / "examples" / "gateway.py"
ANTHROPIC_KEY = "sk-ant-upstream-key"
OPENAI_KEY = "sk-openai-upstream-key"
API = {"anthropic": "anthropic-messages", "openai": "openai-chat"}
STREAM_PREFIX = {"anthropic": ("anthropic__",), "openai": ("openai__", "other__", "mistral__")}


def load_gateway() -> Any:
    spec = importlib.util.spec_from_file_location("gateway", GATEWAY)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gateway"] = module
    spec.loader.exec_module(module)
    return module


gateway = load_gateway()


# -- the recorded answers -----------------------------------------------------------------


def curated_bodies(family: str) -> list[Any]:
    folder = DATA / "providers" / family / "response"
    return [pytest.param(p, id=p.stem[:70]) for p in sorted(folder.glob("*.json"))]


def curated_streams(family: str) -> list[Any]:
    paths = [
        path
        for prefix in STREAM_PREFIX[family]
        for path in sorted((DATA / "streams").glob(f"{prefix}*.json"))
        if json.loads(path.read_bytes())["framing"] == "sse"
    ]
    return [pytest.param(p, id=p.stem[:70]) for p in paths]


def recorded(family: str, kind: str) -> list[Any]:
    """The corpus's 200 bodies or SSE streams of a family, or one skipped param saying why."""
    if not HAVE_CORPUS:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")]
    with (CORPUS / "MANIFEST.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        pytest.param(CORPUS / row["path"], id=row["path"][:90])
        for row in rows
        if row["api"] == API[family]
        and row["kind"] == kind
        and (row["framing"] == "sse" if kind == "stream" else row["http_status"] == "200")
    ]


def raw_stream(path: Path) -> bytes:
    data = json.loads(path.read_bytes())
    if data.get("raw_base64"):
        return b64decode(data["raw_base64"])
    raw: str = data["raw"]
    return raw.encode()


def error_file(family: str, status: int) -> bytes:
    return next((DATA / "providers" / family / "error").glob(f"*__http{status}.json")).read_bytes()


# -- the servers --------------------------------------------------------------------------


class Replay:
    """An ASGI upstream answering each request with the next queued answer, as it came."""

    def __init__(self) -> None:
        self.answers: deque[tuple[int, dict[str, str], bytes]] = deque()
        self.seen: list[tuple[str, http.Headers, bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.seen.append((scope["path"], http.Headers(scope["headers"]), body))
        status, headers, answer = self.answers.popleft()
        pairs = [(k.encode(), v.encode()) for k, v in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": pairs})
        for at in range(0, len(answer), 700):  # in pieces, as a stream arrives
            piece = answer[at : at + 700]
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class Servers:
    """The gateway and its two upstreams, each a uvicorn server in a thread."""

    def __init__(self, structured_output: str = "native") -> None:
        self.claude = Replay()
        self.gpt = Replay()
        self._servers: list[tuple[uvicorn.Server, threading.Thread]] = []
        claude_url = self._start(self.claude, lifespan="off")
        gpt_url = self._start(self.gpt, lifespan="off")
        app = gateway.create_app(
            anthropic=gateway.Upstream("anthropic", claude_url, ANTHROPIC_KEY, structured_output),
            openai=gateway.Upstream("openai", gpt_url + "/v1", OPENAI_KEY),
            timeout=10,
        )
        self.url = self._start(app, lifespan="on")

    def _start(self, app: Any, lifespan: str) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan=lifespan)  # type: ignore[arg-type]
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        self._servers.append((server, thread))
        for _ in range(1000):  # bounded: at most ten seconds
            if server.started:
                break
            time.sleep(0.01)
        assert server.started, "a test server did not start"
        return f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        for server, _ in self._servers:
            server.should_exit = True
        for _, thread in self._servers:
            thread.join(timeout=10)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    running = Servers()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def gpt_client(servers: Servers) -> Iterator[Any]:
    with openai.OpenAI(
        base_url=servers.url + "/v1", api_key="client-key", max_retries=0, timeout=10
    ) as client:
        yield client


@pytest.fixture(scope="module")
def claude_client(servers: Servers) -> Iterator[Any]:
    with anthropic.Anthropic(
        base_url=servers.url, api_key="client-key", max_retries=0, timeout=10
    ) as client:
        yield client


USER = [{"role": "user", "content": "What is the weather in Paris?"}]
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


# -- what the SDKs read, next to what chatcodec reads ---------------------------------------


def arguments(text: str | None) -> Any:
    """Arguments as a dict, or as the text sent when it is not JSON (a call cut off)."""
    try:
        return json.loads(text or "{}")
    except ValueError:
        return text


def openai_view(completion: Any) -> tuple[Any, ...]:
    message = completion.choices[0].message
    calls = [
        (call.id, call.function.name, arguments(call.function.arguments))
        for call in message.tool_calls or []
    ]
    calls.sort(key=lambda call: isinstance(call[2], str))  # whole calls first, as chatcodec
    return message.content or "", calls, completion.choices[0].finish_reason


def canonical_openai_view(response: cc.Response) -> tuple[Any, ...]:
    calls: list[tuple[Any, ...]] = [(c.id, c.name, c.arguments_dict()) for c in response.tool_calls]
    calls += [(c.id, c.name, c.arguments) for c in response.invalid_tool_calls]
    return response.text, calls, response.choices[0].raw_finish_reason


def named_calls(response: cc.Response) -> list[tuple[Any, ...]]:
    """A source's calls by name and arguments (ids may be rewritten for the target)."""
    calls: list[tuple[Any, ...]] = [(c.name, c.arguments_dict()) for c in response.tool_calls]
    return calls + [(c.name, c.arguments) for c in response.invalid_tool_calls]


def anthropic_view(message: Any) -> tuple[Any, ...]:
    text = "".join(block.text for block in message.content if block.type == "text")
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    return text, calls, message.stop_reason


def canonical_anthropic_view(response: cc.Response) -> tuple[Any, ...]:
    calls = [(c.id, c.name, c.arguments_dict()) for c in response.tool_calls]
    return response.text, calls, response.choices[0].raw_finish_reason


def openai_stream(gpt_client: Any, **options: Any) -> Any:
    """A streamed completion as the openai SDK's own accumulator folds it."""
    state = ChatCompletionStreamState()
    chunks = gpt_client.chat.completions.create(
        model="claude-sonnet-4-5", messages=USER, stream=True, **options
    )
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.current_completion_snapshot


def translated(raw: bytes, source: str, target: str, **options: Any) -> cc.Response:
    """The stream a client of ``target`` gets for ``raw``, read back by chatcodec."""
    translator = cc.translate_stream(source, target, **options)
    out = translator.feed(raw)
    tail, _ = translator.finish()
    decoder = providers.get(target).stream()
    decoder.feed(out + tail)
    return decoder.finish(allow_incomplete=True)


# -- an OpenAI client in front of Anthropic -------------------------------------------------


class TestOpenAIClientToAnthropic:
    """The openai SDK gets OpenAI answers, streams and errors for Anthropic's."""

    def check_sent(self, servers: Servers, *, stream: bool) -> None:
        path, headers, body = servers.claude.seen[-1]
        assert path == "/v1/messages"
        assert headers["x-api-key"] == ANTHROPIC_KEY
        assert headers["anthropic-version"] == "2023-06-01"
        request = providers.get("anthropic").decode_request(body)
        assert request.messages == (cc.user(USER[0]["content"]),)
        assert request.model == "claude-sonnet-4-5"
        assert request.max_tokens == 4096
        assert bool(request.stream) is stream

    def answer(self, servers: Servers, gpt_client: Any, body: bytes) -> None:
        servers.claude.answers.append((200, {"content-type": "application/json"}, body))
        try:
            out, _ = cc.convert(body, source="anthropic", target="openai", kind="response")
        except cc.ChatCodecError:
            with pytest.raises(openai.APIStatusError) as raised:
                gpt_client.chat.completions.create(model="claude-sonnet-4-5", messages=USER)
            assert raised.value.status_code == 502
            return
        completion = gpt_client.chat.completions.create(model="claude-sonnet-4-5", messages=USER)
        expected = providers.get("openai").decode_response(out)
        assert openai_view(completion) == canonical_openai_view(expected)
        assert completion.id == expected.id
        if expected.usage is not None:
            assert completion.usage is not None
            assert completion.usage.prompt_tokens == expected.usage.prompt_tokens
            assert completion.usage.completion_tokens == expected.usage.completion_tokens
        self.check_sent(servers, stream=False)

    def stream(self, servers: Servers, gpt_client: Any, raw: bytes) -> None:
        servers.claude.answers.append((200, {"content-type": "text/event-stream"}, raw))
        try:
            expected = translated(raw, "anthropic", "openai", include_usage=True)
        except cc.StreamError:
            with pytest.raises(openai.APIError):  # the upstream's error event, passed on
                openai_stream(gpt_client)
            return
        final = openai_stream(gpt_client, stream_options={"include_usage": True})
        assert openai_view(final) == canonical_openai_view(expected)
        source = providers.get("anthropic").stream()
        source.feed(raw)
        original = source.finish(allow_incomplete=True)
        assert (final.choices[0].message.content or "") == original.text
        assert [(n, a) for _, n, a in openai_view(final)[1]] == named_calls(original)
        if expected.usage is not None:
            assert final.usage is not None
            assert final.usage.completion_tokens == expected.usage.completion_tokens
        self.check_sent(servers, stream=True)

    @pytest.mark.parametrize("path", curated_bodies("anthropic"))
    def test_curated_bodies(self, servers: Servers, gpt_client: Any, path: Path) -> None:
        self.answer(servers, gpt_client, path.read_bytes())

    @pytest.mark.parametrize("path", recorded("anthropic", "response"))
    def test_recorded_bodies(self, servers: Servers, gpt_client: Any, path: Path | None) -> None:
        assert path is not None
        self.answer(servers, gpt_client, path.read_bytes())

    @pytest.mark.parametrize("path", curated_streams("anthropic"))
    def test_curated_streams(self, servers: Servers, gpt_client: Any, path: Path) -> None:
        self.stream(servers, gpt_client, raw_stream(path))

    @pytest.mark.parametrize("path", recorded("anthropic", "stream"))
    def test_recorded_streams(self, servers: Servers, gpt_client: Any, path: Path | None) -> None:
        assert path is not None
        self.stream(servers, gpt_client, raw_stream(path))

    def test_parallel_tool_calls(self, servers: Servers, gpt_client: Any) -> None:
        path = next((DATA / "providers" / "anthropic" / "response").glob("*mixed_tools_basemodel*"))
        body = path.read_bytes()
        self.answer(servers, gpt_client, body)
        # No recorded Anthropic stream calls two tools at once: the same answer as the
        # stream Anthropic would have sent for it.
        reply = providers.get("anthropic").decode_response(body)
        servers.claude.answers.append((200, {}, providers.get("anthropic").encode_stream(reply)))
        tools = [
            {"type": "function", "function": {"name": name, "parameters": SCHEMA}}
            for name in ("get_weather", "get_time")
        ]
        final = openai_stream(gpt_client, tools=tools, parallel_tool_calls=True)
        sent = json.loads(servers.claude.seen[-1][2])
        assert [(t["name"], t["input_schema"]) for t in sent["tools"]] == [
            ("get_weather", SCHEMA),
            ("get_time", SCHEMA),
        ]
        calls = final.choices[0].message.tool_calls
        assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
            (c.id, c.name, c.arguments_dict()) for c in reply.tool_calls
        ]
        assert len(calls) == 2
        assert final.choices[0].finish_reason == "tool_calls"

    def test_a_stream_cut_off(self, servers: Servers, gpt_client: Any) -> None:
        raw = raw_stream(
            DATA / "streams" / "anthropic__anthropic-sdk-python__streaming__tool_use_response.json"
        )
        cut = raw[: raw.index(b"event: message_delta")]
        servers.claude.answers.append((200, {"content-type": "text/event-stream"}, cut))
        with pytest.raises(openai.APIError, match="cut off"):
            openai_stream(gpt_client)

    def test_an_error_inside_the_stream(self, servers: Servers, gpt_client: Any) -> None:
        raw = (
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
            b'"type":"message","role":"assistant","model":"claude","content":[],'
            b'"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
            b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            b'"content_block":{"type":"text","text":""}}\n\n'
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
            b'"delta":{"type":"text_delta","text":"Hel"}}\n\n'
            b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
            b'"message":"Overloaded"}}\n\n'
        )
        servers.claude.answers.append((200, {"content-type": "text/event-stream"}, raw))
        with pytest.raises(openai.APIError) as raised:
            openai_stream(gpt_client)
        # Anthropic's overloaded_error, in OpenAI's own names for it.
        assert (raised.value.type, raised.value.code) == ("server_error", "engine_overloaded")

    @pytest.mark.parametrize("stream", [False, True])
    def test_rate_limit(self, servers: Servers, gpt_client: Any, stream: bool) -> None:
        body = error_file("anthropic", 429)
        servers.claude.answers.append((429, {"retry-after": "20"}, body))
        with pytest.raises(openai.RateLimitError) as raised:
            gpt_client.chat.completions.create(
                model="claude-sonnet-4-5", messages=USER, stream=stream
            )
        error = raised.value
        assert error.status_code == 429
        assert error.response.headers["retry-after"] == "20"
        assert (error.type, error.code) == ("requests", "rate_limit_exceeded")
        assert error.body["message"] == json.loads(body)["error"]["message"]

    def test_bad_request(self, servers: Servers, gpt_client: Any) -> None:
        body = error_file("anthropic", 400)
        servers.claude.answers.append((400, {"content-type": "application/json"}, body))
        with pytest.raises(openai.BadRequestError) as raised:
            gpt_client.chat.completions.create(model="claude-sonnet-4-5", messages=USER)
        assert raised.value.type == "invalid_request_error"
        assert raised.value.body["message"] == json.loads(body)["error"]["message"]

    def test_an_html_error_page(self, servers: Servers, gpt_client: Any) -> None:
        servers.claude.answers.append((502, {"content-type": "text/html"}, b"<html>502</html>"))
        with pytest.raises(openai.InternalServerError) as raised:
            gpt_client.chat.completions.create(model="claude-sonnet-4-5", messages=USER)
        assert raised.value.status_code == 502

    def test_a_request_the_gateway_cannot_read(self, servers: Servers, gpt_client: Any) -> None:
        seen = len(servers.claude.seen)
        with pytest.raises(openai.BadRequestError) as raised:
            gpt_client.chat.completions.create(
                model="claude-sonnet-4-5", messages=[{"role": "wizard", "content": "hi"}]
            )
        assert "$.messages[0]" in raised.value.body["message"]
        assert len(servers.claude.seen) == seen  # never sent upstream


# -- an Anthropic client in front of OpenAI -------------------------------------------------


class TestAnthropicClientToOpenAI:
    """The anthropic SDK gets Anthropic answers, streams and errors for OpenAI's."""

    def check_sent(self, servers: Servers, *, stream: bool) -> None:
        path, headers, body = servers.gpt.seen[-1]
        assert path == "/v1/chat/completions"
        assert headers["authorization"] == f"Bearer {OPENAI_KEY}"
        request = providers.get("openai").decode_request(body)
        assert request.messages == (cc.user(USER[0]["content"]),)
        assert (request.model, request.max_tokens) == ("gpt-4o", 256)
        assert bool(request.stream) is stream

    def create(self, claude_client: Any) -> Any:
        return claude_client.messages.create(model="gpt-4o", max_tokens=256, messages=USER)

    def answer(self, servers: Servers, claude_client: Any, body: bytes) -> None:
        servers.gpt.answers.append((200, {"content-type": "application/json"}, body))
        try:
            out, _ = cc.convert(body, source="openai", target="anthropic", kind="response")
        except cc.ChatCodecError:
            with pytest.raises(anthropic.APIStatusError) as raised:
                self.create(claude_client)
            assert raised.value.status_code == 502
            return
        message = self.create(claude_client)
        expected = providers.get("anthropic").decode_response(out)
        assert anthropic_view(message) == canonical_anthropic_view(expected)
        if expected.usage is not None:
            assert message.usage.output_tokens == expected.usage.completion_tokens
        self.check_sent(servers, stream=False)

    def stream(self, servers: Servers, claude_client: Any, raw: bytes) -> None:
        servers.gpt.answers.append((200, {"content-type": "text/event-stream"}, raw))
        try:
            expected = translated(raw, "openai", "anthropic")
        except cc.StreamError:
            with (
                pytest.raises(anthropic.APIError),
                claude_client.messages.stream(
                    model="gpt-4o", max_tokens=256, messages=USER
                ) as stream,
            ):
                stream.get_final_message()
            return
        with claude_client.messages.stream(model="gpt-4o", max_tokens=256, messages=USER) as s:
            final = s.get_final_message()
        assert anthropic_view(final) == canonical_anthropic_view(expected)
        source = providers.get("openai").stream()
        source.feed(raw)
        original = source.finish(allow_incomplete=True)
        assert [(n, a) for _, n, a in anthropic_view(final)[1]] == named_calls(original)
        self.check_sent(servers, stream=True)

    @pytest.mark.parametrize("path", curated_bodies("openai"))
    def test_curated_bodies(self, servers: Servers, claude_client: Any, path: Path) -> None:
        self.answer(servers, claude_client, path.read_bytes())

    @pytest.mark.parametrize("path", recorded("openai", "response"))
    def test_recorded_bodies(self, servers: Servers, claude_client: Any, path: Path | None) -> None:
        assert path is not None
        self.answer(servers, claude_client, path.read_bytes())

    @pytest.mark.parametrize("path", curated_streams("openai"))
    def test_curated_streams(self, servers: Servers, claude_client: Any, path: Path) -> None:
        self.stream(servers, claude_client, raw_stream(path))

    @pytest.mark.parametrize("path", recorded("openai", "stream"))
    def test_recorded_streams(
        self, servers: Servers, claude_client: Any, path: Path | None
    ) -> None:
        assert path is not None
        self.stream(servers, claude_client, raw_stream(path))

    def test_parallel_tool_calls(self, servers: Servers, claude_client: Any) -> None:
        name = "openai__openai-python__chat_completions_streaming__"
        name += "test_parse_multiple_pydantic_tools"
        raw = raw_stream(DATA / "streams" / f"{name}.json")
        servers.gpt.answers.append((200, {"content-type": "text/event-stream"}, raw))
        tools = [{"name": name, "input_schema": SCHEMA} for name in ("get_weather", "get_time")]
        with claude_client.messages.stream(
            model="gpt-4o", max_tokens=256, messages=USER, tools=tools
        ) as s:
            final = s.get_final_message()
        sent = json.loads(servers.gpt.seen[-1][2])
        assert [(t["function"]["name"], t["function"]["parameters"]) for t in sent["tools"]] == [
            ("get_weather", SCHEMA),
            ("get_time", SCHEMA),
        ]
        assert sent["stream_options"] == {"include_usage": True}
        source = providers.get("openai").stream()
        source.feed(raw)
        calls = source.finish().tool_calls
        assert len(calls) == 2
        assert anthropic_view(final)[1] == [(c.id, c.name, c.arguments_dict()) for c in calls]
        assert final.stop_reason == "tool_use"

    def test_a_stream_cut_off(self, servers: Servers, claude_client: Any) -> None:
        name = (
            "openai__openai-python__chat_completions_streaming__test_parse_pydantic_model_refusal"
        )
        raw = raw_stream(DATA / "streams" / f"{name}.json")
        cut = raw[: len(raw) // 2]
        cut = cut[: cut.rindex(b"\n\n") + 2]  # whole events, the last ones missing
        servers.gpt.answers.append((200, {"content-type": "text/event-stream"}, cut))
        with (
            pytest.raises(anthropic.APIError, match="cut off"),
            claude_client.messages.stream(model="gpt-4o", max_tokens=256, messages=USER) as s,
        ):
            s.get_final_message()

    @pytest.mark.parametrize("stream", [False, True])
    def test_rate_limit(self, servers: Servers, claude_client: Any, stream: bool) -> None:
        body = error_file("openai", 429)
        servers.gpt.answers.append((429, {"retry-after-ms": "1500"}, body))
        with pytest.raises(anthropic.RateLimitError) as raised:
            claude_client.messages.create(
                model="gpt-4o", max_tokens=256, messages=USER, stream=stream
            )
        error = raised.value
        assert error.status_code == 429
        assert error.response.headers["retry-after"] == "2"
        assert error.response.headers["retry-after-ms"] == "1500"
        assert error.body["error"]["type"] == "rate_limit_error"
        assert error.body["error"]["message"] == json.loads(body)["error"]["message"]

    def test_bad_request(self, servers: Servers, claude_client: Any) -> None:
        body = error_file("openai", 400)
        servers.gpt.answers.append((400, {"content-type": "application/json"}, body))
        with pytest.raises(anthropic.BadRequestError) as raised:
            self.create(claude_client)
        upstream = json.loads(body)["error"]
        assert raised.value.body["error"]["message"] == upstream["message"]
        kind = upstream.get("type") or "invalid_request_error"
        assert raised.value.body["error"]["type"] == kind


# -- what the gateway says for itself ---------------------------------------------------


class TestGatewayItself:
    """Requests no upstream would take, upstreams that cannot be reached, missing keys."""

    def test_no_messages_is_answered_here(self, servers: Servers, gpt_client: Any) -> None:
        seen = len(servers.claude.seen)
        with pytest.raises(openai.BadRequestError) as raised:
            gpt_client.chat.completions.create(model="claude-sonnet-4-5", messages=[])
        assert "$.messages" in raised.value.body["message"]
        assert len(servers.claude.seen) == seen  # never sent upstream

    def test_an_upstream_that_cannot_be_reached(self) -> None:
        from starlette.testclient import TestClient

        with socket.socket() as free:  # a port of this machine with nothing behind it
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        upstream = gateway.Upstream("anthropic", f"http://127.0.0.1:{port}", ANTHROPIC_KEY)
        app = gateway.create_app(anthropic=upstream, timeout=5)
        with TestClient(app) as client:
            answer = client.post(
                "/v1/chat/completions", json={"model": "claude-sonnet-4-5", "messages": USER}
            )
        assert answer.status_code == 502
        message = answer.json()["error"]["message"]
        assert "the anthropic upstream at 127.0.0.1 could not be reached (ConnectError)" in message
        assert ANTHROPIC_KEY not in message

    def test_missing_keys_are_said_at_start(self, tmp_path: Path) -> None:
        import os
        import subprocess

        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        with subprocess.Popen(
            [sys.executable, str(GATEWAY), "--port", str(port)],
            stderr=subprocess.PIPE,
            env=env,
        ) as process:
            try:
                assert process.stderr is not None
                said = [process.stderr.readline() for _ in range(2)]
            finally:
                process.terminate()
                process.wait(timeout=30)
        assert b"ANTHROPIC_API_KEY is not set" in said[0]
        assert b"OPENAI_API_KEY is not set" in said[1]


# -- structured output through a forced tool ----------------------------------------------


@pytest.fixture(scope="module")
def tool_servers() -> Iterator[Servers]:
    running = Servers(structured_output="tool")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def tool_client(tool_servers: Servers) -> Iterator[Any]:
    with openai.OpenAI(
        base_url=tool_servers.url + "/v1", api_key="client-key", max_retries=0, timeout=10
    ) as client:
        yield client


class TestStructuredOutputByTool:
    """The openai SDK's parse() gets its model back from Claude answering through a tool."""

    @staticmethod
    def city_model() -> Any:
        pydantic = pytest.importorskip("pydantic")

        class City(pydantic.BaseModel):  # type: ignore[name-defined,misc]
            name: str
            people: int

        return City

    @staticmethod
    def answer(streamed: bool) -> tuple[int, dict[str, str], bytes]:
        call = cc.tool_call("toolu_01", cc.ANSWER_TOOL, {"name": "Paris", "people": 2102650})
        message = cc.AssistantMessage(None, (call,))
        response = cc.Response(
            (cc.Choice(message, cc.FinishReason.TOOL_CALLS, "tool_use"),),
            "msg_01",
            "claude-3-5-haiku-latest",
            cc.Usage(20, 9),
        )
        codec = providers.get("anthropic")
        if streamed:
            return 200, {"content-type": "text/event-stream"}, codec.encode_stream(response)
        return 200, {"content-type": "application/json"}, codec.encode_response(response)

    def check_sent(self, servers: Servers) -> None:
        _, _, body = servers.claude.seen[-1]
        sent = json.loads(body)
        assert sent["tool_choice"] == {"type": "tool", "name": cc.ANSWER_TOOL}
        (tool,) = sent["tools"]
        assert tool["name"] == cc.ANSWER_TOOL
        assert set(tool["input_schema"]["properties"]) == {"name", "people"}
        assert "output_config" not in sent

    def test_parse(self, tool_servers: Servers, tool_client: Any) -> None:
        city = self.city_model()
        tool_servers.claude.answers.append(self.answer(streamed=False))
        completion = tool_client.chat.completions.parse(
            model="claude-3-5-haiku-latest", messages=USER, response_format=city
        )
        choice = completion.choices[0]
        assert choice.message.parsed == city(name="Paris", people=2102650)
        assert choice.message.tool_calls in (None, [])
        assert choice.finish_reason == "stop"
        self.check_sent(tool_servers)

    def test_stream(self, tool_servers: Servers, tool_client: Any) -> None:
        city = self.city_model()
        tool_servers.claude.answers.append(self.answer(streamed=True))
        with tool_client.chat.completions.stream(
            model="claude-3-5-haiku-latest", messages=USER, response_format=city
        ) as stream:
            completion = stream.get_final_completion()
        assert completion.choices[0].message.parsed == city(name="Paris", people=2102650)
        assert completion.choices[0].finish_reason == "stop"
        self.check_sent(tool_servers)

    def test_a_schema_no_tool_can_take(self, tool_servers: Servers, tool_client: Any) -> None:
        listed = {"type": "json_schema", "json_schema": {"name": "l", "schema": {"type": "array"}}}
        with pytest.raises(openai.BadRequestError) as raised:
            tool_client.chat.completions.create(
                model="claude-3-5-haiku-latest", messages=USER, response_format=listed
            )
        assert "$.response_format.schema" in str(raised.value)
