"""What a provider's error means, whatever family sent it: one kind per error.

Each family names its errors its own way: OpenAI a ``type`` and a ``code``
(``insufficient_quota``, ``context_length_exceeded``), Anthropic a ``type``
(``overloaded_error``), Gemini a gRPC status (``RESOURCE_EXHAUSTED``), Bedrock
an exception name (``ThrottlingException``), Ollama and Cohere only the HTTP status. A
retry loop or a gateway needs one answer: may I retry, and is it my request,
my key, my quota or the provider? :func:`error_kind` reads the provider's own
names first, then the HTTP status, then (for the one case no family names,
a prompt over the model's context) the provider's message.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal, get_args

__all__ = ["ERROR_KINDS", "RETRYABLE", "ErrorKind", "error_kind"]

ErrorKind = Literal[
    "invalid_request",
    "context_length",
    "content_filter",
    "request_too_large",
    "auth",
    "permission",
    "not_found",
    "quota",
    "rate_limit",
    "overloaded",
    "timeout",
    "server",
    "unknown",
]
"""The kinds of :attr:`chatcodec.ProviderError.kind`."""

ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)
"""Every kind, in the order above."""

RETRYABLE = frozenset({"rate_limit", "overloaded", "timeout", "server"})
"""The kinds worth trying again, after ``retry_after`` when it is set."""

# The providers' own names for their errors (types, codes, gRPC statuses,
# exception names), from their documentation, lower-cased.
# Read-only views: this module is imported by the error tree, before _frozen.
_NAMES: MappingProxyType[str, ErrorKind] = MappingProxyType(
    {
        # OpenAI and its dialects (type or code)
        "invalid_request_error": "invalid_request",
        "invalid_request": "invalid_request",
        "context_length_exceeded": "context_length",
        "string_above_max_length": "context_length",
        "content_filter": "content_filter",
        "content_policy_violation": "content_filter",
        "invalid_prompt": "content_filter",
        "invalid_api_key": "auth",
        "authentication_error": "auth",
        "unauthorized": "auth",
        "permission_error": "permission",
        "permission_denied": "permission",
        "model_not_found": "not_found",
        "not_found_error": "not_found",
        "not_found": "not_found",
        "insufficient_quota": "quota",
        "billing_hard_limit_reached": "quota",
        "billing_error": "quota",
        "rate_limit_exceeded": "rate_limit",
        "rate_limit_error": "rate_limit",
        "rate_limited": "rate_limit",
        "tokens": "rate_limit",
        "requests": "rate_limit",
        "engine_overloaded": "overloaded",
        "overloaded_error": "overloaded",
        "server_error": "server",
        "api_error": "server",
        "internal_error": "server",
        "timeout_error": "timeout",
        "timeout": "timeout",
        "request_too_large": "request_too_large",
        # Gemini (gRPC status names)
        "invalid_argument": "invalid_request",
        "failed_precondition": "invalid_request",
        "out_of_range": "invalid_request",
        "unauthenticated": "auth",
        "resource_exhausted": "rate_limit",
        "unavailable": "overloaded",
        "deadline_exceeded": "timeout",
        "internal": "server",
        "unknown": "server",
        "aborted": "server",
        # Bedrock (exception names)
        "validationexception": "invalid_request",
        "accessdeniedexception": "permission",
        "unrecognizedclientexception": "auth",
        "expiredtokenexception": "auth",
        "invalidsignatureexception": "auth",
        "resourcenotfoundexception": "not_found",
        "throttlingexception": "rate_limit",
        "servicequotaexceededexception": "quota",
        "modelnotreadyexception": "overloaded",
        "serviceunavailableexception": "overloaded",
        "modeltimeoutexception": "timeout",
        "internalserverexception": "server",
        "modelerrorexception": "server",
        "modelstreamerrorexception": "server",
    }
)

_STATUSES: MappingProxyType[int, ErrorKind] = MappingProxyType(
    {
        400: "invalid_request",
        401: "auth",
        402: "quota",
        403: "permission",
        404: "not_found",
        408: "timeout",
        413: "request_too_large",
        422: "invalid_request",
        424: "server",
        429: "rate_limit",
        498: "auth",  # Cohere's invalid token
        499: "unknown",  # Cohere's request cancelled by the client
        500: "server",
        502: "server",
        503: "overloaded",
        504: "timeout",
        529: "overloaded",
    }
)

_GENERAL = frozenset({None, "invalid_request", "server"})

# What the providers say when a prompt is longer than the model takes: none
# of them has a name of its own for it but OpenAI.
_TOO_LONG = (
    "context length",
    "context window",
    "prompt is too long",
    "input is too long",
    "too many input tokens",
    "too many tokens",
    "input token count",
    "exceeds the maximum number of tokens",
    "maximum context",
    "context_length",
)


def error_kind(
    status: int | None, type: str | None, code: str | int | None, message: str | None
) -> ErrorKind:
    """The kind of a provider's error, from its names, its status and its message.

    A specific name (a code, then a type) decides. A general one
    (``invalid_request_error``, ``server_error``, ``ValidationException``,
    ``INVALID_ARGUMENT``) gives way to a status that says more (413, 429, 503,
    504...), and then to a message that says the prompt is over the model's
    context; with no name, the HTTP status decides.

    Examples
    --------
    >>> error_kind(429, "insufficient_quota", "insufficient_quota", None)
    'quota'
    >>> error_kind(400, "invalid_request_error", None, "prompt is too long: 210000 tokens")
    'context_length'
    >>> error_kind(503, None, None, None), error_kind(None, None, None, None)
    ('overloaded', 'unknown')
    """
    kind: ErrorKind | None = None
    for name in (code, type):
        if isinstance(name, str):
            kind = _NAMES.get(name.lower())
            if kind is not None:
                break
    if status is not None and kind in _GENERAL:
        # A general name (invalid_request_error, server_error) with a status
        # that says more (413, 503, 504): the status is the more precise.
        by_status = _STATUSES.get(status)
        if by_status is not None and by_status not in _GENERAL:
            kind = by_status
    if kind is None and status is not None:
        kind = _STATUSES.get(status)
        if kind is None and 500 <= status < 600:
            kind = "server"
        elif kind is None and 400 <= status < 500:
            kind = "invalid_request"
    if kind in (None, "invalid_request") and message is not None:
        lowered = message.lower()
        if any(words in lowered for words in _TOO_LONG):
            return "context_length"
    return kind or "unknown"
