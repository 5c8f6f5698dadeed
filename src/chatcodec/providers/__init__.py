"""Provider codecs: each reads and writes one wire family.

Every codec is a module with the same functions, like msgspec's ``json``
and ``msgpack``:

- ``decode_request(body) -> Request`` and ``encode_request(request) -> bytes``
- ``decode_response(body) -> Response`` and ``encode_response(response) -> bytes``
- ``check_request(request) -> list[Problem]``: what the provider would refuse
- ``stream(framing=None, *, max_line=..., ...)``: a sans-IO decoder for a
  streamed response, ``feed(bytes) -> events`` and ``finish() -> Response``
- ``stream_encoder(head=None)``: a sans-IO encoder writing the family's
  stream, ``encode(event) -> bytes`` and ``finish() -> bytes``; and
  ``encode_stream(response) -> bytes``, a whole response as that stream

Same-provider round trips are lossless: what has no canonical field stays in
``extras`` under the provider's name. The encoders take ``losses=`` (a list)
to collect what a target cannot carry; :func:`chatcodec.convert` uses it.

Every family is built from one kit: the same modules for the same steps
(``_common``, ``_decode``, ``_encode``, ``_check``, ``_fast``, ``_stream``,
``_stream_encode``) over the shared parts (``_wire``, ``_fastpath``,
``_streaming``, ``_stream_writer``, ``_finish``, ``_lower``, ``_endpoints``).
docs/family-kit.md writes the kit down: what each module holds, the hints,
the losses, how a family is registered and the tests it passes.

Examples
--------
>>> from chatcodec import providers
>>> codec = providers.get("openai")
>>> body = b'{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}'
>>> request = codec.decode_request(body)
>>> request.messages[0].text
'Hi'
>>> codec.encode_request(request) == body
True
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Protocol

from .._errors import NotFoundError
from .._events import StreamEvent
from .._exchange import Request, Response
from .._framing import Framing
from .._frozen import FrozenMap
from .._loss import Loss
from .._problems import Problem

__all__ = ["ALIASES", "NAMES", "Codec", "StreamDecoder", "StreamEncoder", "get"]

NAMES = ("openai", "ollama", "anthropic", "gemini", "openai-responses", "bedrock", "cohere")
"""The codecs, one per wire family."""

ALIASES = FrozenMap(
    {
        "azure": "openai",
        "deepseek": "openai",
        "gemini-openai": "openai",
        "groq": "openai",
        "mistral": "openai",
        "openrouter": "openai",
        "vllm": "openai",
        "google": "gemini",
        "claude": "anthropic",
        "responses": "openai-responses",
    }
)
"""Services that speak another family's wire format.

A service speaking OpenAI Chat is one of its dialects: :func:`get` gives the
``openai`` codec writing that dialect (DeepSeek's ``reasoning_content``,
OpenRouter's ``reasoning_details``, Mistral's tool-call ids...), reading as
``openai`` does.
"""


class Codec(Protocol):
    """What every provider codec module provides."""

    NAME: str
    """The codec's name, also the key of its fields in ``extras``."""

    def decode_request(self, body: bytes | str, *, max_bytes: int = ...) -> Request:
        """Read a request body (``DecodeError``/``ValidationError`` if malformed).

        ``max_bytes`` (64 MiB by default) is the largest body read: a larger one
        is a ``DecodeError`` before anything is parsed.
        """

    def encode_request(self, request: Request, *, losses: list[Loss] | None = None) -> bytes:
        """Write a request body; append what cannot be carried to ``losses``."""

    def decode_response(self, body: bytes | str, *, max_bytes: int = ...) -> Response:
        """Read a response body; an error body raises ``ProviderError``.

        ``max_bytes`` as for :meth:`decode_request`.
        """

    def encode_response(self, response: Response, *, losses: list[Loss] | None = None) -> bytes:
        """Write a response body; append what cannot be carried to ``losses``."""

    def check_request(self, request: Request) -> list[Problem]:
        """What the provider would refuse with a 400, as problems."""

    def stream(
        self,
        framing: Framing | None = None,
        *,
        max_line: int | None = None,
        max_event: int | None = None,
        max_arguments: int | None = None,
        max_tool_calls: int | None = None,
    ) -> StreamDecoder:
        """A decoder for a streamed response: bytes in, events out, within the limits."""

    def stream_encoder(
        self, head: Response | None = None, *, losses: list[Loss] | None = None
    ) -> StreamEncoder:
        """An encoder writing the family's stream: events in, bytes out."""

    def encode_stream(self, response: Response, *, losses: list[Loss] | None = None) -> bytes:
        """A whole response written as the stream the family would have sent."""


class StreamDecoder(Protocol):
    """What every provider's stream decoder provides (sans-IO)."""

    def feed(self, data: bytes) -> list[StreamEvent]:
        """Take the next bytes; return the events they complete."""

    def flush(self) -> list[StreamEvent]:
        """End the input; return the events its last bytes complete."""

    def finish(self, *, allow_incomplete: bool = False) -> Response:
        """End the stream; return the whole response (raises if it was cut off)."""

    @property
    def complete(self) -> bool:
        """Whether the stream's last event came."""


class StreamEncoder(Protocol):
    """What every provider's stream encoder provides (sans-IO)."""

    def encode(self, event: StreamEvent) -> bytes:
        """Take one event; return the bytes to send for it (may be empty)."""

    def encode_all(self, events: Iterable[StreamEvent]) -> bytes:
        """Take several events; return their bytes, joined."""

    def finish(self) -> bytes:
        """End the stream; return the bytes that close it."""


def get(name: str) -> Codec:
    """Return the codec for a provider or wire family, by name.

    Parameters
    ----------
    name : str
        ``"openai"``, ``"ollama"``, ``"anthropic"``, ``"gemini"``,
        ``"openai-responses"``, ``"bedrock"``, ``"cohere"``, or a service speaking one of them
        (``"groq"``, ``"mistral"``, ``"deepseek"``, ``"responses"``...).

    Raises
    ------
    NotFoundError
        For a name that is none of these (also a ``KeyError``).

    Notes
    -----
    A service speaking OpenAI Chat (``"deepseek"``, ``"openrouter"``,
    ``"mistral"``, ``"vllm"``, ``"gemini-openai"``...) gives the ``openai``
    codec configured with its dialect: it reads as ``openai`` does and writes
    what that service takes (see :data:`chatcodec.providers.openai.DIALECTS`).
    Its ``NAME`` is ``"openai"``.
    """
    key = name.lower()
    dialect = _dialects.get(key)
    if dialect is not None:
        return dialect
    key = ALIASES.get(key, key)
    if key not in NAMES:
        raise NotFoundError(name, "codec", (*NAMES, *ALIASES))
    # A module name cannot hold "-": openai-responses lives in openai_responses.
    module: Codec = importlib.import_module(f"{__name__}.{key.replace('-', '_')}")
    return module


def _dialect_codecs() -> dict[str, Codec]:
    """One codec per OpenAI Chat dialect, made at import (they are immutable)."""
    from .openai import DIALECTS, DialectCodec

    return {name: DialectCodec(d) for name, d in DIALECTS.items() if name != "openai"}


_dialects: Mapping[str, Codec] = FrozenMap(_dialect_codecs())
