"""The dialects of OpenAI Chat: what each service takes beyond OpenAI's own wire.

One decoder reads every dialect (their keys do not collide); writing is where
they differ. A :class:`Dialect` is a small frozen settings object the encoder
is given, and :data:`DIALECTS` holds one per service that speaks the wire:

- ``reasoning``: where an assistant message's reasoning goes back. DeepSeek
  takes ``reasoning_content`` (and requires it again, in thinking mode, on
  every assistant message with tool calls); vLLM ``reasoning`` (its older
  ``reasoning_content`` still read); OpenRouter ``reasoning_details``, a list
  of text, summary and encrypted entries, each with the ``format`` of the
  family that made it; Mistral a ``thinking`` chunk in the ``content`` list.
  OpenAI, Azure and Groq take none: the reasoning is reported.
- ``call_signatures``: Gemini's OpenAI-compatible endpoint takes a function
  call's thought signature as ``extra_content.google.thought_signature``.
- ``nine_char_ids``: Mistral takes tool-call ids of exactly nine letters and
  digits; other ids are rewritten, the same way in a call and its result.

Model switch rules (a signature is only replayed to the family that made
it): an Anthropic ``signature`` or redacted thinking, a Gemini thought
signature and a Responses ``encrypted_content`` go to OpenRouter as
``reasoning_details`` marked with their family's ``format`` (OpenRouter hands
each to that family's models), a Gemini call signature to Gemini's endpoint
as ``extra_content``; anywhere else the text goes without its signature, and
the signature is reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec

from ..._frozen import FrozenMap
from ..._loss import Loss
from .._wire import Encoding

__all__ = [
    "BY_FORMAT",
    "DIALECTS",
    "FORMATS",
    "OPENAI",
    "Dialect",
    "DialectEncoding",
    "ReasoningKey",
]

ReasoningKey = Literal["reasoning_content", "reasoning", "reasoning_details", "thinking"]


class Dialect(msgspec.Struct, frozen=True):
    """What one service speaking OpenAI Chat takes beyond OpenAI's own wire.

    Parameters
    ----------
    name : str
        The service (``"deepseek"``, ``"openrouter"``...), as
        :func:`chatcodec.providers.get` takes it.
    reasoning : str, optional
        Where reasoning goes back on an assistant message:
        ``"reasoning_content"``, ``"reasoning"``, ``"reasoning_details"``
        (OpenRouter) or ``"thinking"`` (a Mistral chunk in ``content``);
        None where the service takes none.
    call_signatures : bool, default False
        A function call's thought signature goes as
        ``extra_content.google.thought_signature`` (Gemini's endpoint).
    nine_char_ids : bool, default False
        Tool-call ids are exactly nine letters and digits (Mistral).
    base_url : str, optional
        The service's API root, for :func:`chatcodec.http.build_request`
        (None: OpenAI's, or a server only the caller knows).
    """

    name: str
    reasoning: ReasoningKey | None = None
    call_signatures: bool = False
    nine_char_ids: bool = False
    base_url: str | None = None


OPENAI = Dialect("openai")
"""OpenAI's own wire: what the encoder writes when no dialect is named."""

DIALECTS: Mapping[str, Dialect] = FrozenMap(
    {
        "openai": OPENAI,
        # Azure's v1 API lives under the caller's resource name: no root to give.
        "azure": Dialect("azure"),
        "deepseek": Dialect(
            "deepseek", reasoning="reasoning_content", base_url="https://api.deepseek.com"
        ),
        "groq": Dialect("groq", base_url="https://api.groq.com/openai/v1"),
        "mistral": Dialect(
            "mistral",
            reasoning="thinking",
            nine_char_ids=True,
            base_url="https://api.mistral.ai/v1",
        ),
        "openrouter": Dialect(
            "openrouter", reasoning="reasoning_details", base_url="https://openrouter.ai/api/v1"
        ),
        "vllm": Dialect("vllm", reasoning="reasoning", base_url="http://localhost:8000/v1"),
        "gemini-openai": Dialect(
            "gemini-openai",
            call_signatures=True,
            base_url="https://generativelanguage.googleapis.com/v1beta/openai",
        ),
    }
)
"""Every dialect, by the name :func:`chatcodec.providers.get` takes."""

# OpenRouter's reasoning_details ``format``: the family whose models made an
# entry's signature or encrypted data, and so the only one it is replayed to.
BY_FORMAT: Mapping[str, str] = FrozenMap(
    {
        "anthropic-claude-v1": "anthropic",
        "google-gemini-v1": "gemini",
        "openai-responses-v1": "openai-responses",
    }
)
FORMATS: Mapping[str, str] = FrozenMap({family: fmt for fmt, family in BY_FORMAT.items()})


class DialectEncoding(Encoding):
    """One OpenAI Chat encode: the losses, and the dialect being written."""

    __slots__ = ("dialect",)

    def __init__(self, provider: str, losses: list[Loss] | None, dialect: Dialect) -> None:
        # Encoding's two fields set here, not through super(): one encode each call.
        self.provider = provider
        self.losses = losses
        self.dialect = dialect
