"""Each family's HTTP endpoint: where a request goes, its headers, its error answers.

One :class:`Endpoint` per wire family, in a table (as h11 maps states to
readers and writers): the base URL, the operation's path (streaming or not,
the model in it where the family puts it there), the accept type, the header
that carries the API key, and what the family says in headers beside its
error body. The body is always the codec's own ``encode_request``; the
families that say "stream" in the body get ``Request.stream`` set.

Anthropic's beta features are switched on by the ``anthropic-beta`` header:
the ones the body uses are found in its tools and keys, from Anthropic's
documentation of each (:data:`ANTHROPIC_BETAS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

import msgspec

from .._errors import ValidationError
from .._exchange import ProviderTool, Request
from .._frozen import FrozenMap
from .._headers import usable_wait

__all__ = ["ANTHROPIC_BETAS", "ANTHROPIC_VERSION", "ENDPOINTS", "Endpoint", "anthropic_betas"]

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` sent unless another is asked for."""

ANTHROPIC_BETAS: Mapping[str, str] = FrozenMap(
    {
        # Tool types (``tools[].type``) and top-level body keys that Anthropic's
        # documentation says need a beta header, with that header's value.
        "computer_20241022": "computer-use-2024-10-22",
        "text_editor_20241022": "computer-use-2024-10-22",
        "bash_20241022": "computer-use-2024-10-22",
        "computer_20250124": "computer-use-2025-01-24",  # only the computer tool, not its peers
        "code_execution_20250522": "code-execution-2025-05-22",
        "code_execution_20250825": "code-execution-2025-08-25",
        "memory_20250818": "context-management-2025-06-27",
        "context_management": "context-management-2025-06-27",
        "mcp_servers": "mcp-client-2025-04-04",
    }
)
"""What in an Anthropic body needs which ``anthropic-beta`` value."""

_TYPE = msgspec.json.Decoder(dict[str, Any])

JSON = "application/json"
SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
EVENTSTREAM = "application/vnd.amazon.eventstream"


class Endpoint(msgspec.Struct, frozen=True):
    """One family's HTTP endpoint (see the module docstring)."""

    base_url: str
    path: Callable[[str | None, bool], str]
    accept_stream: str
    key_header: str | None  # None: the caller authenticates (Bedrock's SigV4)
    key_prefix: str = ""
    stream_in_body: bool = True
    needs_model: bool = False
    #: Read from the error answer's headers when its body does not say: the error type.
    type_header: str | None = None


def _needs(model: str | None) -> str:
    if not model:
        raise ValidationError("must be set: this family names the model in the URL", "$.model")
    return model


# Segments every client that normalizes a path removes, with the one before
# (RFC 3986 5.2.4); WHATWG URLs read "%2e%2e" as ".." too, so no escaping
# makes them safe.
_DOT_SEGMENTS = frozenset(("", ".", ".."))


def _gemini_path(model: str | None, stream: bool) -> str:
    # The model never changes which path the request goes to. "gemini-2.5-flash"
    # goes under models/; a resource name as the API lists it ("models/...",
    # "tunedModels/...", Vertex's "projects/.../models/...") keeps its segments,
    # each escaped. Any other name (an empty, "." or ".." segment) is one model
    # id under models/, escaped whole, "/" and dots too: no client reads a dot
    # segment in it, and the API answers that no such model exists.
    name = _needs(model)
    segments = name.split("/")
    if len(segments) == 1:
        path = "models/" + quote(name, safe="")
    elif _DOT_SEGMENTS.isdisjoint(segments):
        path = "/".join(quote(segment, safe="") for segment in segments)
    else:
        path = "models/" + quote(name, safe="").replace(".", "%2E")
    return f"/{path}:streamGenerateContent?alt=sse" if stream else f"/{path}:generateContent"


def _bedrock_path(model: str | None, stream: bool) -> str:
    # A model id may be an ARN ("arn:aws:bedrock:...:inference-profile/x"):
    # one path segment, so ":" and "/" are escaped too. A segment "." or ".."
    # would take the request elsewhere however it is escaped: refused.
    model_id = quote(_needs(model), safe="")
    if model_id in _DOT_SEGMENTS:
        raise ValidationError(
            "must not be '.' or '..': the model id is a segment of the URL", "$.model"
        )
    return f"/model/{model_id}/converse-stream" if stream else f"/model/{model_id}/converse"


ENDPOINTS: Mapping[str, Endpoint] = FrozenMap(
    {
        "openai": Endpoint(
            "https://api.openai.com/v1",
            lambda model, stream: "/chat/completions",
            SSE,
            "authorization",
            "Bearer ",
        ),
        "openai-responses": Endpoint(
            "https://api.openai.com/v1",
            lambda model, stream: "/responses",
            SSE,
            "authorization",
            "Bearer ",
        ),
        "anthropic": Endpoint(
            "https://api.anthropic.com",
            lambda model, stream: "/v1/messages",
            SSE,
            "x-api-key",
        ),
        "gemini": Endpoint(
            "https://generativelanguage.googleapis.com/v1beta",
            _gemini_path,
            SSE,
            "x-goog-api-key",
            stream_in_body=False,
            needs_model=True,
        ),
        "ollama": Endpoint(
            "http://localhost:11434",
            lambda model, stream: "/api/chat",
            NDJSON,
            "authorization",  # Ollama itself takes none; its cloud and proxies take a bearer key
            "Bearer ",
        ),
        "bedrock": Endpoint(
            "https://bedrock-runtime.{region}.amazonaws.com",
            _bedrock_path,
            EVENTSTREAM,
            None,
            stream_in_body=False,
            needs_model=True,
            type_header="x-amzn-errortype",
        ),
        "cohere": Endpoint(
            "https://api.cohere.com",
            lambda model, stream: "/v2/chat",
            SSE,
            "authorization",
            "Bearer ",
        ),
    }
)
"""The endpoint of each family in :data:`chatcodec.providers.NAMES`."""


def anthropic_betas(request: Request) -> list[str]:
    """The ``anthropic-beta`` values an Anthropic request's body needs, in order, once each."""
    found: list[str] = []

    def need(key: object) -> None:
        beta = ANTHROPIC_BETAS.get(key) if isinstance(key, str) else None
        if beta is not None and beta not in found:
            found.append(beta)

    for tool in request.tools:
        if type(tool) is ProviderTool and tool.provider == "anthropic":
            try:
                need(_TYPE.decode(tool.data).get("type"))
            except msgspec.DecodeError:  # a tool that is not an object: the body says so
                continue
    own = (request.extras or {}).get("anthropic")
    if isinstance(own, dict):
        for key in own:
            need(key)
    return found


def joined(values: Iterable[str]) -> str:
    """Header values joined by commas, each once, in order."""
    seen: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part and part not in seen:
                seen.append(part)
    return ",".join(seen)


def body_retry_after(name: str, body: object) -> float | None:
    """The wait an error body asks for, where the family puts one there, else None.

    Gemini (Google APIs) sends a ``google.rpc.RetryInfo`` detail whose
    ``retryDelay`` is a protobuf Duration in JSON (``"38s"``, ``"0.5s"``); a
    delay no caller can wait (see :data:`chatcodec._headers.MAX_WAIT`) is None.
    """
    if name != "gemini" or type(body) is not dict or type(body.get("error")) is not dict:
        return None
    details = body["error"].get("details")
    for detail in details if type(details) is list else ():
        if type(detail) is dict and str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = detail.get("retryDelay")
            if type(delay) is str and delay.endswith("s"):
                try:
                    seconds = float(delay[:-1])
                except ValueError:
                    return None
                return usable_wait(seconds)
    return None
