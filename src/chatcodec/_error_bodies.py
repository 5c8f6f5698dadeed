"""An error written the way a family sends one: status, headers, body and stream event.

A gateway that speaks one family to its clients and another to its upstream
must answer an upstream's error (or its own) in the client's family: its HTTP
status, its body shape, its header for the wait, and, once a stream has begun,
its error event. Within one family the provider's own type, code and status
are kept; from another family the error's :attr:`~chatcodec.ProviderError.kind`
picks the family's own name for it (:data:`_NAMES`).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from ._error_kinds import ErrorKind, error_kind
from ._errors import ProviderError, StreamError
from ._eventstream import encode_message
from ._frozen import FrozenMap

__all__ = ["error_answer", "error_event"]

_JSON = msgspec.json.Encoder()

# Per family: kind -> (status, the family's type or status name, its code).
_Named = tuple[int, str | None, str | None]
_NAMES: FrozenMap[str, FrozenMap[ErrorKind, _Named]] = FrozenMap(
    {
        "openai": FrozenMap(
            {
                "invalid_request": (400, "invalid_request_error", None),
                "context_length": (400, "invalid_request_error", "context_length_exceeded"),
                "content_filter": (400, "invalid_request_error", "content_filter"),
                "request_too_large": (413, "invalid_request_error", None),
                "auth": (401, "invalid_request_error", "invalid_api_key"),
                "permission": (403, "permission_error", None),
                "not_found": (404, "invalid_request_error", "model_not_found"),
                "quota": (429, "insufficient_quota", "insufficient_quota"),
                "rate_limit": (429, "requests", "rate_limit_exceeded"),
                "overloaded": (503, "server_error", "engine_overloaded"),
                "timeout": (504, "server_error", "timeout"),
                "server": (500, "server_error", None),
                "unknown": (500, "server_error", None),
            }
        ),
        "anthropic": FrozenMap(
            {
                "invalid_request": (400, "invalid_request_error", None),
                "context_length": (400, "invalid_request_error", None),
                "content_filter": (400, "invalid_request_error", None),
                "request_too_large": (413, "request_too_large", None),
                "auth": (401, "authentication_error", None),
                "permission": (403, "permission_error", None),
                "not_found": (404, "not_found_error", None),
                "quota": (402, "billing_error", None),
                "rate_limit": (429, "rate_limit_error", None),
                "overloaded": (529, "overloaded_error", None),
                "timeout": (504, "timeout_error", None),
                "server": (500, "api_error", None),
                "unknown": (500, "api_error", None),
            }
        ),
        "gemini": FrozenMap(
            {
                "invalid_request": (400, "INVALID_ARGUMENT", None),
                "context_length": (400, "INVALID_ARGUMENT", None),
                "content_filter": (400, "INVALID_ARGUMENT", None),
                "request_too_large": (400, "INVALID_ARGUMENT", None),
                "auth": (401, "UNAUTHENTICATED", None),
                "permission": (403, "PERMISSION_DENIED", None),
                "not_found": (404, "NOT_FOUND", None),
                "quota": (429, "RESOURCE_EXHAUSTED", None),
                "rate_limit": (429, "RESOURCE_EXHAUSTED", None),
                "overloaded": (503, "UNAVAILABLE", None),
                "timeout": (504, "DEADLINE_EXCEEDED", None),
                "server": (500, "INTERNAL", None),
                "unknown": (500, "UNKNOWN", None),
            }
        ),
        "bedrock": FrozenMap(
            {
                "invalid_request": (400, "ValidationException", None),
                "context_length": (400, "ValidationException", None),
                "content_filter": (400, "ValidationException", None),
                "request_too_large": (400, "ValidationException", None),
                "auth": (403, "UnrecognizedClientException", None),
                "permission": (403, "AccessDeniedException", None),
                "not_found": (404, "ResourceNotFoundException", None),
                "quota": (400, "ServiceQuotaExceededException", None),
                "rate_limit": (429, "ThrottlingException", None),
                "overloaded": (503, "ServiceUnavailableException", None),
                "timeout": (408, "ModelTimeoutException", None),
                "server": (500, "InternalServerException", None),
                "unknown": (500, "InternalServerException", None),
            }
        ),
    }
)
_NAMES = FrozenMap(
    {
        **_NAMES,
        "openai-responses": _NAMES["openai"],
        "ollama": FrozenMap(
            {kind: (named[0], None, None) for kind, named in _NAMES["openai"].items()}
        ),
        # Cohere's errors are a message: the status says the kind (its 498 is a bad key).
        "cohere": FrozenMap(
            {
                **{kind: (named[0], None, None) for kind, named in _NAMES["openai"].items()},
                "auth": (498, None, None),
                "quota": (402, None, None),
                "invalid_request": (400, None, None),
                "context_length": (400, None, None),
            }
        ),
    }
)

# What a message says when the error came without one: the kind in words,
# worded so that reading the body back gives the same kind.
_MESSAGES: FrozenMap[ErrorKind, str] = FrozenMap(
    {
        "invalid_request": "the request is invalid",
        "context_length": "the prompt is too long for the model's context window",
        "content_filter": "the request was blocked by a content filter",
        "request_too_large": "the request is too large",
        "auth": "the API key is missing or invalid",
        "permission": "the API key may not use this resource",
        "not_found": "the model or route was not found",
        "quota": "the account is out of credit or over its quota",
        "rate_limit": "the rate limit was reached",
        "overloaded": "the model is overloaded",
        "timeout": "the model did not answer in time",
        "server": "the provider had an internal error",
        "unknown": "the provider answered with an error",
    }
)


def _same(family: str, error: ProviderError | StreamError) -> bool:
    """Whether ``error`` came from ``family`` (the two OpenAI APIs share their errors)."""
    openai = ("openai", "openai-responses")
    return error.provider == family or (family in openai and error.provider in openai)


def _parts(
    family: str, error: ProviderError | StreamError
) -> tuple[int, str | None, str | int | None, str]:
    """The status, type, code and message ``family`` writes for ``error``."""
    kind: ErrorKind = error.kind or "unknown"
    status, type_, named = _NAMES[family][kind]
    code: str | int | None = named
    if isinstance(error, ProviderError):
        message = error.message or _MESSAGES[kind]
        if error.status is not None and 400 <= error.status < 600:
            status = error.status
    else:  # chatcodec's own words for what broke, which name no content
        message = str(error)
    if _same(family, error):  # the provider's own names, as it sent them
        type_, code = error.type, error.code
    elif (
        kind == "context_length" and code is None and error_kind(None, None, None, message) != kind
    ):
        # No family but OpenAI names it: its clients (and agents that compact a
        # history when it is too long) know it by the message's words.
        message = f"{_MESSAGES[kind]}: {message}"
    return status, type_, code, message


def _param(error: ProviderError | StreamError) -> str | None:
    return error.param if isinstance(error, ProviderError) else None


def error_answer(
    family: str, error: ProviderError | StreamError
) -> tuple[int, list[tuple[str, str]], bytes]:
    """The status, headers and body ``family`` answers ``error`` with."""
    status, type_, code, message = _parts(family, error)
    headers = [("content-type", "application/json")]
    kept = error.body if isinstance(error, ProviderError) and _same(family, error) else None
    wait = error.retry_after if isinstance(error, ProviderError) else None
    if wait is not None:
        headers.append(("retry-after", str(max(0, math.ceil(wait)))))
        headers.append(("retry-after-ms", str(max(0, round(wait * 1000)))))
    body: Any
    if family == "bedrock" and type_ is not None:
        headers.append(("x-amzn-errortype", type_))
    if isinstance(kept, dict):  # the provider's own body, as it came
        body = kept
    elif family == "anthropic":
        body = {"type": "error", "error": {"type": type_, "message": message}}
    elif family == "gemini":
        inner: dict[str, Any] = {"code": status, "message": message, "status": type_}
        if wait is not None:
            delay = f"{max(0, math.ceil(wait))}s"
            inner["details"] = [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
            ]
        body = {"error": inner}
    elif family == "bedrock":
        body = {"message": message}
    elif family == "ollama":
        body = {"error": message}
    elif family == "cohere":
        body = {"message": message}
    else:
        body = {"error": {"message": message, "type": type_, "param": _param(error), "code": code}}
    return status, headers, _JSON.encode(body)


def error_event(family: str, error: ProviderError | StreamError) -> bytes:
    """The event that ends a ``family`` stream with ``error``, framed as the family frames it."""
    status, type_, code, message = _parts(family, error)
    event: dict[str, Any]
    if family == "anthropic":
        event = {"type": "error", "error": {"type": type_, "message": message}}
        return b"event: error\ndata: " + _JSON.encode(event) + b"\n\n"
    if family == "openai-responses":
        event = {
            "type": "error",
            "code": code or type_,
            "message": message,
            "param": _param(error),
            "sequence_number": 0,
        }
        return b"event: error\ndata: " + _JSON.encode(event) + b"\n\n"
    if family == "gemini":
        inner = {"code": status, "message": message, "status": type_}
        return b"data: " + _JSON.encode({"error": inner}) + b"\r\n\r\n"
    if family == "bedrock":
        name = type_ or "InternalServerException"
        headers = {
            ":message-type": "exception",
            ":exception-type": name[0].lower() + name[1:],
            ":content-type": "application/json",
        }
        return encode_message(headers, _JSON.encode({"message": message}))
    if family == "ollama":
        return _JSON.encode({"error": message}) + b"\n"
    if family == "cohere":
        # Cohere ends a stream that failed with message-end saying the error.
        event = {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": message}}
        return b"event: message-end\ndata: " + _JSON.encode(event) + b"\n\n"
    body = {"error": {"message": message, "type": type_, "param": _param(error), "code": code}}
    return b"data: " + _JSON.encode(body) + b"\n\n"
