"""OpenAI Chat Completions, and the services that speak it.

One codec reads and writes ``/v1/chat/completions`` bodies of OpenAI and of
its dialects: Azure, Groq, Mistral, DeepSeek, OpenRouter, vLLM and Ollama's
``/v1``. Dialect fields (``reasoning_content``, ``reasoning_details``,
Mistral's typed content lists and ``prefix``, ``x_groq``...) are mapped where
the canonical form has a place for them and kept in ``extras["openai"]``
otherwise, so that every body round trips. Writing differs by service: a
:class:`Dialect` (see :data:`DIALECTS`) says where reasoning, signatures and
tool-call ids go, and ``providers.get("deepseek")`` gives this codec writing it.
"""

from __future__ import annotations

from ._check import check_request
from ._codec import DialectCodec
from ._common import NAME
from ._decode import decode_request
from ._decode_assistant import decode_response
from ._dialect import DIALECTS, OPENAI, Dialect
from ._encode import encode_request, encode_response
from ._stream import OpenAIStreamDecoder, stream
from ._stream_encode import OpenAIStreamEncoder, encode_stream, stream_encoder

DIALECT = OPENAI
"""The dialect this module writes: OpenAI's own."""

__all__ = [
    "DIALECT",
    "DIALECTS",
    "NAME",
    "Dialect",
    "DialectCodec",
    "OpenAIStreamDecoder",
    "OpenAIStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]
