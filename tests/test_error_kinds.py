"""Errors as one vocabulary: every family's error read to a kind, and written in any family."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import http, providers
from chatcodec._error_kinds import ERROR_KINDS, RETRYABLE, error_kind

DATA = Path(__file__).parent / "data" / "providers"
FAMILIES = providers.NAMES
NAMELESS = ("ollama", "cohere")  # their errors carry no name: the status says the kind


class TestKinds:
    """Each family's documented names, then the status, then a message about the context."""

    @pytest.mark.parametrize(
        ("status", "type_", "code", "message", "kind"),
        [
            # OpenAI and its dialects
            (400, "invalid_request_error", "context_length_exceeded", None, "context_length"),
            (429, "insufficient_quota", "insufficient_quota", None, "quota"),
            (429, "requests", "rate_limit_exceeded", None, "rate_limit"),
            (401, "invalid_request_error", "invalid_api_key", None, "auth"),
            (404, "invalid_request_error", "model_not_found", None, "not_found"),
            (400, "invalid_request_error", "content_filter", None, "content_filter"),
            (503, "server_error", "engine_overloaded", None, "overloaded"),
            # Anthropic
            (529, "overloaded_error", None, None, "overloaded"),
            (413, "request_too_large", None, None, "request_too_large"),
            (402, "billing_error", None, None, "quota"),
            (504, "timeout_error", None, None, "timeout"),
            (400, "invalid_request_error", None, "prompt is too long: 2 > 1", "context_length"),
            # Gemini
            (429, "RESOURCE_EXHAUSTED", 429, None, "rate_limit"),
            (403, "PERMISSION_DENIED", 403, None, "permission"),
            (503, "UNAVAILABLE", 503, None, "overloaded"),
            (400, "INVALID_ARGUMENT", 400, "The input token count exceeds ...", "context_length"),
            # Bedrock
            (429, "ThrottlingException", None, None, "rate_limit"),
            (400, "ServiceQuotaExceededException", None, None, "quota"),
            (408, "ModelTimeoutException", None, None, "timeout"),
            (424, "ModelErrorException", None, None, "server"),
            (
                400,
                "ValidationException",
                None,
                "Input is too long for requested model.",
                "context_length",
            ),
            (None, "throttlingException", None, None, "rate_limit"),  # a stream's exception frame
            # the status alone (Ollama, an HTML page from a proxy)
            (404, None, None, None, "not_found"),
            (418, None, None, None, "invalid_request"),
            (599, None, None, None, "server"),
            (None, None, None, None, "unknown"),
            # a name decides over the status; an unknown name leaves it to the status
            (400, "rate_limit_error", None, None, "rate_limit"),
            (500, "something_new", None, None, "server"),
        ],
    )
    def test_table(
        self, status: int | None, type_: str | None, code: Any, message: str | None, kind: str
    ) -> None:
        assert error_kind(status, type_, code, message) == kind
        error = cc.ProviderError("x", type=type_, code=code, message=message, status=status)
        assert error.kind == kind
        assert error.retryable == (kind in RETRYABLE)

    def test_the_message_refines_only_a_general_name(self) -> None:
        # A rate limit stays one whatever its message says about tokens.
        assert (
            error_kind(429, "rate_limit_error", None, "too many tokens per minute") == "rate_limit"
        )

    @given(
        st.one_of(st.none(), st.integers(-(2**70), 2**70)),
        st.one_of(st.none(), st.text()),
        st.one_of(st.none(), st.text(), st.integers()),
        st.one_of(st.none(), st.text()),
    )
    def test_any_error_has_a_kind(self, status: Any, type_: Any, code: Any, message: Any) -> None:
        assert error_kind(status, type_, code, message) in ERROR_KINDS

    @pytest.mark.parametrize(
        "path", sorted(DATA.glob("*/error/*__http*.json")), ids=lambda path: path.name[:80]
    )
    def test_recorded_error_bodies(self, path: Path) -> None:
        family = path.parent.parent.name
        status = int(re.search(r"__http(\d+)\.json$", path.name).group(1))  # type: ignore[union-attr]
        error = http.read_error(family, status, {}, path.read_bytes())
        assert error.kind != "unknown"
        by_status = error_kind(status, None, None, None)
        # A family's own name may be more precise than its status, never another class of error.
        retry = error.kind in RETRYABLE
        assert retry == (by_status in RETRYABLE), (error.kind, by_status)

    def test_a_stream_error_event_has_a_kind(self) -> None:
        raw = (
            b'event: error\ndata: {"type":"error",'
            b'"error":{"type":"overloaded_error","message":"x"}}\n\n'
        )
        decoder = providers.get("anthropic").stream()
        with pytest.raises(cc.StreamError) as raised:
            decoder.feed(raw)
        assert raised.value.kind == "overloaded"

    def test_a_cut_stream_has_none(self) -> None:
        decoder = providers.get("anthropic").stream()
        decoder.feed(b'event: ping\ndata: {"type":"ping"}\n\n')
        with pytest.raises(cc.StreamError) as raised:
            decoder.finish()
        assert raised.value.kind is None


# One error of each kind, as a gateway of its own would make it (the default status of the kind).
STATUSES = {
    "invalid_request": 400,
    "context_length": 400,
    "content_filter": 400,
    "request_too_large": 413,
    "auth": 401,
    "permission": 403,
    "not_found": 404,
    "quota": 402,
    "rate_limit": 429,
    "overloaded": 503,
    "timeout": 504,
    "server": 500,
}

# What a family has no name for becomes its nearest: (family, kind) -> the kind read back.
NEAREST = {
    ("anthropic", "content_filter"): "invalid_request",
    ("gemini", "content_filter"): "invalid_request",
    ("gemini", "quota"): "rate_limit",
    ("bedrock", "content_filter"): "invalid_request",
    ("ollama", "content_filter"): "invalid_request",
    ("cohere", "content_filter"): "invalid_request",
}


def made(kind: str) -> cc.ProviderError:
    """An error of ``kind`` made by the caller, with its wait; its message says the kind."""
    names = {"context_length": "context_length_exceeded", "content_filter": "content_filter"}
    return cc.ProviderError(
        "gateway",
        code=names.get(kind),
        status=STATUSES[kind],
        message=f"upstream error {sorted(STATUSES).index(kind)}",
        retry_after=1.25,
    )


class TestBuildError:
    """What build_error writes, the family's own reader reads back as the same error."""

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("kind", sorted(STATUSES))
    def test_every_kind_in_every_family(self, family: str, kind: str) -> None:
        error = made(kind)
        assert error.kind == kind
        answer = http.build_error(family, error)
        back = http.read_error(family, answer.status, answer.headers, answer.body)
        assert back.kind == NEAREST.get((family, kind), kind)
        said = made(kind).message
        if kind == "context_length" and family not in ("openai", "openai-responses"):
            # No name for it but OpenAI's: the message says it, as those providers do.
            said = f"the prompt is too long for the model's context window: {said}"
        assert back.message == said
        assert back.retry_after == 1.25
        assert back.status == answer.status == STATUSES[kind]

    @pytest.mark.parametrize("source", FAMILIES)
    @pytest.mark.parametrize("target", FAMILIES)
    def test_from_family_to_family(self, source: str, target: str) -> None:
        for kind in ("rate_limit", "overloaded", "auth", "not_found", "server"):
            first = http.build_error(source, made(kind))
            upstream = http.read_error(source, first.status, first.headers, first.body)
            answer = http.build_error(target, upstream)
            back = http.read_error(target, answer.status, answer.headers, answer.body)
            assert (back.kind, back.message, back.retry_after) == (kind, made(kind).message, 1.25)

    def test_a_context_message_keeps_the_kind_everywhere(self) -> None:
        error = cc.ProviderError("openai", code="context_length_exceeded", status=400)
        for family in FAMILIES:
            answer = http.build_error(family, error)
            back = http.read_error(family, answer.status, answer.headers, answer.body)
            assert back.kind == "context_length", family

    @pytest.mark.parametrize(
        "path", sorted(DATA.glob("*/error/*__http*.json")), ids=lambda path: path.name[:80]
    )
    def test_same_family_keeps_the_providers_names(self, path: Path) -> None:
        family = path.parent.parent.name
        status = int(re.search(r"__http(\d+)\.json$", path.name).group(1))  # type: ignore[union-attr]
        upstream = http.read_error(family, status, {}, path.read_bytes())
        answer = http.build_error(family, upstream)
        back = http.read_error(family, answer.status, answer.headers, answer.body)
        assert (back.status, back.type, back.code, back.message) == (
            upstream.status,
            upstream.type,
            upstream.code,
            upstream.message,
        )

    def test_official_clients_read_it(self) -> None:
        openai = pytest.importorskip("openai")
        anthropic = pytest.importorskip("anthropic")
        httpx = pytest.importorskip("httpx")
        request = httpx.Request("POST", "http://127.0.0.1/")
        for family, client, expected in (
            ("openai", openai.OpenAI(api_key="k", base_url="http://127.0.0.1"), "RateLimitError"),
            (
                "anthropic",
                anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1"),
                "RateLimitError",
            ),
        ):
            answer = http.build_error(family, made("rate_limit"))
            response = httpx.Response(
                answer.status,
                headers=list(answer.headers.items()),
                content=answer.body,
                request=request,
            )
            error = client._make_status_error_from_response(response)
            assert type(error).__name__ == expected
            assert client._parse_retry_after_header(response.headers) == 1.25

    def test_repr_shows_no_body(self) -> None:
        answer = http.build_error("openai", made("auth"))
        assert "upstream error" not in repr(answer)
        assert re.fullmatch(
            r"HTTPResponse\(status=401, headers=.*, body=<\d+ bytes>\)", repr(answer)
        )


def first_event(family: str, stream: bytes) -> int:
    """Where the stream's first event (frame, line) ends."""
    if family == "bedrock":
        return int.from_bytes(stream[:4], "big")  # a frame's total length leads it
    if family == "ollama":
        return stream.index(b"\n") + 1
    end = re.search(rb"\r?\n\r?\n", stream)
    assert end is not None
    return end.end()


class TestBuildErrorEvent:
    """The error event ends the family's stream, and its decoder reads the kind back."""

    @pytest.mark.parametrize("family", FAMILIES)
    @pytest.mark.parametrize("kind", ["rate_limit", "overloaded", "server", "invalid_request"])
    def test_the_familys_decoder_reads_it(self, family: str, kind: str) -> None:
        event = http.build_error_event(family, made(kind))
        decoder = providers.get(family).stream()

        def run() -> None:
            decoder.feed(event)
            decoder.finish()

        with pytest.raises(cc.StreamError) as raised:
            run()
        expected = "unknown" if family in NAMELESS else kind  # Ollama's errors carry no name
        assert raised.value.kind == expected
        assert raised.value.provider == providers.get(family).NAME

    @pytest.mark.parametrize("family", FAMILIES)
    def test_after_a_translated_beginning(self, family: str) -> None:
        response = cc.Response(
            (cc.Choice(cc.assistant("Hello"), finish_reason=cc.FinishReason.STOP),), model="m"
        )
        stream = providers.get(family).encode_stream(response)
        # The first event, then the error instead of the rest.
        head = stream[: first_event(family, stream)]
        decoder = providers.get(family).stream()
        decoder.feed(head)

        def run() -> None:
            decoder.feed(http.build_error_event(family, made("overloaded")))
            decoder.finish()

        with pytest.raises(cc.StreamError) as raised:
            run()
        assert raised.value.kind == ("unknown" if family in NAMELESS else "overloaded")
        assert raised.value.partial is not None
