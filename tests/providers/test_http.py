"""HTTP without I/O (chatcodec.http): each family's request, answer and error.

The last class sends each family's built request to a local HTTP server with
httpx and reads the recorded answer back through chatcodec.
"""

from __future__ import annotations

import json
import pickle
import re
import threading
from base64 import b64decode
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from corpus import DATA, STREAMS, corpus, needs_corpus
from hypothesis import example, given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import ProviderError, http, providers

REQUEST = cc.Request((cc.user("Weather in Paris?"),), model="m-1", max_tokens=64)
KEY = "sk-test-0123456789"

# What WHATWG URLs (browsers, fetch) read as a dot segment; RFC 3986 clients read the first two.
DOT_SEGMENTS = {".", "..", "%2e", ".%2e", "%2e.", "%2e%2e"}


def model_path(family: str, model: str, stream: bool = False) -> list[str]:
    """The segments of the URL path after the base URL, as sent for ``model``."""
    request = msgspec.structs.replace(REQUEST, model=model)
    url = http.build_request(family, request, stream=stream).url
    root = http.base_url(family)
    assert url.startswith(root + "/")
    path, _, query = url[len(root) + 1 :].partition("?")
    assert "#" not in url
    assert query in ("", "alt=sse")
    return path.split("/")


def status_of(path: Path) -> int:
    found = re.search(r"__http(\d{3})", path.name)
    return int(found.group(1)) if found else 500


def error_files() -> list[Any]:
    return [
        pytest.param(family, path, id=f"{family}-{path.stem[:60]}")
        for family in providers.NAMES
        for path in sorted((DATA / family / "error").glob("*.json"))
    ]


def raw_stream(path: Path) -> bytes:
    data = json.loads(path.read_bytes())
    if data.get("raw_base64"):
        return b64decode(data["raw_base64"])
    raw: str = data["raw"]
    return raw.encode()


class TestBuildRequest:
    """Method, URL, headers and body for each family, streaming or not."""

    @pytest.mark.parametrize(
        ("family", "url", "accept"),
        [
            ("openai", "https://api.openai.com/v1/chat/completions", "text/event-stream"),
            ("openai-responses", "https://api.openai.com/v1/responses", "text/event-stream"),
            ("anthropic", "https://api.anthropic.com/v1/messages", "text/event-stream"),
            ("ollama", "http://localhost:11434/api/chat", "application/x-ndjson"),
        ],
    )
    def test_stream_in_the_body(self, family: str, url: str, accept: str) -> None:
        plain = http.build_request(family, REQUEST, api_key=KEY)
        streamed = http.build_request(family, REQUEST, api_key=KEY, stream=True)
        assert plain.method == streamed.method == "POST"
        assert plain.url == streamed.url == url
        assert plain.headers["Accept"] == "application/json"
        assert streamed.headers["accept"] == accept
        assert plain.headers["content-type"] == "application/json"
        assert json.loads(streamed.body)["stream"] is True
        # Ollama streams unless told not to; the others do not stream by default.
        assert json.loads(plain.body).get("stream") is (False if family == "ollama" else None)
        assert (plain.stream, streamed.stream) == (False, True)
        codec = providers.get(family)
        assert codec.decode_request(plain.body).messages == REQUEST.messages

    def test_gemini_puts_the_model_and_the_operation_in_the_path(self) -> None:
        plain = http.build_request("gemini", REQUEST, api_key=KEY)
        streamed = http.build_request("gemini", REQUEST, api_key=KEY, stream=True)
        root = "https://generativelanguage.googleapis.com/v1beta/models/m-1"
        assert plain.url == root + ":generateContent"
        assert streamed.url == root + ":streamGenerateContent?alt=sse"
        assert streamed.headers["accept"] == "text/event-stream"
        assert plain.body == streamed.body
        assert "stream" not in json.loads(plain.body)
        tuned = msgspec.structs.replace(REQUEST, model="tunedModels/my-model")
        assert http.build_request("gemini", tuned).url.endswith(
            "/v1beta/tunedModels/my-model:generateContent"
        )

    def test_bedrock_escapes_the_model_id_as_one_segment(self) -> None:
        arn = "arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude-v1:0"
        request = msgspec.structs.replace(REQUEST, model=arn, stream=True)
        plain = http.build_request("bedrock", request, stream=False, region="eu-west-3")
        streamed = http.build_request("bedrock", request)
        escaped = (
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fus.anthropic.claude-v1%3A0"
        )
        root = f"https://bedrock-runtime.eu-west-3.amazonaws.com/model/{escaped}"
        assert plain.url == root + "/converse"
        assert (
            streamed.url
            == f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{escaped}/converse-stream"
        )
        assert streamed.headers["accept"] == "application/vnd.amazon.eventstream"
        assert "authorization" not in streamed.headers
        assert "stream" not in json.loads(streamed.body)

    @given(model=st.text(min_size=1), stream=st.booleans())
    @example(model="../../v1/cachedContents/x", stream=False)
    @example(model="models/../../files", stream=True)
    @example(model="tunedModels/x/./y", stream=False)
    @example(model="a//b?alt=json#frag", stream=False)
    @example(model="..", stream=False)
    @example(model="%2e%2e/x", stream=False)
    def test_gemini_keeps_the_model_in_its_place(self, model: str, stream: bool) -> None:
        """Whatever the model, the request goes to an operation of a model, under the base URL."""
        segments = model_path("gemini", model, stream)
        assert not DOT_SEGMENTS & {segment.lower() for segment in segments}
        assert all(segments)
        assert segments[-1].endswith(":streamGenerateContent" if stream else ":generateContent")

    @pytest.mark.parametrize(
        ("model", "path"),
        [
            ("gemini-2.5-flash", "models/gemini-2.5-flash"),
            ("models/gemini-2.5-flash", "models/gemini-2.5-flash"),
            ("tunedModels/my-model", "tunedModels/my-model"),
            ("projects/p/locations/l/publishers/google/models/g", None),
            ("m?x#y", "models/m%3Fx%23y"),
            ("../../v1/cachedContents/x", "models/%2E%2E%2F%2E%2E%2Fv1%2FcachedContents%2Fx"),
            ("models/../x", "models/models%2F%2E%2E%2Fx"),
            ("a//b", "models/a%2F%2Fb"),
        ],
    )
    def test_gemini_model_paths(self, model: str, path: str | None) -> None:
        assert "/".join(model_path("gemini", model)) == (path or model) + ":generateContent"

    @given(model=st.text(min_size=1).filter(lambda text: text not in (".", "..")))
    @example(model="../../model/x")
    @example(model="...")
    def test_bedrock_keeps_the_model_in_one_segment(self, model: str) -> None:
        segments = model_path("bedrock", model)
        assert len(segments) == 3
        assert segments[0] == "model"
        assert segments[1].lower() not in DOT_SEGMENTS
        assert segments[2] == "converse"

    @pytest.mark.parametrize("model", [".", ".."])
    def test_bedrock_refuses_a_dot_segment(self, model: str) -> None:
        request = msgspec.structs.replace(REQUEST, model=model)
        with pytest.raises(cc.ValidationError, match=r"must not be '\.' or '\.\.'") as raised:
            http.build_request("bedrock", request)
        assert raised.value.path == "$.model"

    def test_bedrock_is_signed_by_the_caller(self) -> None:
        auth = pytest.importorskip("botocore.auth", reason="botocore is not installed")
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        sent = http.build_request("bedrock", REQUEST, stream=True)
        aws = AWSRequest(
            method=sent.method, url=sent.url, data=sent.body, headers=dict(sent.headers)
        )
        auth.SigV4Auth(Credentials("AKIDEXAMPLE", KEY), "bedrock", "us-east-1").add_auth(aws)
        signed = http.Headers(aws.headers.items())
        assert signed["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        assert "/us-east-1/bedrock/aws4_request" in signed["authorization"]
        assert signed["content-type"] == "application/json"
        assert "authorization" in repr(signed)
        assert "AKIDEXAMPLE" not in repr(signed)

    def test_bedrock_takes_no_key(self) -> None:
        with pytest.raises(cc.ValidationError, match="signed by the caller - at `api_key`"):
            http.build_request("bedrock", REQUEST, api_key=KEY)

    @pytest.mark.parametrize("family", ["gemini", "bedrock"])
    def test_a_model_in_the_url_must_be_given(self, family: str) -> None:
        with pytest.raises(cc.ValidationError, match="model"):
            http.build_request(family, msgspec.structs.replace(REQUEST, model=None))

    @pytest.mark.parametrize(
        ("family", "header", "value"),
        [
            ("openai", "Authorization", f"Bearer {KEY}"),
            ("openai-responses", "Authorization", f"Bearer {KEY}"),
            ("ollama", "Authorization", f"Bearer {KEY}"),
            ("anthropic", "X-Api-Key", KEY),
            ("gemini", "X-Goog-Api-Key", KEY),
        ],
    )
    def test_the_key_goes_in_the_family_header(self, family: str, header: str, value: str) -> None:
        built = http.build_request(family, REQUEST, api_key=KEY)
        assert built.headers[header] == value
        assert "authorization" not in http.build_request(family, REQUEST).headers
        assert KEY not in repr(built)
        assert KEY not in str(built)
        assert KEY not in str(built.headers)

    def test_base_url_and_more_headers(self) -> None:
        built = http.build_request(
            "groq",
            REQUEST,
            api_key=KEY,
            base_url="https://api.groq.com/openai/v1/",
            headers={"Accept": "*/*", "X-Trace": "t1"},
        )
        assert built.url == "https://api.groq.com/openai/v1/chat/completions"
        assert built.headers["accept"] == "*/*"
        assert built.headers["x-trace"] == "t1"
        assert [k for k, _ in built.headers.raw()].count("accept") == 1
        assert http.base_url("openai") == "https://api.openai.com/v1"
        assert http.base_url("ollama") == "http://localhost:11434"

    def test_anthropic_version_and_betas_the_body_needs(self) -> None:
        body = {
            "model": "claude",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {"type": "computer_20250124", "name": "computer", "display_width_px": 1024,
                 "display_height_px": 768},
                {"type": "text_editor_20250124", "name": "str_replace_editor"},
                {"type": "code_execution_20250825", "name": "code_execution"},
                {"type": "memory_20250818", "name": "memory"},
            ],
            "context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]},
            "mcp_servers": [{"type": "url", "url": "https://example.com/sse", "name": "x"}],
        }  # fmt: skip
        request = providers.get("anthropic").decode_request(json.dumps(body))
        built = http.build_request("anthropic", request, betas=["interleaved-thinking-2025-05-14"])
        assert built.headers["anthropic-version"] == "2023-06-01"
        assert built.headers["anthropic-beta"].split(",") == [
            "computer-use-2025-01-24",
            "code-execution-2025-08-25",
            "context-management-2025-06-27",
            "mcp-client-2025-04-04",
            "interleaved-thinking-2025-05-14",
        ]
        assert json.loads(built.body) == body
        assert "anthropic-beta" not in http.build_request("anthropic", REQUEST).headers
        old = http.build_request("anthropic", REQUEST, anthropic_version="2023-01-01")
        assert old.headers["anthropic-version"] == "2023-01-01"

    def test_openai_stream_options_only_with_a_stream(self) -> None:
        body = (
            b'{"model":"m","messages":[{"role":"user","content":"hi"}],'
            b'"stream":true,"stream_options":{"include_usage":true}}'
        )
        request = providers.get("openai").decode_request(body)
        assert http.build_request("openai", request).body == body
        plain = json.loads(http.build_request("openai", request, stream=False).body)
        assert "stream" not in plain
        assert "stream_options" not in plain
        usage = http.build_request("openai", REQUEST, stream=True, include_usage=True)
        assert json.loads(usage.body)["stream_options"] == {"include_usage": True}

    @pytest.mark.parametrize(
        ("family", "path"),
        [
            pytest.param(family, path, id=f"{family}-{path.stem[:60]}")
            for family in providers.NAMES
            for path in sorted((DATA / family / "request").glob("*.json"))
        ],
    )
    def test_the_body_is_the_codecs_own(self, family: str, path: Path) -> None:
        codec = providers.get(family)
        request = codec.decode_request(path.read_bytes())
        if request.model is None:  # Gemini and Bedrock name it in the URL only
            request = msgspec.structs.replace(request, model="m-1")
        built = http.build_request(family, request)
        assert built.stream is bool(request.stream)
        sent = codec.decode_request(built.body)
        assert sent.messages == request.messages
        assert sent.tools == request.tools
        if family == "ollama" and request.stream is None:  # Ollama would stream
            assert json.loads(built.body) == json.loads(codec.encode_request(request)) | {
                "stream": False
            }
        else:
            assert built.body == codec.encode_request(request)

    def test_losses_are_collected(self) -> None:
        losses: list[cc.Loss] = []
        http.build_request("anthropic", msgspec.structs.replace(REQUEST, seed=7), losses=losses)
        assert [loss.path for loss in losses] == ["$.seed"]


class TestToolCallContent:
    """build_request writes an OpenAI assistant message of calls alone with the content asked."""

    REQUEST = cc.Request(
        (
            cc.user("Weather?"),
            cc.assistant(tool_calls=[cc.tool_call("t1", "w", {})]),
            cc.tool_result("t1", "9"),
        ),
        model="m",
    )

    @pytest.mark.parametrize(("option", "wire"), [("empty", ""), ("null", None), ("omit", ...)])
    def test_written(self, option: Any, wire: Any) -> None:
        for family in ("openai", "groq"):
            built = http.build_request(
                family, self.REQUEST, base_url="https://x.test/v1", tool_call_content=option
            )
            assert json.loads(built.body)["messages"][1].get("content", ...) == wire

    def test_refused(self) -> None:
        with pytest.raises(cc.ValidationError, match="only an openai target"):
            http.build_request("anthropic", self.REQUEST, tool_call_content="empty")
        with pytest.raises(cc.ValidationError, match="'omit', 'null' or 'empty'"):
            http.build_request("openai", self.REQUEST, tool_call_content="")  # type: ignore[arg-type]


class TestHeaders:
    """Case-insensitive, ordered, and credentials never shown."""

    def test_case_and_repeats(self) -> None:
        headers = http.Headers([(b"Set-Cookie", b"a=1"), ("X-Rate", "1"), ("x-rate", "2")])
        assert headers["X-RATE"] == "1, 2"
        assert headers.get("x-missing") is None
        assert "x-rate" in headers
        assert list(headers) == ["set-cookie", "x-rate"]
        assert len(headers) == 2
        assert headers.raw() == [("set-cookie", "a=1"), ("x-rate", "1"), ("x-rate", "2")]
        assert headers == http.Headers(headers.raw())
        assert dict(http.Headers({"A": "b"})) == {"a": "b"}

    @pytest.mark.parametrize("name", sorted(http.SECRET_HEADERS))
    def test_secrets_are_redacted(self, name: str) -> None:
        headers = http.Headers({name.title(): KEY, "Accept": "text/event-stream"})
        request = http.HTTPRequest("POST", "https://x/y", headers, b'{"secret":"content"}')
        for shown in (repr(headers), str(headers), repr(request), str(request)):
            assert KEY not in shown
            assert "[redacted]" in shown
            assert "content" not in shown
        assert "text/event-stream" in repr(headers)
        assert headers[name] == KEY


class TestRetryAfter:
    """Seconds, milliseconds and HTTP-dates."""

    @pytest.mark.parametrize(
        ("headers", "expected"),
        [
            ({"Retry-After": "20"}, 20.0),
            ({"retry-after": " 1.5 "}, 1.5),
            ({"Retry-After-Ms": "250"}, 0.25),
            ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
            ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
            ({"Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT"}, 30.0),
            ({"Retry-After": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),  # already past
            ({"Retry-After": "Wed, 21 Oct 2015 07:28:30 -0000"}, 30.0),
            ({"Retry-After": "-3"}, None),
            ({"Retry-After": "nan"}, None),
            ({"Retry-After": "tomorrow"}, None),
            ({}, None),
        ],
    )
    def test_forms(self, headers: dict[str, str], expected: float | None) -> None:
        assert http.retry_after(headers, now=1445412480.0) == expected

    @pytest.mark.parametrize(
        "date",
        [
            "Wed, 21 Oct 99999999999 07:28:30 GMT",  # a year past a C int: OverflowError
            "Wed, 21 Oct 99999 07:28:30 GMT",  # past datetime's year 9999
            "Wed, 99999999999 Oct 2015 07:28:30 GMT",
            "Wed, 21 Oct 2015 99999999999:28:30 GMT",
            "Wed, 21 Oct 2015 07:28:30 +9999",
        ],
    )
    def test_a_date_no_calendar_holds_is_ignored(self, date: str) -> None:
        headers = {"retry-after": date}
        assert http.retry_after(headers, now=1445412480.0) is None
        error = http.read_error("openai", 429, headers, b"{}")
        assert (error.status, error.retry_after) == (429, None)
        with pytest.raises(ProviderError) as raised:
            http.read_response("openai", 429, headers, b"{}")
        assert raised.value.retry_after is None
        with pytest.raises(ProviderError):
            http.read_stream("anthropic", 503, headers, b"")

    @pytest.mark.parametrize(
        "headers",
        [
            {"retry-after": "10000000000"},  # time.sleep(1e10) raises OverflowError
            {"retry-after": "1e300"},
            {"retry-after-ms": "1e300"},
            {"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"},
        ],
    )
    def test_a_wait_no_clock_can_sleep_is_ignored(self, headers: dict[str, str]) -> None:
        assert http.retry_after(headers, now=1445412480.0) is None
        assert http.retry_after({"retry-after": str(2**32)}) == 2**32

    def test_gemini_retry_info_no_clock_can_sleep_is_ignored(self) -> None:
        detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1e300s"}
        body = json.dumps({"error": {"code": 429, "details": [detail]}}).encode()
        assert http.read_error("gemini", 429, {}, body).retry_after is None

    def test_a_date_is_counted_from_the_clock(self) -> None:
        wait = http.retry_after({"Retry-After": "Fri, 01 Jan 2100 00:00:00 GMT"})
        assert wait is not None
        assert wait > 0

    def test_gemini_retry_info_when_the_headers_say_nothing(self) -> None:
        body = {
            "error": {
                "code": 429,
                "message": "Resource has been exhausted",
                "status": "RESOURCE_EXHAUSTED",
                "details": [
                    {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "38.5s"},
                ],
            }
        }
        raw = json.dumps(body).encode()
        assert http.read_error("gemini", 429, {}, raw).retry_after == 38.5
        assert http.read_error("gemini", 429, {"retry-after": "2"}, raw).retry_after == 2.0


class TestErrors:
    """Every family's documented error body, and bodies that are none."""

    @pytest.mark.parametrize(("family", "path"), error_files())
    def test_recorded_error_bodies(self, family: str, path: Path) -> None:
        body = path.read_bytes()
        status = status_of(path)
        parsed = json.loads(body)
        error = http.read_error(family, status, {"Retry-After": "3"}, body)
        assert (error.provider, error.status, error.retry_after) == (family, status, 3.0)
        assert error.body == parsed
        inner = parsed.get("error", parsed)
        if isinstance(inner, str):
            assert error.message == inner
        else:
            assert error.message == inner.get("message", inner.get("Message"))
        if family == "gemini":
            assert (error.type, error.code) == (inner["status"], inner["code"])
        elif family in ("openai", "openai-responses", "anthropic"):
            assert error.type == inner.get("type")
        assert error.message is not None
        assert error.message not in str(error)
        assert f"HTTP {status}" in str(error)
        with pytest.raises(ProviderError) as raised:
            http.read_response(family, status, {}, body)
        assert raised.value.status == status
        assert raised.value.message == error.message
        with pytest.raises(ProviderError):
            http.read_stream(family, status, {}, body)

    @pytest.mark.parametrize(
        ("family", "status", "headers", "body", "kind", "code", "param"),
        [
            ("openai", 400, {},
             b'{"error":{"message":"Bad","type":"invalid_request_error","param":"messages","code":"x"}}',
             "invalid_request_error", "x", "messages"),
            ("anthropic", 529, {},
             b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
             "overloaded_error", None, None),
            ("gemini", 400, {},
             b'{"error":{"code":400,"message":"Bad","status":"INVALID_ARGUMENT"}}',
             "INVALID_ARGUMENT", 400, None),
            ("ollama", 404, {}, b'{"error":"model \\"x\\" not found"}', None, None, None),
            ("bedrock", 400,
             {"X-Amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"},
             b'{"message":"Malformed input request"}', "ValidationException", None, None),
            ("bedrock", 403, {"x-amzn-errortype": "AccessDeniedException"},
             b'{"Message":"User is not authorized"}', "AccessDeniedException", None, None),
            ("bedrock", 424, {},
             b'{"__type":"com.amazon.coral#ModelErrorException","message":"Model failed"}',
             "com.amazon.coral#ModelErrorException", None, None),  # as the codec reads it
            ("openai-responses", 429, {},
             b'{"error":{"message":"Slow down","type":"rate_limit_error",'
             b'"param":null,"code":null}}',
             "rate_limit_error", None, None),
        ],
    )  # fmt: skip
    def test_documented_shapes(
        self,
        family: str,
        status: int,
        headers: dict[str, str],
        body: bytes,
        kind: str | None,
        code: Any,
        param: str | None,
    ) -> None:
        error = http.read_error(family, status, headers, body)
        assert (error.status, error.type, error.code, error.param) == (status, kind, code, param)
        assert error.message is not None
        assert error.message not in str(error)

    @pytest.mark.parametrize("family", providers.NAMES)
    @pytest.mark.parametrize(
        "body",
        [
            b"<html><body><h1>502 Bad Gateway</h1>secret-page</body></html>",
            b"",
            b"upstream secret-page",
        ],
    )
    def test_a_body_that_is_no_error_shape(self, family: str, body: bytes) -> None:
        with pytest.raises(ProviderError) as raised:
            http.read_response(family, 502, {"retry-after": "1"}, body)
        error = raised.value
        assert (error.status, error.type, error.code, error.message) == (502, None, None, None)
        assert error.retry_after == 1.0
        assert error.body is None
        assert str(error) == f"{providers.get(family).NAME} answered with an error: HTTP 502"
        assert "secret" not in repr(error)

    def test_json_that_is_no_error_shape_is_kept_as_the_body(self) -> None:
        error = http.read_error("openai", 404, {}, b'{"detail":"Not Found"}')
        assert (error.status, error.type, error.body) == (404, None, {"detail": "Not Found"})

    def test_an_error_body_with_a_2xx_status(self) -> None:
        body = b'{"error":{"message":"x","type":"server_error","code":null}}'
        with pytest.raises(ProviderError) as raised:
            http.read_response("openai", 200, {}, body)
        assert (raised.value.status, raised.value.type) == (200, "server_error")

    def test_pickles_with_status_and_retry_after(self) -> None:
        error = http.read_error(
            "anthropic", 429, {"retry-after": "4"},
            b'{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}',
        )  # fmt: skip
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is ProviderError
        assert str(back) == str(error)
        assert (back.status, back.retry_after, back.type, back.message) == (
            429,
            4.0,
            "rate_limit_error",
            "slow",
        )


class TestReadAnswers:
    """A 2xx answer is the codec's response, or its stream decoder."""

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_responses(self, family: str) -> None:
        for path in sorted((DATA / family / "response").glob("*.json"))[:3]:
            body = path.read_bytes()
            codec = providers.get(family)
            assert http.read_response(family, 200, {}, body) == codec.decode_response(body)

    def test_max_bytes(self) -> None:
        body = next((DATA / "openai" / "response").glob("*.json")).read_bytes()
        with pytest.raises(cc.DecodeError, match="max_bytes"):
            http.read_response("openai", 200, {}, body, max_bytes=10)

    @pytest.mark.parametrize("path", sorted(STREAMS.glob("anthropic__*.json"))[:2], ids=str)
    def test_a_stream(self, path: Path) -> None:
        raw = raw_stream(path)
        decoder = http.read_stream("anthropic", 200, {"content-type": "text/event-stream"})
        for at in range(0, len(raw), 97):
            decoder.feed(raw[at : at + 97])
        reference = providers.get("anthropic").stream()
        reference.feed(raw)
        assert decoder.finish(allow_incomplete=True) == reference.finish(allow_incomplete=True)

    @pytest.mark.parametrize("path", needs_corpus(corpus("openai", "response", "400")))
    def test_recorded_corpus_errors(self, path: Path | None) -> None:
        assert path is not None
        error = http.read_error("openai", 400, {}, path.read_bytes())
        assert error.status == 400
        assert error.message is not None


# -- a real HTTP round trip: httpx to a local server -------------------------------------

ANSWERS = {  # a recorded stream of each family, in tests/data/streams
    "openai": "openai__openai-python__chat_completions_streaming__"
    "test_parse_multiple_pydantic_tools",
    "openai-responses": "openai-responses__pydantic-ai__models__test_openai_responses__"
    "test_openai_responses_phase_streamed_on_part_start__00",
    "anthropic": "anthropic__anthropic-sdk-python__streaming__tool_use_response",
    "gemini": "gemini__pydantic-ai__models__test_google__test_google_model_iter_stream__00",
    "ollama": "ollama__langchaingo__llms__ollama__ollamaclient__TestClient_GenerateChat__00",
    "bedrock": "bedrock__pydantic-ai__models__test_bedrock__"
    "test_bedrock_model_stream_empty_text_delta__00",
    "cohere": "cohere__docs__tool-use-streaming__response_generation",
}


class Replay(BaseHTTPRequestHandler):
    """Answers every POST with the class's next answer; keeps what it was sent."""

    answers: ClassVar[list[tuple[int, list[tuple[str, str]], bytes]]] = []
    seen: ClassVar[list[tuple[str, str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        Replay.seen.append((self.command, self.path, dict(self.headers.items()), body))
        status, headers, answer = Replay.answers.pop(0)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        for at in range(0, len(answer), 512):  # in pieces, as a stream arrives
            self.wfile.write(answer[at : at + 512])
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads what was sent instead."""


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    Replay.answers.clear()
    Replay.seen.clear()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


class TestOverHttpx:
    """Each family's request goes through httpx to a server, and its answer comes back."""

    @pytest.mark.parametrize("family", providers.NAMES)
    def test_round_trip(self, family: str, server: str) -> None:
        httpx = pytest.importorskip("httpx", reason="httpx (the examples group) is not installed")
        codec = providers.get(family)
        body = sorted((DATA / family / "response").glob("*.json"))[0].read_bytes()
        raw = raw_stream(STREAMS / f"{ANSWERS[family]}.json")
        error = (
            b'{"error":{"message":"slow down","type":"rate_limit_error","code":429,'
            b'"status":"RESOURCE_EXHAUSTED"}}'
        )
        Replay.answers.extend(
            [
                (200, [("Content-Type", "application/json")], body),
                (200, [("Content-Type", "text/event-stream")], raw),
                (429, [("Retry-After", "7"), ("x-amzn-ErrorType", "ThrottlingException")], error),
            ]
        )
        key = None if family == "bedrock" else KEY
        with httpx.Client(timeout=10) as client:
            sent = http.build_request(family, REQUEST, api_key=key, base_url=server)
            answer = client.post(sent.url, headers=sent.headers, content=sent.body)
            response = http.read_response(
                family, answer.status_code, answer.headers, answer.content
            )
            assert response == codec.decode_response(body)

            sent = http.build_request(family, REQUEST, api_key=key, base_url=server, stream=True)
            with client.stream("POST", sent.url, headers=sent.headers, content=sent.body) as answer:
                decoder = http.read_stream(family, answer.status_code, answer.headers)
                for chunk in answer.iter_bytes():
                    decoder.feed(chunk)
            reference = codec.stream()
            reference.feed(raw)
            assert decoder.finish(allow_incomplete=True) == reference.finish(allow_incomplete=True)

            with (
                client.stream("POST", sent.url, headers=sent.headers, content=sent.body) as answer,
                pytest.raises(ProviderError) as raised,
            ):
                http.read_stream(family, answer.status_code, answer.headers, answer.read())
        assert (raised.value.status, raised.value.retry_after) == (429, 7.0)
        assert raised.value.type is not None

        plain, streamed = Replay.seen[0], Replay.seen[1]
        for (method, path, headers, got), want in zip(
            (plain, streamed),
            (
                http.build_request(family, REQUEST, api_key=key, base_url=server),
                http.build_request(family, REQUEST, api_key=key, base_url=server, stream=True),
            ),
            strict=True,
        ):
            assert method == "POST"
            assert server + path == want.url
            assert got == want.body
            sent_headers = http.Headers(headers)
            for name, value in want.headers.items():
                assert sent_headers[name] == value


# Each dialect's documented error body: (dialect, status, body, type, code, message).
DIALECT_ERRORS = [
    (  # docs.mistral.ai error glossary: a flat body
        "mistral",
        429,
        b'{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited",'
        b'"param":null,"code":"1300"}',
        "rate_limited",
        "1300",
        "Requests rate limit exceeded",
    ),
    (  # vLLM's OpenAI-compatible server (ErrorResponse): flat too, an integer code
        "vllm",
        400,
        b'{"object":"error","message":"max_tokens is too large","type":"BadRequestError",'
        b'"param":null,"code":400}',
        "BadRequestError",
        400,
        "max_tokens is too large",
    ),
    (
        "deepseek",
        401,
        b'{"error":{"message":"Authentication Fails (no such user)",'
        b'"type":"authentication_error","param":null,"code":"invalid_request_error"}}',
        "authentication_error",
        "invalid_request_error",
        "Authentication Fails (no such user)",
    ),
    (
        "groq",
        404,
        b'{"error":{"message":"The model `x` does not exist","type":"invalid_request_error",'
        b'"code":"model_not_found"}}',
        "invalid_request_error",
        "model_not_found",
        "The model `x` does not exist",
    ),
    (  # OpenRouter: a numeric code and metadata, no type
        "openrouter",
        429,
        b'{"error":{"code":429,"message":"Rate limit exceeded","metadata":{"provider_name":"x"}}}',
        None,
        429,
        "Rate limit exceeded",
    ),
    (  # Azure OpenAI: a content filter refusal, with its inner error
        "azure",
        400,
        b'{"error":{"message":"The response was filtered","type":null,"param":"prompt",'
        b'"code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}',
        None,
        "content_filter",
        "The response was filtered",
    ),
]


class TestDialectErrors:
    """Every OpenAI dialect's documented error body gives a ProviderError with type and code."""

    @pytest.mark.parametrize(
        ("dialect", "status", "body", "kind", "code", "message"),
        DIALECT_ERRORS,
        ids=[case[0] for case in DIALECT_ERRORS],
    )
    def test_read(
        self, dialect: str, status: int, body: bytes, kind: Any, code: Any, message: str
    ) -> None:
        error = http.read_error(dialect, status, {}, body)
        assert (error.status, error.type, error.code, error.message) == (
            status,
            kind,
            code,
            message,
        )
        with pytest.raises(cc.ProviderError) as caught:
            http.read_response(dialect, status, {}, body)
        assert (caught.value.type, caught.value.code) == (kind, code)
        # The body alone, as a 200 from a proxy would bring it, is an error too.
        with pytest.raises(cc.ProviderError) as caught:
            providers.get(dialect).decode_response(body)
        assert caught.value.code == code
